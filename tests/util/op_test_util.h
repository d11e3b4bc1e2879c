// Test helpers for ops and kernels.
//
//   OpTest t;
//   ASSERT_OK(t.Init(TestNode("add", "Add").Input("x").Input("y").Attr("T", DT_FLOAT)));
//   t.AddInput(Tensor::FromVector<float>({1, 2}));
//   t.AddInput(Tensor::Scalar<float>(3));
//   ASSERT_OK(t.Run());
//   ExpectTensorEqual(t.output(0), Tensor::FromVector<float>({4, 5}));
//
// Init validates the NodeDef against the op registry (filling attr
// defaults) and creates the CPU kernel with CreateOpKernel; Run computes it
// once on a CPU device the OpTest owns (its allocator and ResourceMgr). Ref inputs are
// bound to a Var (AddVarInput) or to any tensor + mutex (AddRefInput).
// Shape functions are tested with InferShapes over a small graph.
#ifndef FLOWVM_TESTS_UTIL_OP_TEST_UTIL_H_
#define FLOWVM_TESTS_UTIL_OP_TEST_UTIL_H_

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "flowvm/graph.pb.h"
#include "flowvm/session.h"
#include "flowvm/tensor.h"
#include "graph/attr_value_util.h"
#include "graph/node_def_util.h"
#include "kernels/framework/op_kernel.h"
#include "kernels/framework/resource_mgr.h"
#include "kernels/variable.h"

// Evaluate `expr` (a Status) once; print it on failure.
#ifndef FLOWVM_ASSERT_OK
#define FLOWVM_ASSERT_OK(expr)               \
  do {                                       \
    const ::flowvm::Status _st = (expr);     \
    ASSERT_TRUE(_st.ok()) << _st;            \
  } while (0)
#define FLOWVM_EXPECT_OK(expr)               \
  do {                                       \
    const ::flowvm::Status _st = (expr);     \
    EXPECT_TRUE(_st.ok()) << _st;            \
  } while (0)
#endif

namespace flowvm::testing {

// A NodeDef under construction.
class TestNode {
 public:
  TestNode(std::string name, std::string op);
  TestNode& Input(const std::string& input);
  template <typename T>
  TestNode& Attr(const std::string& name, const T& value) {
    (*def_.mutable_attr())[name] = MakeAttrValue(value);
    return *this;
  }
  const NodeDef& def() const { return def_; }
  operator const NodeDef&() const { return def_; }  // NOLINT: implicit for convenience

 private:
  NodeDef def_;
};

class OpTest {
 public:
  OpTest();
  ~OpTest();

  // Validates the node (after adding attr defaults) and creates its kernel.
  Status Init(const NodeDef& def);

  // Inputs, in slot order.
  void AddInput(Tensor value);
  void AddRefInput(Tensor* tensor, std::mutex* mu);
  // Binds the next (ref) input to variable `name` in the default container
  // of resource_mgr(), creating it uninitialized (declared with `shape`) if
  // needed.
  std::shared_ptr<Var> AddVarInput(const std::string& name, DataType dtype,
                                   const PartialTensorShape& shape = PartialTensorShape());
  void ClearInputs();

  // When set, the next Run hands the value inputs over to the kernel (the
  // OpTest drops its own references), so the kernel may reuse their buffers.
  void set_give_inputs(bool give) { give_inputs_ = give; }

  // Threads the kernel's ParallelFor may use (default 1: all inline). Tests
  // of sharded kernels run with several to cover the split.
  void set_num_threads(int n);

  // Computes the kernel once; returns its status (outputs are kept).
  Status Run();

  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  // Output i; for a ref output, the referenced tensor's current value.
  Tensor output(int i) const;
  bool output_is_ref(int i) const { return outputs_[i].ref != nullptr; }
  const OutputSlot& output_slot(int i) const { return outputs_[i]; }

  OpKernel* kernel() const { return kernel_.get(); }
  const NodeDef& node_def() const { return def_; }
  ResourceMgr* resource_mgr() { return device_.resource_manager(); }
  DeviceBase* device() { return &device_; }

 private:
  DeviceBase device_;
  NodeDef def_;
  std::unique_ptr<OpKernel> kernel_;
  std::vector<Tensor> values_;          // value inputs (by slot; unused for refs)
  std::vector<TensorValue> inputs_;     // what the kernel sees
  std::vector<OutputSlot> outputs_;
  bool give_inputs_ = false;
  std::unique_ptr<ThreadPool> pool_;
};

// Creates and runs a kernel once; returns its outputs (ref outputs read).
StatusOr<std::vector<Tensor>> RunOpKernel(const NodeDef& def, const std::vector<Tensor>& inputs);

// A committed .npy fixture, by path relative to tests/data (e.g.
// "kernels/cwise/exp_float.npy"); fails the test (and returns an empty
// tensor) if it cannot be read.
Tensor LoadFixture(const std::string& relative_path);

// Element-wise exact equality of dtype, shape and bytes (strings by value).
void ExpectTensorEqual(const Tensor& actual, const Tensor& expected);
// Equality within `tol` (absolute + relative) for floating and complex
// types; exact for the others.
void ExpectTensorNear(const Tensor& actual, const Tensor& expected, double tol = 1e-5);

// Nodes for building shape-inference graphs.
NodeDef PlaceholderNode(const std::string& name, DataType dtype, const PartialTensorShape& shape);
NodeDef ConstNode(const std::string& name, const Tensor& value);
NodeDef VariableNode(const std::string& name, DataType dtype, const PartialTensorShape& shape);

// Builds a graph of `nodes` (as a current-version GraphDef) and returns the
// inferred output shapes of node `name`, or the conversion / inference error.
StatusOr<std::vector<PartialTensorShape>> InferShapes(const std::vector<NodeDef>& nodes, const std::string& name);

// Debug strings for failure messages: "[2,3]", "<unknown>".
std::string ShapeString(const PartialTensorShape& s);

// Asks for node i of `graph` on /device:CPU:(i mod n), so that nearly every
// edge crosses devices, except variables and the nodes that take them by
// reference (state stays where it is first put; the placer keeps those
// together). A graph that does not convert is left alone.
void SpreadOverDevices(GraphDef* graph, int n);
// FLOWVM_TEST_CPU_DEVICES (a harness option: 1 when unset). When it is 2 or
// more, SpreadOverTestDevices spreads the graph over that many devices and
// sets the session options to match (with soft placement); otherwise it
// does nothing.
int TestCpuDevices();
void SpreadOverTestDevices(GraphDef* graph, SessionOptions* options);

}  // namespace flowvm::testing

#endif  // FLOWVM_TESTS_UTIL_OP_TEST_UTIL_H_

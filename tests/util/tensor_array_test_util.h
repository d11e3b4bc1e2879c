// Graph-building helpers for the TensorArray tests (header-only): the ops
// of the TensorArrayV3 family through a GraphScope, and a session to run
// the graph in.
#ifndef FLOWVM_TESTS_UTIL_TENSOR_ARRAY_TEST_UTIL_H_
#define FLOWVM_TESTS_UTIL_TENSOR_ARRAY_TEST_UTIL_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "flowvm/session.h"
#include "graph/attr_value_util.h"
#include "graph/graph.h"
#include "graph/graph_scope.h"
#include "util/op_test_util.h"  // FLOWVM_ASSERT_OK

namespace flowvm::tensor_array_testing {

struct Ta {
  NodeOut handle;
  NodeOut flow;
};

inline NodeOut I32(const GraphScope& s, int32_t v) { return ConstOp(s, Tensor::Scalar<int32_t>(v)); }
inline NodeOut I32s(const GraphScope& s, const std::vector<int32_t>& v) {
  return ConstOp(s, Tensor::FromVector<int32_t>(v));
}
inline NodeOut I64s(const GraphScope& s, const std::vector<int64_t>& v) {
  return ConstOp(s, Tensor::FromVector<int64_t>(v));
}
inline NodeOut F32(const GraphScope& s, const std::vector<float>& v, const TensorShape& shape) {
  return ConstOp(s, Tensor::FromVector<float>(v, shape));
}
inline NodeOut F32Scalar(const GraphScope& s, float v) { return ConstOp(s, Tensor::Scalar<float>(v)); }

// A placeholder of unknown shape: its value's shape is checked by the
// kernels only, not by shape inference.
inline NodeOut Feed(const GraphScope& s, const std::string& name, DataType dtype) {
  return s.WithOpName(name).Op("Placeholder", {}, {{"dtype", MakeAttrValue(dtype)}});
}

inline Ta NewTa(const GraphScope& s, const std::string& name, NodeOut size, DataType dtype, AttrMap attrs = {}) {
  attrs["dtype"] = MakeAttrValue(dtype);
  Node* n = s.WithOpName(name).AddNode("TensorArrayV3", {size}, attrs);
  return n == nullptr ? Ta{} : Ta{NodeOut(n, 0), NodeOut(n, 1)};
}
inline Ta NewTa(const GraphScope& s, const std::string& name, int32_t size, DataType dtype, AttrMap attrs = {}) {
  return NewTa(s, name, I32(s, size), dtype, std::move(attrs));
}

inline NodeOut Write(const GraphScope& s, const std::string& name, NodeOut handle, NodeOut index, NodeOut value,
                     NodeOut flow) {
  return s.WithOpName(name).Op("TensorArrayWriteV3", {handle, index, value, flow});
}
inline NodeOut Read(const GraphScope& s, const std::string& name, NodeOut handle, NodeOut index, NodeOut flow,
                    DataType dtype = DT_FLOAT) {
  return s.WithOpName(name).Op("TensorArrayReadV3", {handle, index, flow}, {{"dtype", MakeAttrValue(dtype)}});
}
inline NodeOut Gather(const GraphScope& s, const std::string& name, NodeOut handle, NodeOut indices, NodeOut flow,
                      DataType dtype = DT_FLOAT, AttrMap attrs = {}) {
  attrs["dtype"] = MakeAttrValue(dtype);
  return s.WithOpName(name).Op("TensorArrayGatherV3", {handle, indices, flow}, attrs);
}
inline NodeOut Scatter(const GraphScope& s, const std::string& name, NodeOut handle, NodeOut indices, NodeOut value,
                       NodeOut flow) {
  return s.WithOpName(name).Op("TensorArrayScatterV3", {handle, indices, value, flow});
}
inline Node* Concat(const GraphScope& s, const std::string& name, NodeOut handle, NodeOut flow,
                    DataType dtype = DT_FLOAT, AttrMap attrs = {}) {
  attrs["dtype"] = MakeAttrValue(dtype);
  return s.WithOpName(name).AddNode("TensorArrayConcatV3", {handle, flow}, attrs);
}
inline NodeOut Split(const GraphScope& s, const std::string& name, NodeOut handle, NodeOut value, NodeOut lengths,
                     NodeOut flow) {
  return s.WithOpName(name).Op("TensorArraySplitV3", {handle, value, lengths, flow});
}
inline NodeOut Size(const GraphScope& s, const std::string& name, NodeOut handle, NodeOut flow) {
  return s.WithOpName(name).Op("TensorArraySizeV3", {handle, flow});
}
inline Node* Close(const GraphScope& s, const std::string& name, NodeOut handle) {
  return s.WithOpName(name).AddNode("TensorArrayCloseV3", {handle});
}
inline Ta Grad(const GraphScope& s, const std::string& name, NodeOut handle, NodeOut flow,
               const std::string& source = "gradients") {
  Node* n = s.WithOpName(name).AddNode("TensorArrayGradV3", {handle, flow}, {{"source", MakeAttrValue(source)}});
  return n == nullptr ? Ta{} : Ta{NodeOut(n, 0), NodeOut(n, 1)};
}

// A graph and a session over it, made on first Run.
class TaSession {
 public:
  TaSession() : root_(&graph_) {}
  const GraphScope& root() const { return root_; }
  SessionOptions& options() { return options_; }

  Status Run(const std::vector<std::string>& fetches, std::vector<Tensor>* out,
             const std::vector<std::pair<std::string, Tensor>>& feeds = {},
             const std::vector<std::string>& targets = {}) {
    if (!root_.ok()) return root_.status();
    if (session_ == nullptr) {
      GraphDef def;
      graph_.ToGraphDef(&def);
      auto made = Session::Create(options_, def);
      if (!made.ok()) return made.status();
      session_ = std::move(*made);
    }
    std::vector<Tensor> ignored;
    return session_->Run(feeds, fetches, targets, out != nullptr ? out : &ignored);
  }
  // Runs `fetch` and expects it to fail with `code` and a message that
  // contains every one of `parts`.
  void ExpectError(const std::vector<std::string>& fetches, Code code, const std::vector<std::string>& parts,
                   const std::vector<std::pair<std::string, Tensor>>& feeds = {}) {
    std::vector<Tensor> out;
    Status s = Run(fetches, &out, feeds);
    ASSERT_FALSE(s.ok()) << "expected an error containing '" << parts[0] << "'";
    EXPECT_EQ(s.code(), code) << s;
    for (const std::string& p : parts) EXPECT_NE(s.message().find(p), std::string::npos) << "'" << p << "' in " << s;
  }

 private:
  Graph graph_;
  GraphScope root_;
  SessionOptions options_;
  std::unique_ptr<Session> session_;
};

inline std::vector<float> Floats(const Tensor& t) {
  std::vector<float> v(t.flat<float>().begin(), t.flat<float>().end());
  return v;
}

}  // namespace flowvm::tensor_array_testing

#endif  // FLOWVM_TESTS_UTIL_TENSOR_ARRAY_TEST_UTIL_H_

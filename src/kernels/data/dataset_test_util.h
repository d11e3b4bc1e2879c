// Test helpers for the dataset kernels (header-only: included by the
// *_test.cc files of this folder only).
//
// Pipeline builds a GraphDef by hand: dataset ops, then an IteratorV2
// "iterator", MakeIterator "init" and IteratorGetNext "next" over the last
// dataset; Drain runs "init" and then "next" until OutOfRange.
// FakeFunctionLibrary stands in for the runtime's function library: each
// function is a std::function, run on the caller's thread.
#ifndef FLOWVM_KERNELS_DATA_DATASET_TEST_UTIL_H_
#define FLOWVM_KERNELS_DATA_DATASET_TEST_UTIL_H_

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "flowvm/graph.pb.h"
#include "flowvm/session.h"
#include "graph/attr_value_util.h"
#include "graph/op_registry.h"
#include "kernels/data/dataset.h"
#include "kernels/framework/function_runtime.h"
#include "kernels/framework/kernel_registry.h"
#include "util/op_test_util.h"

namespace flowvm::data::testing {

using Element = std::vector<Tensor>;

inline PartialTensorShape ScalarShape() { return PartialTensorShape(std::initializer_list<int64_t>{}); }
inline AttrValue TypesAttr(const DataTypeVector& t) { return MakeAttrValue(t); }
inline AttrValue ShapesAttr(const std::vector<PartialTensorShape>& s) { return MakeAttrValue(s); }
inline AttrValue FuncAttr(const std::string& name) {
  AttrValue a;
  a.mutable_func()->set_name(name);
  return a;
}

class Pipeline {
 public:
  Pipeline() { graph_.mutable_versions()->set_producer(1205); }

  NodeDef* Add(const std::string& name, const std::string& op, const std::vector<std::string>& inputs,
               const std::map<std::string, AttrValue>& attrs = {}, const std::string& device = "") {
    NodeDef* n = graph_.add_node();
    n->set_name(name);
    n->set_op(op);
    n->set_device(device);
    for (const auto& in : inputs) n->add_input(in);
    for (const auto& [k, v] : attrs) (*n->mutable_attr())[k] = v;
    return n;
  }
  std::string Const(const std::string& name, const Tensor& value, const std::string& device = "") {
    NodeDef c = flowvm::testing::ConstNode(name, value);
    c.set_device(device);
    *graph_.add_node() = c;
    return name;
  }
  // A dataset op whose output signature is given (transformations).
  std::string Dataset(const std::string& name, const std::string& op, const std::vector<std::string>& inputs,
                      const DataTypeVector& types, const std::vector<PartialTensorShape>& shapes,
                      std::map<std::string, AttrValue> attrs = {}, const std::string& device = "") {
    attrs["output_types"] = TypesAttr(types);
    attrs["output_shapes"] = ShapesAttr(shapes);
    Add(name, op, inputs, attrs, device);
    return name;
  }
  std::string Range(const std::string& name, int64_t start, int64_t stop, int64_t step = 1,
                    const std::string& device = "") {
    Const(name + "/start", Tensor::Scalar<int64_t>(start), device);
    Const(name + "/stop", Tensor::Scalar<int64_t>(stop), device);
    Const(name + "/step", Tensor::Scalar<int64_t>(step), device);
    return Dataset(name, "RangeDataset", {name + "/start", name + "/stop", name + "/step"}, {DT_INT64},
                   {ScalarShape()}, {}, device);
  }
  // Iterator "iterator", "init" (MakeIterator of `dataset`), "next".
  void Iterate(const std::string& dataset, const DataTypeVector& types, const std::vector<PartialTensorShape>& shapes,
               const std::string& device = "") {
    Add("iterator", "IteratorV2", {},
        {{"shared_name", MakeAttrValue("")}, {"container", MakeAttrValue("")}, {"output_types", TypesAttr(types)},
         {"output_shapes", ShapesAttr(shapes)}},
        device);
    Add("init", "MakeIterator", {dataset, "iterator"}, {}, device);
    Add("next", "IteratorGetNext", {"iterator"},
        {{"output_types", TypesAttr(types)}, {"output_shapes", ShapesAttr(shapes)}}, device);
    num_components_ = types.size();
  }
  std::vector<std::string> NextFetches() const {
    std::vector<std::string> f;
    for (size_t i = 0; i < num_components_; ++i) f.push_back("next:" + std::to_string(i));
    return f;
  }

  GraphDef& graph() { return graph_; }
  std::unique_ptr<Session> NewSession(int cpu_devices = 1) const {
    SessionOptions o;
    o.cpu_devices = cpu_devices;
    auto s = Session::Create(o, graph_);
    EXPECT_TRUE(s.ok()) << s.status();
    return s.ok() ? std::move(*s) : nullptr;
  }

 private:
  GraphDef graph_;
  size_t num_components_ = 0;
};

// Runs "init" (unless `init` is false), then `fetches` until OutOfRange;
// any other error is returned. At most `limit` elements.
inline StatusOr<std::vector<Element>> Drain(Session* s, const std::vector<std::string>& fetches, bool init = true,
                                            size_t limit = 100000) {
  if (init) FLOWVM_RETURN_IF_ERROR(s->Run({}, {}, {"init"}, nullptr));
  std::vector<Element> out;
  while (out.size() < limit) {
    std::vector<Tensor> e;
    Status st = s->Run({}, fetches, {}, &e);
    if (st.code() == Code::kOutOfRange) return out;
    if (!st.ok()) return st;
    out.push_back(std::move(e));
  }
  return out;
}

// Component `c` of each element, each a scalar of T.
template <typename T>
std::vector<T> Scalars(const std::vector<Element>& elements, size_t c = 0) {
  std::vector<T> v;
  for (const Element& e : elements) v.push_back(e[c].scalar<T>());
  return v;
}
// Component `c` of each element, flattened.
template <typename T>
std::vector<std::vector<T>> Flats(const std::vector<Element>& elements, size_t c = 0) {
  std::vector<std::vector<T>> v;
  for (const Element& e : elements) {
    auto f = e[c].flat<T>();
    v.emplace_back(f.begin(), f.end());
  }
  return v;
}
inline std::vector<int64_t> Iota(int64_t begin, int64_t end, int64_t step = 1) {
  std::vector<int64_t> v;
  for (int64_t i = begin; step > 0 ? i < end : i > end; i += step) v.push_back(i);
  return v;
}

// ---- a function library of std::functions -----------------------------------

using FakeBody = std::function<Status(const std::vector<Tensor>& args, std::vector<Tensor>* rets)>;

class FakeFunction : public FunctionInstance {
 public:
  FakeFunction(std::string name, DataTypeVector args, DataTypeVector rets, FakeBody body)
      : name_(std::move(name)), args_(std::move(args)), rets_(std::move(rets)), body_(std::move(body)) {}
  const std::string& name() const override { return name_; }
  const DataTypeVector& arg_types() const override { return args_; }
  const DataTypeVector& ret_types() const override { return rets_; }
  void RunAsync(const FunctionCallOptions&, std::vector<Tensor> args, std::vector<Tensor>* rets,
                DoneCallback done) const override {
    calls_.fetch_add(1);
    if (args.size() != args_.size()) {
      done(errors::InvalidArgument("function '", name_, "' takes ", args_.size(), " arguments, got ", args.size()));
      return;
    }
    done(body_(args, rets));
  }
  int calls() const { return calls_.load(); }

 private:
  std::string name_;
  DataTypeVector args_, rets_;
  FakeBody body_;
  mutable std::atomic<int> calls_{0};
};

class FakeFunctionLibrary : public FunctionLibraryRuntime {
 public:
  std::shared_ptr<FakeFunction> Define(const std::string& name, DataTypeVector args, DataTypeVector rets,
                                       FakeBody body) {
    auto f = std::make_shared<FakeFunction>(name, std::move(args), std::move(rets), std::move(body));
    functions_[name] = f;
    return f;
  }
  StatusOr<std::shared_ptr<const FunctionInstance>> Instantiate(const NameAttrList& func) override {
    auto it = functions_.find(func.name());
    if (it == functions_.end()) return errors::NotFound("no function named '", func.name(), "' in the library");
    return std::shared_ptr<const FunctionInstance>(it->second);
  }
  bool IsFunction(const std::string& name) const override { return functions_.count(name) > 0; }
  DeviceBase* device() const override { return nullptr; }

 private:
  std::map<std::string, std::shared_ptr<FakeFunction>> functions_;
};

// Builds a dataset by running dataset kernels directly (no session), with
// `flr` as their function library.
class KernelRunner {
 public:
  explicit KernelRunner(FunctionLibraryRuntime* flr)
      : flr_(flr), device_("/job:localhost/replica:0/task:0/device:CPU:0", DEVICE_CPU, 1, nullptr) {}

  // Runs node `def` on `inputs`; returns its outputs.
  StatusOr<std::vector<Tensor>> Run(NodeDef def, const std::vector<Tensor>& inputs) {
    FLOWVM_ASSIGN_OR_RETURN(const OpRegistrationData* reg, OpRegistry::Global()->LookUp(def.op()));
    AddDefaultsToNodeDef(reg->op_def, &def);
    FLOWVM_RETURN_IF_ERROR(ValidateNodeDef(def, reg->op_def));
    DataTypeVector in_types, out_types;
    FLOWVM_RETURN_IF_ERROR(InOutTypesForNode(def, reg->op_def, &in_types, &out_types));
    FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<OpKernel> kernel,
                            CreateOpKernel(DEVICE_CPU, def, reg->op_def, in_types, out_types, &device_, flr_));
    std::vector<Tensor> slots = inputs;
    std::vector<TensorValue> in(slots.size());
    for (size_t i = 0; i < slots.size(); ++i) in[i].tensor = &slots[i];
    std::vector<OutputSlot> outs(kernel->num_outputs());
    StepState step;
    step.device = &device_;
    step.function_library = flr_;
    OpKernelContext ctx(&step, kernel.get(), in.data(), outs.data());
    kernel->Compute(&ctx);
    FLOWVM_RETURN_IF_ERROR(ctx.status());
    std::vector<Tensor> result;
    for (auto& o : outs) result.push_back(o.value);
    return result;
  }
  // A dataset op's dataset.
  StatusOr<DatasetPtr> Dataset(const NodeDef& def, const std::vector<Tensor>& inputs) {
    FLOWVM_ASSIGN_OR_RETURN(std::vector<Tensor> out, Run(def, inputs));
    return DatasetFromTensor(out[0], "output");
  }
  DeviceBase* device() { return &device_; }

 private:
  FunctionLibraryRuntime* flr_;
  DeviceBase device_;
};

// Every element of one pass over `dataset` (at most `limit`).
inline StatusOr<std::vector<Element>> Collect(const DatasetPtr& dataset, size_t limit = 100000) {
  CancellationManager cm;
  IteratorContext ctx;
  ctx.cancellation = &cm;
  std::vector<Element> out;
  {
    FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<IteratorBase> it, dataset->MakeIterator(&ctx));
    while (out.size() < limit) {
      Element e;
      bool end = false;
      Status s = it->GetNext(&e, &end);
      if (!s.ok()) {
        cm.StartCancel();
        return s;
      }
      if (end) break;
      out.push_back(std::move(e));
    }
    cm.StartCancel();  // as an iterator resource does before letting go of its tree
  }
  return out;
}

inline NodeDef MakeNode(const std::string& name, const std::string& op, int num_inputs,
                        const std::map<std::string, AttrValue>& attrs) {
  NodeDef n;
  n.set_name(name);
  n.set_op(op);
  for (int i = 0; i < num_inputs; ++i) n.add_input("in" + std::to_string(i));
  for (const auto& [k, v] : attrs) (*n.mutable_attr())[k] = v;
  return n;
}

}  // namespace flowvm::data::testing

#endif  // FLOWVM_KERNELS_DATA_DATASET_TEST_UTIL_H_

#include "util/op_test_util.h"

#include <cmath>
#include <complex>
#include <cstdlib>
#include <cstring>

#include "flowvm/graph.pb.h"
#include "graph/graph.h"
#include "graph/op_registry.h"
#include "graph/shape_inference.h"
#include "kernels/framework/kernel_registry.h"
#include "flowvm/npy.h"
#include "util/test_paths.h"

namespace flowvm::testing {

TestNode::TestNode(std::string name, std::string op) {
  def_.set_name(std::move(name));
  def_.set_op(std::move(op));
}

TestNode& TestNode::Input(const std::string& input) {
  def_.add_input(input);
  return *this;
}

OpTest::OpTest() : device_("/job:localhost/replica:0/task:0/device:CPU:0", DEVICE_CPU, 1, nullptr) {}
OpTest::~OpTest() {
  // Outputs may point into variables the resource manager owns.
  outputs_.clear();
  kernel_.reset();
}

Status OpTest::Init(const NodeDef& def) {
  def_ = def;
  FLOWVM_ASSIGN_OR_RETURN(const OpRegistrationData* reg, OpRegistry::Global()->LookUp(def_.op()));
  AddDefaultsToNodeDef(reg->op_def, &def_);
  FLOWVM_RETURN_IF_ERROR(ValidateNodeDef(def_, reg->op_def));
  DataTypeVector in_types, out_types;
  FLOWVM_RETURN_IF_ERROR(InOutTypesForNode(def_, reg->op_def, &in_types, &out_types));
  FLOWVM_ASSIGN_OR_RETURN(kernel_, CreateOpKernel(DEVICE_CPU, def_, reg->op_def, in_types, out_types, &device_));
  return Status::OK();
}

void OpTest::AddInput(Tensor value) {
  values_.push_back(std::move(value));
  inputs_.push_back(TensorValue{nullptr, nullptr});
}

void OpTest::AddRefInput(Tensor* tensor, std::mutex* mu) {
  values_.emplace_back();
  inputs_.push_back(TensorValue{tensor, mu});
}

std::shared_ptr<Var> OpTest::AddVarInput(const std::string& name, DataType dtype, const PartialTensorShape& shape) {
  std::shared_ptr<Var> var;
  Status s = resource_mgr()->LookupOrCreate<Var>("", name, &var, [&]() -> StatusOr<std::shared_ptr<Var>> {
    return std::make_shared<Var>(dtype, shape);
  });
  EXPECT_TRUE(s.ok()) << s;
  values_.emplace_back();
  inputs_.push_back(TensorValue{&var->tensor, &var->mu, &var->declared_shape});
  return var;
}

void OpTest::ClearInputs() {
  values_.clear();
  inputs_.clear();
}

Status OpTest::Run() {
  if (kernel_ == nullptr) return errors::FailedPrecondition("OpTest::Run before a successful Init");
  if (static_cast<int>(inputs_.size()) != kernel_->num_inputs())
    return errors::InvalidArgument("OpTest: the kernel takes ", kernel_->num_inputs(), " inputs but ",
                                   inputs_.size(), " were added");
  // Each value input gets its own slot Tensor, as the executor does.
  std::vector<Tensor> slots(values_.size());
  std::vector<TensorValue> in = inputs_;
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i].is_ref()) continue;
    slots[i] = give_inputs_ ? std::move(values_[i]) : values_[i];
    in[i].tensor = &slots[i];
  }
  give_inputs_ = false;
  outputs_.assign(kernel_->num_outputs(), OutputSlot());
  StepState step;
  step.device = &device_;
  step.pool = pool_.get();
  OpKernelContext ctx(&step, kernel_.get(), in.data(), outputs_.data());
  kernel_->Compute(&ctx);
  if (ctx.status().ok()) {
    for (int i = 0; i < kernel_->num_outputs(); ++i)
      if (!outputs_[i].has_value) return errors::Internal("OpTest: the kernel did not set output ", i);
  }
  return ctx.status();
}

void OpTest::set_num_threads(int n) {
  pool_ = n > 1 ? std::make_unique<ThreadPool>("op_test", n - 1) : nullptr;
}

Tensor LoadFixture(const std::string& relative_path) {
  const std::string path = SourcePath("tests/data/" + relative_path);
  auto t = ReadNpyFile(path);
  EXPECT_TRUE(t.ok()) << path << ": " << t.status();
  return t.ok() ? *std::move(t) : Tensor();
}

Tensor OpTest::output(int i) const {
  const OutputSlot& o = outputs_[i];
  if (o.ref == nullptr) return o.value;
  std::lock_guard<std::mutex> lock(*o.ref_mu);
  return *o.ref;
}

StatusOr<std::vector<Tensor>> RunOpKernel(const NodeDef& def, const std::vector<Tensor>& inputs) {
  OpTest t;
  FLOWVM_RETURN_IF_ERROR(t.Init(def));
  for (const Tensor& in : inputs) t.AddInput(in);
  FLOWVM_RETURN_IF_ERROR(t.Run());
  std::vector<Tensor> out;
  for (int i = 0; i < t.num_outputs(); ++i) out.push_back(t.output(i));
  return out;
}

namespace {

bool SameHeader(const Tensor& a, const Tensor& e) {
  EXPECT_EQ(DataTypeName(a.dtype()), DataTypeName(e.dtype()));
  EXPECT_EQ(a.shape().DebugString(), e.shape().DebugString());
  return a.dtype() == e.dtype() && a.shape() == e.shape();
}

template <typename T>
double AsDouble(const T& v) {
  if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) return static_cast<float>(v);
  else return static_cast<double>(v);
}

bool Near(double a, double e, double tol) {
  if (std::isnan(a) || std::isnan(e)) return std::isnan(a) && std::isnan(e);
  if (std::isinf(a) || std::isinf(e)) return a == e;
  return std::fabs(a - e) <= tol + tol * std::fabs(e);
}

}  // namespace

void ExpectTensorEqual(const Tensor& actual, const Tensor& expected) {
  if (!SameHeader(actual, expected)) return;
  if (actual.dtype() == DT_STRING) {
    for (int64_t i = 0; i < actual.NumElements(); ++i)
      EXPECT_EQ(actual.data<std::string>()[i], expected.data<std::string>()[i]) << "element " << i;
    return;
  }
  bool same = actual.TotalBytes() == 0 ||
              std::memcmp(actual.raw_data(), expected.raw_data(), actual.TotalBytes()) == 0;
  EXPECT_TRUE(same) << "actual:   " << actual.DebugString(64) << "\nexpected: " << expected.DebugString(64);
}

void ExpectTensorNear(const Tensor& actual, const Tensor& expected, double tol) {
  if (!SameHeader(actual, expected)) return;
  bool handled = false;
  VisitDataType(actual.dtype(), [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
      handled = true;
      for (int64_t i = 0; i < actual.NumElements(); ++i) {
        double a = AsDouble(actual.data<T>()[i]), e = AsDouble(expected.data<T>()[i]);
        EXPECT_TRUE(Near(a, e, tol)) << "element " << i << ": " << a << " vs " << e << "\nactual:   "
                                     << actual.DebugString(64) << "\nexpected: " << expected.DebugString(64);
      }
    } else if constexpr (std::is_same_v<T, complex64> || std::is_same_v<T, complex128>) {
      handled = true;
      for (int64_t i = 0; i < actual.NumElements(); ++i) {
        T a = actual.data<T>()[i], e = expected.data<T>()[i];
        EXPECT_TRUE(Near(a.real(), e.real(), tol) && Near(a.imag(), e.imag(), tol)) << "element " << i;
      }
    }
  });
  if (!handled) ExpectTensorEqual(actual, expected);
}

NodeDef PlaceholderNode(const std::string& name, DataType dtype, const PartialTensorShape& shape) {
  return TestNode(name, "Placeholder").Attr("dtype", dtype).Attr("shape", shape);
}

NodeDef ConstNode(const std::string& name, const Tensor& value) {
  return TestNode(name, "Const").Attr("dtype", value.dtype()).Attr("value", value);
}

NodeDef VariableNode(const std::string& name, DataType dtype, const PartialTensorShape& shape) {
  return TestNode(name, "VariableV2").Attr("dtype", dtype).Attr("shape", shape);
}

StatusOr<std::vector<PartialTensorShape>> InferShapes(const std::vector<NodeDef>& nodes, const std::string& name) {
  GraphDef def;
  def.mutable_versions()->set_producer(1000);  // not a legacy (<= 21) graph
  for (const NodeDef& n : nodes) *def.add_node() = n;
  Graph graph;
  FLOWVM_RETURN_IF_ERROR(ConvertGraphDefToGraph(def, &graph));
  ShapeRefiner refiner;
  FLOWVM_RETURN_IF_ERROR(refiner.InferAll(graph));
  Node* n = graph.FindNode(name);
  if (n == nullptr) return errors::NotFound("no node named '", name, "'");
  return refiner.OutputShapes(n->id());
}

std::string ShapeString(const PartialTensorShape& s) { return s.DebugString(); }

}  // namespace flowvm::testing

namespace flowvm::testing {

void SpreadOverDevices(GraphDef* graph, int n) {
  Graph g;
  if (n < 2 || !ConvertGraphDefToGraph(*graph, &g).ok()) return;
  for (int i = 0; i < graph->node_size(); ++i) {
    const Node* node = g.FindNode(graph->node(i).name());
    bool state = false;
    for (DataType t : node->output_types()) state = state || IsRefType(t) || t == DT_RESOURCE;
    for (DataType t : node->input_types()) state = state || IsRefType(t);
    if (!state && graph->node(i).device().empty())
      graph->mutable_node(i)->set_device("/device:CPU:" + std::to_string(i % n));
  }
}

int TestCpuDevices() {
  const char* env = std::getenv("FLOWVM_TEST_CPU_DEVICES");
  const int n = env == nullptr ? 1 : std::atoi(env);
  return n < 1 ? 1 : n;
}

void SpreadOverTestDevices(GraphDef* graph, SessionOptions* options) {
  const int n = TestCpuDevices();
  if (n < 2) return;
  SpreadOverDevices(graph, n);
  options->cpu_devices = n;
  options->allow_soft_placement = true;
}

}  // namespace flowvm::testing

// Functions run by sessions (white paper section 10): calls by name and
// through PartitionedCall, nested calls, bodies spanning devices,
// SymbolicGradient and library gradient functions, functional If / Case /
// While, recursion with and without a base case, and errors that name the
// function and the node in its body. Expected values are computed by hand.
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <thread>

#include "graph/gradients.h"
#include "graph/graph_scope.h"
#include "kernels/framework/cancellation.h"
#include "runtime/device.h"
#include "runtime/function_runtime.h"
#include "runtime/runtime_test_util.h"
#include "util/function_test_util.h"

namespace flowvm {
namespace {

using namespace runtime_testing;  // NOLINT

std::string FloatAttr() { return R"(attr { key: "T" value { type: DT_FLOAT } })"; }

// x * y + 1
FunctionDef MulAdd() {
  return testing::ParseFunctionDef(R"pb(
    signature { name: "MulAdd" input_arg { name: "x" type: DT_FLOAT } input_arg { name: "y" type: DT_FLOAT }
                output_arg { name: "out" type: DT_FLOAT } }
    node_def { name: "mul" op: "Mul" input: "x" input: "y" attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "one" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
               attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }
    node_def { name: "add" op: "AddV2" input: "mul:z:0" input: "one:output:0"
               attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "out" value: "add:z:0" })pb");
}

// x * x, with the multiplication pinned to `device` if given.
FunctionDef Square(const std::string& name = "SquareIt", const std::string& device = "") {
  FunctionDef f = testing::ParseFunctionDef(R"pb(
    signature { name: "SquareIt" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } }
    node_def { name: "sq" op: "Mul" input: "x" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "y" value: "sq:z:0" })pb");
  f.mutable_signature()->set_name(name);
  f.mutable_node_def(0)->set_device(device);
  return f;
}

// Square(x) * x: a nested call.
FunctionDef Cube() {
  return testing::ParseFunctionDef(R"pb(
    signature { name: "Cube" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } }
    node_def { name: "s" op: "SquareIt" input: "x" }
    node_def { name: "c" op: "Mul" input: "s:y:0" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "y" value: "c:z:0" })pb");
}

FunctionDef Negate() {
  return testing::ParseFunctionDef(R"pb(
    signature { name: "Negate" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } }
    node_def { name: "n" op: "Neg" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "y" value: "n:y:0" })pb");
}

FunctionDef Fact() { return testing::FactorialFunction(); }

// Forever(x) = Forever(x) + 1: no branch ever ends it.
FunctionDef Forever() {
  return testing::ParseFunctionDef(R"pb(
    signature { name: "Forever" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } }
    node_def { name: "again" op: "Forever" input: "x" }
    node_def { name: "plus" op: "AddV2" input: "again:y:0" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "y" value: "plus:z:0" })pb");
}

GraphDef WithLibrary(std::vector<NodeDef> nodes, std::vector<FunctionDef> functions) {
  GraphDef g = GraphOf(nodes);
  for (FunctionDef& f : functions) *g.mutable_library()->add_function() = std::move(f);
  return g;
}

NodeDef Call(const std::string& name, const std::string& function, std::vector<std::string> inputs,
             const std::string& device = "") {
  NodeDef n;
  n.set_name(name);
  n.set_op(function);
  for (auto& i : inputs) n.add_input(i);
  n.set_device(device);
  return n;
}

NodeDef FloatPlaceholder(const std::string& name) { return PlaceholderNode(name, DT_FLOAT, PartialTensorShape()); }

AttrValue FuncAttr(const std::string& name) {
  AttrValue v;
  v.mutable_func()->set_name(name);
  return v;
}

AttrValue Types(std::vector<DataType> types) { return MakeAttrValue(types); }

float RunScalar(Session* s, const std::vector<std::pair<std::string, Tensor>>& feeds, const std::string& fetch,
                RunStats* stats = nullptr) {
  std::vector<Tensor> out;
  Status st = s->Run(feeds, {fetch}, {}, &out, stats);
  EXPECT_TRUE(st.ok()) << st;
  return st.ok() ? out[0].scalar<float>() : -1e30f;
}

TEST(FunctionTest, CallByNameRunsTheBody) {
  GraphDef g = WithLibrary({FloatPlaceholder("a"), FloatPlaceholder("b"), Call("f", "MulAdd", {"a", "b"}),
                            Unary("twice", "Identity", "f")},
                           {MulAdd()});
  auto s = NewSessionOrDie(g);
  ASSERT_NE(s, nullptr);
  RunStats stats;
  EXPECT_EQ(RunScalar(s.get(), {{"a", Tensor::Scalar<float>(3)}, {"b", Tensor::Scalar<float>(4)}}, "twice:0", &stats),
            13.0f);
  bool said = false;
  for (const auto& line : stats.optimizations) said |= line.find("inlined 1 call (f -> MulAdd)") != std::string::npos;
  EXPECT_TRUE(said) << ::testing::PrintToString(stats.optimizations);
  // Fetching the call's output directly works too.
  EXPECT_EQ(RunScalar(s.get(), {{"a", Tensor::Scalar<float>(2)}, {"b", Tensor::Scalar<float>(-1)}}, "f:0"), -1.0f);
}

TEST(FunctionTest, NestedCallsAndPartitionedCall) {
  NodeDef pcall = TestNode("p", "PartitionedCall").Input("a");
  (*pcall.mutable_attr())["Tin"] = Types({DT_FLOAT});
  (*pcall.mutable_attr())["Tout"] = Types({DT_FLOAT});
  (*pcall.mutable_attr())["f"] = FuncAttr("Cube");
  NodeDef spcall = pcall;
  spcall.set_name("sp");
  spcall.set_op("StatefulPartitionedCall");
  GraphDef g = WithLibrary({FloatPlaceholder("a"), Call("c", "Cube", {"a"}), pcall, spcall},
                           {Square(), Cube()});
  auto s = NewSessionOrDie(g);
  ASSERT_NE(s, nullptr);
  std::vector<Tensor> out;
  ASSERT_TRUE(s->Run({{"a", Tensor::Scalar<float>(3)}}, {"c:0", "p:0", "sp:0"}, {}, &out).ok());
  EXPECT_EQ(out[0].scalar<float>(), 27.0f);
  EXPECT_EQ(out[1].scalar<float>(), 27.0f);
  EXPECT_EQ(out[2].scalar<float>(), 27.0f);
}

TEST(FunctionTest, BodySpansDevices) {
  SessionOptions options;
  options.cpu_devices = 2;
  GraphDef g = WithLibrary({FloatPlaceholder("a"), Call("f", "SquareOn1", {"a"}, "/device:CPU:0"),
                            Unary("out", "Identity", "f", "/device:CPU:0")},
                           {Square("SquareOn1", "/device:CPU:1")});
  auto s = NewSessionOrDie(g, options);
  ASSERT_NE(s, nullptr);
  RunStats stats;
  EXPECT_EQ(RunScalar(s.get(), {{"a", Tensor::Scalar<float>(5)}}, "out:0", &stats), 25.0f);
  EXPECT_EQ(stats.partitions, 2);
  bool on1 = false;
  for (const auto& line : stats.placement) on1 |= line.rfind("f/sq -> CPU:1", 0) == 0;
  EXPECT_TRUE(on1) << ::testing::PrintToString(stats.placement);
}

TEST(FunctionTest, SymbolicGradientDifferentiatesTheBody) {
  NodeDef grad = TestNode("g", "SymbolicGradient").Input("a").Input("b").Input("dy");
  (*grad.mutable_attr())["Tin"] = Types({DT_FLOAT, DT_FLOAT, DT_FLOAT});
  (*grad.mutable_attr())["Tout"] = Types({DT_FLOAT, DT_FLOAT});
  (*grad.mutable_attr())["f"] = FuncAttr("MulAdd");
  GraphDef g = WithLibrary({FloatPlaceholder("a"), FloatPlaceholder("b"), FloatPlaceholder("dy"), grad}, {MulAdd()});
  auto s = NewSessionOrDie(g);
  ASSERT_NE(s, nullptr);
  std::vector<Tensor> out;
  ASSERT_TRUE(s->Run({{"a", Tensor::Scalar<float>(3)}, {"b", Tensor::Scalar<float>(4)},
                      {"dy", Tensor::Scalar<float>(2)}},
                     {"g:0", "g:1"}, {}, &out)
                  .ok());
  EXPECT_EQ(out[0].scalar<float>(), 8.0f);  // d(xy+1)/dx * dy = y * dy
  EXPECT_EQ(out[1].scalar<float>(), 6.0f);  // x * dy
}

// tf.gradients through a call: the C++ gradient builder adds a
// SymbolicGradient, or a call of the library's gradient function.
TEST(FunctionTest, GradientsThroughCalls) {
  for (bool with_gradient_def : {false, true}) {
    Graph graph;
    FunctionDefLibrary lib;
    *lib.add_function() = Cube();
    *lib.add_function() = Square();
    if (with_gradient_def) {
      // A deliberately different "gradient" (2 * dy), to see it is used.
      *lib.add_function() = testing::ParseFunctionDef(R"pb(
        signature { name: "CubeGrad" input_arg { name: "x" type: DT_FLOAT } input_arg { name: "dy" type: DT_FLOAT }
                    output_arg { name: "dx" type: DT_FLOAT } }
        node_def { name: "d" op: "AddV2" input: "dy" input: "dy" attr { key: "T" value { type: DT_FLOAT } } }
        ret { key: "dx" value: "d:z:0" })pb");
      GradientDef* gd = lib.add_gradient();
      gd->set_function_name("Cube");
      gd->set_gradient_func("CubeGrad");
    }
    ASSERT_TRUE(graph.mutable_library()->AddLibrary(lib).ok());
    GraphScope root(&graph);
    AttrMap attrs = {{"dtype", MakeAttrValue(DT_FLOAT)}, {"shape", MakeAttrValue(PartialTensorShape())}};
    NodeOut x = root.WithOpName("x").Op("Placeholder", {}, attrs);
    NodeOut y = root.WithOpName("y").Op("Cube", {x});
    std::vector<NodeOut> dx;
    ASSERT_TRUE(AddSymbolicGradients(root, {y}, {x}, {}, &dx).ok()) << root.status();
    GraphDef def;
    graph.ToGraphDef(&def);
    auto s = NewSessionOrDie(def);
    ASSERT_NE(s, nullptr);
    // d(x^3)/dx at 2 = 12; the library's gradient gives 2 * 1.
    EXPECT_EQ(RunScalar(s.get(), {{"x", Tensor::Scalar<float>(2)}}, dx[0].name()), with_gradient_def ? 2.0f : 12.0f)
        << "with GradientDef: " << with_gradient_def;
  }
}

// The gradient of If / Case is the same op over the branches' gradients.
TEST(FunctionTest, GradientsOfIfAndCase) {
  Graph graph;
  FunctionDefLibrary lib;
  *lib.add_function() = Square();
  *lib.add_function() = Negate();
  *lib.add_function() = Cube();
  ASSERT_TRUE(graph.mutable_library()->AddLibrary(lib).ok());
  GraphScope root(&graph);
  AttrMap scalar = {{"shape", MakeAttrValue(PartialTensorShape())}};
  AttrMap f32 = scalar, b = scalar, i32 = scalar;
  f32["dtype"] = MakeAttrValue(DT_FLOAT);
  b["dtype"] = MakeAttrValue(DT_BOOL);
  i32["dtype"] = MakeAttrValue(DT_INT32);
  NodeOut x = root.WithOpName("x").Op("Placeholder", {}, f32);
  NodeOut pred = root.WithOpName("pred").Op("Placeholder", {}, b);
  NodeOut index = root.WithOpName("index").Op("Placeholder", {}, i32);
  AttrValue then_f, else_f;
  then_f.mutable_func()->set_name("SquareIt");
  else_f.mutable_func()->set_name("Negate");
  NodeOut y_if = root.WithOpName("if").Op("If", {pred, OpInput::List({x})},
                                         {{"Tout", Types({DT_FLOAT})}, {"then_branch", then_f}, {"else_branch", else_f}});
  AttrValue branches;
  for (const char* f : {"SquareIt", "Negate", "Cube"}) branches.mutable_list()->add_func()->set_name(f);
  NodeOut y_case = root.WithOpName("case").Op("Case", {index, OpInput::List({x})},
                                              {{"Tout", Types({DT_FLOAT})}, {"branches", branches}});
  std::vector<NodeOut> d_if, d_case;
  ASSERT_TRUE(AddSymbolicGradients(root, {y_if}, {x}, {}, &d_if).ok()) << root.status();
  ASSERT_TRUE(AddSymbolicGradients(root, {y_case}, {x}, {}, &d_case).ok()) << root.status();
  GraphDef def;
  graph.ToGraphDef(&def);
  auto s = NewSessionOrDie(def);
  ASSERT_NE(s, nullptr);
  const Tensor three = Tensor::Scalar<float>(3);
  EXPECT_EQ(RunScalar(s.get(), {{"x", three}, {"pred", Tensor::Scalar<bool>(true)}}, d_if[0].name()), 6.0f);
  EXPECT_EQ(RunScalar(s.get(), {{"x", three}, {"pred", Tensor::Scalar<bool>(false)}}, d_if[0].name()), -1.0f);
  EXPECT_EQ(RunScalar(s.get(), {{"x", three}, {"index", Tensor::Scalar<int32_t>(0)}}, d_case[0].name()), 6.0f);
  EXPECT_EQ(RunScalar(s.get(), {{"x", three}, {"index", Tensor::Scalar<int32_t>(1)}}, d_case[0].name()), -1.0f);
  EXPECT_EQ(RunScalar(s.get(), {{"x", three}, {"index", Tensor::Scalar<int32_t>(9)}}, d_case[0].name()), 27.0f);
}

TEST(FunctionTest, FunctionalIfCaseAndWhile) {
  NodeDef if_node = TestNode("if", "StatelessIf").Input("pred").Input("a");
  (*if_node.mutable_attr())["Tcond"] = MakeAttrValue(DT_BOOL);
  (*if_node.mutable_attr())["Tin"] = Types({DT_FLOAT});
  (*if_node.mutable_attr())["Tout"] = Types({DT_FLOAT});
  (*if_node.mutable_attr())["then_branch"] = FuncAttr("SquareIt");
  (*if_node.mutable_attr())["else_branch"] = FuncAttr("Negate");

  NodeDef case_node = TestNode("case", "Case").Input("index").Input("a");
  (*case_node.mutable_attr())["Tin"] = Types({DT_FLOAT});
  (*case_node.mutable_attr())["Tout"] = Types({DT_FLOAT});
  AttrValue branches;
  for (const char* b : {"SquareIt", "Negate", "Cube"}) branches.mutable_list()->add_func()->set_name(b);
  (*case_node.mutable_attr())["branches"] = branches;

  // i, acc = 0, 0; while i < 10: i, acc = i + 1, MulAdd(acc, 1) + i - 1
  // (the body calls a function in the loop: acc ends at sum(0..9) = 45).
  FunctionDef cond = testing::ParseFunctionDef(R"pb(
    signature { name: "Below10" input_arg { name: "i" type: DT_FLOAT } input_arg { name: "acc" type: DT_FLOAT }
                output_arg { name: "c" type: DT_BOOL } }
    node_def { name: "ten" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
               attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 10 } } } }
    node_def { name: "lt" op: "Less" input: "i" input: "ten:output:0" attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "c" value: "lt:z:0" })pb");
  FunctionDef body = testing::ParseFunctionDef(R"pb(
    signature { name: "Step" input_arg { name: "i" type: DT_FLOAT } input_arg { name: "acc" type: DT_FLOAT }
                output_arg { name: "i2" type: DT_FLOAT } output_arg { name: "acc2" type: DT_FLOAT } }
    node_def { name: "one" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
               attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }
    node_def { name: "inc" op: "AddV2" input: "i" input: "one:output:0" attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "ma" op: "MulAdd" input: "acc" input: "one:output:0" }
    node_def { name: "plus_i" op: "AddV2" input: "ma:out:0" input: "i" attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "minus1" op: "Sub" input: "plus_i:z:0" input: "one:output:0"
               attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "i2" value: "inc:z:0" }
    ret { key: "acc2" value: "minus1:z:0" })pb");
  NodeDef while_node = TestNode("loop", "While").Input("zero").Input("zero");
  (*while_node.mutable_attr())["T"] = Types({DT_FLOAT, DT_FLOAT});
  (*while_node.mutable_attr())["cond"] = FuncAttr("Below10");
  (*while_node.mutable_attr())["body"] = FuncAttr("Step");
  NodeDef while2 = while_node;  // the same loop twice: frames must not meet
  while2.set_name("loop2");

  GraphDef g = WithLibrary({FloatPlaceholder("a"), PlaceholderNode("pred", DT_BOOL, PartialTensorShape()),
                            PlaceholderNode("index", DT_INT32, PartialTensorShape()),
                            ConstNode("zero", Tensor::Scalar<float>(0)), if_node, case_node, while_node, while2},
                           {Square(), Negate(), Cube(), MulAdd(), cond, body});
  auto s = NewSessionOrDie(g);
  ASSERT_NE(s, nullptr);
  const Tensor three = Tensor::Scalar<float>(3);
  EXPECT_EQ(RunScalar(s.get(), {{"a", three}, {"pred", Tensor::Scalar<bool>(true)}}, "if:0"), 9.0f);
  EXPECT_EQ(RunScalar(s.get(), {{"a", three}, {"pred", Tensor::Scalar<bool>(false)}}, "if:0"), -3.0f);
  EXPECT_EQ(RunScalar(s.get(), {{"a", three}, {"index", Tensor::Scalar<int32_t>(0)}}, "case:0"), 9.0f);
  EXPECT_EQ(RunScalar(s.get(), {{"a", three}, {"index", Tensor::Scalar<int32_t>(1)}}, "case:0"), -3.0f);
  EXPECT_EQ(RunScalar(s.get(), {{"a", three}, {"index", Tensor::Scalar<int32_t>(2)}}, "case:0"), 27.0f);
  // Out of range: the last branch, as in TensorFlow.
  EXPECT_EQ(RunScalar(s.get(), {{"a", three}, {"index", Tensor::Scalar<int32_t>(7)}}, "case:0"), 27.0f);
  EXPECT_EQ(RunScalar(s.get(), {{"a", three}, {"index", Tensor::Scalar<int32_t>(-1)}}, "case:0"), 27.0f);
  std::vector<Tensor> out;
  ASSERT_TRUE(s->Run({}, {"loop:0", "loop:1", "loop2:1"}, {}, &out).ok());
  EXPECT_EQ(out[0].scalar<float>(), 10.0f);
  EXPECT_EQ(out[1].scalar<float>(), 45.0f);
  EXPECT_EQ(out[2].scalar<float>(), 45.0f);
}

TEST(FunctionTest, RecursionWithABaseCase) {
  GraphDef g = WithLibrary({FloatPlaceholder("n"), Call("fact", "Fact", {"n"})}, {Fact()});
  auto s = NewSessionOrDie(g);
  ASSERT_NE(s, nullptr);
  RunStats stats;
  EXPECT_EQ(RunScalar(s.get(), {{"n", Tensor::Scalar<float>(5)}}, "fact:0", &stats), 120.0f);
  EXPECT_EQ(RunScalar(s.get(), {{"n", Tensor::Scalar<float>(1)}}, "fact:0"), 1.0f);
  EXPECT_EQ(RunScalar(s.get(), {{"n", Tensor::Scalar<float>(10)}}, "fact:0"), 3628800.0f);
  // Too deep: an error that says so, not a crash.
  std::vector<Tensor> out;
  EXPECT_TRUE(HasError(s->Run({{"n", Tensor::Scalar<float>(1000)}}, {"fact:0"}, {}, &out), Code::kResourceExhausted,
                       {"function 'Fact'", "nested calls"}));
}

TEST(FunctionTest, RecursionWithoutABaseCaseIsRefused) {
  GraphDef g = WithLibrary({FloatPlaceholder("x"), Call("f", "Forever", {"x"})}, {Forever()});
  auto s = NewSessionOrDie(g);
  ASSERT_NE(s, nullptr);
  std::vector<Tensor> out;
  EXPECT_TRUE(HasError(s->Run({{"x", Tensor::Scalar<float>(1)}}, {"f:0"}, {}, &out), Code::kInvalidArgument,
                       {"function 'Forever'", "recursive without a base case", "again"}));
}

TEST(FunctionTest, UndefinedFunctionIsAClearError) {
  GraphDef g = GraphOf({FloatPlaceholder("x"), Call("f", "NotDefinedAnywhere", {"x"})});
  auto s = Session::Create(SessionOptions(), g);
  EXPECT_TRUE(HasError(s.status(), Code::kNotFound, {"'f'", "NotDefinedAnywhere"}));

  NodeDef pcall = TestNode("p", "PartitionedCall").Input("x");
  (*pcall.mutable_attr())["Tin"] = Types({DT_FLOAT});
  (*pcall.mutable_attr())["Tout"] = Types({DT_FLOAT});
  (*pcall.mutable_attr())["f"] = FuncAttr("AlsoNotDefined");
  auto s2 = NewSessionOrDie(GraphOf({FloatPlaceholder("x"), pcall}));
  ASSERT_NE(s2, nullptr);
  std::vector<Tensor> out;
  EXPECT_TRUE(HasError(s2->Run({{"x", Tensor::Scalar<float>(1)}}, {"p:0"}, {}, &out), Code::kNotFound,
                       {"'p'", "function 'AlsoNotDefined'"}));
}

TEST(FunctionTest, RuntimeErrorsNameTheFunctionAndTheNodeInIt) {
  FunctionDef reshape = testing::ParseFunctionDef(R"pb(
    signature { name: "ToPairs" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } }
    node_def { name: "shape" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
               attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } }
                                                    int_val: -1 int_val: 2 } } } }
    node_def { name: "pairs" op: "Reshape" input: "x" input: "shape:output:0"
               attr { key: "T" value { type: DT_FLOAT } } attr { key: "Tshape" value { type: DT_INT32 } } }
    ret { key: "y" value: "pairs:output:0" })pb");
  GraphDef g = WithLibrary({FloatPlaceholder("x"), Call("call", "ToPairs", {"x"})}, {reshape});
  auto s = NewSessionOrDie(g);
  ASSERT_NE(s, nullptr);
  std::vector<Tensor> out;
  ASSERT_TRUE(s->Run({{"x", F({1, 2, 3, 4}, {4})}}, {"call:0"}, {}, &out).ok());
  EXPECT_EQ(out[0].shape(), TensorShape({2, 2}));
  EXPECT_TRUE(HasError(s->Run({{"x", F({1, 2, 3}, {3})}}, {"call:0"}, {}, &out), Code::kInvalidArgument,
                       {"node 'call/pairs' (Reshape) in function 'ToPairs'"}));
}

TEST(FunctionTest, RuntimeInstancesAreCachedAndRunConcurrently) {
  auto devices = DeviceMgr::NewCpuDevices(1, nullptr);
  ASSERT_TRUE(devices.ok());
  auto lib = std::make_shared<FunctionLibraryDefinition>();
  ASSERT_TRUE(lib->AddFunction(MulAdd()).ok());
  auto runtime = DeviceFunctionRuntime::Create((*devices)->devices()[0], lib);
  NameAttrList f;
  f.set_name("MulAdd");
  auto a = runtime->Instantiate(f);
  auto b = runtime->Instantiate(f);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->get(), b->get());
  std::shared_ptr<const FunctionInstance> instance = *a;
  runtime.reset();  // the instance keeps what it needs
  std::vector<std::thread> threads;
  std::vector<float> results(8);
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      std::vector<Tensor> rets;
      Status st = instance->Run({}, {Tensor::Scalar<float>(t), Tensor::Scalar<float>(2)}, &rets);
      results[t] = st.ok() ? rets[0].scalar<float>() : -1;
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < 8; ++t) EXPECT_EQ(results[t], 2.0f * t + 1) << t;
  std::vector<Tensor> rets;
  EXPECT_TRUE(HasError(instance->Run({}, {Tensor::Scalar<int32_t>(1), Tensor::Scalar<float>(2)}, &rets),
                       Code::kInvalidArgument, {"argument 'x'", "function 'MulAdd'", "float"}));
  EXPECT_TRUE(HasError(instance->Run({}, {Tensor::Scalar<float>(1)}, &rets), Code::kInvalidArgument,
                       {"function 'MulAdd'", "2 arguments"}));
}

// An error in a body cancels the call, not its caller (a dataset's map
// function that ends its sequence with OutOfRange leaves the iterator
// running); cancelling the caller cancels the call.
TEST(FunctionTest, AnErrorInACallCancelsTheCallButNotItsCaller) {
  FunctionDef reshape = testing::ParseFunctionDef(R"pb(
    signature { name: "ToPairs" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } }
    node_def { name: "shape" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
               attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } }
                                                    int_val: -1 int_val: 2 } } } }
    node_def { name: "pairs" op: "Reshape" input: "x" input: "shape:output:0"
               attr { key: "T" value { type: DT_FLOAT } } attr { key: "Tshape" value { type: DT_INT32 } } }
    ret { key: "y" value: "pairs:output:0" })pb");
  auto devices = DeviceMgr::NewCpuDevices(1, nullptr);
  ASSERT_TRUE(devices.ok());
  auto lib = std::make_shared<FunctionLibraryDefinition>();
  ASSERT_TRUE(lib->AddFunction(reshape).ok());
  auto runtime = DeviceFunctionRuntime::Create((*devices)->devices()[0], lib);
  NameAttrList f;
  f.set_name("ToPairs");
  auto instance = runtime->Instantiate(f);
  ASSERT_TRUE(instance.ok()) << instance.status();
  CancellationManager caller;
  FunctionCallOptions options;
  options.cancellation = &caller;
  std::vector<Tensor> rets;
  EXPECT_EQ((*instance)->Run(options, {F({1, 2, 3}, {3})}, &rets).code(), Code::kInvalidArgument);
  EXPECT_FALSE(caller.IsCancelled());
  ASSERT_TRUE((*instance)->Run(options, {F({1, 2, 3, 4}, {4})}, &rets).ok());
  EXPECT_EQ(rets[0].shape(), TensorShape({2, 2}));
  caller.StartCancel(errors::Cancelled("the caller gave up"));
  EXPECT_TRUE(HasError((*instance)->Run(options, {F({1, 2, 3, 4}, {4})}, &rets), Code::kCancelled,
                       {"the caller gave up"}));
}

}  // namespace
}  // namespace flowvm

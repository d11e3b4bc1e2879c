// Which gradient array a gradients call uses (TensorFlow's gradient
// `source`): one per call, so two calls in one step do not add into each
// other's arrays, and every gradient function of one call, inside a loop
// or not, shares one.
#include <set>

#include <gtest/gtest.h>

#include "flowvm/session.h"
#include "graph/gradients.h"
#include "graph/node_def_util.h"
#include "util/tensor_array_test_util.h"

namespace flowvm {
namespace {

using namespace tensor_array_testing;  // NOLINT

std::set<std::string> Sources(const Graph& g) {
  std::set<std::string> sources;
  for (const Node* n : g.nodes()) {
    if (n->op() != "TensorArrayGradV3") continue;
    std::string source;
    EXPECT_TRUE(GetNodeAttr(n->def(), "source", &source).ok());
    sources.insert(source);
  }
  return sources;
}

// y = read(0) * read(1) of x unstacked: dy/dx = [x1, x0].
NodeOut Product(const GraphScope& s, NodeOut x) {
  Ta ta = NewTa(s, "ta", 2, DT_FLOAT);
  NodeOut f = Scatter(s, "unstack", ta.handle, I32s(s, {0, 1}), x, ta.flow);
  return s.Op("Mul", {Read(s, "r0", ta.handle, I32(s, 0), f), Read(s, "r1", ta.handle, I32(s, 1), f)});
}

TEST(TensorArrayGradSourceTest, TwoGradientCallsInOneStepUseTwoArrays) {
  TaSession t;
  const GraphScope& s = t.root();
  NodeOut x = F32(s, {3, 5}, TensorShape({2}));
  NodeOut y = Product(s, x);
  std::vector<NodeOut> g1, g2;
  FLOWVM_ASSERT_OK(AddSymbolicGradients(s, {y}, {x}, {}, &g1));
  FLOWVM_ASSERT_OK(AddSymbolicGradients(s, {y}, {x}, {}, &g2));
  EXPECT_EQ(Sources(*s.graph()), (std::set<std::string>{"gradients", "gradients_1"}));
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK(t.Run({g1[0].name(), g2[0].name()}, &out));
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{5, 3}));
  EXPECT_EQ(Floats(out[1]), (std::vector<float>{5, 3}));
}

TEST(TensorArrayGradSourceTest, TheSourceIsTheGradientsScope) {
  Graph g;
  GraphScope root(&g);
  const GraphScope tower = root.NewSubScope("tower");
  NodeOut x = F32(tower, {3, 5}, TensorShape({2}));
  NodeOut y = Product(tower, x);
  std::vector<NodeOut> dx;
  FLOWVM_ASSERT_OK(AddSymbolicGradients(tower, {y}, {x}, {}, &dx));
  EXPECT_EQ(Sources(g), (std::set<std::string>{"tower/gradients"}));
  // A caller that opened its own scope (no "gradients" in it): that scope.
  Graph h;
  GraphScope root2(&h);
  NodeOut x2 = F32(root2, {3, 5}, TensorShape({2}));
  NodeOut y2 = Product(root2, x2);
  SymbolicGradientOptions options;
  options.name_scope = "";
  FLOWVM_ASSERT_OK(AddSymbolicGradients(root2.NewSubScope("backprop"), {y2}, {x2}, {}, &dx, options));
  EXPECT_EQ(Sources(h), (std::set<std::string>{"backprop"}));
}

}  // namespace
}  // namespace flowvm

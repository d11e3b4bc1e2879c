// Graph-building helpers for control-flow tests (header-only): loops and
// conditionals written as TensorFlow 1.x writes them.
#ifndef FLOWVM_RUNTIME_CONTROL_FLOW_TEST_UTIL_H_
#define FLOWVM_RUNTIME_CONTROL_FLOW_TEST_UTIL_H_

#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "flowvm/session.h"
#include "graph/attr_value_util.h"
#include "util/op_test_util.h"

namespace flowvm::control_flow_testing {

using testing::ConstNode;
using testing::PlaceholderNode;
using testing::TestNode;

inline NodeDef N(const std::string& name, const std::string& op, const std::vector<std::string>& inputs,
          DataType t = DT_INT32, const std::string& device = "") {
  TestNode n(name, op);
  for (const auto& in : inputs) n.Input(in);
  NodeDef def = n;
  if (t != DT_INVALID) (*def.mutable_attr())["T"] = MakeAttrValue(t);
  def.set_device(device);
  return def;
}

inline NodeDef EnterNode(const std::string& name, const std::string& input, const std::string& frame, bool is_constant,
                  int parallel = 10, const std::string& device = "") {
  NodeDef n = N(name, "Enter", {input}, DT_INT32, device);
  (*n.mutable_attr())["frame_name"] = MakeAttrValue(frame);
  (*n.mutable_attr())["is_constant"] = MakeAttrValue(is_constant);
  (*n.mutable_attr())["parallel_iterations"] = MakeAttrValue(int64_t{parallel});
  return n;
}

inline NodeDef MergeNode(const std::string& name, const std::vector<std::string>& inputs, const std::string& device = "") {
  NodeDef n = N(name, "Merge", inputs, DT_INT32, device);
  (*n.mutable_attr())["N"] = MakeAttrValue(static_cast<int64_t>(inputs.size()));
  return n;
}

inline NodeDef IntConst(const std::string& name, int32_t v, const std::string& control = "", const std::string& device = "") {
  NodeDef n = ConstNode(name, Tensor::Scalar<int32_t>(v));
  if (!control.empty()) n.add_input("^" + control);
  n.set_device(device);
  return n;
}

// The nodes of `for (i = init; i < limit; i += step) acc += f(i)`, written
// as tf.while_loop writes it, in frame `frame`; `init`, `limit` and
// `acc_init` name tensors outside the loop. f(i) is i, or a TestBarrier
// of i when barrier_group > 0. Outputs: `<p>exit_i` and `<p>exit_acc`.
inline std::vector<NodeDef> SumLoop(const std::string& p, const std::string& frame, const std::string& init,
                             const std::string& limit, const std::string& acc_init, int parallel = 10,
                             int barrier_group = 0, const std::string& body_device = "") {
  std::vector<NodeDef> n;
  n.push_back(EnterNode(p + "enter_i", init, frame, false, parallel));
  n.push_back(EnterNode(p + "enter_acc", acc_init, frame, false, parallel));
  n.push_back(EnterNode(p + "enter_limit", limit, frame, true, parallel));
  n.push_back(MergeNode(p + "merge_i", {p + "enter_i", p + "next_i"}));
  n.push_back(MergeNode(p + "merge_acc", {p + "enter_acc", p + "next_acc"}));
  n.push_back(N(p + "less", "Less", {p + "merge_i", p + "enter_limit"}));
  n.push_back(N(p + "cond", "LoopCond", {p + "less"}, DT_INVALID));
  n.push_back(N(p + "switch_i", "Switch", {p + "merge_i", p + "cond"}));
  n.push_back(N(p + "switch_acc", "Switch", {p + "merge_acc", p + "cond"}));
  n.push_back(N(p + "exit_i", "Exit", {p + "switch_i:0"}));
  n.push_back(N(p + "exit_acc", "Exit", {p + "switch_acc:0"}));
  n.push_back(N(p + "body_i", "Identity", {p + "switch_i:1"}));
  n.push_back(N(p + "body_acc", "Identity", {p + "switch_acc:1"}));
  n.push_back(IntConst(p + "one", 1, p + "body_i"));
  n.push_back(N(p + "i_plus_1", "Add", {p + "body_i", p + "one"}));
  std::string term = p + "body_i";
  if (barrier_group > 0) {
    NodeDef b = N(p + "barrier", "TestBarrier", {p + "body_i"}, DT_INVALID);
    (*b.mutable_attr())["group"] = MakeAttrValue(int64_t{barrier_group});
    n.push_back(b);
    term = p + "barrier";
  }
  n.push_back(N(p + "acc_plus", "Add", {p + "body_acc", term}, DT_INT32, body_device));
  n.push_back(N(p + "next_i", "NextIteration", {p + "i_plus_1"}));
  n.push_back(N(p + "next_acc", "NextIteration", {p + "acc_plus"}));
  return n;
}

inline std::vector<NodeDef> Concat(std::vector<NodeDef> a, const std::vector<NodeDef>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

inline NodeDef BoolPlaceholder(const std::string& name) { return PlaceholderNode(name, DT_BOOL, PartialTensorShape({})); }

// x * 2 if pred else x + 100, merged.
inline std::vector<NodeDef> CondNodes(const std::string& x, const std::string& then_device = "") {
  // As tf.cond does: constants in a branch hang off the branch's pivot.
  return {
      N("sw", "Switch", {x, "pred"}),
      N("pivot_t", "Identity", {"sw:1"}),
      N("pivot_f", "Identity", {"sw:0"}),
      IntConst("two", 2, "pivot_t"),
      N("then", "Mul", {"sw:1", "two"}, DT_INT32, then_device),
      IntConst("hundred", 100, "pivot_f"),
      N("else", "Add", {"sw:0", "hundred"}),
      MergeNode("merge", {"else", "then"}),
  };
}

inline int32_t RunScalar(Session* session, const std::vector<std::pair<std::string, Tensor>>& feeds,
                  const std::string& fetch, Status* status = nullptr) {
  std::vector<Tensor> out;
  Status s = session->Run(feeds, {fetch}, {}, &out);
  if (status != nullptr) *status = s;
  else EXPECT_TRUE(s.ok()) << s;
  return s.ok() ? out[0].scalar<int32_t>() : -1;
}

}  // namespace flowvm::control_flow_testing

#endif  // FLOWVM_RUNTIME_CONTROL_FLOW_TEST_UTIL_H_

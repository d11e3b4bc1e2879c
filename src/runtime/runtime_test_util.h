// Graph-building helpers for the runtime's tests (header-only).
#ifndef FLOWVM_RUNTIME_RUNTIME_TEST_UTIL_H_
#define FLOWVM_RUNTIME_RUNTIME_TEST_UTIL_H_

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "flowvm/session.h"
#include "graph/graph.h"
#include "util/op_test_util.h"

// A namespace of its own: other test headers of this binary define
// helpers with the same names in flowvm::testing.
namespace flowvm::runtime_testing {

using testing::ConstNode;
using testing::PlaceholderNode;
using testing::TestNode;
using testing::ExpectTensorNear;

inline NodeDef Binary(const std::string& name, const std::string& op, const std::string& a, const std::string& b,
                      const std::string& device = "") {
  NodeDef n = TestNode(name, op).Input(a).Input(b).Attr("T", DT_FLOAT);
  n.set_device(device);
  return n;
}
inline NodeDef Unary(const std::string& name, const std::string& op, const std::string& a,
                     const std::string& device = "") {
  NodeDef n = TestNode(name, op).Input(a).Attr("T", DT_FLOAT);
  n.set_device(device);
  return n;
}
inline NodeDef On(NodeDef n, const std::string& device) {
  n.set_device(device);
  return n;
}
inline NodeDef WithControl(NodeDef n, const std::string& control) {
  n.add_input("^" + control);
  return n;
}

inline GraphDef GraphOf(const std::vector<NodeDef>& nodes) {
  GraphDef g;
  g.mutable_versions()->set_producer(1205);
  for (const auto& n : nodes) *g.add_node() = n;
  return g;
}

inline Tensor F(std::vector<float> v, TensorShape shape) { return Tensor::FromVector<float>(v, shape); }

// The graph of `def`, or a failed test and null.
inline std::unique_ptr<Graph> ToGraph(const GraphDef& def) {
  auto g = std::make_unique<Graph>();
  Status s = ConvertGraphDefToGraph(def, g.get());
  EXPECT_TRUE(s.ok()) << s;
  return s.ok() ? std::move(g) : nullptr;
}

inline std::unique_ptr<Session> NewSessionOrDie(const GraphDef& def, SessionOptions options = SessionOptions()) {
  auto s = Session::Create(options, def);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? std::move(*s) : nullptr;
}

// True if `s` has `code` and its message contains every part.
inline ::testing::AssertionResult HasError(const Status& s, Code code, const std::vector<std::string>& parts) {
  if (s.code() != code) return ::testing::AssertionFailure() << "wrong code: " << s;
  for (const auto& p : parts)
    if (s.message().find(p) == std::string::npos) return ::testing::AssertionFailure() << "no '" << p << "' in: " << s;
  return ::testing::AssertionSuccess();
}

inline const char* kCpu0 = "/job:localhost/replica:0/task:0/device:CPU:0";
inline const char* kCpu1 = "/job:localhost/replica:0/task:0/device:CPU:1";

}  // namespace flowvm::runtime_testing

#endif  // FLOWVM_RUNTIME_RUNTIME_TEST_UTIL_H_

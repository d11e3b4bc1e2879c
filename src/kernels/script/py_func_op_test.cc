// PyFunc kernels through the host-function dispatcher: with none installed
// (a process without the Python package) a clear FailedPrecondition; with
// one, its results, and the checks of their number and types against Tout.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "kernels/script/host_function.h"
#include "util/op_test_util.h"

namespace flowvm {
namespace {

using testing::TestNode;

NodeDef PyFuncNode(const std::string& token, DataTypeVector tin, DataTypeVector tout) {
  TestNode n("call", "PyFunc");
  for (size_t i = 0; i < tin.size(); ++i) n.Input("x" + std::to_string(i));
  return n.Attr("token", token).Attr("Tin", tin).Attr("Tout", tout);
}

class PyFuncOpTest : public ::testing::Test {
 protected:
  void TearDown() override { SetHostFunctionDispatcher(nullptr); }
};

TEST_F(PyFuncOpTest, WithoutAHostItFailsNamingTheFunction) {
  auto out = testing::RunOpKernel(PyFuncNode("pyfunc_7", {DT_FLOAT}, {DT_FLOAT}), {Tensor::Scalar<float>(1)});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), Code::kFailedPrecondition) << out.status();
  EXPECT_NE(out.status().message().find("pyfunc_7"), std::string::npos) << out.status();
}

TEST_F(PyFuncOpTest, CallsTheHostAndChecksItsResults) {
  std::vector<std::string> tokens;
  SetHostFunctionDispatcher([&](const std::string& token, const std::vector<Tensor>& in, std::vector<Tensor>* out) {
    tokens.push_back(token);
    if (token == "double") {
      out->push_back(Tensor::Scalar<float>(2 * in[0].scalar<float>()));
      return Status::OK();
    }
    if (token == "two_values") {
      out->push_back(Tensor::Scalar<float>(1));
      out->push_back(Tensor::Scalar<float>(2));
      return Status::OK();
    }
    if (token == "wrong_type") {
      out->push_back(Tensor::Scalar<int32_t>(1));
      return Status::OK();
    }
    return errors::OutOfRange("the Python function '", token, "' raised StopIteration");
  });
  auto out = testing::RunOpKernel(PyFuncNode("double", {DT_FLOAT}, {DT_FLOAT}), {Tensor::Scalar<float>(21)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].scalar<float>(), 42.0f);

  out = testing::RunOpKernel(PyFuncNode("two_values", {}, {DT_FLOAT}), {});
  EXPECT_EQ(out.status().code(), Code::kInvalidArgument) << out.status();
  out = testing::RunOpKernel(PyFuncNode("wrong_type", {}, {DT_FLOAT}), {});
  EXPECT_EQ(out.status().code(), Code::kInvalidArgument) << out.status();
  EXPECT_NE(out.status().message().find("int32"), std::string::npos) << out.status();
  out = testing::RunOpKernel(PyFuncNode("ends", {}, {DT_FLOAT}), {});
  EXPECT_EQ(out.status().code(), Code::kOutOfRange) << out.status();
  EXPECT_EQ(tokens, (std::vector<std::string>{"double", "two_values", "wrong_type", "ends"}));
}

}  // namespace
}  // namespace flowvm

// Signatures and shape functions of the training ops.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "graph/op_registry.h"
#include "util/op_test_util.h"

namespace flowvm {
namespace {

using testing::InferShapes;
using testing::PlaceholderNode;
using testing::TestNode;
using testing::VariableNode;

StatusOr<PartialTensorShape> Agd(PartialTensorShape var, PartialTensorShape alpha, PartialTensorShape delta,
                                 const char* var_op = "VariableV2") {
  auto s = InferShapes({TestNode("v", var_op).Attr("dtype", DT_FLOAT).Attr("shape", var),
                        PlaceholderNode("a", DT_FLOAT, alpha), PlaceholderNode("d", DT_FLOAT, delta),
                        TestNode("agd", "ApplyGradientDescent").Input("v").Input("a").Input("d").Attr("T", DT_FLOAT)},
                       "agd");
  if (!s.ok()) return s.status();
  return (*s)[0];
}

TEST(TrainingOpsShapeTest, ApplyGradientDescent) {
  EXPECT_EQ(Agd(PartialTensorShape({2, -1}), TensorShape(), PartialTensorShape({-1, 3})).value(),
            PartialTensorShape({2, 3}));
  EXPECT_EQ(Agd(PartialTensorShape({4}), TensorShape(), PartialTensorShape({4}), "Variable").value(),
            PartialTensorShape({4}));
  auto bad = Agd(PartialTensorShape({2}), TensorShape(), PartialTensorShape({3}));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("'agd'"), std::string::npos) << bad.status();
  bad = Agd(PartialTensorShape({2}), PartialTensorShape({1}), PartialTensorShape({2}));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
}

TEST(TrainingOpsDefTest, Signature) {
  const OpDef& op = OpRegistry::Global()->LookUpOrNull("ApplyGradientDescent")->op_def;
  EXPECT_TRUE(op.input_arg(0).is_ref());
  EXPECT_FALSE(op.input_arg(1).is_ref());
  EXPECT_TRUE(op.output_arg(0).is_ref());
  EXPECT_EQ(op.output_arg(0).name(), "out");
  for (const auto& a : op.attr()) {
    if (a.name() == "use_locking") {
      EXPECT_FALSE(a.default_value().b());
    }
  }
}

// One input of an Apply* op: a VariableV2 (ref) or a Placeholder (value).
struct In {
  bool ref;
  PartialTensorShape shape;
};
In Ref(PartialTensorShape s) { return {true, std::move(s)}; }
In Val(PartialTensorShape s) { return {false, std::move(s)}; }
const PartialTensorShape kScalar = TensorShape();

StatusOr<PartialTensorShape> Infer(const char* op, const std::vector<In>& inputs) {
  std::vector<NodeDef> nodes;
  TestNode apply("apply", op);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string name = "in" + std::to_string(i);
    nodes.push_back(inputs[i].ref ? VariableNode(name, DT_FLOAT, inputs[i].shape)
                                  : PlaceholderNode(name, DT_FLOAT, inputs[i].shape));
    apply.Input(name);
  }
  nodes.push_back(apply.Attr("T", DT_FLOAT));
  auto s = InferShapes(nodes, "apply");
  if (!s.ok()) return s.status();
  return (*s)[0];
}

// The shape function fails with InvalidArgument naming the node and `what`.
void ExpectShapeError(const StatusOr<PartialTensorShape>& s, const std::string& what) {
  ASSERT_FALSE(s.ok()) << what;
  EXPECT_EQ(s.status().code(), Code::kInvalidArgument) << s.status();
  EXPECT_NE(s.status().message().find("'apply'"), std::string::npos) << s.status();
  EXPECT_NE(s.status().message().find(what), std::string::npos) << s.status();
}

// Momentum: var, accum, lr, grad, momentum.
std::vector<In> Momentum(PartialTensorShape var, PartialTensorShape accum, PartialTensorShape grad,
                         PartialTensorShape lr = kScalar, PartialTensorShape momentum = kScalar) {
  return {Ref(var), Ref(accum), Val(lr), Val(grad), Val(momentum)};
}

TEST(TrainingOpsShapeTest, ApplyMomentum) {
  EXPECT_EQ(Infer("ApplyMomentum", Momentum(PartialTensorShape({2, -1}), PartialTensorShape({-1, 3}),
                                            PartialTensorShape({2, -1})))
                .value(),
            PartialTensorShape({2, 3}));
  // Unknown ranks merge to whatever is known; unknown-rank scalars pass.
  EXPECT_EQ(Infer("ApplyMomentum", Momentum(PartialTensorShape(), PartialTensorShape(), PartialTensorShape({4}),
                                            PartialTensorShape(), PartialTensorShape()))
                .value(),
            PartialTensorShape({4}));
  ExpectShapeError(Infer("ApplyMomentum", Momentum(PartialTensorShape({2}), PartialTensorShape({3}),
                                                   PartialTensorShape({2}))),
                   "var and accum do not have the same shape: [2] vs [3]");
  // grad disagrees with what var and accum fixed together.
  ExpectShapeError(Infer("ApplyMomentum", Momentum(PartialTensorShape({2, -1}), PartialTensorShape({-1, 3}),
                                                   PartialTensorShape({2, 4}))),
                   "var/accum and grad do not have the same shape: [2,3] vs [2,4]");
  ExpectShapeError(Infer("ApplyMomentum", Momentum(TensorShape({2}), TensorShape({2}), TensorShape({2}),
                                                   TensorShape({1}))),
                   "lr must be a scalar but has shape [1]");
  ExpectShapeError(Infer("ApplyMomentum", Momentum(TensorShape({2}), TensorShape({2}), TensorShape({2}), kScalar,
                                                   TensorShape({2}))),
                   "momentum must be a scalar");
}

std::vector<In> Adam(PartialTensorShape var, PartialTensorShape m, PartialTensorShape v, PartialTensorShape grad,
                     int non_scalar = -1) {
  std::vector<In> in = {Ref(var), Ref(m), Ref(v)};
  for (int i = 0; i < 6; ++i) in.push_back(Val(i == non_scalar ? PartialTensorShape({3}) : kScalar));
  in.push_back(Val(grad));
  return in;
}

TEST(TrainingOpsShapeTest, ApplyAdam) {
  EXPECT_EQ(Infer("ApplyAdam", Adam(PartialTensorShape({-1, 5}), PartialTensorShape({7, -1}), PartialTensorShape(),
                                    PartialTensorShape({-1, -1})))
                .value(),
            PartialTensorShape({7, 5}));
  ExpectShapeError(Infer("ApplyAdam", Adam(TensorShape({2}), TensorShape({2}), TensorShape({2, 1}), TensorShape({2}))),
                   "var/m and v do not have the same shape: [2] vs [2,1]");
  ExpectShapeError(Infer("ApplyAdam", Adam(TensorShape({2}), TensorShape({2}), TensorShape({2}), TensorShape({}))),
                   "var/m/v and grad do not have the same shape: [2] vs []");
  const char* names[] = {"beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon"};
  for (int i = 0; i < 6; ++i)
    ExpectShapeError(
        Infer("ApplyAdam", Adam(TensorShape({2}), TensorShape({2}), TensorShape({2}), TensorShape({2}), i)),
        std::string(names[i]) + " must be a scalar but has shape [3]");
}

TEST(TrainingOpsShapeTest, ApplyAdagrad) {
  auto in = [](PartialTensorShape var, PartialTensorShape accum, PartialTensorShape lr, PartialTensorShape grad) {
    return std::vector<In>{Ref(var), Ref(accum), Val(lr), Val(grad)};
  };
  EXPECT_EQ(Infer("ApplyAdagrad", in(PartialTensorShape({-1}), PartialTensorShape(), kScalar, PartialTensorShape({6})))
                .value(),
            PartialTensorShape({6}));
  ExpectShapeError(Infer("ApplyAdagrad", in(TensorShape({6}), TensorShape({5}), kScalar, TensorShape({6}))),
                   "var and accum do not have the same shape: [6] vs [5]");
  ExpectShapeError(Infer("ApplyAdagrad", in(TensorShape({6}), TensorShape({6}), kScalar, TensorShape({6, 1}))),
                   "var/accum and grad");
  ExpectShapeError(Infer("ApplyAdagrad", in(TensorShape({6}), TensorShape({6}), TensorShape({1, 1}), TensorShape({6}))),
                   "lr must be a scalar");
}

TEST(TrainingOpsShapeTest, ApplyRMSProp) {
  auto in = [](PartialTensorShape var, PartialTensorShape ms, PartialTensorShape mom, PartialTensorShape grad,
               int non_scalar = -1) {
    std::vector<In> v = {Ref(var), Ref(ms), Ref(mom)};
    for (int i = 0; i < 4; ++i) v.push_back(Val(i == non_scalar ? PartialTensorShape({2}) : kScalar));
    v.push_back(Val(grad));
    return v;
  };
  EXPECT_EQ(Infer("ApplyRMSProp", in(PartialTensorShape({3, -1}), PartialTensorShape({-1, -1}),
                                     PartialTensorShape({-1, 4}), PartialTensorShape()))
                .value(),
            PartialTensorShape({3, 4}));
  ExpectShapeError(Infer("ApplyRMSProp", in(TensorShape({3}), TensorShape({4}), TensorShape({3}), TensorShape({3}))),
                   "var and ms do not have the same shape");
  ExpectShapeError(Infer("ApplyRMSProp", in(TensorShape({3}), TensorShape({3}), TensorShape({4}), TensorShape({3}))),
                   "var/ms and mom do not have the same shape");
  ExpectShapeError(Infer("ApplyRMSProp", in(TensorShape({3}), TensorShape({3}), TensorShape({3}), TensorShape({4}))),
                   "var/ms/mom and grad do not have the same shape: [3] vs [4]");
  const char* names[] = {"lr", "rho", "momentum", "epsilon"};
  for (int i = 0; i < 4; ++i)
    ExpectShapeError(
        Infer("ApplyRMSProp", in(TensorShape({3}), TensorShape({3}), TensorShape({3}), TensorShape({3}), i)),
        std::string(names[i]) + " must be a scalar");
}

TEST(TrainingOpsShapeTest, ApplyCenteredRMSProp) {
  auto in = [](PartialTensorShape var, PartialTensorShape mg, PartialTensorShape ms, PartialTensorShape mom,
               PartialTensorShape grad, int non_scalar = -1) {
    std::vector<In> v = {Ref(var), Ref(mg), Ref(ms), Ref(mom)};
    for (int i = 0; i < 4; ++i) v.push_back(Val(i == non_scalar ? PartialTensorShape({2}) : kScalar));
    v.push_back(Val(grad));
    return v;
  };
  const TensorShape s3({3}), s4({4});
  EXPECT_EQ(Infer("ApplyCenteredRMSProp", in(PartialTensorShape({3, -1}), PartialTensorShape(),
                                             PartialTensorShape({-1, -1}), PartialTensorShape({-1, 4}),
                                             PartialTensorShape()))
                .value(),
            PartialTensorShape({3, 4}));
  ExpectShapeError(Infer("ApplyCenteredRMSProp", in(s3, s4, s3, s3, s3)), "var and mg do not have the same shape");
  ExpectShapeError(Infer("ApplyCenteredRMSProp", in(s3, s3, s4, s3, s3)), "var/mg and ms do not have the same shape");
  ExpectShapeError(Infer("ApplyCenteredRMSProp", in(s3, s3, s3, s4, s3)),
                   "var/mg/ms and mom do not have the same shape");
  ExpectShapeError(Infer("ApplyCenteredRMSProp", in(s3, s3, s3, s3, s4)),
                   "var/mg/ms/mom and grad do not have the same shape: [3] vs [4]");
  const char* names[] = {"lr", "rho", "momentum", "epsilon"};
  for (int i = 0; i < 4; ++i)
    ExpectShapeError(Infer("ApplyCenteredRMSProp", in(s3, s3, s3, s3, s3, i)),
                     std::string(names[i]) + " must be a scalar");
}

// Inputs (name, is_ref) and bool attrs (name, default) as TensorFlow has them.
void ExpectSignature(const char* name, const std::vector<std::pair<std::string, bool>>& inputs,
                     const std::vector<std::pair<std::string, bool>>& bool_attrs) {
  SCOPED_TRACE(name);
  const OpRegistrationData* reg = OpRegistry::Global()->LookUpOrNull(name);
  ASSERT_NE(reg, nullptr);
  const OpDef& op = reg->op_def;
  ASSERT_EQ(op.input_arg_size(), static_cast<int>(inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    EXPECT_EQ(op.input_arg(i).name(), inputs[i].first);
    EXPECT_EQ(op.input_arg(i).is_ref(), inputs[i].second) << inputs[i].first;
    EXPECT_EQ(op.input_arg(i).type_attr(), "T");
  }
  ASSERT_EQ(op.output_arg_size(), 1);
  EXPECT_EQ(op.output_arg(0).name(), "out");
  EXPECT_TRUE(op.output_arg(0).is_ref());
  ASSERT_EQ(op.attr_size(), static_cast<int>(bool_attrs.size()) + 1);
  EXPECT_EQ(op.attr(0).name(), "T");
  EXPECT_EQ(op.attr(0).type(), "type");
  for (size_t i = 0; i < bool_attrs.size(); ++i) {
    const auto& a = op.attr(i + 1);
    EXPECT_EQ(a.name(), bool_attrs[i].first);
    EXPECT_EQ(a.type(), "bool");
    EXPECT_EQ(a.default_value().b(), bool_attrs[i].second) << a.name();
  }
}

TEST(TrainingOpsDefTest, Signatures) {
  ExpectSignature("ApplyMomentum", {{"var", true}, {"accum", true}, {"lr", false}, {"grad", false}, {"momentum", false}},
                  {{"use_locking", false}, {"use_nesterov", false}});
  ExpectSignature("ApplyAdam",
                  {{"var", true}, {"m", true}, {"v", true}, {"beta1_power", false}, {"beta2_power", false},
                   {"lr", false}, {"beta1", false}, {"beta2", false}, {"epsilon", false}, {"grad", false}},
                  {{"use_locking", false}, {"use_nesterov", false}});
  ExpectSignature("ApplyAdagrad", {{"var", true}, {"accum", true}, {"lr", false}, {"grad", false}},
                  {{"use_locking", false}, {"update_slots", true}});
  ExpectSignature("ApplyRMSProp",
                  {{"var", true}, {"ms", true}, {"mom", true}, {"lr", false}, {"rho", false}, {"momentum", false},
                   {"epsilon", false}, {"grad", false}},
                  {{"use_locking", false}});
  ExpectSignature("ApplyCenteredRMSProp",
                  {{"var", true}, {"mg", true}, {"ms", true}, {"mom", true}, {"lr", false}, {"rho", false},
                   {"momentum", false}, {"epsilon", false}, {"grad", false}},
                  {{"use_locking", false}});
}

}  // namespace
}  // namespace flowvm

// The training kernels on variable refs. ApplyGradientDescent: values, every
// registered type, in-place vs copy-on-write, errors. ApplyMomentum, ApplyAdam,
// ApplyAdagrad, ApplyRMSProp, ApplyCenteredRMSProp: several steps against a
// reference loop in double written from TensorFlow's documented formulas
// (not the kernels' Eigen expressions), for every registered type, sharded
// and not; in place, copy-on-write, errors.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "util/op_test_util.h"

namespace flowvm {
namespace {

using testing::ExpectTensorEqual;
using testing::ExpectTensorNear;
using testing::OpTest;
using testing::TestNode;

struct Agd {
  OpTest t;
  std::shared_ptr<Var> var;
  explicit Agd(DataType dt, bool use_locking = false) {
    Status s = t.Init(TestNode("agd", "ApplyGradientDescent")
                          .Input("v")
                          .Input("alpha")
                          .Input("delta")
                          .Attr("T", dt)
                          .Attr("use_locking", use_locking));
    EXPECT_TRUE(s.ok()) << s;
    var = t.AddVarInput("v", dt);
  }
  Status Run(const Tensor& alpha, const Tensor& delta) {
    t.ClearInputs();
    t.AddRefInput(&var->tensor, &var->mu);
    t.AddInput(alpha);
    t.AddInput(delta);
    return t.Run();
  }
};

TEST(ApplyGradientDescentOpTest, UpdatesInPlace) {
  for (bool locking : {false, true}) {
    Agd a(DT_FLOAT, locking);
    a.var->tensor = Tensor::FromVector<float>({1, 2, 3}).DeepCopy();
    const void* buf = a.var->tensor.raw_data();
    FLOWVM_ASSERT_OK(a.Run(Tensor::Scalar<float>(0.5f), Tensor::FromVector<float>({2, -4, 0.5f})));
    ASSERT_TRUE(a.t.output_is_ref(0));
    EXPECT_EQ(a.t.output_slot(0).ref, &a.var->tensor);
    ExpectTensorEqual(a.var->tensor, Tensor::FromVector<float>({0, 4, 2.75f}));
    EXPECT_EQ(a.var->tensor.raw_data(), buf);
    // A second step continues from the new value; alpha may be a [1] vector.
    FLOWVM_ASSERT_OK(a.Run(Tensor::FromVector<float>({2}), Tensor::FromVector<float>({1, 1, 1})));
    ExpectTensorEqual(a.t.output(0), Tensor::FromVector<float>({-2, 2, 0.75f}));
  }
}

TEST(ApplyGradientDescentOpTest, ReadersKeepTheOldValue) {
  Agd a(DT_DOUBLE);
  a.var->tensor = Tensor::FromVector<double>({1, 2}).DeepCopy();
  Tensor reader = a.var->tensor;  // shares the buffer
  FLOWVM_ASSERT_OK(a.Run(Tensor::Scalar<double>(1), Tensor::FromVector<double>({1, 1})));
  ExpectTensorEqual(a.var->tensor, Tensor::FromVector<double>({0, 1}));
  ExpectTensorEqual(reader, Tensor::FromVector<double>({1, 2}));
}

template <typename T>
Tensor V(std::vector<double> v) {
  std::vector<T> out;
  for (double x : v) out.push_back(static_cast<T>(static_cast<float>(x)));
  return Tensor::FromVector<T>(out);
}

template <typename T>
void CheckType(DataType dt) {
  SCOPED_TRACE(DataTypeName(dt));
  Agd a(dt);
  a.var->tensor = V<T>({10, 20, 30, 40}).DeepCopy();
  FLOWVM_ASSERT_OK(a.Run(Tensor::Scalar<T>(static_cast<T>(2.0f)), V<T>({1, 2, 3, 4})));
  ExpectTensorNear(a.var->tensor, V<T>({8, 16, 24, 32}));
}

TEST(ApplyGradientDescentOpTest, EveryType) {
  CheckType<float>(DT_FLOAT);
  CheckType<double>(DT_DOUBLE);
  CheckType<half>(DT_HALF);
  CheckType<bfloat16>(DT_BFLOAT16);
  CheckType<int8_t>(DT_INT8);
  CheckType<uint8_t>(DT_UINT8);
  CheckType<int16_t>(DT_INT16);
  CheckType<uint16_t>(DT_UINT16);
  CheckType<int32_t>(DT_INT32);
  CheckType<uint32_t>(DT_UINT32);
  CheckType<int64_t>(DT_INT64);
  CheckType<uint64_t>(DT_UINT64);
  Agd c(DT_COMPLEX64);
  c.var->tensor = Tensor::FromVector<complex64>({{1, 1}, {2, -2}}).DeepCopy();
  FLOWVM_ASSERT_OK(c.Run(Tensor::Scalar<complex64>({0, 1}), Tensor::FromVector<complex64>({{1, 0}, {0, 1}})));
  // var - i * delta: (1+i) - i = 1; (2-2i) - i*i = 3-2i.
  ExpectTensorEqual(c.var->tensor, Tensor::FromVector<complex64>({{1, 0}, {3, -2}}));
  Agd z(DT_COMPLEX128);
  z.var->tensor = Tensor::FromVector<complex128>({{1, 1}}).DeepCopy();
  FLOWVM_ASSERT_OK(z.Run(Tensor::Scalar<complex128>({2, 0}), Tensor::FromVector<complex128>({{0.5, 0.5}})));
  ExpectTensorEqual(z.var->tensor, Tensor::FromVector<complex128>({{0, 0}}));
  // Integer arithmetic wraps instead of overflowing.
  Agd w(DT_INT32);
  w.var->tensor = Tensor::FromVector<int32_t>({INT32_MIN}).DeepCopy();
  FLOWVM_ASSERT_OK(w.Run(Tensor::Scalar<int32_t>(1), Tensor::FromVector<int32_t>({1})));
  ExpectTensorEqual(w.var->tensor, Tensor::FromVector<int32_t>({INT32_MAX}));
}

TEST(ApplyGradientDescentOpTest, EmptyAndScalarVariables) {
  Agd a(DT_FLOAT);
  a.var->tensor = Tensor::FromVector<float>(std::vector<float>{}, TensorShape({0, 2}));
  FLOWVM_ASSERT_OK(a.Run(Tensor::Scalar<float>(1), Tensor::FromVector<float>(std::vector<float>{}, TensorShape({0, 2}))));
  EXPECT_EQ(a.var->tensor.shape(), TensorShape({0, 2}));
  Agd s(DT_FLOAT);
  s.var->tensor = Tensor::Scalar<float>(3).DeepCopy();
  FLOWVM_ASSERT_OK(s.Run(Tensor::Scalar<float>(0.5f), Tensor::Scalar<float>(4)));
  ExpectTensorEqual(s.var->tensor, Tensor::Scalar<float>(1));
}

TEST(ApplyGradientDescentOpTest, Errors) {
  Agd a(DT_FLOAT);
  Status s = a.Run(Tensor::Scalar<float>(1), Tensor::FromVector<float>({1}));
  EXPECT_EQ(s.code(), Code::kFailedPrecondition) << s;
  EXPECT_NE(s.message().find("uninitialized"), std::string::npos) << s;
  a.var->tensor = Tensor::FromVector<float>({1, 2}).DeepCopy();
  s = a.Run(Tensor::Scalar<float>(1), Tensor::FromVector<float>({1, 2, 3}));
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("[2] vs [3]"), std::string::npos) << s;
  s = a.Run(Tensor::FromVector<float>({1, 2}), Tensor::FromVector<float>({1, 2}));
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("alpha is not a scalar"), std::string::npos) << s;
  ExpectTensorEqual(a.var->tensor, Tensor::FromVector<float>({1, 2}));
  // A value instead of a reference.
  OpTest t;
  FLOWVM_ASSERT_OK(t.Init(TestNode("agd", "ApplyGradientDescent").Input("v").Input("a").Input("d").Attr("T", DT_FLOAT)));
  t.AddInput(Tensor::FromVector<float>({1}));
  t.AddInput(Tensor::Scalar<float>(1));
  t.AddInput(Tensor::FromVector<float>({1}));
  s = t.Run();
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
}

// ---- ApplyMomentum, ApplyAdam, ApplyAdagrad, ApplyRMSProp, ApplyCenteredRMSProp

using Hyper = std::map<std::string, double>;

// An Apply* op for the tests: its inputs in order (the first num_refs are
// var and its slots; "grad" is the gradient; the rest are scalars), the
// scalars' values at step t (0-based) and one reference step of one element
// in double: s[k] is ref k (var first).
struct OpSpec {
  const char* op;
  std::vector<std::string> inputs;
  int num_refs;
  std::function<Hyper(int t)> hyper;
  std::function<void(double* const* s, double g, const Hyper& h)> step;
  // Initial value of element i of ref k, when InitValue's do not suit.
  std::function<double(int k, int64_t i)> init = nullptr;
};

OpSpec MomentumSpec(bool nesterov) {
  return {"ApplyMomentum", {"var", "accum", "lr", "grad", "momentum"}, 2,
          [](int) { return Hyper{{"lr", 0.1}, {"momentum", 0.9}}; },
          [nesterov](double* const* s, double g, const Hyper& h) {
            double &var = *s[0], &accum = *s[1];
            const double lr = h.at("lr"), mom = h.at("momentum");
            accum = accum * mom + g;
            if (nesterov) {
              var -= g * lr + accum * mom * lr;
            } else {
              var -= lr * accum;
            }
          }};
}

OpSpec AdamSpec(bool nesterov) {
  return {"ApplyAdam",
          {"var", "m", "v", "beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon", "grad"},
          3,
          [](int t) {
            return Hyper{{"beta1_power", std::pow(0.9, t + 1)}, {"beta2_power", std::pow(0.999, t + 1)},
                         {"lr", 0.01}, {"beta1", 0.9}, {"beta2", 0.999}, {"epsilon", 1e-3}};
          },
          [nesterov](double* const* s, double g, const Hyper& h) {
            double &var = *s[0], &m = *s[1], &v = *s[2];
            const double b1 = h.at("beta1"), b2 = h.at("beta2"), eps = h.at("epsilon");
            const double lr_t = h.at("lr") * std::sqrt(1 - h.at("beta2_power")) / (1 - h.at("beta1_power"));
            m = b1 * m + (1 - b1) * g;
            v = b2 * v + (1 - b2) * g * g;
            if (nesterov) {
              var -= (m * b1 + g * (1 - b1)) * lr_t / (std::sqrt(v) + eps);
            } else {
              var -= m * lr_t / (std::sqrt(v) + eps);
            }
          }};
}

OpSpec AdagradSpec(bool update_slots) {
  return {"ApplyAdagrad", {"var", "accum", "lr", "grad"}, 2, [](int) { return Hyper{{"lr", 0.05}}; },
          [update_slots](double* const* s, double g, const Hyper& h) {
            double &var = *s[0], &accum = *s[1];
            if (update_slots) accum += g * g;
            var -= h.at("lr") * g / std::sqrt(accum);
          }};
}

OpSpec RMSPropSpec() {
  return {"ApplyRMSProp", {"var", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad"}, 3,
          [](int) { return Hyper{{"lr", 0.01}, {"rho", 0.9}, {"momentum", 0.5}, {"epsilon", 1e-4}}; },
          [](double* const* s, double g, const Hyper& h) {
            double &var = *s[0], &ms = *s[1], &mom = *s[2];
            const double rho = h.at("rho");
            ms = ms * rho + g * g * (1 - rho);
            mom = mom * h.at("momentum") + h.at("lr") * g / std::sqrt(ms + h.at("epsilon"));
            var -= mom;
          }};
}

// mg starts small against ms, so that ms - mg^2 stays positive as in real
// use (TensorFlow starts mg at 0 and ms at 1).
OpSpec CenteredRMSPropSpec() {
  return {"ApplyCenteredRMSProp", {"var", "mg", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad"}, 4,
          [](int) { return Hyper{{"lr", 0.01}, {"rho", 0.9}, {"momentum", 0.5}, {"epsilon", 1e-4}}; },
          [](double* const* s, double g, const Hyper& h) {
            double &var = *s[0], &mg = *s[1], &ms = *s[2], &mom = *s[3];
            const double rho = h.at("rho");
            ms = ms * rho + g * g * (1 - rho);
            mg = mg * rho + g * (1 - rho);
            mom = mom * h.at("momentum") + h.at("lr") * g / std::sqrt(ms - mg * mg + h.at("epsilon"));
            var -= mom;
          },
          [](int k, int64_t i) {
            if (k == 0) return std::sin(0.37 * i + 1);
            if (k == 1) return 0.1 * std::sin(0.61 * i);
            return 0.3 + 0.2 * std::sin(0.53 * i + k);
          }};
}

template <typename T>
T FromDouble(double x) {
  if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
    return T(static_cast<float>(x));
  } else {
    return static_cast<T>(x);
  }
}
template <typename T>
double ToDouble(T x) {
  if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
    return static_cast<float>(x);
  } else {
    return x;
  }
}
// x as T holds it, so the reference starts from what the kernel sees.
template <typename T>
double Round(double x) {
  return ToDouble(FromDouble<T>(x));
}
template <typename T>
Tensor MakeTensor(const std::vector<double>& v, const TensorShape& shape) {
  std::vector<T> out;
  for (double x : v) out.push_back(FromDouble<T>(x));
  return Tensor::FromVector<T>(out, shape);
}
// Deterministic test values: var anywhere, slots positive (accumulators of
// squares must be), grads of both signs and never zero.
double InitValue(int ref, int64_t i) {
  return ref == 0 ? std::sin(0.37 * i + 1) : 0.3 + 0.2 * std::sin(0.53 * i + ref);
}
double GradValue(int t, int64_t i) {
  const double g = std::cos(0.71 * i + 1.3 * t);
  return g >= 0 ? g + 0.05 : g - 0.05;
}

// An Apply* node whose refs are variables "var" and its slots by name.
struct ApplyNode {
  OpTest t;
  std::vector<std::shared_ptr<Var>> vars;
  OpSpec spec;

  ApplyNode(OpSpec spec_in, DataType dt, const std::vector<std::pair<std::string, bool>>& attrs = {})
      : spec(std::move(spec_in)) {
    TestNode node("apply", spec.op);
    for (const std::string& in : spec.inputs) node.Input(in);
    node.Attr("T", dt);
    for (const auto& [name, value] : attrs) node.Attr(name, value);
    Status s = t.Init(node);
    EXPECT_TRUE(s.ok()) << s;
    for (int k = 0; k < spec.num_refs; ++k) vars.push_back(std::make_shared<Var>(dt, PartialTensorShape()));
  }
  // values: the non-ref inputs by name.
  Status Run(const std::map<std::string, Tensor>& values) {
    t.ClearInputs();
    for (auto& v : vars) t.AddRefInput(&v->tensor, &v->mu);
    for (size_t i = spec.num_refs; i < spec.inputs.size(); ++i) t.AddInput(values.at(spec.inputs[i]));
    return t.Run();
  }
  // Scalars of step t, and grad.
  template <typename T>
  std::map<std::string, Tensor> Values(int step, const Tensor& grad) {
    std::map<std::string, Tensor> values;
    for (const auto& [name, x] : spec.hyper(step)) values[name] = Tensor::Scalar<T>(FromDouble<T>(x));
    values["grad"] = grad;
    return values;
  }
};

// Runs `steps` steps on n elements and checks var and every slot against
// the reference loop after each step.
template <typename T>
void CheckSteps(const OpSpec& spec, const std::vector<std::pair<std::string, bool>>& attrs, int64_t n, int steps,
                double tol, int threads = 1) {
  const DataType dt = DataTypeToEnum<T>::value;
  SCOPED_TRACE(std::string(spec.op) + " " + DataTypeName(dt) + " n=" + std::to_string(n));
  ApplyNode a(spec, dt, attrs);
  a.t.set_num_threads(threads);
  const TensorShape shape({n});
  std::vector<std::vector<double>> ref(spec.num_refs, std::vector<double>(n));
  for (int k = 0; k < spec.num_refs; ++k) {
    for (int64_t i = 0; i < n; ++i) ref[k][i] = Round<T>(spec.init ? spec.init(k, i) : InitValue(k, i));
    a.vars[k]->tensor = MakeTensor<T>(ref[k], shape);
  }
  for (int step = 0; step < steps; ++step) {
    std::vector<double> g(n);
    for (int64_t i = 0; i < n; ++i) g[i] = Round<T>(GradValue(step, i));
    Hyper h = spec.hyper(step);
    for (auto& [name, x] : h) x = Round<T>(x);
    std::vector<double*> s(spec.num_refs);
    for (int64_t i = 0; i < n; ++i) {
      for (int k = 0; k < spec.num_refs; ++k) s[k] = &ref[k][i];
      spec.step(s.data(), g[i], h);
    }
    FLOWVM_ASSERT_OK(a.Run(a.Values<T>(step, MakeTensor<T>(g, shape))));
    for (int k = 0; k < spec.num_refs; ++k) {
      SCOPED_TRACE(spec.inputs[k] + " after step " + std::to_string(step));
      ExpectTensorNear(a.vars[k]->tensor, MakeTensor<T>(ref[k], shape), tol);
    }
  }
}

template <typename T>
void CheckAllOps(int64_t n, int steps, double tol, int threads = 1) {
  for (bool nesterov : {false, true}) {
    CheckSteps<T>(MomentumSpec(nesterov), {{"use_nesterov", nesterov}}, n, steps, tol, threads);
    CheckSteps<T>(AdamSpec(nesterov), {{"use_nesterov", nesterov}}, n, steps, tol, threads);
  }
  for (bool update_slots : {true, false})
    CheckSteps<T>(AdagradSpec(update_slots), {{"update_slots", update_slots}}, n, steps, tol, threads);
  CheckSteps<T>(RMSPropSpec(), {}, n, steps, tol, threads);
  CheckSteps<T>(CenteredRMSPropSpec(), {}, n, steps, tol, threads);
}

TEST(ApplyOptimizerOpTest, FloatAndDoubleOverSeveralSteps) {
  CheckAllOps<float>(37, 5, 2e-6);
  CheckAllOps<double>(37, 5, 1e-13);
}

TEST(ApplyOptimizerOpTest, HalfAndBfloat16) {
  // The state is rounded to 16 bits after every step; the reference is not.
  CheckAllOps<half>(37, 3, 5e-3);
  CheckAllOps<bfloat16>(37, 3, 3e-2);
}

TEST(ApplyOptimizerOpTest, ShardedAcrossBlocks) {
  // Several shards, and blocks that end mid-shard.
  CheckAllOps<float>(70001, 2, 2e-6, 4);
  CheckAllOps<double>(5003, 2, 1e-13, 3);
  CheckAllOps<half>(3001, 2, 5e-3, 3);
}

TEST(ApplyOptimizerOpTest, UseLockingAndLegacyScalars) {
  // use_locking changes nothing observable; [1] vectors pass for scalars.
  ApplyNode a(MomentumSpec(false), DT_FLOAT, {{"use_locking", true}});
  a.vars[0]->tensor = Tensor::FromVector<float>({1, 2}).DeepCopy();
  a.vars[1]->tensor = Tensor::FromVector<float>({0, 1}).DeepCopy();
  FLOWVM_ASSERT_OK(a.Run({{"lr", Tensor::FromVector<float>({0.5f})},
                          {"momentum", Tensor::Scalar<float>(0.5f)},
                          {"grad", Tensor::FromVector<float>({2, 2})}}));
  // accum = [0, 1] * 0.5 + 2 = [2, 2.5]; var -= 0.5 * accum.
  ExpectTensorEqual(a.vars[1]->tensor, Tensor::FromVector<float>({2, 2.5f}));
  ExpectTensorEqual(a.vars[0]->tensor, Tensor::FromVector<float>({0, 0.75f}));
}

TEST(ApplyOptimizerOpTest, UpdatesInPlaceAndForwardsTheRef) {
  for (const OpSpec& spec : {MomentumSpec(false), AdamSpec(false), AdagradSpec(true), RMSPropSpec(),
                             CenteredRMSPropSpec()}) {
    SCOPED_TRACE(spec.op);
    ApplyNode a(spec, DT_FLOAT);
    std::vector<const void*> bufs;
    for (int k = 0; k < spec.num_refs; ++k) {
      a.vars[k]->tensor = Tensor::FromVector<float>({0.5f, 1, 2}).DeepCopy();
      bufs.push_back(a.vars[k]->tensor.raw_data());
    }
    FLOWVM_ASSERT_OK(a.Run(a.Values<float>(0, Tensor::FromVector<float>({1, -1, 0.5f}))));
    ASSERT_TRUE(a.t.output_is_ref(0));
    EXPECT_EQ(a.t.output_slot(0).ref, &a.vars[0]->tensor);
    EXPECT_EQ(a.t.output_slot(0).ref_mu, &a.vars[0]->mu);
    for (int k = 0; k < spec.num_refs; ++k) EXPECT_EQ(a.vars[k]->tensor.raw_data(), bufs[k]) << spec.inputs[k];
    // The var changed.
    EXPECT_NE(a.vars[0]->tensor.data<float>()[0], 0.5f);
  }
}

TEST(ApplyOptimizerOpTest, ReadersKeepTheOldValues) {
  ApplyNode a(AdamSpec(false), DT_DOUBLE);
  for (auto& v : a.vars) v->tensor = Tensor::FromVector<double>({1, 2}).DeepCopy();
  Tensor var_reader = a.vars[0]->tensor, m_reader = a.vars[1]->tensor;  // share the buffers
  FLOWVM_ASSERT_OK(a.Run(a.Values<double>(0, Tensor::FromVector<double>({3, 3}))));
  ExpectTensorEqual(var_reader, Tensor::FromVector<double>({1, 2}));
  ExpectTensorEqual(m_reader, Tensor::FromVector<double>({1, 2}));
  EXPECT_NE(a.vars[0]->tensor.raw_data(), var_reader.raw_data());
  EXPECT_NE(a.vars[1]->tensor.data<double>()[0], 1.0);
}

TEST(ApplyOptimizerOpTest, SameVariableAsVarAndSlot) {
  // One mutex reached through two inputs is taken once (no self-deadlock).
  ApplyNode a(MomentumSpec(false), DT_FLOAT);
  a.vars[1] = a.vars[0];
  a.vars[0]->tensor = Tensor::FromVector<float>({2}).DeepCopy();
  FLOWVM_ASSERT_OK(a.Run(a.Values<float>(0, Tensor::FromVector<float>({1}))));
  // accum (= var) = 2 * 0.9 + 1 = 2.8; var -= 0.1 * 2.8.
  ExpectTensorNear(a.vars[0]->tensor, Tensor::FromVector<float>({2.52f}));
}

TEST(ApplyOptimizerOpTest, EmptyAndScalarVariables) {
  for (const OpSpec& spec : {MomentumSpec(true), AdamSpec(true), AdagradSpec(true), RMSPropSpec(),
                             CenteredRMSPropSpec()}) {
    SCOPED_TRACE(spec.op);
    ApplyNode e(spec, DT_FLOAT);
    for (auto& v : e.vars) v->tensor = Tensor::FromVector<float>(std::vector<float>{}, TensorShape({2, 0}));
    FLOWVM_ASSERT_OK(e.Run(e.Values<float>(0, Tensor::FromVector<float>(std::vector<float>{}, TensorShape({2, 0})))));
    EXPECT_EQ(e.vars[0]->tensor.shape(), TensorShape({2, 0}));
    ApplyNode s(spec, DT_FLOAT);
    for (auto& v : s.vars) v->tensor = Tensor::Scalar<float>(1).DeepCopy();
    FLOWVM_ASSERT_OK(s.Run(s.Values<float>(0, Tensor::Scalar<float>(1))));
    EXPECT_EQ(s.vars[0]->tensor.shape(), TensorShape());
    EXPECT_LT(s.vars[0]->tensor.data<float>()[0], 1.0f);
  }
}

void ExpectError(const Status& s, Code code, const std::string& what) {
  EXPECT_EQ(s.code(), code) << s;
  EXPECT_NE(s.message().find(what), std::string::npos) << "want \"" << what << "\" in: " << s;
}

TEST(ApplyOptimizerOpTest, Errors) {
  for (const OpSpec& spec : {MomentumSpec(false), AdamSpec(false), AdagradSpec(true), RMSPropSpec(),
                             CenteredRMSPropSpec()}) {
    SCOPED_TRACE(spec.op);
    const std::string slot = spec.inputs[1];
    ApplyNode a(spec, DT_FLOAT);
    const Tensor grad = Tensor::FromVector<float>({1, 2});
    // Everything uninitialized: var is named first. Then only the slot.
    ExpectError(a.Run(a.Values<float>(0, grad)), Code::kFailedPrecondition,
                "Attempting to use uninitialized variables: var");
    for (auto& v : a.vars) v->tensor = Tensor::FromVector<float>({1, 2}).DeepCopy();
    a.vars[1]->tensor = Tensor();
    ExpectError(a.Run(a.Values<float>(0, grad)), Code::kFailedPrecondition,
                "Attempting to use uninitialized variables: " + slot);
    ExpectTensorEqual(a.vars[0]->tensor, Tensor::FromVector<float>({1, 2}));
    // A slot of another shape; a grad of another shape.
    a.vars[1]->tensor = Tensor::FromVector<float>({1, 2, 3}).DeepCopy();
    ExpectError(a.Run(a.Values<float>(0, grad)), Code::kInvalidArgument,
                "var and " + slot + " do not have the same shape: [2] vs [3]");
    a.vars[1]->tensor = Tensor::FromVector<float>({1, 2}).DeepCopy();
    ExpectError(a.Run(a.Values<float>(0, Tensor::FromVector<float>({1, 2}, TensorShape({1, 2})))),
                Code::kInvalidArgument, "var and grad do not have the same shape: [2] vs [1,2]");
    // Each scalar in turn given as a [2] vector.
    for (const auto& [name, x] : spec.hyper(0)) {
      auto values = a.Values<float>(0, grad);
      values[name] = Tensor::FromVector<float>({0.1f, 0.1f});
      ExpectError(a.Run(values), Code::kInvalidArgument, name + " is not a scalar: [2]");
    }
    for (auto& v : a.vars) ExpectTensorEqual(v->tensor, Tensor::FromVector<float>({1, 2}));
    // A value where a slot ref belongs.
    OpTest t;
    TestNode node("apply", spec.op);
    for (const std::string& in : spec.inputs) node.Input(in);
    FLOWVM_ASSERT_OK(t.Init(node.Attr("T", DT_FLOAT)));
    Var var(DT_FLOAT, PartialTensorShape());
    var.tensor = Tensor::FromVector<float>({1, 2}).DeepCopy();
    t.AddRefInput(&var.tensor, &var.mu);
    for (size_t i = 1; i < spec.inputs.size(); ++i)
      t.AddInput(i < static_cast<size_t>(spec.num_refs) || spec.inputs[i] == "grad" ? grad : Tensor::Scalar<float>(0.5f));
    ExpectError(t.Run(), Code::kInvalidArgument, "input 1 (" + slot + ") must be a reference to a variable");
  }
}

TEST(ApplyOptimizerOpTest, NoIntegerKernels) {
  OpTest t;
  Status s = t.Init(TestNode("apply", "ApplyAdam")
                        .Input("a").Input("b").Input("c").Input("d").Input("e")
                        .Input("f").Input("g").Input("h").Input("i").Input("j")
                        .Attr("T", DT_INT32));
  EXPECT_FALSE(s.ok());
}

}  // namespace
}  // namespace flowvm

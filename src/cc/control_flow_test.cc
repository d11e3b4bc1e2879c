// Cond and WhileLoop in the C++ API: values, nesting, tensors captured from
// outside, another device, gradients through Cond, and errors.
#include "flowvm/cc/control_flow.h"

#include <cmath>
#include <functional>

#include <gtest/gtest.h>

#include "flowvm/cc/client_session.h"
#include "flowvm/cc/gradients.h"
#include "flowvm/cc/ops.h"
#include "flowvm/cc/training.h"
#include "util/op_test_util.h"

namespace flowvm {
namespace {

using testing::ExpectTensorNear;

// for (i = 0; i < trips; ++i) v = body(scope, v, i): a loop over a counter
// and one value; *out is the value's final state.
using CountedBody = std::function<Output(const Scope& s, Output v, Output i)>;
Status CountedLoop(const Scope& scope, Input trips, Output v0, const CountedBody& body, Output* out) {
  std::vector<Output> vars;
  FLOWVM_RETURN_IF_ERROR(WhileLoop(
      scope, {ops::Const(scope, 0), v0},
      [&](const Scope& s, const std::vector<Output>& v, Output* c) {
        *c = ops::Less(s, v[0], trips);
        return s.status();
      },
      [&](const Scope& s, const std::vector<Output>& v, std::vector<Output>* next) {
        next->push_back(ops::Add(s, v[0], 1));
        next->push_back(body(s, v[1], v[0]));
        return s.status();
      },
      &vars));
  *out = vars[1];
  return Status::OK();
}

// i = 0, acc = 0; while i < n: acc += x * i; i += 1
struct SumLoop {
  Scope root = Scope::NewRootScope();
  Output n, x, i_out, acc_out;
  Status status;

  explicit SumLoop(int parallel = 10, const std::string& body_device = "") {
    n = ops::Placeholder(root.WithOpName("n"), DT_INT32);
    x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
    std::vector<Output> out;
    status = WhileLoop(
        root, {ops::Const(root, 0), ops::Const(root, 0.0f)},
        [&](const Scope& s, const std::vector<Output>& v, Output* c) {
          *c = ops::Less(s, v[0], n);
          return s.status();
        },
        [&](const Scope& s, const std::vector<Output>& v, std::vector<Output>* next) {
          Scope b = body_device.empty() ? s : s.WithDevice(body_device);
          next->push_back(ops::Add(b, v[0], 1));
          next->push_back(ops::Add(b, v[1], ops::Mul(b, x, ops::Cast(b, v[0], DT_FLOAT))));
          return b.status();
        },
        &out, parallel);
    if (status.ok()) {
      i_out = out[0];
      acc_out = out[1];
    }
  }
};

TEST(ControlFlowBuildersTest, WhileLoopWithCapturedTensors) {
  for (int parallel : {1, 10}) {
    SumLoop loop(parallel);
    FLOWVM_ASSERT_OK(loop.status);
    ClientSession session(loop.root);
    std::vector<Tensor> out;
    for (int n : {0, 1, 10, 100}) {
      FLOWVM_ASSERT_OK(session.Run({{loop.n, Tensor::Scalar<int32_t>(n)}, {loop.x, Tensor::Scalar<float>(0.5f)}},
                                   {loop.i_out, loop.acc_out}, &out));
      EXPECT_EQ(out[0].scalar<int32_t>(), n);
      EXPECT_FLOAT_EQ(out[1].scalar<float>(), 0.5f * n * (n - 1) / 2);
    }
  }
}

TEST(ControlFlowBuildersTest, WhileLoopWithItsBodyOnAnotherDevice) {
  SumLoop loop(10, "/device:CPU:1");
  FLOWVM_ASSERT_OK(loop.status);
  SessionOptions options;
  options.cpu_devices = 2;
  ClientSession session(loop.root, options);
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK(session.Run({{loop.n, Tensor::Scalar<int32_t>(50)}, {loop.x, Tensor::Scalar<float>(1.0f)}},
                               {loop.acc_out}, &out));
  EXPECT_FLOAT_EQ(out[0].scalar<float>(), 49 * 50 / 2);
}

TEST(ControlFlowBuildersTest, NestedLoops) {
  // total = sum over i < 4 of (sum over j < i of j)
  Scope root = Scope::NewRootScope();
  std::vector<Output> out;
  FLOWVM_ASSERT_OK(WhileLoop(
      root, {ops::Const(root, 0), ops::Const(root, 0)},
      [](const Scope& s, const std::vector<Output>& v, Output* c) {
        *c = ops::Less(s, v[0], 4);
        return s.status();
      },
      [](const Scope& s, const std::vector<Output>& v, std::vector<Output>* next) {
        std::vector<Output> inner;
        Output i = v[0];
        FLOWVM_RETURN_IF_ERROR(WhileLoop(
            s, {ops::Const(s, 0), ops::Const(s, 0)},
            [&](const Scope& s2, const std::vector<Output>& w, Output* c) {
              *c = ops::Less(s2, w[0], i);  // i comes from the outer loop
              return s2.status();
            },
            [](const Scope& s2, const std::vector<Output>& w, std::vector<Output>* n2) {
              n2->push_back(ops::Add(s2, w[0], 1));
              n2->push_back(ops::Add(s2, w[1], w[0]));
              return s2.status();
            },
            &inner));
        next->push_back(ops::Add(s, v[0], 1));
        next->push_back(ops::Add(s, v[1], inner[1]));
        return s.status();
      },
      &out));
  ClientSession session(root);
  std::vector<Tensor> values;
  FLOWVM_ASSERT_OK(session.Run({out[1]}, &values));
  EXPECT_EQ(values[0].scalar<int32_t>(), 0 + 0 + 1 + 3);
}

TEST(ControlFlowBuildersTest, CondRunsOnlyTheTakenBranch) {
  Scope root = Scope::NewRootScope();
  auto pred = ops::Placeholder(root.WithOpName("pred"), DT_BOOL);
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto counter = Variable(root.WithOpName("counter"), {}, DT_FLOAT, init::Zeros());
  std::vector<Output> out;
  FLOWVM_ASSERT_OK(Cond(
      root, pred,
      [&](const Scope& s, std::vector<Output>* o) {
        o->push_back(ops::Mul(s, x, x));
        o->push_back(x);  // a tensor from outside, as is
        return s.status();
      },
      [&](const Scope& s, std::vector<Output>* o) {
        // Counts how often the else branch runs.
        auto bumped = ops::AssignAdd(s, counter, 1.0f);
        o->push_back(ops::Mul(s, ops::Mul(s, x, 3.0f), ops::Sign(s, ops::Add(s, bumped, 1.0f))));
        o->push_back(ops::Neg(s, x));
        return s.status();
      },
      &out));
  ClientSession session(root);
  std::vector<Tensor> v;
  FLOWVM_ASSERT_OK(session.Run({}, {}, {GlobalVariablesInitializer(root)}, nullptr));
  FLOWVM_ASSERT_OK(session.Run({{pred, Tensor::Scalar<bool>(true)}, {x, Tensor::Scalar<float>(4)}}, out, &v));
  EXPECT_EQ(v[0].scalar<float>(), 16);
  EXPECT_EQ(v[1].scalar<float>(), 4);
  FLOWVM_ASSERT_OK(session.Run({{pred, Tensor::Scalar<bool>(false)}, {x, Tensor::Scalar<float>(4)}}, out, &v));
  EXPECT_EQ(v[0].scalar<float>(), 12);
  EXPECT_EQ(v[1].scalar<float>(), -4);
  FLOWVM_ASSERT_OK(session.Run({Output(counter)}, &v));
  EXPECT_EQ(v[0].scalar<float>(), 1);  // the else branch ran once
}

TEST(ControlFlowBuildersTest, GradientsThroughCond) {
  Scope root = Scope::NewRootScope();
  auto pred = ops::Placeholder(root.WithOpName("pred"), DT_BOOL);
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  std::vector<Output> y;
  FLOWVM_ASSERT_OK(Cond(
      root, pred,
      [&](const Scope& s, std::vector<Output>* o) {
        o->push_back(ops::Mul(s, x, x));
        return s.status();
      },
      [&](const Scope& s, std::vector<Output>* o) {
        o->push_back(ops::Mul(s, x, 3.0f));
        return s.status();
      },
      &y));
  std::vector<Output> dx;
  FLOWVM_ASSERT_OK(AddSymbolicGradients(root, {ops::Add(root, y[0], x)}, {x}, &dx));
  ClientSession session(root);
  std::vector<Tensor> v;
  FLOWVM_ASSERT_OK(session.Run({{pred, Tensor::Scalar<bool>(true)}, {x, Tensor::Scalar<float>(5)}}, dx, &v));
  EXPECT_FLOAT_EQ(v[0].scalar<float>(), 2 * 5 + 1);
  FLOWVM_ASSERT_OK(session.Run({{pred, Tensor::Scalar<bool>(false)}, {x, Tensor::Scalar<float>(5)}}, dx, &v));
  EXPECT_FLOAT_EQ(v[0].scalar<float>(), 3 + 1);
}

TEST(ControlFlowBuildersTest, GradientsThroughWhileLoop) {
  // v = v0; repeat n times: v = v * x  =>  dv/dv0 = x^n, dv/dx = n x^(n-1) v0.
  Scope root = Scope::NewRootScope();
  auto n = ops::Placeholder(root.WithOpName("n"), DT_INT32);
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto v0 = ops::Placeholder(root.WithOpName("v0"), DT_FLOAT);
  std::vector<Output> out;
  FLOWVM_ASSERT_OK(WhileLoop(
      root, {ops::Const(root, 0), v0},
      [&](const Scope& s, const std::vector<Output>& v, Output* c) {
        *c = ops::Less(s, v[0], n);
        return s.status();
      },
      [&](const Scope& s, const std::vector<Output>& v, std::vector<Output>* next) {
        next->push_back(ops::Add(s, v[0], 1));
        next->push_back(ops::Mul(s, v[1], x));
        return s.status();
      },
      &out));
  std::vector<Output> grads;
  FLOWVM_ASSERT_OK(AddSymbolicGradients(root, {out[1]}, {v0, x}, &grads));
  ClientSession session(root);
  for (int iters : {0, 1, 4}) {
    std::vector<Tensor> v;
    FLOWVM_ASSERT_OK(session.Run({{n, Tensor::Scalar<int32_t>(iters)}, {x, Tensor::Scalar<float>(1.5f)},
                                  {v0, Tensor::Scalar<float>(2.0f)}},
                                 {out[1], grads[0], grads[1]}, &v));
    EXPECT_FLOAT_EQ(v[0].scalar<float>(), 2.0f * std::pow(1.5f, iters)) << iters;
    EXPECT_FLOAT_EQ(v[1].scalar<float>(), std::pow(1.5f, iters)) << iters;
    EXPECT_FLOAT_EQ(v[2].scalar<float>(), iters == 0 ? 0.f : iters * std::pow(1.5f, iters - 1) * 2.0f) << iters;
  }
}

TEST(ControlFlowBuildersTest, GradientsThroughACondInsideAWhileLoop) {
  // Two iterations of v = v * x, then v = v + x: the conditional's branch
  // changes with the iteration, and so do the forward values the backward
  // loop pops.
  Scope root = Scope::NewRootScope();
  auto n = ops::Placeholder(root.WithOpName("n"), DT_INT32);
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto v0 = ops::Placeholder(root.WithOpName("v0"), DT_FLOAT);
  Output out;
  FLOWVM_ASSERT_OK(CountedLoop(root, n, v0, [&](const Scope& s, Output v, Output i) {
    std::vector<Output> branch;
    Status st = Cond(
        s, ops::Less(s, i, 2),
        [&](const Scope& t, std::vector<Output>* o) {
          o->push_back(ops::Mul(t, v, x));
          return t.status();
        },
        [&](const Scope& e, std::vector<Output>* o) {
          o->push_back(ops::Add(e, v, x));
          return e.status();
        },
        &branch);
    return st.ok() ? branch[0] : Output();
  }, &out));
  std::vector<Output> grads;
  FLOWVM_ASSERT_OK(AddSymbolicGradients(root, {out}, {v0, x}, &grads));
  ClientSession session(root);
  for (int iters : {0, 1, 2, 5}) {
    // Forward-mode derivatives, by hand.
    double v = 2.0, dv0 = 1.0, dx = 0.0;
    const double xv = 1.5;
    for (int i = 0; i < iters; ++i) {
      if (i < 2) {
        dx = dx * xv + v;
        dv0 *= xv;
        v *= xv;
      } else {
        dx += 1.0;
        v += xv;
      }
    }
    std::vector<Tensor> got;
    FLOWVM_ASSERT_OK(session.Run({{n, Tensor::Scalar<int32_t>(iters)}, {x, Tensor::Scalar<float>(1.5f)},
                                  {v0, Tensor::Scalar<float>(2.0f)}},
                                 {out, grads[0], grads[1]}, &got));
    EXPECT_FLOAT_EQ(got[0].scalar<float>(), static_cast<float>(v)) << iters;
    EXPECT_FLOAT_EQ(got[1].scalar<float>(), static_cast<float>(dv0)) << iters;
    EXPECT_FLOAT_EQ(got[2].scalar<float>(), static_cast<float>(dx)) << iters;
  }
}

TEST(ControlFlowBuildersTest, GradientsReachAVariableReadInsideACondAndALoop) {
  // y = cond(pred, w * x, w + x) + (w multiplied into 1 n times), with the
  // variable w entering the conditional by RefSwitch and the loop by
  // RefEnter: dy/dw = (x or 1) + n w^(n-1).
  Scope root = Scope::NewRootScope();
  auto pred = ops::Placeholder(root.WithOpName("pred"), DT_BOOL);
  auto n = ops::Placeholder(root.WithOpName("n"), DT_INT32);
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto w = Variable(root.WithOpName("w"), {}, DT_FLOAT, init::Constant(2.0f));
  std::vector<Output> branch;
  FLOWVM_ASSERT_OK(Cond(
      root, pred,
      [&](const Scope& s, std::vector<Output>* o) {
        o->push_back(ops::Mul(s, w, x));
        return s.status();
      },
      [&](const Scope& s, std::vector<Output>* o) {
        o->push_back(ops::Add(s, w, x));
        return s.status();
      },
      &branch));
  std::vector<Output> loop;
  FLOWVM_ASSERT_OK(WhileLoop(
      root, {ops::Const(root, 0), ops::Const(root, 1.0f)},
      [&](const Scope& s, const std::vector<Output>& v, Output* c) {
        *c = ops::Less(s, v[0], n);
        return s.status();
      },
      [&](const Scope& s, const std::vector<Output>& v, std::vector<Output>* next) {
        next->push_back(ops::Add(s, v[0], 1));
        next->push_back(ops::Mul(s, v[1], w));
        return s.status();
      },
      &loop));
  auto y = ops::Add(root, branch[0], loop[1]);
  std::vector<Output> grads;
  FLOWVM_ASSERT_OK(AddSymbolicGradients(root, {y}, {Output(w)}, &grads));
  ClientSession session(root);
  FLOWVM_ASSERT_OK(session.Run({}, {}, {GlobalVariablesInitializer(root)}, nullptr));
  for (bool p : {true, false}) {
    for (int iters : {0, 3}) {
      std::vector<Tensor> v;
      FLOWVM_ASSERT_OK(session.Run({{pred, Tensor::Scalar<bool>(p)}, {n, Tensor::Scalar<int32_t>(iters)},
                                    {x, Tensor::Scalar<float>(5.0f)}},
                                   {grads[0]}, &v));
      const float expected = (p ? 5.0f : 1.0f) + (iters == 0 ? 0.0f : iters * std::pow(2.0f, iters - 1));
      EXPECT_FLOAT_EQ(v[0].scalar<float>(), expected) << p << " " << iters;
    }
  }
}

TEST(ControlFlowBuildersTest, GradientsThroughNestedLoops) {
  // n times: (m times: v = v * x)  =>  v = v0 x^(nm).
  Scope root = Scope::NewRootScope();
  auto n = ops::Placeholder(root.WithOpName("n"), DT_INT32);
  auto m = ops::Placeholder(root.WithOpName("m"), DT_INT32);
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto v0 = ops::Placeholder(root.WithOpName("v0"), DT_FLOAT);
  Output out;
  FLOWVM_ASSERT_OK(CountedLoop(root, n, v0, [&](const Scope& s, Output v, Output) {
    Output inner;
    Status st = CountedLoop(s, m, v, [&](const Scope& t, Output u, Output) { return ops::Mul(t, u, x); }, &inner);
    return st.ok() ? inner : Output();
  }, &out));
  std::vector<Output> grads;
  FLOWVM_ASSERT_OK(AddSymbolicGradients(root, {out}, {v0, x}, &grads));
  ClientSession session(root);
  for (int outer : {0, 1, 3}) {
    for (int inner : {0, 2}) {
      const int k = outer * inner;
      std::vector<Tensor> v;
      FLOWVM_ASSERT_OK(session.Run({{n, Tensor::Scalar<int32_t>(outer)}, {m, Tensor::Scalar<int32_t>(inner)},
                                    {x, Tensor::Scalar<float>(1.5f)}, {v0, Tensor::Scalar<float>(2.0f)}},
                                   {out, grads[0], grads[1]}, &v));
      EXPECT_FLOAT_EQ(v[0].scalar<float>(), 2.0f * std::pow(1.5f, k)) << outer << "x" << inner;
      EXPECT_FLOAT_EQ(v[1].scalar<float>(), std::pow(1.5f, k)) << outer << "x" << inner;
      EXPECT_FLOAT_EQ(v[2].scalar<float>(), k == 0 ? 0.f : k * std::pow(1.5f, k - 1) * 2.0f) << outer << "x" << inner;
    }
  }
}

TEST(ControlFlowBuildersTest, NestedLoopGradientsMatchCentralDifferences) {
  // Outer: 3 times { a = tanh(v); inner: 2 times { u = u * a + x }; v = u }:
  // the inner body reads a value of the outer body (a), a value from
  // outside both (x) and its own values; every iteration's forward values
  // come back from stacks in reverse.
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  auto v0 = ops::Placeholder(root.WithOpName("v0"), DT_DOUBLE);
  Output out;
  FLOWVM_ASSERT_OK(CountedLoop(root, 3, v0, [&](const Scope& s, Output v, Output) {
    auto a = ops::Tanh(s, v);
    Output inner;
    Status st = CountedLoop(
        s, 2, v, [&](const Scope& t, Output u, Output) { return ops::Add(t, ops::Mul(t, u, a), x); }, &inner);
    return st.ok() ? inner : Output();
  }, &out));
  auto y = ops::Sum(root, out, {0});
  std::vector<Output> grads;
  FLOWVM_ASSERT_OK(AddSymbolicGradients(root, {y}, {v0, x}, &grads));
  ClientSession session(root);
  const std::vector<double> x_init = {0.3, -0.7}, v_init = {0.9, -0.4};
  auto run = [&](const std::vector<double>& xv, const std::vector<double>& vv, std::vector<Tensor>* got,
                 bool with_grads) {
    std::vector<Output> fetch = {y};
    if (with_grads) fetch.insert(fetch.end(), grads.begin(), grads.end());
    FLOWVM_ASSERT_OK(session.Run({{x, Tensor::FromVector<double>(xv)}, {v0, Tensor::FromVector<double>(vv)}}, fetch,
                                 got));
  };
  std::vector<Tensor> analytic;
  run(x_init, v_init, &analytic, true);
  const double h = 1e-6;
  for (int which = 0; which < 2; ++which) {  // 0: v0, 1: x
    for (int i = 0; i < 2; ++i) {
      std::vector<double> xp = x_init, xm = x_init, vp = v_init, vm = v_init;
      (which == 0 ? vp : xp)[i] += h;
      (which == 0 ? vm : xm)[i] -= h;
      std::vector<Tensor> plus, minus;
      run(xp, vp, &plus, false);
      run(xm, vm, &minus, false);
      const double numeric = (plus[0].scalar<double>() - minus[0].scalar<double>()) / (2 * h);
      EXPECT_NEAR(analytic[1 + which].flat<double>()[i], numeric, 1e-6) << which << " " << i;
    }
  }
}

TEST(ControlFlowBuildersTest, NestedLoopGradientsWithOverlappingOuterIterations) {
  // acc += (2 times: u = tanh(u * b)) with b = x * (i + 1): the outer
  // iterations do not wait for each other, so their inner loops may run at
  // the same time; each keeps its forward values on stacks of its own.
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  Output out;
  FLOWVM_ASSERT_OK(CountedLoop(root, 4, ops::ZerosLike(root, x), [&](const Scope& s, Output acc, Output i) {
    auto b = ops::Mul(s, x, ops::Cast(s, ops::Add(s, i, 1), DT_DOUBLE));
    Output inner;
    Status st = CountedLoop(
        s, 2, b, [&](const Scope& t, Output u, Output) { return ops::Tanh(t, ops::Mul(t, u, b)); }, &inner);
    return st.ok() ? ops::Add(s, acc, inner) : Output();
  }, &out));
  auto y = ops::Sum(root, out, {0});
  std::vector<Output> grads;
  FLOWVM_ASSERT_OK(AddSymbolicGradients(root, {y}, {x}, &grads));
  ClientSession session(root);
  const std::vector<double> x_init = {0.3, -0.7, 0.5};
  for (int repeat = 0; repeat < 20; ++repeat) {
    std::vector<Tensor> analytic;
    FLOWVM_ASSERT_OK(session.Run({{x, Tensor::FromVector<double>(x_init)}}, {grads[0]}, &analytic));
    for (int i = 0; i < 3; ++i) {
      // y is a sum of independent elements: d y / d x_i by hand.
      double d = 0;
      for (int k = 1; k <= 4; ++k) {
        const double xi = x_init[i], b = xi * k;
        double u = b, du = k;  // du/dx_i
        for (int j = 0; j < 2; ++j) {
          const double t = std::tanh(u * b);
          du = (1 - t * t) * (du * b + u * k);
          u = t;
        }
        d += du;
      }
      EXPECT_NEAR(analytic[0].flat<double>()[i], d, 1e-12) << i << " run " << repeat;
    }
  }
}

TEST(ControlFlowBuildersTest, ErrorsAreReturnedAndRecorded) {
  Scope root = Scope::NewRootScope();
  std::vector<Output> out;
  Status s = WhileLoop(
      root, {ops::Const(root, 0)},
      [](const Scope& sc, const std::vector<Output>& v, Output* c) {
        *c = ops::Less(sc, v[0], 3);
        return sc.status();
      },
      [](const Scope& sc, const std::vector<Output>& v, std::vector<Output>* next) {
        next->push_back(v[0]);
        next->push_back(v[0]);
        return sc.status();
      },
      &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("2 values for 1 loop variables"), std::string::npos) << s;
  EXPECT_FALSE(root.ok());

  Scope root2 = Scope::NewRootScope();
  auto p = ops::Placeholder(root2, DT_BOOL);
  s = Cond(
      root2, p, [&](const Scope& sc, std::vector<Output>* o) { o->push_back(ops::Const(sc, 1)); return sc.status(); },
      [&](const Scope& sc, std::vector<Output>* o) { o->push_back(ops::Const(sc, 1.0f)); return sc.status(); }, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("int32 in the then branch and float"), std::string::npos) << s;
}

}  // namespace
}  // namespace flowvm

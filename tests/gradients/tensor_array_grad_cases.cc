// Gradient checks for ops/tensor_array_grad.cc: every op with a gradient,
// outside loops and in while loops over TensorArrays (the shape of tf.scan
// and tf.nn.dynamic_rnn: read element t of an input array, compute, write
// element t of an output array, the output array's flow a loop variable),
// one iteration at a time and with 10 in flight, compared with central
// differences.
#include "gradients/gradient_cases.h"
#include "util/tensor_array_test_util.h"
#include "util/while_loop_builder.h"

namespace flowvm::testing {
namespace {

using tensor_array_testing::Ta;

Ta NewTa(const GraphScope& s, int size, AttrMap attrs = {}) {
  attrs["dtype"] = MakeAttrValue(DT_DOUBLE);
  Node* n = s.AddNode("TensorArrayV3", {I32Scalar(s, size)}, attrs);
  return n == nullptr ? Ta{} : Ta{NodeOut(n, 0), NodeOut(n, 1)};
}
NodeOut Read(const GraphScope& s, NodeOut h, NodeOut index, NodeOut flow) {
  return s.Op("TensorArrayReadV3", {h, index, flow}, {{"dtype", MakeAttrValue(DT_DOUBLE)}});
}
NodeOut Read(const GraphScope& s, NodeOut h, int index, NodeOut flow) { return Read(s, h, I32Scalar(s, index), flow); }
NodeOut Write(const GraphScope& s, NodeOut h, NodeOut index, NodeOut value, NodeOut flow) {
  return s.Op("TensorArrayWriteV3", {h, index, value, flow});
}
NodeOut Write(const GraphScope& s, NodeOut h, int index, NodeOut value, NodeOut flow) {
  return Write(s, h, I32Scalar(s, index), value, flow);
}
NodeOut Gather(const GraphScope& s, NodeOut h, const std::vector<int32_t>& indices, NodeOut flow) {
  return s.Op("TensorArrayGatherV3", {h, I32(s, indices), flow}, {{"dtype", MakeAttrValue(DT_DOUBLE)}});
}
NodeOut Scatter(const GraphScope& s, NodeOut h, const std::vector<int32_t>& indices, NodeOut value, NodeOut flow) {
  return s.Op("TensorArrayScatterV3", {h, I32(s, indices), value, flow});
}
std::vector<int32_t> Range(int n) {
  std::vector<int32_t> r(n);
  for (int i = 0; i < n; ++i) r[i] = i;
  return r;
}
NodeOut Mul(const GraphScope& s, NodeOut a, NodeOut b) { return s.Op("Mul", {a, b}); }
NodeOut Add(const GraphScope& s, NodeOut a, NodeOut b) { return s.Op("Add", {a, b}); }
NodeOut Tanh(const GraphScope& s, NodeOut a) { return s.Op("Tanh", {a}); }

// ---- the ops one by one ----

std::vector<GradCase> OpCases() {
  const Tensor x3 = RandomDoubles(TensorShape({3, 2}), -1, 1, 41);
  const Tensor x4 = RandomDoubles(TensorShape({4, 2}), -1, 1, 42);
  const Tensor a = RandomDoubles(TensorShape({2}), -1, 1, 43);
  const Tensor b = RandomDoubles(TensorShape({2, 2}), -1, 1, 44);
  const Tensor c = RandomDoubles(TensorShape({1, 2}), -1, 1, 45);
  const Tensor x6 = RandomDoubles(TensorShape({6, 2}), -1, 1, 46);
  return {
      // read(0) * read(2) + tanh(read(1)) of an unstacked x; row 3 is never
      // read, so its gradient is zeros (the gradient array's zeros).
      {"TensorArray_read", "TensorArrayReadV3", {x4},
       [](const GraphScope& s, const std::vector<NodeOut>& x) {
         Ta ta = NewTa(s, 4);
         NodeOut f = Scatter(s, ta.handle, Range(4), x[0], ta.flow);
         return Ys(Add(s, Mul(s, Read(s, ta.handle, 0, f), Read(s, ta.handle, 2, f)), Tanh(s, Read(s, ta.handle, 1, f))));
       }},
      // One element read twice: the two gradients written into it add up.
      {"TensorArray_read_twice", "TensorArrayReadV3", {x3},
       [](const GraphScope& s, const std::vector<NodeOut>& x) {
         Ta ta = NewTa(s, 3, {{"clear_after_read", MakeAttrValue(false)}});
         NodeOut f = Scatter(s, ta.handle, Range(3), x[0], ta.flow);
         NodeOut r = Read(s, ta.handle, 1, f);
         return Ys(Add(s, Mul(s, r, Read(s, ta.handle, 1, f)), Read(s, ta.handle, 2, f)));
       }},
      // Two writes, then stacked.
      {"TensorArray_write", "TensorArrayWriteV3", {a, a},
       [](const GraphScope& s, const std::vector<NodeOut>& x) {
         Ta ta = NewTa(s, 2);
         NodeOut w0 = Write(s, ta.handle, 0, x[0], ta.flow);
         NodeOut w1 = Write(s, ta.handle, 1, Tanh(s, Mul(s, x[0], x[1])), w0);
         return Ys(Gather(s, ta.handle, {0, 1}, w1));
       }},
      // Gathered at [2, 0, 2]: row 2's gradient is the sum of two, row 1's
      // zeros.
      {"TensorArray_gather", "TensorArrayGatherV3", {x3},
       [](const GraphScope& s, const std::vector<NodeOut>& x) {
         Ta ta = NewTa(s, 3, {{"clear_after_read", MakeAttrValue(false)}});
         NodeOut f = Scatter(s, ta.handle, Range(3), x[0], ta.flow);
         return Ys(Tanh(s, Gather(s, ta.handle, {2, 0, 2}, f)));
       }},
      // Scattered out of order into a larger array, read back in order.
      {"TensorArray_scatter", "TensorArrayScatterV3", {x3},
       [](const GraphScope& s, const std::vector<NodeOut>& x) {
         Ta ta = NewTa(s, 5);
         NodeOut f = Scatter(s, ta.handle, {4, 0, 2}, Tanh(s, x[0]), ta.flow);
         return Ys(Gather(s, ta.handle, {0, 2, 4}, f));
       }},
      // Elements of 2 and 1 rows, concatenated.
      {"TensorArray_concat", "TensorArrayConcatV3", {b, c},
       [](const GraphScope& s, const std::vector<NodeOut>& x) {
         Ta ta = NewTa(s, 2);
         NodeOut w0 = Write(s, ta.handle, 0, x[0], ta.flow);
         NodeOut w1 = Write(s, ta.handle, 1, Mul(s, x[1], x[1]), w0);
         Node* concat = s.AddNode("TensorArrayConcatV3", {ta.handle, w1}, {{"dtype", MakeAttrValue(DT_DOUBLE)}});
         return Ys(Tanh(s, NodeOut(concat, 0)));
       }},
      // tf.TensorArray's unstack and stack exactly: indices from
      // range(shape(x)[0]) and range(size()); the int ops on the path
      // (Shape, StridedSlice, Size, Range) carry no gradient.
      {"TensorArray_unstack_stack", "TensorArrayScatterV3", {x3},
       [](const GraphScope& s, const std::vector<NodeOut>& x) {
         Ta ta = NewTa(s, 3);
         NodeOut n = s.Op("StridedSlice", {s.Op("Shape", {x[0]}), I32(s, {0}), I32(s, {1}), I32(s, {1})},
                          {{"shrink_axis_mask", MakeAttrValue(int64_t{1})}});
         NodeOut f = s.Op("TensorArrayScatterV3",
                          {ta.handle, s.Op("Range", {I32Scalar(s, 0), n, I32Scalar(s, 1)}), Tanh(s, x[0]), ta.flow});
         NodeOut size = s.Op("TensorArraySizeV3", {ta.handle, f});
         return Ys(s.Op("TensorArrayGatherV3", {ta.handle, s.Op("Range", {I32Scalar(s, 0), size, I32Scalar(s, 1)}), f},
                        {{"dtype", MakeAttrValue(DT_DOUBLE)}}));
       }},
      // Split 1, 3, 2; pieces 0 and 1 read, piece 2 not (zeros).
      {"TensorArray_split", "TensorArraySplitV3", {x6},
       [](const GraphScope& s, const std::vector<NodeOut>& x) {
         Ta ta = NewTa(s, 3);
         NodeOut f = s.Op("TensorArraySplitV3",
                          {ta.handle, x[0], ConstOp(s, Tensor::FromVector<int64_t>({1, 3, 2})), ta.flow});
         return std::vector<NodeOut>{Tanh(s, Read(s, ta.handle, 1, f)), Mul(s, Read(s, ta.handle, 0, f), x[0])};
       }},
  };
}

GradCaseRegistrar op_registrar(OpCases());

// ---- while loops over TensorArrays ----

constexpr int kT = 4;

// for t in 0..T: acc += w * x[t] (x read from an unstacked array), and
// out[t] = acc: the cumulative sum tf.scan computes. ys: out stacked, and
// the final acc.
GradientBuildFn CumulativeSum(int parallel) {
  return [parallel](const GraphScope& s, const std::vector<NodeOut>& x) {
    Ta in = NewTa(s, kT);
    NodeOut in_flow = Scatter(s, in.handle, Range(kT), x[0], in.flow);
    Ta out = NewTa(s, kT);
    auto loop = BuildWhileLoop(
        s, "cumsum", I32Scalar(s, kT), {out.flow, ConstOp(s, Tensor::FromVector<double>({0, 0}))}, {in.handle, in_flow, out.handle, x[1]},
        parallel,
        [](const GraphScope& b, NodeOut t, const std::vector<NodeOut>& v, const std::vector<NodeOut>& inv) {
          NodeOut acc = Add(b, v[1], Mul(b, inv[3], Read(b, inv[0], t, inv[1])));
          return std::vector<NodeOut>{Write(b, inv[2], t, acc, v[0]), acc};
        });
    return std::vector<NodeOut>{Gather(s, out.handle, Range(kT), loop.exits[0]), loop.exits[1]};
  };
}

// h[t] = tanh(w * h[t-1] + x[t]), h[-1] = h0, each h[t] written to an
// output array (the shape of tf.nn.dynamic_rnn). ys: the outputs stacked.
GradientBuildFn Recurrence(int parallel, bool dynamic_output) {
  return [parallel, dynamic_output](const GraphScope& s, const std::vector<NodeOut>& x) {
    Ta in = NewTa(s, kT);
    NodeOut in_flow = Scatter(s, in.handle, Range(kT), x[0], in.flow);
    Ta out = dynamic_output ? NewTa(s, 0, {{"dynamic_size", MakeAttrValue(true)}}) : NewTa(s, kT);
    auto loop = BuildWhileLoop(
        s, "rnn", I32Scalar(s, kT), {out.flow, x[2]}, {in.handle, in_flow, out.handle, x[1]}, parallel,
        [](const GraphScope& b, NodeOut t, const std::vector<NodeOut>& v, const std::vector<NodeOut>& inv) {
          NodeOut h = Tanh(b, Add(b, Mul(b, inv[3], v[1]), Read(b, inv[0], t, inv[1])));
          return std::vector<NodeOut>{Write(b, inv[2], t, h, v[0]), h};
        });
    return Ys(Gather(s, out.handle, Range(kT), loop.exits[0]));
  };
}

// h[t] = tanh(sum over k of s[k]) where s = [x[t] * w, h[t-1]] is written
// to and gathered from an array that iteration t makes for itself: the
// backward loop gets each iteration's array handle from a stack.
GradientBuildFn ArrayMadeInTheBody() {
  return [](const GraphScope& s, const std::vector<NodeOut>& x) {
    Ta in = NewTa(s, kT);
    NodeOut in_flow = Scatter(s, in.handle, Range(kT), x[0], in.flow);
    auto loop = BuildWhileLoop(
        s, "local", I32Scalar(s, kT), {x[2]}, {in.handle, in_flow, x[1]}, 10,
        [](const GraphScope& b, NodeOut t, const std::vector<NodeOut>& v, const std::vector<NodeOut>& inv) {
          Ta local = NewTa(b, 2);
          NodeOut f1 = Write(b, local.handle, 0, Mul(b, Read(b, inv[0], t, inv[1]), inv[2]), local.flow);
          NodeOut f2 = Write(b, local.handle, 1, v[0], f1);
          NodeOut both = Gather(b, local.handle, {0, 1}, f2);
          return std::vector<NodeOut>{Tanh(b, b.Op("Sum", {both, I32(b, {0})}))};
        });
    return Ys(loop.exits[0]);
  };
}

// An outer loop over t whose body runs an inner loop over j in 0..2:
// h = tanh(w * h + x[2t + j]), reading the input array (entered into both
// loops); the outer body writes the inner loop's result to out[t].
GradientBuildFn NestedLoops() {
  return [](const GraphScope& s, const std::vector<NodeOut>& x) {
    Ta in = NewTa(s, 2 * kT);
    NodeOut in_flow = Scatter(s, in.handle, Range(2 * kT), x[0], in.flow);
    Ta out = NewTa(s, kT);
    auto outer = BuildWhileLoop(
        s, "outer", I32Scalar(s, kT), {out.flow, x[2]}, {in.handle, in_flow, out.handle, x[1]}, 10,
        [](const GraphScope& b, NodeOut t, const std::vector<NodeOut>& v, const std::vector<NodeOut>& inv) {
          NodeOut first = Mul(b, t, I32Scalar(b, 2));
          auto inner = BuildWhileLoop(
              b, "inner", I32Scalar(b, 2), {v[1]}, {inv[0], inv[1], inv[3], first}, 10,
              [](const GraphScope& c, NodeOut j, const std::vector<NodeOut>& u, const std::vector<NodeOut>& in2) {
                NodeOut xj = Read(c, in2[0], Add(c, in2[3], j), in2[1]);
                return std::vector<NodeOut>{Tanh(c, Add(c, Mul(c, in2[2], u[0]), xj))};
              });
          NodeOut h = inner.exits[0];
          return std::vector<NodeOut>{Write(b, inv[2], t, h, v[0]), h};
        });
    return Ys(Gather(s, out.handle, Range(kT), outer.exits[0]));
  };
}

// tf.scan without an initializer: a = x[0] read outside the loop and
// written to out[0]; the loop then runs t = 1..T-1: a += w * x[t],
// out[t] = a. The input's gradient array gets gradients from outside and
// inside the loop.
GradientBuildFn ScanWithoutInitializer() {
  return [](const GraphScope& s, const std::vector<NodeOut>& x) {
    Ta in = NewTa(s, kT);
    NodeOut in_flow = Scatter(s, in.handle, Range(kT), x[0], in.flow);
    Ta out = NewTa(s, kT);
    NodeOut a0 = Read(s, in.handle, 0, in_flow);
    NodeOut out0 = Write(s, out.handle, 0, a0, out.flow);
    auto loop = BuildWhileLoop(
        s, "scan", I32Scalar(s, kT - 1), {out0, a0}, {in.handle, in_flow, out.handle, x[1]}, 10,
        [](const GraphScope& b, NodeOut i, const std::vector<NodeOut>& v, const std::vector<NodeOut>& inv) {
          NodeOut t = Add(b, i, I32Scalar(b, 1));
          NodeOut a = Add(b, v[1], Mul(b, inv[3], Read(b, inv[0], t, inv[1])));
          return std::vector<NodeOut>{Write(b, inv[2], t, a, v[0]), a};
        });
    return Ys(Gather(s, out.handle, Range(kT), loop.exits[0]));
  };
}

// The recurrence again, differentiating only the final state: the output
// array's writes get no gradient, and their gradient reads see the zeros
// of a gradient array nothing wrote into.
GradientBuildFn FinalStateOnly() {
  return [](const GraphScope& s, const std::vector<NodeOut>& x) {
    Ta in = NewTa(s, kT);
    NodeOut in_flow = Scatter(s, in.handle, Range(kT), x[0], in.flow);
    Ta out = NewTa(s, kT);
    auto loop = BuildWhileLoop(
        s, "rnn", I32Scalar(s, kT), {out.flow, x[2]}, {in.handle, in_flow, out.handle, x[1]}, 10,
        [](const GraphScope& b, NodeOut t, const std::vector<NodeOut>& v, const std::vector<NodeOut>& inv) {
          NodeOut h = Tanh(b, Add(b, Mul(b, inv[3], v[1]), Read(b, inv[0], t, inv[1])));
          return std::vector<NodeOut>{Write(b, inv[2], t, h, v[0]), h};
        });
    return Ys(loop.exits[1]);
  };
}

std::vector<GradCase> LoopCases() {
  const Tensor x = RandomDoubles(TensorShape({kT, 2}), -1, 1, 51);
  const Tensor w = RandomDoubles(TensorShape({2}), 0.5, 1.5, 52);
  const Tensor h0 = RandomDoubles(TensorShape({2}), -1, 1, 53);
  const Tensor x2 = RandomDoubles(TensorShape({2 * kT, 2}), -1, 1, 54);
  return {
      {"TensorArray_loop_cumsum", "TensorArrayReadV3", {x, w}, CumulativeSum(1)},
      {"TensorArray_loop_cumsum_parallel", "TensorArrayWriteV3", {x, w}, CumulativeSum(10)},
      {"TensorArray_loop_rnn", "TensorArrayReadV3", {x, w, h0}, Recurrence(1, false)},
      {"TensorArray_loop_rnn_parallel", "TensorArrayWriteV3", {x, w, h0}, Recurrence(10, false)},
      {"TensorArray_loop_rnn_dynamic_output", "TensorArrayGatherV3", {x, w, h0}, Recurrence(10, true)},
      {"TensorArray_loop_array_made_in_body", "TensorArrayGatherV3", {x, w, h0}, ArrayMadeInTheBody()},
      {"TensorArray_loop_nested", "TensorArrayReadV3", {x2, w, h0}, NestedLoops()},
      {"TensorArray_loop_scan_without_initializer", "TensorArrayReadV3", {x, w}, ScanWithoutInitializer()},
      {"TensorArray_loop_final_state_only", "TensorArrayWriteV3", {x, w, h0}, FinalStateOnly()},
  };
}

GradCaseRegistrar loop_registrar(LoopCases());

}  // namespace
}  // namespace flowvm::testing

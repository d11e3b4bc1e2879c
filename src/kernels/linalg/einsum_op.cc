// Einsum on CPU, for one or two operands.
//
// Each operand becomes a strided view with one axis per distinct label: a
// repeated label (a diagonal, "ii->i") is one axis whose stride is the sum
// of its strides, and a "..." dim of size 1 that broadcasts against a larger
// one is dropped. Labels that only one operand has and the output lacks are
// summed out of it at once. One operand is then copied into the output's
// order. Two operands are copied into [batch, free, contracted] and
// [batch, contracted, free] and multiplied as a batch of GEMMs
// (linalg::Gemm, batch items sharded over the session's pool), and the
// product copied into the output's order.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "kernels/framework/kernel_registry.h"
#include "kernels/framework/op_kernel.h"
#include "kernels/linalg/einsum_spec.h"
#include "kernels/linalg/gemm.h"

namespace flowvm {
namespace {

using linalg::EinsumSpec;
using linalg::kEllipsis;

// Broadcast dim k of "..." gets label kEllipsisBase + k.
constexpr int kEllipsisBase = 1000;

struct Axis {
  int label;
  int64_t size, stride;
};

// The labels of operand i with "..." expanded against ellipsis rank E.
std::vector<int> Expand(const std::vector<int>& labels, int rank, int E) {
  std::vector<int> out;
  const int explicit_labels = static_cast<int>(labels.size()) - (std::count(labels.begin(), labels.end(), kEllipsis));
  const int r = rank - explicit_labels;
  for (int l : labels) {
    if (l != kEllipsis) {
      out.push_back(l);
      continue;
    }
    for (int k = E - r; k < E; ++k) out.push_back(kEllipsisBase + k);
  }
  return out;
}

// Copies the strided view (dims, strides over src) into dst, row-major.
template <typename T>
void StridedCopy(const T* src, const std::vector<int64_t>& dims, const std::vector<int64_t>& strides, T* dst) {
  const int n = static_cast<int>(dims.size());
  int64_t total = 1;
  for (int64_t d : dims) total *= d;
  if (total == 0) return;
  if (n == 0) {
    dst[0] = src[0];
    return;
  }
  std::vector<int64_t> idx(n, 0);
  const int64_t inner = dims[n - 1], inner_stride = strides[n - 1];
  int64_t offset = 0;
  for (int64_t done = 0; done < total; done += inner) {
    for (int64_t i = 0; i < inner; ++i) dst[done + i] = src[offset + i * inner_stride];
    for (int d = n - 2; d >= 0; --d) {
      offset += strides[d];
      if (++idx[d] < dims[d]) break;
      offset -= strides[d] * dims[d];
      idx[d] = 0;
    }
  }
}

template <typename T>
class EinsumOp : public OpKernel {
 public:
  explicit EinsumOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string equation;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("equation", &equation));
    OP_REQUIRES_OK(ctx, linalg::ParseEinsumEquation(equation, static_cast<int>(ctx->input_types().size()), &spec_));
    equation_ = equation;
  }

  void Compute(OpKernelContext* ctx) override {
    const int n = num_inputs();
    // Ellipsis rank and the labels of every operand.
    int E = 0;
    std::vector<std::vector<int>> labels(n);
    for (int i = 0; i < n; ++i) {
      const int explicit_labels = static_cast<int>(spec_.inputs[i].size()) - (spec_.has_ellipsis(i) ? 1 : 0);
      const int rank = ctx->input(i).dims();
      if (spec_.has_ellipsis(i) ? rank < explicit_labels : rank != explicit_labels) {
        ctx->SetStatus(errors::InvalidArgument("Einsum '", equation_, "': input ", i, " has rank ", rank,
                                               " but its subscripts name ", explicit_labels, " dims"));
        return;
      }
      E = std::max(E, rank - explicit_labels);
    }
    std::map<int, int64_t> size;  // global size of each label
    for (int i = 0; i < n; ++i) {
      labels[i] = Expand(spec_.inputs[i], ctx->input(i).dims(), E);
      for (int a = 0; a < ctx->input(i).dims(); ++a) {
        const int l = labels[i][a];
        const int64_t s = ctx->input(i).dim_size(a);
        auto it = size.find(l);
        if (it == size.end()) {
          size[l] = s;
        } else if (it->second != s) {
          const bool broadcast = l >= kEllipsisBase && (it->second == 1 || s == 1);
          OP_REQUIRES(ctx, broadcast,
                      errors::InvalidArgument("Einsum '", equation_, "': label ", LabelName(l), " has size ",
                                              it->second, " and ", s, " in the inputs"));
          it->second = std::max(it->second, s);
        }
      }
    }
    // Output labels and shape.
    std::vector<int> out_labels = Expand(spec_.output, E + static_cast<int>(spec_.output.size()) -
                                                           (spec_.has_ellipsis(-1) ? 1 : 0), E);
    std::vector<int64_t> out_dims;
    for (int l : out_labels) out_dims.push_back(size[l]);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape::FromDims(out_dims).value(), &out));
    if (out->NumElements() == 0) return;
    // Views with one axis per label.
    std::vector<std::vector<Axis>> views(n);
    for (int i = 0; i < n; ++i) OP_REQUIRES_OK(ctx, View(ctx->input(i), labels[i], size, &views[i]));
    auto in_out = [&](int l) { return std::find(out_labels.begin(), out_labels.end(), l) != out_labels.end(); };
    auto in_view = [&](int i, int l) {
      for (const Axis& a : views[i])
        if (a.label == l) return true;
      return false;
    };
    if (n == 1) {
      // Output order, then the summed labels.
      std::vector<int> order = out_labels;
      for (const Axis& a : views[0])
        if (!in_out(a.label)) order.push_back(a.label);
      Tensor tmp;
      OP_REQUIRES_OK(ctx, CopyReduce(ctx, ctx->input(0), views[0], order, out_labels.size(), &tmp));
      std::copy(tmp.data<T>(), tmp.data<T>() + out->NumElements(), out->data<T>());
      return;
    }
    std::vector<int> batch, contracted, free_a, free_b;
    for (int l : out_labels) {
      if (in_view(0, l) && in_view(1, l)) batch.push_back(l);
    }
    for (const Axis& a : views[0]) {
      if (in_out(a.label) && !in_view(1, a.label)) free_a.push_back(a.label);
      if (!in_out(a.label) && in_view(1, a.label)) contracted.push_back(a.label);
    }
    for (const Axis& a : views[1])
      if (in_out(a.label) && !in_view(0, a.label)) free_b.push_back(a.label);
    auto cat = [](std::vector<int> a, const std::vector<int>& b, const std::vector<int>& c) {
      a.insert(a.end(), b.begin(), b.end());
      a.insert(a.end(), c.begin(), c.end());
      return a;
    };
    auto prod = [&](const std::vector<int>& ls) {
      int64_t p = 1;
      for (int l : ls) p *= size[l];
      return p;
    };
    const std::vector<int> order_a = cat(batch, free_a, contracted), order_b = cat(batch, contracted, free_b);
    Tensor a, b;
    OP_REQUIRES_OK(ctx, CopyReduce(ctx, ctx->input(0), views[0], WithSummed(order_a, views[0]), order_a.size(), &a));
    OP_REQUIRES_OK(ctx, CopyReduce(ctx, ctx->input(1), views[1], WithSummed(order_b, views[1]), order_b.size(), &b));
    const int64_t B = prod(batch), M = prod(free_a), N = prod(free_b), K = prod(contracted);
    Tensor c;
    OP_REQUIRES_OK(ctx, ctx->allocate_temp(DataTypeToEnum<T>::value, TensorShape({B * M * N}), &c));
    linalg::GemmShape g;
    g.m = M;
    g.n = N;
    g.k = K;
    g.lda = K;
    g.ldb = N;
    g.ldc = N;
    OP_REQUIRES(ctx, linalg::GemmDimsFit(g),
                errors::InvalidArgument("Einsum '", equation_, "': matrix dims too large: ", M, "x", K, " by ", K,
                                        "x", N));
    const T* ap = a.data<T>();
    const T* bp = b.data<T>();
    T* cp = c.data<T>();
    if (B == 1) {
      linalg::GemmParallel<T>(ctx, g, ap, bp, cp);
    } else {
      ctx->ParallelFor(B, std::max<int64_t>(1, M * N * K), [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) linalg::Gemm<T>(g, ap + i * M * K, bp + i * K * N, cp + i * M * N);
      });
    }
    // c is [batch, free_a, free_b]: copy into the output's order.
    const std::vector<int> c_labels = cat(batch, free_a, free_b);
    std::vector<int64_t> strides(out_labels.size());
    for (size_t o = 0; o < out_labels.size(); ++o) {
      int64_t stride = 1;
      bool found = false;
      for (int p = static_cast<int>(c_labels.size()) - 1; p >= 0; --p) {
        if (c_labels[p] == out_labels[o]) {
          found = true;
          break;
        }
        stride *= size[c_labels[p]];
      }
      // A label only a dropped (size-1) broadcast dim had: it has size 1.
      strides[o] = found ? stride : 0;
    }
    StridedCopy(cp, out_dims, strides, out->data<T>());
  }

 private:
  static std::string LabelName(int l) {
    if (l >= kEllipsisBase) return "... dim " + std::to_string(l - kEllipsisBase);
    return std::string("'") + static_cast<char>(l) + "'";
  }

  // One axis per distinct label; a repeated label's sizes must agree.
  Status View(const Tensor& t, const std::vector<int>& labels, std::map<int, int64_t>& size,
              std::vector<Axis>* view) const {
    std::vector<int64_t> strides(t.dims(), 1);
    for (int a = t.dims() - 2; a >= 0; --a) strides[a] = strides[a + 1] * t.dim_size(a + 1);
    for (int a = 0; a < t.dims(); ++a) {
      const int l = labels[a];
      if (l >= kEllipsisBase && t.dim_size(a) == 1 && size[l] != 1) continue;  // broadcast
      bool merged = false;
      for (Axis& ax : *view) {
        if (ax.label != l) continue;
        ax.stride += strides[a];  // a diagonal
        merged = true;
      }
      if (!merged) view->push_back({l, t.dim_size(a), strides[a]});
    }
    return Status::OK();
  }

  // order followed by the view's labels that are not in it (summed).
  static std::vector<int> WithSummed(std::vector<int> order, const std::vector<Axis>& view) {
    for (const Axis& a : view)
      if (std::find(order.begin(), order.end(), a.label) == order.end()) order.push_back(a.label);
    return order;
  }

  // Copies the view in `order` and sums out the axes after the first `keep`.
  Status CopyReduce(OpKernelContext* ctx, const Tensor& t, const std::vector<Axis>& view, const std::vector<int>& order,
                    size_t keep, Tensor* out) const {
    std::vector<int64_t> dims, strides;
    for (int l : order) {
      const Axis* ax = nullptr;
      for (const Axis& a : view)
        if (a.label == l) ax = &a;
      dims.push_back(ax == nullptr ? 1 : ax->size);
      strides.push_back(ax == nullptr ? 0 : ax->stride);
    }
    int64_t kept = 1, summed = 1;
    for (size_t i = 0; i < dims.size(); ++i) (i < keep ? kept : summed) *= dims[i];
    Tensor full;
    FLOWVM_RETURN_IF_ERROR(ctx->allocate_temp(DataTypeToEnum<T>::value, TensorShape({kept * summed}), &full));
    StridedCopy(t.data<T>(), dims, strides, full.data<T>());
    if (summed == 1) {
      *out = full;
      return Status::OK();
    }
    FLOWVM_RETURN_IF_ERROR(ctx->allocate_temp(DataTypeToEnum<T>::value, TensorShape({kept}), out));
    const T* src = full.data<T>();
    T* dst = out->data<T>();
    ctx->ParallelFor(kept, summed, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        T s = T(0);
        for (int64_t j = 0; j < summed; ++j) s += src[i * summed + j];
        dst[i] = s;
      }
    });
    return Status::OK();
  }

  EinsumSpec spec_;
  std::string equation_;
};

}  // namespace

#define FLOWVM_REGISTER_EINSUM(T) \
  REGISTER_KERNEL_BUILDER(Name("Einsum").Device(DEVICE_CPU).TypeConstraint<T>("T"), EinsumOp<T>);
FLOWVM_REGISTER_EINSUM(float)
FLOWVM_REGISTER_EINSUM(double)
FLOWVM_REGISTER_EINSUM(int32_t)
FLOWVM_REGISTER_EINSUM(int64_t)
FLOWVM_REGISTER_EINSUM(complex64)
FLOWVM_REGISTER_EINSUM(complex128)
#undef FLOWVM_REGISTER_EINSUM

}  // namespace flowvm

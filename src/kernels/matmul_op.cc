// MatMul: float / double / complex through OpenBLAS (cblas_?gemm), half and
// bfloat16 through sgemm on float copies, integers through a plain loop
// (wrapping on overflow, as TensorFlow's Eigen kernels do).
#include <cblas.h>

#include <climits>
#include <cstring>
#include <vector>

#include "kernels/cwise_ops.h"
#include "kernels/framework/kernel_registry.h"
#include "kernels/framework/op_kernel.h"

namespace flowvm {
namespace {

// C[m,n] = op(A) op(B); A is row-major with lda columns, B with ldb columns.
struct GemmArgs {
  bool ta, tb;
  int64_t m, n, k, lda, ldb;
};

CBLAS_TRANSPOSE Trans(bool t) { return t ? CblasTrans : CblasNoTrans; }

void Gemm(const GemmArgs& g, const float* a, const float* b, float* c) {
  cblas_sgemm(CblasRowMajor, Trans(g.ta), Trans(g.tb), g.m, g.n, g.k, 1.0f, a, g.lda, b, g.ldb, 0.0f, c, g.n);
}
void Gemm(const GemmArgs& g, const double* a, const double* b, double* c) {
  cblas_dgemm(CblasRowMajor, Trans(g.ta), Trans(g.tb), g.m, g.n, g.k, 1.0, a, g.lda, b, g.ldb, 0.0, c, g.n);
}
void Gemm(const GemmArgs& g, const complex64* a, const complex64* b, complex64* c) {
  const complex64 one(1), zero(0);
  cblas_cgemm(CblasRowMajor, Trans(g.ta), Trans(g.tb), g.m, g.n, g.k, &one, a, g.lda, b, g.ldb, &zero, c, g.n);
}
void Gemm(const GemmArgs& g, const complex128* a, const complex128* b, complex128* c) {
  const complex128 one(1), zero(0);
  cblas_zgemm(CblasRowMajor, Trans(g.ta), Trans(g.tb), g.m, g.n, g.k, &one, a, g.lda, b, g.ldb, &zero, c, g.n);
}

// 16-bit floats: widen to float, sgemm, round back.
template <typename T>
void Gemm16(const GemmArgs& g, const T* a, const T* b, T* c, int64_t a_size, int64_t b_size) {
  std::vector<float> fa(a_size), fb(b_size), fc(g.m * g.n);
  for (int64_t i = 0; i < a_size; ++i) fa[i] = static_cast<float>(a[i]);
  for (int64_t i = 0; i < b_size; ++i) fb[i] = static_cast<float>(b[i]);
  Gemm(g, fa.data(), fb.data(), fc.data());
  for (int64_t i = 0; i < g.m * g.n; ++i) c[i] = T(fc[i]);
}

// Integers: make both operands row-major untransposed, then an i-k-j loop
// whose inner loop runs along contiguous rows of B and C (vectorizes).
template <typename T>
void GemmInt(const GemmArgs& g, const T* a, const T* b, T* c) {
  using U = cwise::WrapType<T>;
  std::vector<T> at, bt;
  if (g.ta) {  // a is [k,m]
    at.resize(g.m * g.k);
    for (int64_t p = 0; p < g.k; ++p)
      for (int64_t i = 0; i < g.m; ++i) at[i * g.k + p] = a[p * g.m + i];
    a = at.data();
  }
  if (g.tb) {  // b is [n,k]
    bt.resize(g.k * g.n);
    for (int64_t j = 0; j < g.n; ++j)
      for (int64_t p = 0; p < g.k; ++p) bt[p * g.n + j] = b[j * g.k + p];
    b = bt.data();
  }
  std::vector<U> acc(g.n);
  for (int64_t i = 0; i < g.m; ++i) {
    std::fill(acc.begin(), acc.end(), U(0));
    for (int64_t p = 0; p < g.k; ++p) {
      const U aip = static_cast<U>(a[i * g.k + p]);
      const T* brow = b + p * g.n;
      for (int64_t j = 0; j < g.n; ++j) acc[j] += aip * static_cast<U>(brow[j]);
    }
    for (int64_t j = 0; j < g.n; ++j) c[i * g.n + j] = static_cast<T>(acc[j]);
  }
}

template <typename T>
class MatMulOp : public OpKernel {
 public:
  explicit MatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_a", &transpose_a_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_b", &transpose_b_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    OP_REQUIRES(ctx, a.dims() == 2,
                errors::InvalidArgument("In[0] is not a matrix. Instead it has shape ", a.shape().DebugString()));
    OP_REQUIRES(ctx, b.dims() == 2,
                errors::InvalidArgument("In[1] is not a matrix. Instead it has shape ", b.shape().DebugString()));
    GemmArgs g;
    g.ta = transpose_a_;
    g.tb = transpose_b_;
    g.m = a.dim_size(transpose_a_ ? 1 : 0);
    g.k = a.dim_size(transpose_a_ ? 0 : 1);
    g.n = b.dim_size(transpose_b_ ? 0 : 1);
    g.lda = a.dim_size(1);
    g.ldb = b.dim_size(1);
    OP_REQUIRES(ctx, g.k == b.dim_size(transpose_b_ ? 1 : 0),
                errors::InvalidArgument("Matrix size-incompatible: In[0]: ", a.shape().DebugString(),
                                        ", In[1]: ", b.shape().DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({g.m, g.n}), &out));
    if (out->NumElements() == 0) return;
    T* c = out->data<T>();
    if (g.k == 0) {  // an empty sum
      std::fill(c, c + out->NumElements(), T(0.0f));
      return;
    }
    if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, complex64> || std::is_same_v<T, complex128> ||
                  cwise::kIsHalfLike<T>) {
      OP_REQUIRES(ctx, g.m <= INT_MAX && g.n <= INT_MAX && g.k <= INT_MAX,
                  errors::InvalidArgument("MatMul: dimensions too large for BLAS: [", g.m, ",", g.k, "] x [", g.k,
                                          ",", g.n, "]"));
    }
    if constexpr (cwise::kIsHalfLike<T>) {
      Gemm16<T>(g, a.data<T>(), b.data<T>(), c, a.NumElements(), b.NumElements());
    } else if constexpr (std::is_integral_v<T>) {
      GemmInt<T>(g, a.data<T>(), b.data<T>(), c);
    } else {
      Gemm(g, a.data<T>(), b.data<T>(), c);
    }
  }

 private:
  bool transpose_a_ = false, transpose_b_ = false;
};

}  // namespace

#define FLOWVM_REGISTER_MATMUL(T) \
  REGISTER_KERNEL_BUILDER(Name("MatMul").Device(DEVICE_CPU).TypeConstraint<T>("T"), MatMulOp<T>);
FLOWVM_REGISTER_MATMUL(float)
FLOWVM_REGISTER_MATMUL(double)
FLOWVM_REGISTER_MATMUL(half)
FLOWVM_REGISTER_MATMUL(bfloat16)
FLOWVM_REGISTER_MATMUL(int32_t)
FLOWVM_REGISTER_MATMUL(int64_t)
FLOWVM_REGISTER_MATMUL(complex64)
FLOWVM_REGISTER_MATMUL(complex128)
#undef FLOWVM_REGISTER_MATMUL

}  // namespace flowvm

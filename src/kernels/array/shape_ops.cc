// Metadata and fill kernels: Rank, Shape, Size, Reshape, ExpandDims, Squeeze,
// StopGradient, PreventGradient (these share the input's buffer), Fill,
// ZerosLike, OnesLike, Range and BroadcastGradientArgs.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/array/array_util.h"
#include "kernels/framework/kernel_registry.h"

namespace flowvm {
namespace {

using array::AllTypes;
using array::IndexVector;

// Writes `values` to output 0 as a vector of the output's int32/int64 type;
// InvalidArgument if a value does not fit int32.
void OutputIntVector(OpKernelContext* ctx, const std::vector<int64_t>& values, const TensorShape& shape,
                     const char* what) {
  Tensor* out;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
  if (out->dtype() == DT_INT32) {
    for (size_t i = 0; i < values.size(); ++i) {
      OP_REQUIRES(ctx, values[i] <= INT32_MAX,
                  errors::InvalidArgument(what, " output type is 32-bit but value ", i, " is ", values[i]));
      out->data<int32_t>()[i] = static_cast<int32_t>(values[i]);
    }
  } else {
    for (size_t i = 0; i < values.size(); ++i) out->data<int64_t>()[i] = values[i];
  }
}

class RankOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
    out->scalar<int32_t>() = ctx->input(0).dims();
  }
  bool IsExpensive() const override { return false; }
};

class ShapeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    OutputIntVector(ctx, in.shape().dim_sizes(), TensorShape({in.dims()}), "Shape");
  }
  bool IsExpensive() const override { return false; }
};

class SizeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    OutputIntVector(ctx, {ctx->input(0).NumElements()}, TensorShape(), "Size");
  }
  bool IsExpensive() const override { return false; }
};

void OutputReshaped(OpKernelContext* ctx, const Tensor& in, const TensorShape& shape) {
  auto r = in.Reshape(shape);
  OP_REQUIRES_OK(ctx, r.status());
  ctx->set_output(0, *r);
}

class ReshapeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& st = ctx->input(1);
    OP_REQUIRES(ctx, st.dims() <= 1,
                errors::InvalidArgument("sizes input must be 1-D, not ", st.shape().DebugString()));
    std::vector<int64_t> dims = IndexVector(st);
    int unknown = -1;
    int64_t product = 1;
    bool overflow = false;
    for (int i = 0; i < static_cast<int>(dims.size()); ++i) {
      if (dims[i] == -1) {
        OP_REQUIRES(ctx, unknown < 0,
                    errors::InvalidArgument("Only one input size may be -1, not both ", unknown, " and ", i));
        unknown = i;
        continue;
      }
      OP_REQUIRES(ctx, dims[i] >= 0, errors::InvalidArgument("Size ", i, " must be non-negative, not ", dims[i]));
      if (dims[i] != 0 && product > TensorShape::kMaxElements / dims[i]) overflow = true;
      else product *= dims[i];
    }
    OP_REQUIRES(ctx, !overflow || product == 0,
                errors::InvalidArgument("Reshape: the requested shape has too many elements"));
    const int64_t n = in.NumElements();
    if (unknown >= 0) {
      OP_REQUIRES(ctx, product > 0,
                  errors::InvalidArgument("Reshape cannot infer the missing input size for an empty tensor unless "
                                          "all specified input sizes are non-zero"));
      OP_REQUIRES(ctx, n % product == 0,
                  errors::InvalidArgument("Input to reshape is a tensor with ", n,
                                          " values, but the requested shape requires a multiple of ", product));
      dims[unknown] = n / product;
    } else {
      OP_REQUIRES(ctx, product == n,
                  errors::InvalidArgument("Input to reshape is a tensor with ", n,
                                          " values, but the requested shape has ", product));
    }
    auto shape = TensorShape::FromDims(dims);
    OP_REQUIRES_OK(ctx, shape.status());
    OutputReshaped(ctx, in, *shape);
  }
  bool IsExpensive() const override { return false; }
};

class ExpandDimsOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& dt = ctx->input(1);
    OP_REQUIRES(ctx, dt.NumElements() == 1,
                errors::InvalidArgument("'dim' must be a tensor with a single value, got shape ",
                                        dt.shape().DebugString()));
    const int64_t dim = array::IndexAt(dt, 0);
    const int rank = in.dims();
    OP_REQUIRES(ctx, dim >= -1 - rank && dim <= rank,
                errors::InvalidArgument("Tried to expand dim index ", dim, " for tensor with ", rank, " dimensions."));
    TensorShape shape = in.shape();
    shape.InsertDim(static_cast<int>(dim < 0 ? dim + rank + 1 : dim), 1);
    OutputReshaped(ctx, in, shape);
  }
  bool IsExpensive() const override { return false; }
};

class SqueezeOp : public OpKernel {
 public:
  explicit SqueezeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("squeeze_dims", &dims_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const int rank = in.dims();
    std::vector<bool> wanted(rank, false);
    for (int64_t d : dims_) {
      OP_REQUIRES(ctx, d >= -rank && d < rank,
                  errors::InvalidArgument("Tried to squeeze dim index ", d, " for tensor with ", rank, " dimensions."));
      wanted[d < 0 ? d + rank : d] = true;
    }
    TensorShape shape;
    for (int i = 0; i < rank; ++i) {
      const int64_t d = in.dim_size(i);
      if (dims_.empty() ? d == 1 : wanted[i]) {
        OP_REQUIRES(ctx, d == 1,
                    errors::InvalidArgument("Can not squeeze dim[", i, "], expected a dimension of 1, got ", d));
        continue;
      }
      shape.AddDim(d);
    }
    OutputReshaped(ctx, in, shape);
  }
  bool IsExpensive() const override { return false; }

 private:
  std::vector<int64_t> dims_;
};

class PassThroughOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override { ctx->set_output(0, ctx->input(0)); }
  bool IsExpensive() const override { return false; }
};

class FillOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& dt = ctx->input(0);
    const Tensor& value = ctx->input(1);
    OP_REQUIRES(ctx, dt.dims() == 1, errors::InvalidArgument("dims must be a vector, got shape ", dt.shape().DebugString()));
    OP_REQUIRES(ctx, value.dims() == 0,
                errors::InvalidArgument("value must be a scalar, got shape ", value.shape().DebugString()));
    std::vector<int64_t> dims = IndexVector(dt);
    for (size_t i = 0; i < dims.size(); ++i)
      OP_REQUIRES(ctx, dims[i] >= 0, errors::InvalidArgument("dims[", i, "] = ", dims[i], " must be non-negative"));
    auto shape = TensorShape::FromDims(dims);
    OP_REQUIRES_OK(ctx, shape.status());
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    array::FillWith(ctx, value, out);
  }
};

class ZerosLikeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    if (in.dtype() == DT_STRING) return;  // new strings are empty
    Tensor zero;
    OP_REQUIRES_OK(ctx, ctx->allocate_temp(in.dtype(), TensorShape(), &zero));
    std::memset(zero.raw_data(), 0, DataTypeSize(in.dtype()));
    array::FillWith(ctx, zero, out);
  }
};

class OnesLikeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor one;
    OP_REQUIRES_OK(ctx, ctx->allocate_temp(in.dtype(), TensorShape(), &one));
    VisitDataType(in.dtype(), [&](auto zero) {
      using T = decltype(zero);
      if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) one.scalar<T>() = T(1.0f);
      else if constexpr (std::is_arithmetic_v<T> || std::is_same_v<T, complex64> || std::is_same_v<T, complex128>)
        one.scalar<T>() = T(1);
    });
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    array::FillWith(ctx, one, out);
  }
};

template <typename T>
class RangeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < 3; ++i)
      OP_REQUIRES(ctx, ctx->input(i).dims() == 0,
                  errors::InvalidArgument(i == 0 ? "start" : (i == 1 ? "limit" : "delta"),
                                          " must be a scalar, not shape ", ctx->input(i).shape().DebugString()));
    const T start = ctx->input(0).scalar<T>(), limit = ctx->input(1).scalar<T>(), delta = ctx->input(2).scalar<T>();
    int64_t size = 0;
    if constexpr (std::is_integral_v<T>) {
      OP_REQUIRES(ctx, delta != 0, errors::InvalidArgument("Requires delta != 0: ", int64_t{delta}));
      OP_REQUIRES(ctx, delta < 0 || start <= limit,
                  errors::InvalidArgument("Requires start <= limit when delta > 0: ", int64_t{start}, "/",
                                          int64_t{limit}));
      OP_REQUIRES(ctx, delta > 0 || start >= limit,
                  errors::InvalidArgument("Requires start >= limit when delta < 0: ", int64_t{start}, "/",
                                          int64_t{limit}));
      const int64_t s = start, l = limit, d = delta;
      const uint64_t span = l >= s ? static_cast<uint64_t>(l) - static_cast<uint64_t>(s)
                                   : static_cast<uint64_t>(s) - static_cast<uint64_t>(l);
      const uint64_t step = d > 0 ? static_cast<uint64_t>(d) : 0 - static_cast<uint64_t>(d);
      size = static_cast<int64_t>(span / step + (span % step != 0 ? 1 : 0));
      Tensor* out;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({size}), &out));
      T* o = out->data<T>();
      uint64_t v = static_cast<uint64_t>(s);
      for (int64_t i = 0; i < size; ++i) {
        o[i] = static_cast<T>(static_cast<int64_t>(v));
        v += static_cast<uint64_t>(d);
      }
    } else {
      using C = std::conditional_t<std::is_same_v<T, double>, double, float>;  // compute type
      const C s = static_cast<C>(start), l = static_cast<C>(limit), d = static_cast<C>(delta);
      OP_REQUIRES(ctx, d != 0, errors::InvalidArgument("Requires delta != 0: ", d));
      OP_REQUIRES(ctx, d < 0 || s <= l, errors::InvalidArgument("Requires start <= limit when delta > 0: ", s, "/", l));
      OP_REQUIRES(ctx, d > 0 || s >= l, errors::InvalidArgument("Requires start >= limit when delta < 0: ", s, "/", l));
      const double n = std::ceil(std::abs(static_cast<double>((l - s) / d)));
      OP_REQUIRES(ctx, n <= static_cast<double>(TensorShape::kMaxElements),
                  errors::InvalidArgument("Requires ((limit - start) / delta) <= ", TensorShape::kMaxElements));
      size = static_cast<int64_t>(n);
      Tensor* out;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({size}), &out));
      T* o = out->data<T>();
      T v = start;
      for (int64_t i = 0; i < size; ++i) {
        o[i] = v;
        v = static_cast<T>(static_cast<C>(v) + d);
      }
    }
  }
};

// The reduction indices of BroadcastGradientArgs, as TensorFlow's BCast
// computes them: a dim of one operand is reduced where it is 1 and the
// broadcast result is not, or where both are 1 (unless the shapes are equal).
class BroadcastGradientArgsOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    OP_REQUIRES(ctx, a.dims() == 1, errors::InvalidArgument("In[0] must be a vector.", a.shape().DebugString()));
    OP_REQUIRES(ctx, b.dims() == 1, errors::InvalidArgument("In[1] must be a vector.", b.shape().DebugString()));
    std::vector<int64_t> x = IndexVector(a), y = IndexVector(b);
    const size_t n = std::max(x.size(), y.size());
    std::vector<int64_t> r0, r1;
    // Identical shapes reduce nothing (TensorFlow's fast path), even where
    // both are 1.
    for (size_t i = 0; i < n && x != y; ++i) {
      const int64_t xi = i + x.size() >= n ? x[i + x.size() - n] : 1;
      const int64_t yi = i + y.size() >= n ? y[i + y.size() - n] : 1;
      const int64_t k = static_cast<int64_t>(i);
      if (xi == yi) {
        if (xi == 1) {
          r0.push_back(k);
          r1.push_back(k);
        }
      } else if (xi == 1) {
        r0.push_back(k);
      } else if (yi == 1) {
        r1.push_back(k);
      } else {
        auto str = [](const std::vector<int64_t>& v) {
          std::string s = "[";
          for (size_t j = 0; j < v.size(); ++j) s += (j ? "," : "") + std::to_string(v[j]);
          return s + "]";
        };
        ctx->SetStatus(errors::InvalidArgument("Incompatible shapes: ", str(x), " vs. ", str(y)));
        return;
      }
    }
    for (int o = 0; o < 2; ++o) {
      const std::vector<int64_t>& r = o == 0 ? r0 : r1;
      Tensor* out;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(o, TensorShape({static_cast<int64_t>(r.size())}), &out));
      for (size_t j = 0; j < r.size(); ++j) {
        if (out->dtype() == DT_INT32) out->data<int32_t>()[j] = static_cast<int32_t>(r[j]);
        else out->data<int64_t>()[j] = r[j];
      }
    }
  }
  bool IsExpensive() const override { return false; }
};

const std::vector<DataType> kIndexTypes = {DT_INT32, DT_INT64};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("Rank").Device(DEVICE_CPU).TypeConstraint("T", AllTypes()), RankOp);
REGISTER_KERNEL_BUILDER(Name("Shape").Device(DEVICE_CPU).TypeConstraint("T", AllTypes()), ShapeOp);
REGISTER_KERNEL_BUILDER(Name("Size").Device(DEVICE_CPU).TypeConstraint("T", AllTypes()), SizeOp);
REGISTER_KERNEL_BUILDER(Name("Reshape").Device(DEVICE_CPU).TypeConstraint("T", AllTypes()), ReshapeOp);
REGISTER_KERNEL_BUILDER(Name("ExpandDims").Device(DEVICE_CPU).TypeConstraint("T", AllTypes()), ExpandDimsOp);
REGISTER_KERNEL_BUILDER(Name("Squeeze").Device(DEVICE_CPU).TypeConstraint("T", AllTypes()), SqueezeOp);
REGISTER_KERNEL_BUILDER(Name("StopGradient").Device(DEVICE_CPU).TypeConstraint("T", AllTypes()), PassThroughOp);
REGISTER_KERNEL_BUILDER(Name("PreventGradient").Device(DEVICE_CPU).TypeConstraint("T", AllTypes()), PassThroughOp);
REGISTER_KERNEL_BUILDER(Name("Fill").Device(DEVICE_CPU).TypeConstraint("T", AllTypes()), FillOp);
REGISTER_KERNEL_BUILDER(Name("ZerosLike").Device(DEVICE_CPU).TypeConstraint("T", AllTypes()), ZerosLikeOp);
REGISTER_KERNEL_BUILDER(Name("OnesLike")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", {DT_BFLOAT16, DT_HALF, DT_FLOAT, DT_DOUBLE, DT_INT8, DT_UINT8,
                                                  DT_INT16, DT_UINT16, DT_INT32, DT_UINT32, DT_INT64, DT_UINT64,
                                                  DT_COMPLEX64, DT_COMPLEX128, DT_BOOL}),
                        OnesLikeOp);
#define FLOWVM_REGISTER_RANGE(T) \
  REGISTER_KERNEL_BUILDER(Name("Range").Device(DEVICE_CPU).TypeConstraint<T>("Tidx"), RangeOp<T>)
FLOWVM_REGISTER_RANGE(float);
FLOWVM_REGISTER_RANGE(double);
FLOWVM_REGISTER_RANGE(half);
FLOWVM_REGISTER_RANGE(bfloat16);
FLOWVM_REGISTER_RANGE(int8_t);
FLOWVM_REGISTER_RANGE(int16_t);
FLOWVM_REGISTER_RANGE(int32_t);
FLOWVM_REGISTER_RANGE(int64_t);
FLOWVM_REGISTER_RANGE(uint16_t);
FLOWVM_REGISTER_RANGE(uint32_t);
#undef FLOWVM_REGISTER_RANGE
REGISTER_KERNEL_BUILDER(Name("BroadcastGradientArgs").Device(DEVICE_CPU).TypeConstraint("T", kIndexTypes),
                        BroadcastGradientArgsOp);

}  // namespace flowvm

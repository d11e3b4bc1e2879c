// Math ops: the broadcasting binary arithmetic ops (Add, AddV2, Sub, Mul) and
// MatMul. Names, type lists and attrs follow TensorFlow's math_ops.cc.
#include "graph/op_registry.h"
#include "graph/shape_inference.h"

namespace flowvm {
namespace {

// MatMul: a [m,k] (or [k,m] with transpose_a) times b [k,n] (or [n,k]).
Status MatMulShape(InferenceContext* c) {
  PartialTensorShape a, b;
  FLOWVM_RETURN_IF_ERROR(c->WithRank(0, 2, &a));
  FLOWVM_RETURN_IF_ERROR(c->WithRank(1, 2, &b));
  bool transpose_a = false, transpose_b = false;
  FLOWVM_RETURN_IF_ERROR(c->GetAttr("transpose_a", &transpose_a));
  FLOWVM_RETURN_IF_ERROR(c->GetAttr("transpose_b", &transpose_b));
  int64_t m = a.dim_size(transpose_a ? 1 : 0);
  int64_t k_a = a.dim_size(transpose_a ? 0 : 1);
  int64_t k_b = b.dim_size(transpose_b ? 1 : 0);
  int64_t n = b.dim_size(transpose_b ? 0 : 1);
  if (k_a >= 0 && k_b >= 0 && k_a != k_b)
    return errors::InvalidArgument("Matrix size-incompatible: In[0]: ", c->input(0).DebugString(),
                                   ", In[1]: ", c->input(1).DebugString());
  c->set_output(0, PartialTensorShape({m, n}));
  return Status::OK();
}

}  // namespace

REGISTER_OP("Add")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr("T: {bfloat16, half, float, double, uint8, int8, int16, int32, int64, complex64, complex128, string}")
    .SetShapeFn(BroadcastBinaryOpShape)
    .Doc("Returns x + y element-wise, with NumPy broadcasting.");

REGISTER_OP("AddV2")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr("T: {bfloat16, half, float, double, uint8, uint16, uint32, uint64, int8, int16, int32, int64, "
          "complex64, complex128}")
    .SetIsCommutative()
    .SetIsAggregate()
    .SetShapeFn(BroadcastBinaryOpShape)
    .Doc("Returns x + y element-wise, with NumPy broadcasting.");

REGISTER_OP("Sub")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr("T: {bfloat16, half, float, double, uint8, int8, uint16, int16, int32, int64, complex64, complex128, "
          "uint32, uint64}")
    .SetShapeFn(BroadcastBinaryOpShape)
    .Doc("Returns x - y element-wise, with NumPy broadcasting.");

REGISTER_OP("Mul")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr("T: {bfloat16, half, float, double, uint8, int8, uint16, int16, int32, uint32, uint64, int64, "
          "complex64, complex128}")
    .SetIsCommutative()
    .SetShapeFn(BroadcastBinaryOpShape)
    .Doc("Returns x * y element-wise, with NumPy broadcasting.");

// grad_a / grad_b exist in recent TensorFlow versions (hints for gradient
// graphs); they are accepted so that such graphs load, and ignored.
REGISTER_OP("MatMul")
    .Input("a: T")
    .Input("b: T")
    .Output("product: T")
    .Attr("transpose_a: bool = false")
    .Attr("transpose_b: bool = false")
    .Attr("T: {bfloat16, half, float, double, int32, int64, complex64, complex128}")
    .Attr("grad_a: bool = false")
    .Attr("grad_b: bool = false")
    .SetShapeFn(MatMulShape)
    .Doc("Multiplies matrix a by matrix b, optionally transposing either first.");

}  // namespace flowvm

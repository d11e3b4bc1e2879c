// More element-wise math ops, as TensorFlow defines them: the trigonometric
// and special functions (Sin, Cos, Tan, Erf, Expm1, Atan2), IsInf,
// SquaredDifference, the truncating division pair (TruncateDiv,
// TruncateMod) and ClipByValue. Gradients are in math_more_grad.cc.
#include "graph/op_registry.h"
#include "graph/shape_inference.h"

namespace flowvm {

#define FLOWVM_UNARY_OP(NAME, TYPES, DOC) \
  REGISTER_OP(NAME).Input("x: T").Output("y: T").Attr(TYPES).SetShapeFn(UnchangedShape).Doc(DOC)
#define FLOWVM_UNARY_ANY "T: {bfloat16, half, float, double, int8, int16, int32, int64, complex64, complex128}"
#define FLOWVM_UNARY_COMPLEX "T: {bfloat16, half, float, double, complex64, complex128}"
FLOWVM_UNARY_OP("Sin", FLOWVM_UNARY_COMPLEX, "sin(x) element-wise.");
FLOWVM_UNARY_OP("Cos", FLOWVM_UNARY_COMPLEX, "cos(x) element-wise.");
FLOWVM_UNARY_OP("Tan", FLOWVM_UNARY_ANY, "tan(x) element-wise.");
FLOWVM_UNARY_OP("Erf", "T: {bfloat16, half, float, double}", "The Gauss error function of x element-wise.");
FLOWVM_UNARY_OP("Expm1", FLOWVM_UNARY_COMPLEX, "exp(x) - 1 element-wise, accurate for small x.");
#undef FLOWVM_UNARY_COMPLEX
#undef FLOWVM_UNARY_ANY
#undef FLOWVM_UNARY_OP

REGISTER_OP("IsInf")
    .Input("x: T")
    .Output("y: bool")
    .Attr("T: {bfloat16, half, float, double}")
    .SetShapeFn(UnchangedShape)
    .Doc("Which elements of x are +Inf or -Inf.");

REGISTER_OP("Atan2")
    .Input("y: T")
    .Input("x: T")
    .Output("z: T")
    .Attr("T: {bfloat16, half, float, double}")
    .SetShapeFn(BroadcastBinaryOpShape)
    .Doc("atan(y / x) element-wise, in the quadrant of (x, y), with NumPy broadcasting.");

REGISTER_OP("SquaredDifference")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr("T: {bfloat16, half, float, double, int32, int64, complex64, complex128}")
    .SetIsCommutative()
    .SetShapeFn(BroadcastBinaryOpShape)
    .Doc("(x - y) * conj(x - y) element-wise, with NumPy broadcasting.");

REGISTER_OP("TruncateDiv")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr("T: {bfloat16, half, float, double, uint8, int8, uint16, int16, int32, uint32, uint64, int64, "
          "complex64, complex128}")
    .SetShapeFn(BroadcastBinaryOpShape)
    .Doc("x / y element-wise, rounded toward zero (C semantics); integer division by zero is an error.");

REGISTER_OP("TruncateMod")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr("T: {int32, int64, bfloat16, half, float, double}")
    .SetShapeFn(BroadcastBinaryOpShape)
    .Doc("The remainder of truncating division (C's % and fmod): the result has the sign of x.");

REGISTER_OP("ClipByValue")
    .Input("t: T")
    .Input("clip_value_min: T")
    .Input("clip_value_max: T")
    .Output("output: T")
    .Attr("T: numbertype")
    .SetShapeFn(UnchangedShape)
    .Doc("max(min(t, clip_value_max), clip_value_min); each bound is a scalar or of t's shape.");

}  // namespace flowvm

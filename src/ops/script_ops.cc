// PyFunc, PyFuncStateless and EagerPyFunc: a node that calls a function of
// the host program (in flowvm, a Python function registered by the Python
// package under `token`), with TensorFlow 1.x's names, inputs and attrs so
// that tf.py_func's GraphDefs load unchanged. The outputs' shapes are
// unknown: only the function knows them. Like TensorFlow's, they have no
// gradient (tf.RegisterGradient with gradient_override_map gives one).
#include "graph/gradient_registry.h"
#include "graph/op_registry.h"
#include "graph/shape_inference.h"

namespace flowvm {

#define FLOWVM_SCRIPT_OP(NAME, DOC)              \
  REGISTER_OP(NAME)                              \
      .Input("input: Tin")                       \
      .Output("output: Tout")                    \
      .Attr("token: string")                     \
      .Attr("Tin: list(type) >= 0")              \
      .Attr("Tout: list(type) >= 0")             \
      .SetShapeFn(UnknownShape)                  \
      .Doc(DOC)

FLOWVM_SCRIPT_OP("PyFunc", "Calls the Python function registered under `token` on the inputs.").SetIsStateful();
FLOWVM_SCRIPT_OP("PyFuncStateless", "PyFunc for a function without side effects.");
#undef FLOWVM_SCRIPT_OP

REGISTER_OP("EagerPyFunc")
    .Input("input: Tin")
    .Output("output: Tout")
    .Attr("token: string")
    .Attr("is_async: bool = false")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .SetIsStateful()
    .SetShapeFn(UnknownShape)
    .Doc("PyFunc as TensorFlow's tf.py_function writes it; the function gets and returns arrays here.");

REGISTER_NO_GRADIENT("PyFunc");
REGISTER_NO_GRADIENT("PyFuncStateless");
REGISTER_NO_GRADIENT("EagerPyFunc");

}  // namespace flowvm

// _Arg and _Retval: the nodes a Session inserts for feeds and fetches.
#include "graph/op_registry.h"
#include "graph/shape_inference.h"

namespace flowvm {

REGISTER_OP("_Arg")
    .Output("output: T")
    .Attr("T: type")
    .Attr("index: int >= 0")
    .SetIsStateful()
    .SetShapeFn(UnknownShape)
    .Doc("A value fed to the step (feed number `index`).");

REGISTER_OP("_Retval")
    .Input("input: T")
    .Attr("T: type")
    .Attr("index: int >= 0")
    .SetIsStateful()
    .SetShapeFn(UnknownShape)
    .Doc("Returns its input as fetch number `index` of the step.");

}  // namespace flowvm

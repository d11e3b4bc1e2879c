// NoOp: does nothing; useful only as a target of control edges.
#include "graph/op_registry.h"
#include "graph/shape_inference.h"

namespace flowvm {

REGISTER_OP("NoOp").SetShapeFn(UnknownShape).Doc("Does nothing. Only useful as a placeholder for control edges.");

}  // namespace flowvm

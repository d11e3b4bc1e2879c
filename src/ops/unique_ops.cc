// Unique and UniqueWithCounts: the distinct elements of a vector in order of
// first occurrence, with TensorFlow's names, attrs, defaults and shape
// functions (array_ops.cc). TensorFlow defines no gradient for either (the
// output depends on which inputs are equal, not smoothly on their values);
// they are registered as not differentiable, so a gradient path through them
// is cut rather than an error.
#include "graph/gradient_registry.h"
#include "graph/op_registry.h"
#include "graph/shape_inference.h"

namespace flowvm {
namespace {

// y (and count) have one element per distinct value: unknown until run time.
// idx has x's shape. x must be a vector; TensorFlow sets idx to x's shape
// as given (unknown rank stays unknown).
Status UniqueShape(InferenceContext* c) {
  const PartialTensorShape& x = c->input(0);
  if (!x.unknown_rank() && x.dims() != 1)
    return errors::InvalidArgument("x must be a vector (unique expects a 1-D tensor), but has shape ",
                                   x.DebugString());
  c->set_output(0, PartialTensorShape({-1}));
  c->set_output(1, x);
  if (c->num_outputs() > 2) c->set_output(2, PartialTensorShape({-1}));
  return Status::OK();
}

}  // namespace

REGISTER_OP("Unique")
    .Input("x: T")
    .Output("y: T")
    .Output("idx: out_idx")
    .Attr("T: type")
    .Attr("out_idx: {int32, int64} = DT_INT32")
    .SetShapeFn(UniqueShape)
    .Doc("The distinct elements of the vector x in order of first occurrence (y), and for each element of x "
         "the index of its value in y (idx): x[i] == y[idx[i]].");

REGISTER_OP("UniqueWithCounts")
    .Input("x: T")
    .Output("y: T")
    .Output("idx: out_idx")
    .Output("count: out_idx")
    .Attr("T: type")
    .Attr("out_idx: {int32, int64} = DT_INT32")
    .SetShapeFn(UniqueShape)
    .Doc("Unique, plus how many times each element of y occurs in x (count).");

REGISTER_NO_GRADIENT("Unique");
REGISTER_NO_GRADIENT("UniqueWithCounts");

}  // namespace flowvm

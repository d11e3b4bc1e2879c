// LeakyRelu and Softsign with their gradient ops, as TensorFlow defines them
// in nn_ops.cc. Gradients are in nn_activation_more_grad.cc.
#include "graph/op_registry.h"
#include "graph/shape_inference.h"

namespace flowvm {
namespace {

// The gradient ops take (gradients, features) of one shape.
Status SameShapePair(InferenceContext* c) {
  auto merged = c->input(0).MergeWith(c->input(1));
  if (!merged.ok())
    return errors::InvalidArgument("gradients and features must have the same shape, got ",
                                   c->input(0).DebugString(), " and ", c->input(1).DebugString());
  c->set_output(0, *merged);
  return Status::OK();
}

}  // namespace

REGISTER_OP("LeakyRelu")
    .Input("features: T")
    .Output("activations: T")
    .Attr("alpha: float = 0.2")
    .Attr("T: {half, bfloat16, float, double} = DT_FLOAT")
    .SetShapeFn(UnchangedShape)
    .Doc("features where features > 0, else alpha * features.");

REGISTER_OP("LeakyReluGrad")
    .Input("gradients: T")
    .Input("features: T")
    .Output("backprops: T")
    .Attr("alpha: float = 0.2")
    .Attr("T: {half, bfloat16, float, double} = DT_FLOAT")
    .SetShapeFn(SameShapePair)
    .Doc("gradients where features > 0, else alpha * gradients.");

REGISTER_OP("Softsign")
    .Input("features: T")
    .Output("activations: T")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(UnchangedShape)
    .Doc("features / (abs(features) + 1).");

REGISTER_OP("SoftsignGrad")
    .Input("gradients: T")
    .Input("features: T")
    .Output("backprops: T")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(SameShapePair)
    .Doc("gradients / (1 + abs(features)) ** 2.");

}  // namespace flowvm

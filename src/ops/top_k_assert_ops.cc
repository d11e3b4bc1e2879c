// TopKV2 and Assert, as TensorFlow defines them (nn_ops.cc, logging_ops.cc).
// TopKV2's gradient is in array_more_grad.cc; Assert has no outputs.
#include "graph/op_registry.h"
#include "graph/shape_inference.h"

namespace flowvm {
namespace {

// TopKV2: input [..., n] and a scalar k give two [..., k] outputs.
Status TopKV2Shape(InferenceContext* c) {
  const PartialTensorShape& in = c->input(0);
  const PartialTensorShape& ks = c->input(1);
  if (!ks.unknown_rank() && ks.dims() != 0)
    return errors::InvalidArgument("k must be a scalar, but has shape ", ks.DebugString());
  if (!in.unknown_rank() && in.dims() < 1)
    return errors::InvalidArgument("input must be at least 1-D, but has shape ", in.DebugString());
  int64_t k = -1;
  bool known = false;
  FLOWVM_RETURN_IF_ERROR(GetScalarInput(c, 1, &k, &known));
  if (known && k < 0) return errors::InvalidArgument("Need k >= 0, got ", k);
  if (in.unknown_rank()) {
    c->set_output(0, PartialTensorShape::Unknown());
    c->set_output(1, PartialTensorShape::Unknown());
    return Status::OK();
  }
  std::vector<int64_t> dims = in.dim_sizes();
  const int64_t last = dims.back();
  if (known && last >= 0 && last < k)
    return errors::InvalidArgument("input must have last dimension >= k = ", k, " but is ", last);
  dims.back() = known ? k : -1;
  FLOWVM_ASSIGN_OR_RETURN(PartialTensorShape out, PartialTensorShape::FromDims(dims));
  c->set_output(0, out);
  c->set_output(1, out);
  return Status::OK();
}

Status AssertShape(InferenceContext* c) {
  const PartialTensorShape& cond = c->input(0);
  if (!cond.unknown_rank() && cond.dims() != 0)
    return errors::InvalidArgument("condition must be a scalar, but has shape ", cond.DebugString());
  return Status::OK();
}

}  // namespace

REGISTER_OP("TopKV2")
    .Input("input: T")
    .Input("k: int32")
    .Output("values: T")
    .Output("indices: int32")
    .Attr("sorted: bool = true")
    .Attr("T: realnumbertype")
    .SetShapeFn(TopKV2Shape)
    .Doc("The k largest entries of each last-axis row of input and their indices (ties: the lower index "
         "first); in descending order when sorted.");

REGISTER_OP("Assert")
    .Input("condition: bool")
    .Input("data: T")
    .Attr("T: list(type)")
    .Attr("summarize: int = 3")
    .SetIsStateful()
    .SetShapeFn(AssertShape)
    .Doc("Fails the step with InvalidArgument, printing the first `summarize` entries of each data tensor, "
         "when condition is false.");

}  // namespace flowvm

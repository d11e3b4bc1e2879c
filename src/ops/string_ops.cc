// String ops: StringSplitV2, with TensorFlow's name, inputs, attr, default
// and shape function (string_ops.cc). The split itself is Python's
// str.split; see kernels/string/string_split_op.cc.
#include "graph/op_registry.h"
#include "graph/shape_inference.h"

namespace flowvm {
namespace {

// Input i must have rank `rank` (or an unknown rank); the error names the
// input by its argument name, as the kernel's does.
Status RequireRank(InferenceContext* c, int i, int rank, const char* name) {
  const PartialTensorShape& s = c->input(i);
  if (s.unknown_rank() || s.dims() == rank) return Status::OK();
  return errors::InvalidArgument(name, " must be ", rank == 0 ? "a scalar" : "a vector", ", but has shape ",
                                 s.DebugString());
}

// A SparseTensor of the tokens: indices [n, 2], values [n], dense_shape [2];
// n is known only at run time.
Status StringSplitV2Shape(InferenceContext* c) {
  FLOWVM_RETURN_IF_ERROR(RequireRank(c, 0, 1, "input"));
  FLOWVM_RETURN_IF_ERROR(RequireRank(c, 1, 0, "sep"));
  c->set_output(0, PartialTensorShape({-1, 2}));
  c->set_output(1, PartialTensorShape({-1}));
  c->set_output(2, PartialTensorShape({2}));
  return Status::OK();
}

}  // namespace

REGISTER_OP("StringSplitV2")
    .Input("input: string")
    .Input("sep: string")
    .Output("indices: int64")
    .Output("values: string")
    .Output("shape: int64")
    .Attr("maxsplit: int = -1")
    .SetShapeFn(StringSplitV2Shape)
    .Doc("Splits each element of `input` on `sep` (empty: on runs of whitespace) into a SparseTensor, as "
         "Python's str.split; at most `maxsplit` splits per element when it is >= 0.");

}  // namespace flowvm

// Control-flow ops (paper 4.4) with TensorFlow's names, signatures and
// semantics: Switch routes a value to one of two outputs and leaves the
// other dead; Merge forwards its first live input; Enter, Exit and
// NextIteration move values into, out of and around a loop's frame;
// LoopCond marks a loop's predicate. The executor gives them their meaning
// (runtime/executor.h); the kernels only forward values.
#include "graph/op_registry.h"
#include "graph/shape_inference.h"

namespace flowvm {

namespace {

Status SwitchShape(InferenceContext* c) {
  PartialTensorShape pred;
  FLOWVM_RETURN_IF_ERROR(c->WithRank(1, 0, &pred));
  c->set_output(0, c->input(0));
  c->set_output(1, c->input(0));
  return Status::OK();
}

// The most specific shape all inputs agree on: a dim known and equal in
// every input stays, anything else becomes unknown. An input whose shape
// is not known yet (a loop's back edge) makes the output unknown.
Status MergeShape(InferenceContext* c) {
  PartialTensorShape out = c->input(0);
  for (int i = 1; i < c->num_inputs() && out.dims() >= 0; ++i) {
    const PartialTensorShape& in = c->input(i);
    if (in.dims() != out.dims()) {
      out = PartialTensorShape();
      break;
    }
    std::vector<int64_t> dims = out.dim_sizes();
    for (int d = 0; d < in.dims(); ++d)
      if (dims[d] != in.dim_size(d)) dims[d] = -1;
    FLOWVM_ASSIGN_OR_RETURN(out, PartialTensorShape::FromDims(dims));
  }
  c->set_output(0, out);
  c->set_output(1, PartialTensorShape(std::initializer_list<int64_t>{}));
  return Status::OK();
}

Status ScalarPredicate(InferenceContext* c) {
  PartialTensorShape pred;
  FLOWVM_RETURN_IF_ERROR(c->WithRank(0, 0, &pred));
  c->set_output(0, pred);
  return Status::OK();
}

}  // namespace

REGISTER_OP("Switch")
    .Input("data: T")
    .Input("pred: bool")
    .Output("output_false: T")
    .Output("output_true: T")
    .Attr("T: type")
    .SetShapeFn(SwitchShape)
    .Doc("Forwards `data` to output_true if `pred` is true, else to output_false; the other output is dead.");

REGISTER_OP("RefSwitch")
    .Input("data: Ref(T)")
    .Input("pred: bool")
    .Output("output_false: Ref(T)")
    .Output("output_true: Ref(T)")
    .Attr("T: type")
    .SetAllowsUninitializedInput()
    .SetShapeFn(SwitchShape)
    .Doc("Switch for a reference (a variable): forwards the reference itself.");

REGISTER_OP("Merge")
    .Input("inputs: N * T")
    .Output("output: T")
    .Output("value_index: int32")
    .Attr("T: type")
    .Attr("N: int >= 1")
    .SetShapeFn(MergeShape)
    .Doc("Forwards the first of its inputs to arrive alive, and its index; dead only if every input is dead.");

REGISTER_OP("RefMerge")
    .Input("inputs: Ref(N * T)")
    .Output("output: Ref(T)")
    .Output("value_index: int32")
    .Attr("T: type")
    .Attr("N: int >= 1")
    .SetAllowsUninitializedInput()
    .SetShapeFn(MergeShape)
    .Doc("Merge for references.");

REGISTER_OP("Enter")
    .Input("data: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("frame_name: string")
    .Attr("is_constant: bool = false")
    .Attr("parallel_iterations: int = 10")
    .SetShapeFn(UnchangedShape)
    .Doc("Makes `data` available in the child frame `frame_name`: in its first iteration, or in every iteration "
         "if is_constant. At most parallel_iterations iterations of the frame run at once.");

REGISTER_OP("RefEnter")
    .Input("data: Ref(T)")
    .Output("output: Ref(T)")
    .Attr("T: type")
    .Attr("frame_name: string")
    .Attr("is_constant: bool = false")
    .Attr("parallel_iterations: int = 10")
    .SetShapeFn(UnchangedShape)
    .Doc("Enter for a reference.");

REGISTER_OP("Exit")
    .Input("data: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(UnchangedShape)
    .Doc("Makes `data` available in the parent frame: the value a loop produces.");

REGISTER_OP("RefExit")
    .Input("data: Ref(T)")
    .Output("output: Ref(T)")
    .Attr("T: type")
    .SetShapeFn(UnchangedShape)
    .Doc("Exit for a reference.");

REGISTER_OP("NextIteration")
    .Input("data: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(UnchangedShape)
    .Doc("Makes `data` available to the next iteration of the loop.");

REGISTER_OP("RefNextIteration")
    .Input("data: Ref(T)")
    .Output("output: Ref(T)")
    .Attr("T: type")
    .SetShapeFn(UnchangedShape)
    .Doc("NextIteration for a reference.");

REGISTER_OP("LoopCond")
    .Input("input: bool")
    .Output("output: bool")
    .SetShapeFn(ScalarPredicate)
    .Doc("Forwards a loop's predicate. Fails with the step's cancellation status once the step is cancelled or "
         "past its deadline, so a runaway loop stops.");

REGISTER_OP("ControlTrigger")
    .SetShapeFn(UnknownShape)
    .Doc("Does nothing; runs even when its control inputs are dead.");

}  // namespace flowvm

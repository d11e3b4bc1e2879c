// Print, as TensorFlow's logging_ops.cc defines it: forwards `input` and, as
// a side effect, writes `message` and a summary of each `data` tensor to
// stderr. Stateful, so it is neither folded nor merged away. Its gradient
// passes straight through to `input`.
#include "graph/gradient_registry.h"
#include "graph/graph_scope.h"
#include "graph/op_registry.h"
#include "graph/shape_inference.h"

namespace flowvm {
namespace {

Status PrintGrad(const GraphScope& s, const Node& op, const std::vector<NodeOut>& dy, std::vector<NodeOut>* dx) {
  dx->assign(op.num_inputs(), NodeOut());  // none for the printed data
  (*dx)[0] = dy[0];
  return Status::OK();
}

}  // namespace

REGISTER_OP("Print")
    .Input("input: T")
    .Input("data: U")
    .Output("output: T")
    .Attr("T: type")
    .Attr("U: list(type) >= 0")
    .Attr("message: string = ''")
    .Attr("first_n: int = -1")
    .Attr("summarize: int = 3")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      c->set_output(0, c->input(0));
      return Status::OK();
    })
    .Doc(
        "Outputs 'input' unchanged and writes 'message' followed by the first 'summarize' values of each "
        "'data' tensor to stderr, on the first 'first_n' runs only when first_n >= 0.");

REGISTER_GRADIENT("Print", PrintGrad);

}  // namespace flowvm

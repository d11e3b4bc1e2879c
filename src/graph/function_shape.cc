#include "graph/function_shape.h"

#include "graph/function_body.h"
#include "graph/function_library.h"
#include "graph/shape_inference.h"

namespace flowvm {

namespace {

// How deep shape inference is nested in function bodies on this thread.
thread_local int infer_depth = 0;
constexpr int kMaxInferDepth = 8;

struct DepthGuard {
  DepthGuard() { ++infer_depth; }
  ~DepthGuard() { --infer_depth; }
};

}  // namespace

Status InferFunctionShapes(const FunctionLibraryDefinition& library, const NameAttrList& func, InferenceContext* c,
                           int first_input, std::vector<PartialTensorShape>* results) {
  results->clear();
  if (infer_depth >= kMaxInferDepth || !library.Contains(func.name())) return Status::OK();
  DepthGuard guard;
  // The body's graph shares the library for the duration of this call only.
  std::shared_ptr<FunctionLibraryDefinition> lib(std::shared_ptr<FunctionLibraryDefinition>(),
                                                 const_cast<FunctionLibraryDefinition*>(&library));
  FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<FunctionBody> body, InstantiateFunction(lib, func));
  std::vector<PartialTensorShape> args;
  std::vector<const Tensor*> values;
  for (size_t i = 0; i < body->arg_nodes.size(); ++i) {
    const int in = first_input + static_cast<int>(i);
    args.push_back(in < c->num_inputs() ? c->input(in) : PartialTensorShape());
    values.push_back(in < c->num_inputs() ? c->input_tensor(in) : nullptr);
  }
  ShapeRefiner refiner;
  refiner.SetArgShapes(std::move(args), std::move(values));
  // Errors name the body's node, which says which function it is in.
  FLOWVM_RETURN_IF_ERROR(refiner.InferAll(*body->graph));
  for (Node* r : body->ret_nodes) {
    const Edge* e = r->input_edge(0);
    const auto& shapes = refiner.OutputShapes(e->src()->id());
    results->push_back(e->src_output() < static_cast<int>(shapes.size()) ? shapes[e->src_output()]
                                                                          : PartialTensorShape());
  }
  return Status::OK();
}

Status InferFunctionCallShapes(const FunctionLibraryDefinition& library, const std::string& name,
                               InferenceContext* c) {
  std::vector<PartialTensorShape> results;
  FLOWVM_RETURN_IF_ERROR(InferFunctionShapes(library, CallAttrs(c->node_def(), name), c, 0, &results));
  for (int i = 0; i < c->num_outputs() && i < static_cast<int>(results.size()); ++i) c->set_output(i, results[i]);
  return Status::OK();
}

}  // namespace flowvm

// Shape inference through function calls: the output shapes of a node
// that calls a function are those its body computes from the shapes (and
// constant values) of the node's inputs.
#ifndef FLOWVM_GRAPH_FUNCTION_SHAPE_H_
#define FLOWVM_GRAPH_FUNCTION_SHAPE_H_

#include <string>
#include <vector>

#include "flowvm/attr_value.pb.h"
#include "flowvm/status.h"
#include "flowvm/tensor_shape.h"

namespace flowvm {

class FunctionLibraryDefinition;
class InferenceContext;

// The shape function of a node whose op is the function `name` of
// `library`: instantiates the body with the node's attrs and infers it.
// Calls nested deeper than a few levels (recursion) give unknown shapes.
// A body that cannot be instantiated is an error naming the function.
Status InferFunctionCallShapes(const FunctionLibraryDefinition& library, const std::string& name,
                               InferenceContext* c);

// The same for a function named by an attr (PartitionedCall's `f`), with
// the call's inputs [first_input, first_input + n) as its arguments; sets
// outputs [0, results). Leaves outputs unknown (and returns OK) when the
// function cannot be found, so that ops whose functions are resolved later
// still build.
Status InferFunctionShapes(const FunctionLibraryDefinition& library, const NameAttrList& func, InferenceContext* c,
                           int first_input, std::vector<PartialTensorShape>* results);

}  // namespace flowvm

#endif  // FLOWVM_GRAPH_FUNCTION_SHAPE_H_

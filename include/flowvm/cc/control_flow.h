// Conditionals and loops in the C++ API (paper 4.4), built from Switch,
// Merge, Enter, Exit, NextIteration and LoopCond the way TensorFlow 1.x
// builds them, so they run on devices and tasks like any graph and can be
// differentiated.
//
//   std::vector<Output> out;
//   Status s = Cond(scope, pred,
//                   [&](const Scope& s, std::vector<Output>* o) { o->push_back(ops::Mul(s, x, 2.0f)); return s.status(); },
//                   [&](const Scope& s, std::vector<Output>* o) { o->push_back(ops::Neg(s, x)); return s.status(); },
//                   &out);
//
//   // i = 0; while (i < n) i += 1
//   Status s = WhileLoop(scope, {zero},
//       [&](const Scope& s, const std::vector<Output>& v, Output* c) { *c = ops::Less(s, v[0], n); return s.status(); },
//       [&](const Scope& s, const std::vector<Output>& v, std::vector<Output>* next) {
//         next->push_back(ops::Add(s, v[0], 1)); return s.status(); },
//       &out);
//
// The functions build through the Scope they are given and may use any
// tensor of the graph: a value from outside enters a branch through a
// Switch on the predicate and a loop through a constant Enter, as
// TensorFlow's control-flow contexts do. Only the taken branch runs; a loop
// runs up to parallel_iterations iterations at once. Errors (a branch or
// body that fails, outputs that disagree in number or type) are returned
// and recorded in the scope.
#ifndef FLOWVM_CC_CONTROL_FLOW_H_
#define FLOWVM_CC_CONTROL_FLOW_H_

#include <functional>
#include <string>
#include <vector>

#include "flowvm/cc/scope.h"

namespace flowvm {

using CondBranchFn = std::function<Status(const Scope& scope, std::vector<Output>* outputs)>;

// if (pred) then_fn() else else_fn(); pred is a scalar bool. Both branches
// must produce the same number of outputs, of the same types.
Status Cond(const Scope& scope, const Output& pred, const CondBranchFn& then_fn, const CondBranchFn& else_fn,
            std::vector<Output>* outputs);

using WhileCondFn = std::function<Status(const Scope& scope, const std::vector<Output>& vars, Output* cond)>;
using WhileBodyFn =
    std::function<Status(const Scope& scope, const std::vector<Output>& vars, std::vector<Output>* next)>;

// while (cond_fn(vars)) vars = body_fn(vars); outputs are the final vars.
// frame_name "" derives one from the scope's name ("<scope>/while").
Status WhileLoop(const Scope& scope, const std::vector<Output>& loop_vars, const WhileCondFn& cond_fn,
                 const WhileBodyFn& body_fn, std::vector<Output>* outputs, int parallel_iterations = 10,
                 const std::string& frame_name = "");

}  // namespace flowvm

#endif  // FLOWVM_CC_CONTROL_FLOW_H_

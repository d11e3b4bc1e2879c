#include "runtime/graph_optimizer.h"

#include "runtime/passes/constant_folding.h"
#include "runtime/passes/cse.h"
#include "runtime/passes/identity_removal.h"

namespace flowvm {

namespace {

constexpr size_t kMaxListed = 10;

std::string Count(size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// "(a, b, c, ...)": the first kMaxListed items.
std::string List(const std::vector<std::string>& items) {
  std::string out = "(";
  for (size_t i = 0; i < items.size() && i < kMaxListed; ++i) out += (i ? ", " : "") + items[i];
  if (items.size() > kMaxListed) out += ", ...";
  return out + ")";
}

Status RunCse(Graph* graph, const std::unordered_set<std::string>& keep, const char* title,
              GraphOptimizerReport* report) {
  CseResult cse;
  FLOWVM_RETURN_IF_ERROR(EliminateCommonSubexpressions(graph, keep, &cse));
  if (cse.merged.empty()) return Status::OK();
  std::vector<std::string> merges;
  for (const auto& [duplicate, survivor] : cse.merged) merges.push_back(duplicate + " into " + survivor);
  report->lines.push_back(std::string(title) + ": merged " + Count(merges.size(), "node", "nodes") + " " +
                          List(merges));
  report->merged += static_cast<int>(merges.size());
  return Status::OK();
}

}  // namespace

Status OptimizeGraph(Graph* graph, const GraphOptimizerOptions& options, const std::unordered_set<std::string>& keep,
                     GraphOptimizerReport* report) {
  GraphOptimizerReport unused;
  if (report == nullptr) report = &unused;
  *report = GraphOptimizerReport();
  const bool cse = options.common_subexpression_elimination;
  if (cse) FLOWVM_RETURN_IF_ERROR(RunCse(graph, keep, "common subexpression elimination", report));
  if (options.constant_folding) {
    ConstantFoldingResult folding;
    FLOWVM_RETURN_IF_ERROR(FoldConstants(graph, keep, options.max_folded_constant_bytes, &folding));
    if (folding.changed()) {
      report->lines.push_back("constant folding: replaced " + Count(folding.removed.size(), "node", "nodes") +
                              " with " + Count(folding.constants.size(), "constant", "constants") + " " +
                              List(folding.constants.empty() ? folding.removed : folding.constants));
      report->folded += static_cast<int>(folding.removed.size());
      if (cse) FLOWVM_RETURN_IF_ERROR(RunCse(graph, keep, "common subexpression elimination after folding", report));
    }
  }
  if (options.remove_identity_chains) {
    IdentityRemovalResult removal;
    FLOWVM_RETURN_IF_ERROR(RemoveIdentityAndNoOpRelays(graph, keep, &removal));
    size_t ids = removal.identities.size(), noops = removal.noops.size();
    if (ids + noops > 0) {
      std::string what;
      if (ids) what = Count(ids, "Identity", "Identities");
      if (ids && noops) what += " and ";
      if (noops) what += Count(noops, "NoOp", "NoOps");
      std::vector<std::string> names = removal.identities;
      names.insert(names.end(), removal.noops.begin(), removal.noops.end());
      report->lines.push_back("identity removal: removed " + what + " " + List(names));
      report->removed += static_cast<int>(ids + noops);
    }
  }
  return Status::OK();
}

}  // namespace flowvm

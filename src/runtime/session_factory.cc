#include "runtime/session_factory.h"

#include <mutex>
#include <utility>
#include <vector>

namespace flowvm {

namespace {

struct Factories {
  std::mutex mu;
  std::vector<std::pair<std::string, std::unique_ptr<SessionFactory>>> list;
};

Factories* GetFactories() {
  static Factories* f = new Factories();
  return f;
}

}  // namespace

void SessionFactory::Register(const std::string& name, std::unique_ptr<SessionFactory> factory) {
  Factories* f = GetFactories();
  std::lock_guard<std::mutex> lock(f->mu);
  f->list.emplace_back(name, std::move(factory));
}

StatusOr<SessionFactory*> SessionFactory::ForTarget(const std::string& target) {
  Factories* f = GetFactories();
  std::lock_guard<std::mutex> lock(f->mu);
  std::string names;
  for (auto& [name, factory] : f->list) {
    if (factory->AcceptsTarget(target)) return factory.get();
    names += (names.empty() ? "" : ", ") + name;
  }
  return errors::NotFound("no session factory accepts the target '", target, "' (registered: ",
                          names.empty() ? "none" : names, ")");
}

Status Session::Run(const std::vector<std::pair<std::string, Tensor>>& feeds, const std::vector<std::string>& fetches,
                    const std::vector<std::string>& targets, std::vector<Tensor>* outputs, RunStats* stats) {
  return Run(RunOptions(), feeds, fetches, targets, outputs, nullptr, stats);
}

StatusOr<std::unique_ptr<Session>> Session::Create(const SessionOptions& options, const GraphDef& graph) {
  if (options.num_threads < 0)
    return errors::InvalidArgument("num_threads must be >= 0, got ", options.num_threads);
  if (options.cpu_devices < 1)
    return errors::InvalidArgument("cpu_devices must be >= 1, got ", options.cpu_devices);
  FLOWVM_ASSIGN_OR_RETURN(SessionFactory * factory, SessionFactory::ForTarget(options.target));
  return factory->NewSession(options, graph);
}

}  // namespace flowvm

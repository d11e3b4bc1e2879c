// SessionFactory: makes sessions for the targets it accepts. Session::Create
// asks the registered factories in turn: the in-process one accepts "" and
// "local"; the distributed layer registers one for "grpc://" from above, so
// the runtime never includes it. Registration is thread-safe and usually
// happens at static-initialisation time.
#ifndef FLOWVM_RUNTIME_SESSION_FACTORY_H_
#define FLOWVM_RUNTIME_SESSION_FACTORY_H_

#include <memory>
#include <string>

#include "flowvm/session.h"

namespace flowvm {

class SessionFactory {
 public:
  virtual ~SessionFactory() = default;
  // True if this factory makes sessions for `target`.
  virtual bool AcceptsTarget(const std::string& target) const = 0;
  // The graph has passed the checks that need no devices.
  virtual StatusOr<std::unique_ptr<Session>> NewSession(const SessionOptions& options, const GraphDef& graph) = 0;

  // `name` is for messages ("local", "grpc"). Takes ownership.
  static void Register(const std::string& name, std::unique_ptr<SessionFactory> factory);
  // The factory for `target`, or NotFound listing what is registered.
  static StatusOr<SessionFactory*> ForTarget(const std::string& target);
};

}  // namespace flowvm

#endif  // FLOWVM_RUNTIME_SESSION_FACTORY_H_

// Rendezvous: where a Send leaves a tensor under a key and a Recv picks it
// up. One per step. The interface is shared by the in-process
// implementation (runtime/) and, later, the remote one, so Send/Recv kernels
// never know which they talk to. Thread-safe.
#ifndef FLOWVM_KERNELS_FRAMEWORK_RENDEZVOUS_H_
#define FLOWVM_KERNELS_FRAMEWORK_RENDEZVOUS_H_

#include <functional>
#include <string>

#include "flowvm/status.h"
#include "flowvm/tensor.h"

namespace flowvm {

class Rendezvous {
 public:
  // Called exactly once with the tensor, or with the abort status.
  using DoneCallback = std::function<void(const Status& status, const Tensor& value, bool is_dead)>;

  virtual ~Rendezvous() = default;
  // Never blocks. Fails if the key was already sent or the rendezvous aborted.
  virtual Status Send(const std::string& key, const Tensor& value, bool is_dead) = 0;
  // Calls `done` when the key's tensor arrives (possibly inline).
  virtual void RecvAsync(const std::string& key, DoneCallback done) = 0;
  // Fails every pending and future Recv with `status`.
  virtual void StartAbort(const Status& status) = 0;
};

}  // namespace flowvm

#endif  // FLOWVM_KERNELS_FRAMEWORK_RENDEZVOUS_H_

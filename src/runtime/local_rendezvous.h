// LocalRendezvous: the in-process rendezvous of one step. A Send whose Recv
// is already waiting hands the tensor to the Recv's callback on the
// sender's thread; otherwise the tensor waits in a table until the Recv
// comes. The tensor is passed by reference: no bytes are copied, so moving
// a tensor between two devices of one process costs the same for 4 bytes
// and 16 MiB.
//
// Per-step: destroyed when the step is done. Abort fails every waiting Recv
// (outside the lock) and every later Send/Recv with the abort status.
// Thread-safe.
#ifndef FLOWVM_RUNTIME_LOCAL_RENDEZVOUS_H_
#define FLOWVM_RUNTIME_LOCAL_RENDEZVOUS_H_

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "kernels/framework/rendezvous.h"

namespace flowvm {

class LocalRendezvous : public Rendezvous {
 public:
  LocalRendezvous() = default;
  ~LocalRendezvous() override;

  Status Send(const std::string& key, const Tensor& value, bool is_dead) override;
  void RecvAsync(const std::string& key, DoneCallback done) override;
  void StartAbort(const Status& status) override;

  // The first abort status; OK if not aborted.
  Status abort_status() const;

 private:
  struct Item {
    bool sent = false;   // else: a Recv is waiting
    Tensor value;
    bool is_dead = false;
    DoneCallback waiter;
  };

  // By a 64-bit hash of the key: keys of one step are few and distinct, and
  // hashing spares copying every key string into the table.
  static uint64_t Hash(const std::string& key);
  mutable std::mutex mu_;
  std::unordered_map<uint64_t, Item> table_;
  Status aborted_;
};

}  // namespace flowvm

#endif  // FLOWVM_RUNTIME_LOCAL_RENDEZVOUS_H_

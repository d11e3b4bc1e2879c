// Rendezvous: where a Send leaves a tensor under a key and a Recv picks it
// up (paper 3.2). One per step, shared by the step's partitions. The
// interface is shared by the in-process implementation
// (runtime/local_rendezvous.h) and, later, the remote one, so Send/Recv
// kernels never know which they talk to. Thread-safe.
//
// Keys follow TensorFlow's format (shared/spec/formats.md):
//   <src_device>;<src_incarnation as hex>;<dst_device>;<tensor_name>;<frame_id>:<iter_id>
// The incarnation tells a restarted sender apart; the frame and iteration
// tell loop iterations apart (0:0 outside loops).
#ifndef FLOWVM_KERNELS_FRAMEWORK_RENDEZVOUS_H_
#define FLOWVM_KERNELS_FRAMEWORK_RENDEZVOUS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

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
  // Calls `done` when the key's tensor arrives (inline when it is already
  // there, else on the sender's thread).
  virtual void RecvAsync(const std::string& key, DoneCallback done) = 0;
  // Fails every pending and future Recv with `status` (the first abort wins).
  virtual void StartAbort(const Status& status) = 0;

  // The key up to and excluding the frame and iteration ("...;a:0;").
  static std::string KeyPrefix(std::string_view src_device, uint64_t src_incarnation, std::string_view dst_device,
                               std::string_view tensor_name);
  // The full key: prefix + "<frame_id>:<iter_id>".
  static std::string Key(std::string_view prefix, int64_t frame_id, int64_t iter_id);

  struct ParsedKey {
    std::string_view src_device;
    uint64_t src_incarnation = 0;
    std::string_view dst_device;
    std::string_view tensor_name;
    int64_t frame_id = 0;
    int64_t iter_id = 0;
  };
  // The views point into `key`. InvalidArgument quoting the key if it is
  // not five ';'-separated fields with a hex incarnation and "F:I".
  static Status ParseKey(std::string_view key, ParsedKey* out);
};

}  // namespace flowvm

#endif  // FLOWVM_KERNELS_FRAMEWORK_RENDEZVOUS_H_

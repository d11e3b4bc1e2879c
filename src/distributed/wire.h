// The envelope every worker and master message travels in (worker.proto):
//
//   fixed32 header length (little-endian) | header (a protobuf message) |
//   the bytes of each tensor the header describes, in order
//
// Tensor bytes are never re-encoded: a numeric tensor's bytes go out as a
// gRPC slice that points into the tensor's own buffer and holds a reference
// to it until gRPC has sent them; the receiver copies them once, into a
// new 64-byte aligned tensor. Strings go as a varint length and the bytes
// of each element. Float32 may travel as bfloat16 (the upper 16 bits,
// rounded to nearest even: half the bytes, about 3 significant digits),
// widened on arrival.
//
// A tensor larger than a chunk is sent in several messages, each with the
// bytes [offset, offset + chunk) of its encoding (see RecvTensor).
//
// Nothing here blocks; the functions are thread-compatible.
#ifndef FLOWVM_DISTRIBUTED_WIRE_H_
#define FLOWVM_DISTRIBUTED_WIRE_H_

#include <grpcpp/support/byte_buffer.h>
#include <grpcpp/support/slice.h>

#include <cstdint>
#include <string>
#include <vector>

#include <google/protobuf/message.h>

#include "flowvm/status.h"
#include "flowvm/tensor.h"
#include "flowvm/worker.pb.h"

namespace flowvm {

// The bytes that follow a header, as slices.
class WirePayload {
 public:
  // Describes `t` in `meta` and appends its encoding. With `bfloat16`, a
  // float32 tensor travels as bfloat16 (other types are unaffected).
  void AddTensor(const Tensor& t, bool is_dead, bool bfloat16, TensorMeta* meta);
  // Like AddTensor, but only bytes [offset, offset + max_bytes) of the
  // encoding; meta->total_byte_size says the whole size.
  void AddTensorChunk(const Tensor& t, bool is_dead, bool bfloat16, uint64_t offset, uint64_t max_bytes,
                      TensorMeta* meta);
  uint64_t bytes() const { return bytes_; }

  // header + payload, ready to send.
  grpc::ByteBuffer Seal(const google::protobuf::Message& header);

 private:
  std::vector<grpc::Slice> slices_;
  uint64_t bytes_ = 0;
};

// The encoded size of a tensor on the wire.
uint64_t EncodedSize(const Tensor& t, bool bfloat16);

// OK if `t` can travel between processes. Variants (a dataset, a mutex
// lock) and resource handles are pointers into the process that made them:
// InvalidArgument naming the tensor of `rendezvous_key` and both devices,
// and saying to keep producer and consumers on one task. (AddTensor never
// puts their bytes on the wire; the receiver refuses them too.)
Status CheckTensorCanTravel(const Tensor& t, const std::string& rendezvous_key);

// The most tensor bytes one message carries by default (a server's chunk
// size): far from gRPC's 2 GiB message limit.
inline constexpr uint64_t kDefaultChunkBytes = uint64_t{1} << 30;

// Which of `tensors` a message of at most `budget` tensor bytes carries
// itself: in order, each that still fits. The others travel out of band
// (TensorMeta.out_of_band): in chunks of `budget`, pulled with RecvTensor
// when the message is a response, pushed before it with PutTensor when it
// is a request.
std::vector<bool> FitInMessage(const std::vector<Tensor>& tensors, uint64_t budget);

// The key under which a RunStep's out-of-band feed or fetch `index`
// waits on the master's server ("feed:3", "fetch:0"). RunGraph's use
// their rendezvous keys.
std::string ClientTensorKey(const char* kind, int index);

// Reads an envelope. The reader keeps references to the message's slices;
// no bytes are copied until a tensor is read.
class WireReader {
 public:
  // InvalidArgument if the envelope is malformed or the header does not
  // parse as `header`'s type.
  Status Open(const grpc::ByteBuffer& message, google::protobuf::Message* header);
  // The next tensor of the payload, as `meta` describes it. InvalidArgument
  // naming `what` if the bytes do not match the description.
  Status ReadTensor(const TensorMeta& meta, const std::string& what, Tensor* out);
  // Copies the next `n` bytes of the payload to `dst` (chunks of one large
  // tensor). InvalidArgument if fewer remain.
  Status ReadBytes(void* dst, uint64_t n);
  // Payload bytes not read yet.
  uint64_t remaining() const { return remaining_; }

 private:
  bool Copy(void* dst, uint64_t n);
  std::vector<grpc::Slice> slices_;
  size_t slice_ = 0;   // current slice
  size_t pos_ = 0;     // offset in it
  uint64_t remaining_ = 0;
};

// A whole tensor whose encoding arrives in chunks (RecvTensor of a large
// tensor), complete when every byte came. A numeric tensor is allocated on
// the first chunk; strings are staged as their bytes arrive and the tensor
// made in Finish, so a claimed size costs nothing until the bytes come.
class ChunkedTensor {
 public:
  // The first chunk's meta (total_byte_size > 0) says what to allocate.
  Status Start(const TensorMeta& meta, const std::string& what);
  // Reads this chunk's bytes from `reader` into place.
  Status Add(const TensorMeta& meta, uint64_t offset, WireReader* reader, const std::string& what);
  bool complete() const { return received_ == total_; }
  uint64_t received() const { return received_; }
  // REQUIRES: complete(). Widens bfloat16 if needed.
  Status Finish(Tensor* out);

 private:
  TensorMeta meta_;
  Tensor tensor_;        // numeric: the final tensor (or bfloat16 staging)
  std::string staging_;  // strings: the encoded bytes
  uint64_t total_ = 0;
  uint64_t received_ = 0;
};

// float32 <-> bfloat16 (round to nearest even; NaN stays NaN).
uint16_t FloatToBfloat16(float f);
float Bfloat16ToFloat(uint16_t b);

}  // namespace flowvm

#endif  // FLOWVM_DISTRIBUTED_WIRE_H_

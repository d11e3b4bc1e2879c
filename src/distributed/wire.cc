#include "distributed/wire.h"

#include <cstring>
#include <limits>

#include "kernels/framework/rendezvous.h"

namespace flowvm {

namespace {

// Tensors this small are copied into their own slice: cheaper than a
// reference-holding external slice.
constexpr size_t kCopyBelowBytes = 512;

bool IsFloatCompressed(const Tensor& t, bool bfloat16) { return bfloat16 && t.dtype() == DT_FLOAT; }

// Variants and resource handles hold pointers into their process: only
// their description travels, never their bytes.
bool Travels(DataType dtype) { return DataTypeIsSerializable(dtype) && !IsRefType(dtype); }

std::string WhyNot(DataType dtype) {
  return "a " + DataTypeName(dtype) + " tensor (" +
         (BaseType(dtype) == DT_VARIANT ? std::string("a dataset or another object") : std::string("a handle to state")) +
         " of the process that made it) cannot travel between processes";
}

void AppendVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

size_t VarintSize(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

std::string EncodeStrings(const Tensor& t) {
  std::string out;
  const std::string* s = t.data<std::string>();
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    AppendVarint(s[i].size(), &out);
    out.append(s[i]);
  }
  return out;
}

grpc::Slice OwnedString(std::string s) {
  auto* heap = new std::string(std::move(s));
  return grpc::Slice(heap->data(), heap->size(), [](void* p) { delete static_cast<std::string*>(p); }, heap);
}

// A slice of `len` bytes at `data`, inside `t`'s buffer, that keeps `t`
// alive until gRPC is done with it.
grpc::Slice PointInto(const Tensor& t, const char* data, size_t len) {
  if (len < kCopyBelowBytes) return grpc::Slice(data, len);
  auto* ref = new Tensor(t);
  return grpc::Slice(const_cast<char*>(data), len, [](void* p) { delete static_cast<Tensor*>(p); }, ref);
}

grpc::Slice Bfloat16Bytes(const Tensor& t, int64_t first, int64_t count) {
  std::string out(static_cast<size_t>(count) * 2, '\0');
  const float* in = t.data<float>() + first;
  auto* dst = reinterpret_cast<uint16_t*>(out.data());
  for (int64_t i = 0; i < count; ++i) dst[i] = FloatToBfloat16(in[i]);
  return OwnedString(std::move(out));
}

void Describe(const Tensor& t, bool is_dead, bool compressed, TensorMeta* meta) {
  meta->set_dtype(t.dtype());
  t.shape().AsProto(meta->mutable_shape());
  meta->set_is_dead(is_dead);
  meta->set_bfloat16_compressed(compressed);
}

Status DecodeStrings(const char* p, uint64_t size, const std::string& what, Tensor* t) {
  const char* end = p + size;
  std::string* out = t->data<std::string>();
  for (int64_t i = 0; i < t->NumElements(); ++i) {
    uint64_t len = 0;
    int shift = 0;
    while (true) {
      if (p == end || shift > 63) return errors::InvalidArgument(what, ": string tensor bytes are truncated");
      const uint8_t b = static_cast<uint8_t>(*p++);
      len |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) break;
      shift += 7;
    }
    if (len > static_cast<uint64_t>(end - p))
      return errors::InvalidArgument(what, ": string element ", i, " claims ", len, " bytes but ", end - p,
                                     " remain");
    out[i].assign(p, len);
    p += len;
  }
  if (p != end) return errors::InvalidArgument(what, ": ", end - p, " bytes left over after the strings");
  return Status::OK();
}

// Checks that a meta describes a tensor: its shape, and the bytes its
// numeric encoding must have (numeric_bytes; 0 for strings).
Status CheckMeta(const TensorMeta& meta, const std::string& what, TensorShape* shape, uint64_t* numeric_bytes) {
  const DataType dtype = meta.dtype();
  if (DataType_IsValid(dtype) && (BaseType(dtype) == DT_VARIANT || BaseType(dtype) == DT_RESOURCE))
    return errors::InvalidArgument(what, ": data type ", static_cast<int>(dtype), ": ", WhyNot(dtype));
  if (!DataType_IsValid(dtype) || !DataTypeIsSerializable(dtype) || IsRefType(dtype))
    return errors::InvalidArgument(what, ": data type ", static_cast<int>(dtype), " cannot travel as a tensor");
  auto parsed = TensorShape::FromProto(meta.shape());
  if (!parsed.ok()) return parsed.status().WithContext(what);
  *shape = *parsed;
  if (meta.bfloat16_compressed() && dtype != DT_FLOAT)
    return errors::InvalidArgument(what, ": only float32 travels as bfloat16, not ", DataTypeName(dtype));
  const size_t elem = dtype == DT_STRING ? 0 : (meta.bfloat16_compressed() ? 2 : DataTypeSize(dtype));
  const int64_t n = shape->num_elements();
  if (elem > 0 && n > 0 && static_cast<uint64_t>(n) > std::numeric_limits<uint64_t>::max() / elem)
    return errors::InvalidArgument(what, ": shape ", shape->DebugString(), " is too large");
  *numeric_bytes = static_cast<uint64_t>(n) * elem;
  const uint64_t encoded = meta.total_byte_size() > 0 ? meta.total_byte_size() : meta.byte_size();
  if (dtype != DT_STRING && encoded != *numeric_bytes)
    return errors::InvalidArgument(what, ": a ", DataTypeName(dtype), " tensor of shape ", shape->DebugString(),
                                   " has ", *numeric_bytes, " bytes, but ", encoded, " were announced");
  // A string takes at least its one-byte length.
  if (dtype == DT_STRING && encoded < static_cast<uint64_t>(n))
    return errors::InvalidArgument(what, ": ", n, " strings cannot fit in ", encoded, " bytes");
  return Status::OK();
}

// The tensor a meta describes, allocated (strings empty), and the bytes
// its numeric encoding must have.
Status AllocateFor(const TensorMeta& meta, const std::string& what, Tensor* out, uint64_t* numeric_bytes) {
  TensorShape shape;
  FLOWVM_RETURN_IF_ERROR(CheckMeta(meta, what, &shape, numeric_bytes));
  auto t = Tensor::Allocate(meta.dtype(), shape);
  if (!t.ok())
    return errors::ResourceExhausted(what, ": cannot allocate a ", DataTypeName(meta.dtype()), " tensor of shape ",
                                     shape.DebugString());
  *out = std::move(*t);
  return Status::OK();
}

// Widens `n` bfloat16 values at the start of float tensor `t`, in place
// (from the last one down, so no value is overwritten before it is read).
void WidenInPlace(Tensor* t) {
  const int64_t n = t->NumElements();
  const auto* in = reinterpret_cast<const uint16_t*>(t->raw_data());
  float* out = t->data<float>();
  for (int64_t i = n - 1; i >= 0; --i) out[i] = Bfloat16ToFloat(in[i]);
}

}  // namespace

uint16_t FloatToBfloat16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((bits >> 16) | 0x40);  // quiet NaN
  const uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

float Bfloat16ToFloat(uint16_t b) {
  const uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

uint64_t EncodedSize(const Tensor& t, bool bfloat16) {
  if (!t.IsInitialized() || !Travels(t.dtype())) return 0;
  if (t.dtype() == DT_STRING) {
    uint64_t n = 0;
    const std::string* s = t.data<std::string>();
    for (int64_t i = 0; i < t.NumElements(); ++i) n += VarintSize(s[i].size()) + s[i].size();
    return n;
  }
  if (IsFloatCompressed(t, bfloat16)) return static_cast<uint64_t>(t.NumElements()) * 2;
  return t.TotalBytes();
}

std::vector<bool> FitInMessage(const std::vector<Tensor>& tensors, uint64_t budget) {
  std::vector<bool> inline_flags(tensors.size(), false);
  uint64_t used = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const uint64_t n = EncodedSize(tensors[i], false);
    if (n <= budget - used) {
      inline_flags[i] = true;
      used += n;
    }
  }
  return inline_flags;
}

Status CheckTensorCanTravel(const Tensor& t, const std::string& rendezvous_key) {
  if (!t.IsInitialized() || Travels(t.dtype())) return Status::OK();
  Rendezvous::ParsedKey k;
  if (!Rendezvous::ParseKey(rendezvous_key, &k).ok())
    return errors::InvalidArgument("tensor '", rendezvous_key, "': ", WhyNot(t.dtype()));
  return errors::InvalidArgument("tensor '", k.tensor_name, "' is needed on ", k.dst_device, " but made on ",
                                 k.src_device, ": ", WhyNot(t.dtype()),
                                 "; place the ops that use it on the task that makes it (a dataset's ops with its "
                                 "iterator's)");
}

std::string ClientTensorKey(const char* kind, int index) { return std::string(kind) + ":" + std::to_string(index); }

void WirePayload::AddTensor(const Tensor& t, bool is_dead, bool bfloat16, TensorMeta* meta) {
  const bool compressed = IsFloatCompressed(t, bfloat16);
  Describe(t, is_dead, compressed, meta);
  if (is_dead || !t.IsInitialized() || t.NumElements() == 0 || !Travels(t.dtype())) {
    meta->set_byte_size(0);
    return;
  }
  grpc::Slice slice;
  if (t.dtype() == DT_STRING) {
    slice = OwnedString(EncodeStrings(t));
  } else if (compressed) {
    slice = Bfloat16Bytes(t, 0, t.NumElements());
  } else {
    slice = PointInto(t, static_cast<const char*>(t.raw_data()), t.TotalBytes());
  }
  meta->set_byte_size(slice.size());
  bytes_ += slice.size();
  slices_.push_back(std::move(slice));
}

void WirePayload::AddTensorChunk(const Tensor& t, bool is_dead, bool bfloat16, uint64_t offset, uint64_t max_bytes,
                                 TensorMeta* meta) {
  const bool compressed = IsFloatCompressed(t, bfloat16);
  Describe(t, is_dead, compressed, meta);
  const uint64_t total = is_dead ? 0 : EncodedSize(t, bfloat16);
  meta->set_total_byte_size(total);
  if (offset >= total) {
    meta->set_byte_size(0);
    return;
  }
  uint64_t len = std::min(max_bytes, total - offset);
  grpc::Slice slice;
  if (t.dtype() == DT_STRING) {
    std::string all = EncodeStrings(t);
    slice = OwnedString(all.substr(offset, len));
  } else if (compressed) {
    // Chunks hold whole bfloat16 values.
    len &= ~uint64_t{1};
    if (len == 0) len = 2;
    slice = Bfloat16Bytes(t, static_cast<int64_t>(offset / 2), static_cast<int64_t>(len / 2));
  } else {
    slice = PointInto(t, static_cast<const char*>(t.raw_data()) + offset, len);
  }
  meta->set_byte_size(slice.size());
  bytes_ += slice.size();
  slices_.push_back(std::move(slice));
}

grpc::ByteBuffer WirePayload::Seal(const google::protobuf::Message& header) {
  const size_t header_size = header.ByteSizeLong();
  std::string head(4 + header_size, '\0');
  const uint32_t n = static_cast<uint32_t>(header_size);
  for (int i = 0; i < 4; ++i) head[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  header.SerializeWithCachedSizesToArray(reinterpret_cast<uint8_t*>(head.data() + 4));
  std::vector<grpc::Slice> all;
  all.reserve(1 + slices_.size());
  all.push_back(OwnedString(std::move(head)));
  for (grpc::Slice& s : slices_) all.push_back(std::move(s));
  slices_.clear();
  bytes_ = 0;
  return grpc::ByteBuffer(all.data(), all.size());
}

Status WireReader::Open(const grpc::ByteBuffer& message, google::protobuf::Message* header) {
  slices_.clear();
  slice_ = pos_ = 0;
  remaining_ = 0;
  if (!message.Valid()) return errors::InvalidArgument("empty message");
  if (!message.Dump(&slices_).ok()) return errors::InvalidArgument("unreadable message");
  for (const grpc::Slice& s : slices_) remaining_ += s.size();
  uint8_t len_bytes[4];
  if (!Copy(len_bytes, 4)) return errors::InvalidArgument("message of ", remaining_, " bytes has no header length");
  const uint32_t len = len_bytes[0] | (len_bytes[1] << 8) | (len_bytes[2] << 16) | (static_cast<uint32_t>(len_bytes[3]) << 24);
  if (len > remaining_ || len > static_cast<uint32_t>(std::numeric_limits<int32_t>::max()))
    return errors::InvalidArgument("message header claims ", len, " bytes but ", remaining_, " remain");
  std::string head(len, '\0');
  Copy(head.data(), len);
  if (!header->ParseFromString(head))
    return errors::InvalidArgument("message header does not parse as ", header->GetTypeName());
  return Status::OK();
}

bool WireReader::Copy(void* dst, uint64_t n) {
  if (n > remaining_) return false;
  char* out = static_cast<char*>(dst);
  while (n > 0) {
    const grpc::Slice& s = slices_[slice_];
    const size_t take = std::min<uint64_t>(n, s.size() - pos_);
    if (out != nullptr) {
      std::memcpy(out, s.begin() + pos_, take);
      out += take;
    }
    pos_ += take;
    n -= take;
    remaining_ -= take;
    if (pos_ == s.size()) {
      ++slice_;
      pos_ = 0;
    }
  }
  return true;
}

Status WireReader::ReadBytes(void* dst, uint64_t n) {
  if (!Copy(dst, n)) return errors::InvalidArgument("message announces ", n, " payload bytes but ", remaining_, " remain");
  return Status::OK();
}

Status WireReader::ReadTensor(const TensorMeta& meta, const std::string& what, Tensor* out) {
  if (meta.total_byte_size() > meta.byte_size())
    return errors::InvalidArgument(what, ": a chunk of a tensor where a whole one was expected");
  // Below, a numeric tensor takes total_byte_size bytes when it is set:
  // fewer than byte_size would leave the rest to be misread as the next
  // tensor.
  if (meta.total_byte_size() != 0 && meta.total_byte_size() != meta.byte_size())
    return errors::InvalidArgument(what, ": announces ", meta.byte_size(), " bytes but a total of ",
                                   meta.total_byte_size());
  if (meta.byte_size() > remaining_)
    return errors::InvalidArgument(what, ": announces ", meta.byte_size(), " bytes but the message has ", remaining_,
                                   " left");
  if (meta.is_dead()) {
    if (!Copy(nullptr, meta.byte_size())) return errors::InvalidArgument(what, ": truncated");
    *out = Tensor();
    return Status::OK();
  }
  uint64_t numeric_bytes = 0;
  FLOWVM_RETURN_IF_ERROR(AllocateFor(meta, what, out, &numeric_bytes));
  if (meta.dtype() == DT_STRING) {
    std::string bytes(meta.byte_size(), '\0');
    Copy(bytes.data(), bytes.size());
    return DecodeStrings(bytes.data(), bytes.size(), what, out);
  }
  Copy(out->raw_data(), numeric_bytes);
  if (meta.bfloat16_compressed()) WidenInPlace(out);
  return Status::OK();
}

Status ChunkedTensor::Start(const TensorMeta& meta, const std::string& what) {
  meta_ = meta;
  total_ = meta.total_byte_size();
  received_ = 0;
  std::string().swap(staging_);
  uint64_t numeric_bytes = 0;
  if (meta.dtype() == DT_STRING) {
    // The total and the shape are the peer's claims: the bytes are staged as
    // they arrive and the tensor is made in Finish, so nothing is allocated
    // for bytes that never came.
    TensorShape shape;
    return CheckMeta(meta, what, &shape, &numeric_bytes);
  }
  return AllocateFor(meta, what, &tensor_, &numeric_bytes);
}

Status ChunkedTensor::Add(const TensorMeta& meta, uint64_t offset, WireReader* reader, const std::string& what) {
  if (meta.total_byte_size() != total_ || meta.dtype() != meta_.dtype())
    return errors::InvalidArgument(what, ": a chunk disagrees with the first about the tensor");
  if (offset != received_ || meta.byte_size() > total_ - received_ || meta.byte_size() == 0)
    return errors::InvalidArgument(what, ": chunk at offset ", offset, " of ", meta.byte_size(),
                                   " bytes does not follow ", received_, " of ", total_);
  if (meta.byte_size() > reader->remaining())
    return errors::InvalidArgument(what, ": message announces ", meta.byte_size(), " payload bytes but ",
                                   reader->remaining(), " remain");
  char* dst;
  if (meta_.dtype() == DT_STRING) {
    staging_.resize(received_ + meta.byte_size());
    dst = staging_.data();
  } else {
    dst = static_cast<char*>(tensor_.raw_data());
  }
  FLOWVM_RETURN_IF_ERROR(reader->ReadBytes(dst + offset, meta.byte_size()));
  received_ += meta.byte_size();
  return Status::OK();
}

Status ChunkedTensor::Finish(Tensor* out) {
  if (!complete()) return errors::Internal("tensor incomplete: ", received_, " of ", total_, " bytes");
  if (meta_.dtype() == DT_STRING) {
    uint64_t numeric_bytes = 0;
    FLOWVM_RETURN_IF_ERROR(AllocateFor(meta_, "chunked tensor", &tensor_, &numeric_bytes));
    FLOWVM_RETURN_IF_ERROR(DecodeStrings(staging_.data(), staging_.size(), "chunked tensor", &tensor_));
    std::string().swap(staging_);
  } else if (meta_.bfloat16_compressed()) {
    WidenInPlace(&tensor_);
  }
  *out = std::move(tensor_);
  return Status::OK();
}

}  // namespace flowvm

// Tensor bundles; the format is documented in tensor_bundle.h. The index is
// parsed with bounds checks on every field before anything is allocated from
// what it says, so a damaged or hostile index costs at most its own size.
#include "core/tensor_bundle.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string_view>

#include "core/crc32c.h"
#include "core/file_util.h"

namespace flowvm {

static_assert(std::endian::native == std::endian::little,
              "tensor bundles store elements little-endian; a big-endian host needs byte swapping here");

namespace {

constexpr std::string_view kIndexMagic("\x89" "FVBNDL\n", 8);
constexpr std::string_view kDataMagic("\x89" "FVDATA\n", 8);
constexpr size_t kDataHeaderSize = 16;  // magic + save_id
constexpr char kHeader = 'H', kEntry = 'E', kFooter = 'F';

void PutU32(std::string* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void PutU64(std::string* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
uint64_t GetLE(const char* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= uint64_t{static_cast<unsigned char>(p[i])} << (8 * i);
  return v;
}

uint32_t RecordCrc(std::string_view len_and_payload) {
  return Crc32cMask(Crc32c(len_and_payload.data(), len_and_payload.size()));
}

void PutRecord(std::string* out, const std::string& payload) {
  std::string framed;
  PutU32(&framed, static_cast<uint32_t>(payload.size()));
  framed += payload;
  PutU32(out, static_cast<uint32_t>(payload.size()));
  PutU32(out, RecordCrc(framed));
  out->append(payload);
}

// Reads fields of one record's payload; each getter fails once the payload
// is exhausted, and ok() says whether all succeeded.
class FieldReader {
 public:
  explicit FieldReader(std::string_view s) : s_(s) {}
  bool U8(char* v) { return Take(1, [&](const char* p) { *v = *p; }); }
  bool U32(uint32_t* v) { return Take(4, [&](const char* p) { *v = static_cast<uint32_t>(GetLE(p, 4)); }); }
  bool U64(uint64_t* v) { return Take(8, [&](const char* p) { *v = GetLE(p, 8); }); }
  bool Bytes(size_t n, std::string* v) { return Take(n, [&](const char* p) { v->assign(p, n); }); }
  bool AtEnd() const { return pos_ == s_.size(); }

 private:
  template <typename F>
  bool Take(size_t n, F f) {
    if (s_.size() - pos_ < n) return false;
    f(s_.data() + pos_);
    pos_ += n;
    return true;
  }
  std::string_view s_;
  size_t pos_ = 0;
};

// Only one save at a time renames its pair of files, so that two saves to
// one prefix in this process cannot interleave their renames.
std::mutex& CommitMutex() {
  static std::mutex mu;
  return mu;
}

std::string Quote(const std::string& s) { return "'" + s + "'"; }

}  // namespace

std::string BundleIndexPath(const std::string& prefix) { return prefix + ".index"; }
std::string BundleDataPath(const std::string& prefix) { return prefix + ".data-00000-of-00001"; }

// ---- BundleWriter -------------------------------------------------------------

BundleWriter::BundleWriter(std::string prefix) : prefix_(std::move(prefix)), save_id_(RandomUint64()) {
  const std::string suffix = ".tempstate" + RandomHex64();
  data_tmp_ = BundleDataPath(prefix_) + suffix;
  index_tmp_ = BundleIndexPath(prefix_) + suffix;
  if (prefix_.empty()) {
    status_ = errors::InvalidArgument("checkpoint prefix is empty");
    return;
  }
  Status s = CreateParentDirs(prefix_);
  if (s.ok()) {
    auto file = WritableFile::Create(data_tmp_);
    if (file.ok()) {
      data_ = std::move(*file);
      std::string header(kDataMagic);
      PutU64(&header, save_id_);
      s = data_->Append(header);
    } else {
      s = file.status();
    }
  }
  if (!s.ok()) Fail(s).IgnoreError();
}

BundleWriter::~BundleWriter() {
  if (!finished_ || !status_.ok()) RemoveTempFiles();
}

void BundleWriter::RemoveTempFiles() {
  data_.reset();
  RemoveFileQuietly(data_tmp_);
  RemoveFileQuietly(index_tmp_);
}

Status BundleWriter::Fail(Status s) {
  if (status_.ok()) status_ = s.WithContext("saving checkpoint " + Quote(prefix_));
  RemoveTempFiles();
  return status_;
}

Status BundleWriter::Add(const std::string& name, const Tensor& t) {
  if (finished_) return errors::FailedPrecondition("checkpoint ", Quote(prefix_), ": Add after Finish");
  if (name.empty()) return errors::InvalidArgument("checkpoint ", Quote(prefix_), ": a tensor name is empty");
  if (entries_.count(name))
    return errors::InvalidArgument("checkpoint ", Quote(prefix_), ": tensor ", Quote(name), " is added twice");
  if (!t.IsInitialized() || !DataTypeIsSerializable(t.dtype()) || IsRefType(t.dtype()))
    return errors::InvalidArgument("checkpoint ", Quote(prefix_), ": tensor ", Quote(name),
                                   t.IsInitialized() ? " has unsupported dtype " + DataTypeName(t.dtype())
                                                     : std::string(" is uninitialized"));
  if (!status_.ok()) return status_;

  Entry e;
  e.dtype = t.dtype();
  e.shape = t.shape();
  e.offset = data_->size();
  Status s;
  if (t.dtype() == DT_STRING) {
    uint32_t crc = 0;
    std::string len;
    for (const std::string& v : t.flat<std::string>()) {
      len.clear();
      PutU64(&len, v.size());
      crc = Crc32cExtend(Crc32cExtend(crc, len.data(), len.size()), v.data(), v.size());
      s = data_->Append(len);
      if (s.ok()) s = data_->Append(v);
      if (!s.ok()) break;
    }
    e.crc = crc;
  } else {
    const size_t bytes = static_cast<size_t>(t.NumElements()) * DataTypeSize(t.dtype());
    e.crc = Crc32c(t.raw_data(), bytes);
    s = data_->Append(t.raw_data(), bytes);
  }
  if (!s.ok()) return Fail(s);
  e.length = data_->size() - e.offset;
  entries_.emplace(name, std::move(e));
  return Status::OK();
}

Status BundleWriter::Finish() {
  if (finished_) return errors::FailedPrecondition("checkpoint ", Quote(prefix_), ": Finish called twice");
  finished_ = true;
  if (!status_.ok()) return status_;

  Status s = data_->Sync();
  if (s.ok()) s = data_->Close();
  if (!s.ok()) return Fail(s);
  const uint64_t data_size = data_->size();

  std::string index(kIndexMagic);
  std::string payload(1, kHeader);
  PutU32(&payload, kBundleVersion);
  PutU64(&payload, save_id_);
  PutRecord(&index, payload);
  for (const auto& [name, e] : entries_) {
    payload.assign(1, kEntry);
    PutU32(&payload, static_cast<uint32_t>(name.size()));
    payload += name;
    PutU32(&payload, static_cast<uint32_t>(e.dtype));
    PutU32(&payload, static_cast<uint32_t>(e.shape.dims()));
    for (int64_t d : e.shape.dim_sizes()) PutU64(&payload, static_cast<uint64_t>(d));
    PutU64(&payload, e.offset);
    PutU64(&payload, e.length);
    PutU32(&payload, e.crc);
    PutRecord(&index, payload);
  }
  payload.assign(1, kFooter);
  PutU64(&payload, entries_.size());
  PutU64(&payload, data_size);
  PutRecord(&index, payload);

  auto index_file = WritableFile::Create(index_tmp_);
  if (!index_file.ok()) return Fail(index_file.status());
  s = (*index_file)->Append(index);
  if (s.ok()) s = (*index_file)->Sync();
  if (s.ok()) s = (*index_file)->Close();
  if (!s.ok()) return Fail(s);

  {
    std::lock_guard<std::mutex> lock(CommitMutex());
    s = RenameFile(data_tmp_, BundleDataPath(prefix_));
    if (s.ok()) s = RenameFile(index_tmp_, BundleIndexPath(prefix_));
  }
  if (!s.ok()) return Fail(s);
  s = SyncParentDir(prefix_);
  if (!s.ok()) status_ = s.WithContext("saving checkpoint " + Quote(prefix_));
  return status_;
}

// ---- BundleReader -------------------------------------------------------------

namespace {

// Parses P.index; every error names the file.
class IndexParser {
 public:
  IndexParser(const std::string& path, std::string_view bytes) : path_(path), s_(bytes) {}

  Status Parse(uint64_t* save_id, std::vector<BundleEntry>* entries, uint64_t* data_size) {
    if (s_.size() < kIndexMagic.size() || s_.substr(0, kIndexMagic.size()) != kIndexMagic)
      return Corrupt(s_.size() < kIndexMagic.size() ? "is too short to be a flowvm checkpoint index (truncated?)"
                                                    : "is not a flowvm checkpoint index (bad magic)");
    pos_ = kIndexMagic.size();
    std::string_view payload;
    FLOWVM_RETURN_IF_ERROR(NextRecord(&payload));
    FieldReader header(payload);
    char kind = 0;
    uint32_t version = 0;
    if (!header.U8(&kind) || kind != kHeader || !header.U32(&version))
      return Corrupt("does not start with a header record");
    if (version != kBundleVersion)
      return errors::Unimplemented("checkpoint index ", path_, " has format version ", version,
                                   "; this build of flowvm reads version ", kBundleVersion);
    if (!header.U64(save_id) || !header.AtEnd()) return Corrupt("has a malformed header record");

    while (true) {
      if (pos_ == s_.size()) return Corrupt("ends before its footer record (truncated)");
      FLOWVM_RETURN_IF_ERROR(NextRecord(&payload));
      FieldReader r(payload);
      if (!r.U8(&kind)) return Corrupt("has an empty record at offset " + std::to_string(record_start_));
      if (kind == kFooter) {
        uint64_t count = 0;
        if (!r.U64(&count) || !r.U64(data_size) || !r.AtEnd()) return Corrupt("has a malformed footer record");
        if (count != entries->size())
          return Corrupt("has " + std::to_string(entries->size()) + " entries but its footer says " +
                         std::to_string(count));
        if (pos_ != s_.size()) return Corrupt("has bytes after its footer record");
        return Status::OK();
      }
      if (kind != kEntry)
        return Corrupt("has a record of unknown kind at offset " + std::to_string(record_start_));
      BundleEntry e;
      FLOWVM_RETURN_IF_ERROR(ParseEntry(&r, &e));
      if (!entries->empty() && !(entries->back().name < e.name))
        return Corrupt("lists tensor " + Quote(e.name) + " out of order or twice");
      entries->push_back(std::move(e));
    }
  }

 private:
  Status Corrupt(const std::string& what) const { return errors::DataLoss("checkpoint index ", path_, " ", what); }

  Status NextRecord(std::string_view* payload) {
    record_start_ = pos_;
    if (s_.size() - pos_ < 8)
      return Corrupt("is truncated: record at offset " + std::to_string(pos_) + " is cut off");
    const uint32_t n = static_cast<uint32_t>(GetLE(s_.data() + pos_, 4));
    const uint32_t crc = static_cast<uint32_t>(GetLE(s_.data() + pos_ + 4, 4));
    if (s_.size() - pos_ - 8 < n)
      return Corrupt("is truncated: record at offset " + std::to_string(pos_) + " needs " + std::to_string(n) +
                     " bytes, " + std::to_string(s_.size() - pos_ - 8) + " remain");
    uint32_t actual = Crc32cExtend(Crc32c(s_.data() + pos_, 4), s_.data() + pos_ + 8, n);
    if (Crc32cMask(actual) != crc)
      return Corrupt("is corrupt: record at offset " + std::to_string(pos_) + " fails its CRC32C check");
    *payload = s_.substr(pos_ + 8, n);
    pos_ += 8 + size_t{n};
    return Status::OK();
  }

  Status ParseEntry(FieldReader* r, BundleEntry* e) {
    const std::string where = "has a malformed entry at offset " + std::to_string(record_start_);
    uint32_t name_len = 0, dtype = 0, rank = 0;
    if (!r->U32(&name_len) || !r->Bytes(name_len, &e->name) || !r->U32(&dtype) || !r->U32(&rank))
      return Corrupt(where);
    if (e->name.empty()) return Corrupt(where + " (empty tensor name)");
    const std::string tensor = " for tensor " + Quote(e->name);
    // Range-check before the cast: DataType has no values past a few hundred.
    if (dtype > 1000 || IsRefType(static_cast<DataType>(dtype)) || !DataTypeIsSerializable(static_cast<DataType>(dtype)))
      return Corrupt("has unknown dtype " + std::to_string(dtype) + tensor);
    e->dtype = static_cast<DataType>(dtype);
    if (rank > static_cast<uint32_t>(TensorShape::kMaxRank)) return Corrupt("has rank " + std::to_string(rank) + tensor);
    std::vector<int64_t> dims(rank);
    for (uint32_t i = 0; i < rank; ++i) {
      uint64_t d = 0;
      if (!r->U64(&d)) return Corrupt(where + tensor);
      dims[i] = static_cast<int64_t>(d);
    }
    auto shape = TensorShape::FromDims(dims);
    if (!shape.ok()) return Corrupt("has an invalid shape" + tensor + ": " + shape.status().message());
    e->shape = *shape;
    uint32_t crc = 0;
    if (!r->U64(&e->offset) || !r->U64(&e->length) || !r->U32(&crc) || !r->AtEnd()) return Corrupt(where + tensor);
    e->crc = crc;
    const uint64_t n = static_cast<uint64_t>(e->shape.num_elements());
    const size_t size = DataTypeSize(e->dtype);
    // Strings take at least their 8-byte size each; other types exactly
    // their element size.
    const bool fits = e->dtype == DT_STRING ? n <= e->length / 8 : (e->length % size == 0 && e->length / size == n);
    if (!fits)
      return Corrupt("gives " + std::to_string(e->length) + " bytes" + tensor + ", which cannot hold " +
                     DataTypeName(e->dtype) + " " + e->shape.DebugString());
    return Status::OK();
  }

  const std::string& path_;
  std::string_view s_;
  size_t pos_ = 0;
  size_t record_start_ = 0;
};

}  // namespace

BundleReader::~BundleReader() = default;

StatusOr<std::unique_ptr<BundleReader>> BundleReader::Open(const std::string& prefix) {
  std::unique_ptr<BundleReader> reader(new BundleReader());
  reader->prefix_ = prefix;
  const std::string index_path = BundleIndexPath(prefix);
  const std::string context = "reading checkpoint " + Quote(prefix);
  auto index_file = RandomAccessFile::Open(index_path);
  if (!index_file.ok()) return index_file.status().WithContext(context);
  std::string index((*index_file)->size(), '\0');
  FLOWVM_RETURN_IF_ERROR((*index_file)->Read(0, index.size(), index.data()));
  uint64_t save_id = 0, data_size = 0;
  FLOWVM_RETURN_IF_ERROR(IndexParser(index_path, index).Parse(&save_id, &reader->entries_, &data_size));

  auto data_file = RandomAccessFile::Open(BundleDataPath(prefix));
  if (!data_file.ok()) return data_file.status().WithContext(context);
  reader->data_ = std::move(*data_file);
  const RandomAccessFile& data = *reader->data_;
  if (data.size() != data_size)
    return errors::DataLoss("checkpoint data file ", data.path(), " has ", data.size(), " bytes but its index ",
                            index_path, " expects ", data_size, " (truncated, or from another save)");
  char header[kDataHeaderSize];
  if (data_size < kDataHeaderSize)
    return errors::DataLoss("checkpoint data file ", data.path(), " is too short (", data_size, " bytes)");
  FLOWVM_RETURN_IF_ERROR(data.Read(0, kDataHeaderSize, header));
  if (std::string_view(header, kDataMagic.size()) != kDataMagic)
    return errors::DataLoss("checkpoint data file ", data.path(), " is not a flowvm checkpoint data file (bad magic)");
  if (GetLE(header + kDataMagic.size(), 8) != save_id)
    return errors::DataLoss("checkpoint data file ", data.path(), " belongs to another save than its index ",
                            index_path, " (an interrupted save?)");
  for (const BundleEntry& e : reader->entries_) {
    if (e.offset < kDataHeaderSize || e.offset > data_size || e.length > data_size - e.offset)
      return errors::DataLoss("checkpoint index ", index_path, " places tensor ", Quote(e.name), " at bytes [",
                              e.offset, ", +", e.length, ") outside its data file ", data.path(), " (", data_size,
                              " bytes)");
  }
  return reader;
}

const BundleEntry* BundleReader::Find(const std::string& name) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), name,
                             [](const BundleEntry& e, const std::string& n) { return e.name < n; });
  return it != entries_.end() && it->name == name ? &*it : nullptr;
}

Status BundleReader::NotInBundle(const std::string& name) const {
  return errors::NotFound("tensor ", Quote(name), " not found in checkpoint ", Quote(prefix_));
}

namespace {

Status CrcMismatch(const RandomAccessFile& data, const BundleEntry& e, uint32_t actual) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "(stored %08x, computed %08x)", e.crc, actual);
  return errors::DataLoss("checkpoint data file ", data.path(), " is corrupt: tensor ", Quote(e.name),
                          " fails its CRC32C check ", buf);
}

// Splits the u64-size-prefixed elements of a string tensor into `out`
// (which may be null, to validate only).
Status ParseStrings(const RandomAccessFile& data, const BundleEntry& e, std::string_view bytes, Tensor* out) {
  std::string* elems = out == nullptr ? nullptr : out->data<std::string>();
  size_t pos = 0;
  for (int64_t i = 0; i < e.shape.num_elements(); ++i) {
    if (bytes.size() - pos < 8 || GetLE(bytes.data() + pos, 8) > bytes.size() - pos - 8)
      return errors::DataLoss("checkpoint data file ", data.path(), ": string tensor ", Quote(e.name),
                              " is malformed at element ", i);
    const size_t n = GetLE(bytes.data() + pos, 8);
    if (elems != nullptr) elems[i].assign(bytes.data() + pos + 8, n);
    pos += 8 + n;
  }
  if (pos != bytes.size())
    return errors::DataLoss("checkpoint data file ", data.path(), ": string tensor ", Quote(e.name), " has ",
                            bytes.size() - pos, " bytes after its last element");
  return Status::OK();
}

}  // namespace

Status BundleReader::ReadEntryBytes(const BundleEntry& e, std::string* bytes) const {
  bytes->resize(e.length);
  FLOWVM_RETURN_IF_ERROR(data_->Read(e.offset, e.length, bytes->data()));
  const uint32_t actual = Crc32c(bytes->data(), bytes->size());
  if (actual != e.crc) return CrcMismatch(*data_, e, actual);
  return Status::OK();
}

Status BundleReader::Lookup(const std::string& name, Tensor* out) const {
  const BundleEntry* e = Find(name);
  if (e == nullptr) return NotInBundle(name);
  FLOWVM_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(e->dtype, e->shape));
  if (e->dtype == DT_STRING) {
    std::string bytes;
    FLOWVM_RETURN_IF_ERROR(ReadEntryBytes(*e, &bytes));
    FLOWVM_RETURN_IF_ERROR(ParseStrings(*data_, *e, bytes, &t));
  } else {
    // Straight into the tensor's buffer: no second copy of a large variable.
    FLOWVM_RETURN_IF_ERROR(data_->Read(e->offset, e->length, t.raw_data()));
    const uint32_t actual = Crc32c(t.raw_data(), e->length);
    if (actual != e->crc) return CrcMismatch(*data_, *e, actual);
  }
  *out = std::move(t);
  return Status::OK();
}

Status BundleReader::Verify(const std::string& name) const {
  const BundleEntry* e = Find(name);
  if (e == nullptr) return NotInBundle(name);
  if (e->dtype == DT_STRING) {
    std::string bytes;
    FLOWVM_RETURN_IF_ERROR(ReadEntryBytes(*e, &bytes));
    return ParseStrings(*data_, *e, bytes, nullptr);
  }
  constexpr size_t kChunk = size_t{1} << 20;
  std::string buf(std::min<uint64_t>(e->length, kChunk), '\0');
  uint32_t crc = 0;
  for (uint64_t done = 0; done < e->length;) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(e->length - done, kChunk));
    FLOWVM_RETURN_IF_ERROR(data_->Read(e->offset + done, n, buf.data()));
    crc = Crc32cExtend(crc, buf.data(), n);
    done += n;
  }
  if (crc != e->crc) return CrcMismatch(*data_, *e, crc);
  return Status::OK();
}

}  // namespace flowvm

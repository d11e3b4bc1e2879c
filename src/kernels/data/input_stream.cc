#include "kernels/data/input_stream.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>

#include "core/file_util.h"

namespace flowvm::data {

namespace {

constexpr size_t kDefaultChunk = 256 << 10;

class FileSource : public ByteSource {
 public:
  explicit FileSource(std::unique_ptr<RandomAccessFile> file) : file_(std::move(file)) {}
  Status Fill(char* dst, size_t n, size_t* got) override {
    const uint64_t left = file_->size() - offset_;
    *got = static_cast<size_t>(std::min<uint64_t>(n, left));
    if (*got == 0) return Status::OK();
    FLOWVM_RETURN_IF_ERROR(file_->Read(offset_, *got, dst));
    offset_ += *got;
    return Status::OK();
  }
  uint64_t offset() const { return offset_; }

 private:
  std::unique_ptr<RandomAccessFile> file_;
  uint64_t offset_ = 0;
};

// Inflates a zlib or gzip stream (window bits 15, +16 for gzip), member
// after member.
class ZlibSource : public ByteSource {
 public:
  ZlibSource(std::string path, std::unique_ptr<FileSource> file, bool gzip, size_t chunk)
      : path_(std::move(path)), file_(std::move(file)), gzip_(gzip), in_(chunk, '\0') {
    std::memset(&z_, 0, sizeof(z_));
  }
  ~ZlibSource() override {
    if (initialized_) inflateEnd(&z_);
  }
  Status Init() {
    if (inflateInit2(&z_, MAX_WBITS + (gzip_ ? 16 : 0)) != Z_OK)
      return errors::Internal("cannot initialize zlib to read ", path_);
    initialized_ = true;
    return Status::OK();
  }

  Status Fill(char* dst, size_t n, size_t* got) override {
    *got = 0;
    z_.next_out = reinterpret_cast<Bytef*>(dst);
    z_.avail_out = static_cast<uInt>(std::min<size_t>(n, 1u << 30));
    while (z_.avail_out > 0 && !done_) {
      if (z_.avail_in == 0) {
        size_t read = 0;
        FLOWVM_RETURN_IF_ERROR(file_->Fill(in_.data(), in_.size(), &read));
        if (read == 0) {
          if (mid_stream_)
            return errors::DataLoss("compressed file ", path_, " ends inside a ", gzip_ ? "GZIP" : "ZLIB",
                                    " stream (truncated?) at compressed offset ", file_->offset());
          done_ = true;
          break;
        }
        z_.next_in = reinterpret_cast<Bytef*>(in_.data());
        z_.avail_in = static_cast<uInt>(read);
      }
      mid_stream_ = true;
      const int r = inflate(&z_, Z_NO_FLUSH);
      if (r == Z_STREAM_END) {
        // Another stream may follow (concatenated gzip members).
        mid_stream_ = false;
        inflateReset(&z_);
      } else if (r != Z_OK && r != Z_BUF_ERROR) {
        const uint64_t at = file_->offset() - z_.avail_in;
        return errors::DataLoss("corrupted ", gzip_ ? "GZIP" : "ZLIB", " data in ", path_, " at compressed offset ",
                                at, ": ", z_.msg != nullptr ? z_.msg : "inflate failed");
      }
    }
    *got = static_cast<size_t>(reinterpret_cast<char*>(z_.next_out) - dst);
    return Status::OK();
  }

 private:
  const std::string path_;
  const std::unique_ptr<FileSource> file_;
  const bool gzip_;
  std::string in_;
  z_stream z_;
  bool initialized_ = false, mid_stream_ = false, done_ = false;
};

}  // namespace

Status ValidateCompressionType(const std::string& compression_type) {
  if (compression_type.empty() || compression_type == "ZLIB" || compression_type == "GZIP") return Status::OK();
  return errors::InvalidArgument("Unsupported compression_type: ", compression_type, ".");
}

StatusOr<std::unique_ptr<InputStream>> InputStream::Open(const std::string& path, const std::string& compression_type,
                                                         int64_t buffer_size) {
  FLOWVM_RETURN_IF_ERROR(ValidateCompressionType(compression_type));
  const size_t chunk = buffer_size > 0 ? static_cast<size_t>(std::min<int64_t>(buffer_size, 64 << 20)) : kDefaultChunk;
  FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<RandomAccessFile> file, RandomAccessFile::Open(path));
  auto raw = std::make_unique<FileSource>(std::move(file));
  std::unique_ptr<ByteSource> source;
  if (compression_type.empty()) {
    source = std::move(raw);
  } else {
    auto z = std::make_unique<ZlibSource>(path, std::move(raw), compression_type == "GZIP", chunk);
    FLOWVM_RETURN_IF_ERROR(z->Init());
    source = std::move(z);
  }
  return std::make_unique<InputStream>(path, std::move(source), chunk);
}

Status InputStream::Refill() {
  if (pos_ < end_ || eof_) return Status::OK();
  if (buf_.size() < chunk_) buf_.resize(chunk_);
  size_t got = 0;
  FLOWVM_RETURN_IF_ERROR(source_->Fill(buf_.data(), chunk_, &got));
  pos_ = 0;
  end_ = got;
  if (got == 0) eof_ = true;
  return Status::OK();
}

Status InputStream::Read(size_t n, std::string* out, size_t* got) {
  *got = 0;
  while (*got < n) {
    FLOWVM_RETURN_IF_ERROR(Refill());
    if (pos_ == end_) break;
    const size_t take = std::min(n - *got, end_ - pos_);
    out->append(buf_.data() + pos_, take);
    pos_ += take;
    *got += take;
  }
  position_ += *got;
  return Status::OK();
}

Status InputStream::ReadLine(std::string* line, bool* got_line) {
  line->clear();
  *got_line = false;
  while (true) {
    FLOWVM_RETURN_IF_ERROR(Refill());
    if (pos_ == end_) break;
    *got_line = true;
    const char* start = buf_.data() + pos_;
    const void* nl = std::memchr(start, '\n', end_ - pos_);
    const size_t take = nl == nullptr ? end_ - pos_ : static_cast<const char*>(nl) - start;
    line->append(start, take);
    pos_ += take;
    position_ += take;
    if (nl != nullptr) {
      ++pos_;
      ++position_;
      break;
    }
  }
  if (!line->empty() && line->back() == '\r') line->pop_back();
  return Status::OK();
}

}  // namespace flowvm::data

// Event files are TFRecord framed: uint64 length | masked CRC32C of those 8
// bytes | data | masked CRC32C of the data (all little-endian). Unlike
// RecordReader, which reads a finished file, this reader treats the end of
// the bytes it can see as "not yet", since a writer may be in the middle of
// appending.
#include "flowvm/event_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>

#include "core/file_util.h"
#include "core/record_framing.h"

namespace flowvm {

namespace {

constexpr uint64_t kHeaderBytes = record_framing::kHeaderBytes;
constexpr uint64_t kFooterBytes = record_framing::kFooterBytes;
constexpr uint64_t kReadAhead = 256 << 10;
constexpr char kEventFilePrefix[] = "events.out.tfevents.";

}  // namespace

bool IsEventFileName(const std::string& name) {
  return name.size() > sizeof(kEventFilePrefix) - 1 && name.rfind(kEventFilePrefix, 0) == 0;
}

StatusOr<std::vector<std::string>> ListEventFiles(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (!fs::exists(st)) return errors::NotFound("event directory ", dir, " does not exist");
  if (!fs::is_directory(st)) return errors::FailedPrecondition("event directory ", dir, " is not a directory");
  std::vector<std::string> names;
  fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
  if (ec) return errors::Unknown("listing event directory ", dir, ": ", ec.message());
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) return errors::Unknown("listing event directory ", dir, ": ", ec.message());
    std::string name = it->path().filename().string();
    std::error_code type_ec;
    if (IsEventFileName(name) && it->is_regular_file(type_ec)) names.push_back(std::move(name));
  }
  std::sort(names.begin(), names.end());
  std::vector<std::string> paths;
  paths.reserve(names.size());
  const std::string sep = !dir.empty() && dir.back() == '/' ? "" : "/";
  for (const std::string& name : names) paths.push_back(dir + sep + name);
  return paths;
}

StatusOr<std::unique_ptr<EventFileReader>> EventFileReader::Open(const std::string& path) {
  int fd;
  do {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return IoError(errno, "opening event file", path);
  return std::unique_ptr<EventFileReader>(new EventFileReader(path, fd));
}

EventFileReader::~EventFileReader() { ::close(fd_); }

Status EventFileReader::AtEnd(uint64_t offset) {
  // The bytes past the last whole record may be a record still being
  // written, or a failed write that the writer cuts back and writes again:
  // never trust them later, read them afresh.
  buf_.clear();
  buf_offset_ = 0;
  return errors::OutOfRange("no complete record at offset ", offset, " of ", path_);
}

Status EventFileReader::Fill(uint64_t offset, uint64_t n, const char** out) {
  if (offset >= buf_offset_ && offset + n <= buf_offset_ + buf_.size()) {
    *out = buf_.data() + (offset - buf_offset_);
    return Status::OK();
  }
  if (offset + n > file_size_) {
    // Only ask the kernel again when what we know is not enough.
    struct stat st;
    if (::fstat(fd_, &st) != 0) return IoError(errno, "stat of event file", path_);
    file_size_ = static_cast<uint64_t>(st.st_size);
    if (offset + n > file_size_) return AtEnd(offset);
  }
  // Keep the bytes already read past `offset`, read the rest (and some more).
  const uint64_t want = std::min(std::max(n, kReadAhead), file_size_ - offset);
  std::string next(static_cast<size_t>(want), '\0');
  uint64_t have = 0;
  if (offset >= buf_offset_ && offset < buf_offset_ + buf_.size()) {
    have = buf_offset_ + buf_.size() - offset;
    std::copy(buf_.data() + (offset - buf_offset_), buf_.data() + buf_.size(), next.data());
  }
  while (have < want) {
    const ssize_t got = ::pread(fd_, next.data() + have, static_cast<size_t>(want - have),
                                static_cast<off_t>(offset + have));
    if (got < 0) {
      if (errno == EINTR) continue;
      return IoError(errno, "reading event file", path_);
    }
    if (got == 0) break;  // shrank under us (truncated and rewritten?)
    have += static_cast<uint64_t>(got);
  }
  next.resize(static_cast<size_t>(have));
  buf_ = std::move(next);
  buf_offset_ = offset;
  if (have < n) return AtEnd(offset);
  *out = buf_.data();
  return Status::OK();
}

Status EventFileReader::Next(Event* event) {
  if (!stopped_status_.ok()) return stopped_status_;
  const uint64_t at = offset_;
  const char* header;
  FLOWVM_RETURN_IF_ERROR(Fill(at, kHeaderBytes, &header));
  uint64_t length = 0;
  if (!record_framing::DecodeHeader(header, &length)) {
    stopped_status_ = errors::DataLoss("corrupted record length in event file ", path_, " at offset ", at,
                                       "; the rest of the file cannot be read");
    return stopped_status_;
  }
  // No file holds 2^62 bytes; a length like that would only overflow the
  // offset arithmetic below.
  if (length > (uint64_t{1} << 62)) {
    stopped_status_ = errors::DataLoss("record length ", length, " in event file ", path_, " at offset ", at,
                                       " is impossible; the rest of the file cannot be read");
    return stopped_status_;
  }
  // A protobuf message is under 2 GiB: a longer record is no Event, and
  // reading it would only hold its bytes in memory. Skipped unread, once it
  // is all there.
  if (length > INT32_MAX) {
    struct stat st;
    if (::fstat(fd_, &st) != 0) return IoError(errno, "stat of event file", path_);
    file_size_ = static_cast<uint64_t>(st.st_size);
    if (at + kHeaderBytes + length + kFooterBytes > file_size_) return AtEnd(at);
    offset_ = at + kHeaderBytes + length + kFooterBytes;
    return errors::DataLoss("record in event file ", path_, " at offset ", at, " is ", length,
                            " bytes, over the 2 GiB an Event can be; skipped");
  }
  const char* data;
  FLOWVM_RETURN_IF_ERROR(Fill(at + kHeaderBytes, length + kFooterBytes, &data));
  offset_ = at + kHeaderBytes + length + kFooterBytes;
  if (!record_framing::DataMatchesFooter(data, length))
    return errors::DataLoss("corrupted record in event file ", path_, " at offset ", at,
                            " (data CRC mismatch); skipped");
  if (!event->ParseFromArray(data, static_cast<int>(length)))
    return errors::DataLoss("record in event file ", path_, " at offset ", at, " is not an Event; skipped");
  return Status::OK();
}

}  // namespace flowvm

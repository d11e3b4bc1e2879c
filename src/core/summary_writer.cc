#include "flowvm/summary_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstring>
#include <ctime>
#include <filesystem>

#include "core/file_util.h"
#include "core/histogram.h"
#include "core/png_encoder.h"
#include "core/record_framing.h"

namespace flowvm {

namespace {

// Past this much pending data the adding thread writes it itself, so that
// a stalled disk cannot make the buffer grow without bound.
constexpr size_t kMaxPendingBytes = size_t{8} << 20;

double NowSeconds() {
  using namespace std::chrono;
  return duration_cast<duration<double>>(system_clock::now().time_since_epoch()).count();
}

std::string Hostname() {
  char buf[HOST_NAME_MAX + 1] = {};
  if (::gethostname(buf, sizeof(buf) - 1) != 0 || buf[0] == '\0') return "localhost";
  return buf;
}

Status WriteAll(int fd, const char* data, size_t n, const std::string& path) {
  while (n > 0) {
    ssize_t w = ::write(fd, data, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return IoError(errno, "cannot write event file", path);
    }
    if (w == 0) return IoError(EIO, "cannot write event file", path);
    data += w;
    n -= static_cast<size_t>(w);
  }
  return Status::OK();
}

// Creates <logdir>/events.out.tfevents.<secs>.<host>[.<n>]<suffix>, the
// first name that does not exist yet (O_EXCL: never an existing file).
Status CreateEventFile(const std::string& logdir, const std::string& suffix, std::string* path, int* fd) {
  if (logdir.empty()) return errors::InvalidArgument("summary writer: empty logdir");
  if (suffix.find('/') != std::string::npos)
    return errors::InvalidArgument("summary writer: filename suffix '", suffix, "' contains '/'");
  std::error_code ec;
  std::filesystem::create_directories(logdir, ec);
  if (ec) return IoError(ec.value(), "cannot create log directory", logdir);
  const std::string base = logdir + (logdir.back() == '/' ? "" : "/") + "events.out.tfevents." +
                           std::to_string(static_cast<long long>(std::time(nullptr))) + "." + Hostname();
  for (int n = 0; n < 1000; ++n) {
    *path = base + (n == 0 ? "" : "." + std::to_string(n)) + suffix;
    do {
      *fd = ::open(path->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_APPEND, 0644);
    } while (*fd < 0 && errno == EINTR);
    if (*fd >= 0) return Status::OK();
    if (errno != EEXIST) return IoError(errno, "cannot create event file", *path);
  }
  return errors::AlreadyExists("summary writer: 1000 event files named ", base, "*", suffix, " already exist");
}

}  // namespace

StatusOr<std::unique_ptr<SummaryWriter>> SummaryWriter::Create(const std::string& logdir,
                                                               SummaryWriterOptions options) {
  if (options.max_queue < 1) options.max_queue = 1;
  std::string path;
  int fd = -1;
  FLOWVM_RETURN_IF_ERROR(CreateEventFile(logdir, options.filename_suffix, &path, &fd));
  std::unique_ptr<SummaryWriter> w(new SummaryWriter(path, fd, 0, std::move(options)));
  Event first;
  first.set_wall_time(NowSeconds());
  first.set_file_version("brain.Event:2");
  Status s = w->AddEvent(std::move(first));
  if (s.ok()) s = w->Flush();
  if (!s.ok()) {
    w->Close().IgnoreError();
    RemoveFileQuietly(path);
    return s;
  }
  return w;
}

SummaryWriter::SummaryWriter(std::string path, int fd, uint64_t size, SummaryWriterOptions options)
    : path_(std::move(path)), options_(std::move(options)), fd_(fd), size_(size) {
  flusher_ = std::thread([this] { FlushLoop(); });
}

SummaryWriter::~SummaryWriter() {
  bool closed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed = closed_;
  }
  if (!closed) Close().IgnoreError();
}

Status SummaryWriter::TakeError() {
  Status s = std::move(error_);
  error_ = Status::OK();
  return s;
}

Status SummaryWriter::Enqueue(const Event& e) {
  std::string bytes;
  if (!e.SerializeToString(&bytes))
    return errors::InvalidArgument("summary writer ", path_, ": event does not serialize (over 2 GiB?)");
  return EnqueueSerialized(bytes);
}

Status SummaryWriter::EnqueueSerialized(std::string_view bytes) {
  bool write_now = false;
  Status earlier;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return errors::FailedPrecondition("summary writer ", path_, " is closed");
    record_framing::AppendRecord(bytes, &pending_);
    ++pending_events_;
    earlier = TakeError();
    if (pending_.size() >= kMaxPendingBytes) {
      write_now = true;
    } else if (pending_events_ >= options_.max_queue) {
      wake_.notify_one();
    }
  }
  if (write_now) earlier.Update(WritePending(/*sync=*/false));
  return earlier;
}

Status SummaryWriter::WriteRecords(const std::string& records, int events) {
  // REQUIRES: io_mu_ held.
  if (fd_ < 0) return errors::FailedPrecondition("summary writer ", path_, " is closed");
  Status s = WriteAll(fd_, records.data(), records.size(), path_);
  if (s.ok()) {
    size_ += records.size();
    return s;
  }
  // Cut a partly written batch off, so that the file still ends with a
  // whole record and later batches stay readable.
  if (::ftruncate(fd_, static_cast<off_t>(size_)) != 0) {
    s = Status(s.code(), s.message() + "; cutting it back to its last whole record also failed: " +
                             IoError(errno, "ftruncate", path_).message());
  }
  return Status(s.code(), internal::StrCat(s.message(), " (", events, " summary events lost)"));
}

Status SummaryWriter::WritePending(bool sync) {
  std::lock_guard<std::mutex> io(io_mu_);
  std::string batch;
  int events;
  Status result;
  {
    std::lock_guard<std::mutex> lock(mu_);
    batch.swap(pending_);
    events = pending_events_;
    pending_events_ = 0;
    result = TakeError();
  }
  if (!batch.empty()) result.Update(WriteRecords(batch, events));
  if (sync && fd_ >= 0 && ::fsync(fd_) != 0) result.Update(IoError(errno, "cannot fsync event file", path_));
  return result;
}

void SummaryWriter::FlushLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    const auto due = [this] { return stop_ || pending_events_ >= options_.max_queue; };
    if (options_.flush_interval_ms > 0) {
      wake_.wait_for(lock, std::chrono::milliseconds(options_.flush_interval_ms), due);
    } else {
      wake_.wait(lock, due);
    }
    if (stop_) break;
    if (pending_events_ == 0) continue;
    lock.unlock();
    Status s = WritePending(/*sync=*/false);
    lock.lock();
    // Nobody waits for this thread: keep the error for the next call.
    error_.Update(s);
  }
}

Status SummaryWriter::Flush() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return errors::FailedPrecondition("summary writer ", path_, " is closed");
  }
  return WritePending(/*sync=*/true);
}

Status SummaryWriter::Close() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return errors::FailedPrecondition("summary writer ", path_, " is already closed");
    closed_ = true;
    stop_ = true;
    wake_.notify_one();
  }
  if (flusher_.joinable()) flusher_.join();
  Status s = WritePending(/*sync=*/true);
  std::lock_guard<std::mutex> io(io_mu_);
  if (fd_ >= 0) {
    if (::close(fd_) != 0) s.Update(IoError(errno, "cannot close event file", path_));
    fd_ = -1;
  }
  return s;
}

// ---- what an event holds --------------------------------------------------------

namespace {

// Whether `s` is well-formed UTF-8 (no overlong forms, surrogates or code
// points past U+10FFFF).
bool IsUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    size_t n;
    uint32_t cp;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xe0) == 0xc0) {
      n = 1, cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
      n = 2, cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
      n = 3, cp = c & 0x07;
    } else {
      return false;
    }
    for (size_t k = 1; k <= n; ++k) {
      if (i + k >= s.size()) return false;
      const unsigned char cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3f);
    }
    static constexpr uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    i += n + 1;
  }
  return true;
}

}  // namespace

// Tags are proto3 strings: one that is not UTF-8 would make the whole
// event unreadable (protobuf refuses to parse it), losing its other values.
Status SummaryWriter::CheckTag(std::string_view tag) const {
  if (IsUtf8(tag)) return Status::OK();
  std::string shown;
  for (unsigned char c : tag) {
    if (c >= 0x20 && c < 0x7f) {
      shown += static_cast<char>(c);
    } else {
      static constexpr char kHex[] = "0123456789abcdef";
      shown += "\\x";
      shown += kHex[c >> 4];
      shown += kHex[c & 15];
    }
  }
  return errors::InvalidArgument("summary writer ", path_, ": tag '", shown,
                                 "' is not UTF-8 (event files hold tags as UTF-8 strings)");
}

Status SummaryWriter::AddEvent(Event e) {
  if (e.wall_time() == 0) e.set_wall_time(NowSeconds());
  return Enqueue(e);
}

Status SummaryWriter::AddSummary(const Summary& summary, int64_t step) {
  for (const Summary::Value& v : summary.value()) FLOWVM_RETURN_IF_ERROR(CheckTag(v.tag()));
  Event e;
  e.set_step(step);
  *e.mutable_summary() = summary;
  return AddEvent(std::move(e));
}

Status SummaryWriter::AddSerializedSummary(std::string_view bytes, int64_t step) {
  Event e;
  e.set_step(step);
  if (bytes.size() > static_cast<size_t>(INT_MAX) ||
      !e.mutable_summary()->ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    return errors::InvalidArgument("summary writer ", path_, ": ", bytes.size(),
                                   " bytes at step ", step, " are not a serialized Summary");
  return AddEvent(std::move(e));
}

namespace {

// The wire format of Event{wall_time, step, summary{value{tag,
// simple_value}...}}, byte for byte what protobuf writes (fields in number
// order, zero scalars and empty strings left out, the oneof's value always
// present), into `out`; false if it would not fit in `cap`. A trainer adds
// scalars every step, and building Event messages for them costs more than
// the rest of the writer (bench/run_summary_bench.sh).
size_t VarintSize(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) v >>= 7, ++n;
  return n;
}

char* PutVarint(uint64_t v, char* p) {
  while (v >= 0x80) {
    *p++ = static_cast<char>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<char>(v);
  return p;
}

size_t ScalarValueSize(std::string_view tag) {
  return (tag.empty() ? 0 : 1 + VarintSize(tag.size()) + tag.size()) + 5;  // + simple_value: 0x15, fixed32
}

bool EncodeScalarEvent(double wall_time, int64_t step, const SummaryWriter::Scalar* scalars, size_t count,
                       char* out, size_t cap, size_t* size) {
  size_t summary_size = 0;
  for (size_t i = 0; i < count; ++i) {
    const size_t v = ScalarValueSize(scalars[i].tag);
    summary_size += 1 + VarintSize(v) + v;  // Summary.value (1)
  }
  if (9 + 11 + 1 + VarintSize(summary_size) + summary_size > cap) return false;
  char* p = out;
  if (wall_time != 0) {
    *p++ = 0x09;  // wall_time (1), fixed64
    std::memcpy(p, &wall_time, 8);
    p += 8;
  }
  if (step != 0) {
    *p++ = 0x10;  // step (2), varint
    p = PutVarint(static_cast<uint64_t>(step), p);
  }
  *p++ = 0x2a;  // summary (5), length-delimited
  p = PutVarint(summary_size, p);
  for (size_t i = 0; i < count; ++i) {
    const std::string_view tag = scalars[i].tag;
    *p++ = 0x0a;  // Summary.value (1)
    p = PutVarint(ScalarValueSize(tag), p);
    if (!tag.empty()) {
      *p++ = 0x0a;  // Value.tag (1)
      p = PutVarint(tag.size(), p);
      std::memcpy(p, tag.data(), tag.size());
      p += tag.size();
    }
    *p++ = 0x15;  // Value.simple_value (2), fixed32
    const float value = static_cast<float>(scalars[i].value);
    std::memcpy(p, &value, 4);
    p += 4;
  }
  *size = static_cast<size_t>(p - out);
  return true;
}

}  // namespace

Status SummaryWriter::AddScalar(const std::string& tag, double value, int64_t step) {
  const Scalar scalar{tag, value};
  return AddScalars(&scalar, 1, step);
}

Status SummaryWriter::AddScalars(std::initializer_list<Scalar> scalars, int64_t step) {
  return AddScalars(scalars.begin(), scalars.size(), step);
}

Status SummaryWriter::AddScalars(const Scalar* scalars, size_t count, int64_t step) {
  for (size_t i = 0; i < count; ++i) FLOWVM_RETURN_IF_ERROR(CheckTag(scalars[i].tag));
  char buf[512];
  size_t size = 0;
  if (EncodeScalarEvent(NowSeconds(), step, scalars, count, buf, sizeof(buf), &size))
    return EnqueueSerialized(std::string_view(buf, size));
  Event e;
  e.set_step(step);
  for (size_t i = 0; i < count; ++i) {
    Summary::Value* v = e.mutable_summary()->add_value();
    v->set_tag(std::string(scalars[i].tag));
    v->set_simple_value(static_cast<float>(scalars[i].value));
  }
  return AddEvent(std::move(e));
}

Status SummaryWriter::AddHistogram(const std::string& tag, const Tensor& values, int64_t step) {
  FLOWVM_RETURN_IF_ERROR(CheckTag(tag));
  Histogram h;
  FLOWVM_RETURN_IF_ERROR(h.AddTensor(values, tag));
  Event e;
  e.set_step(step);
  Summary::Value* v = e.mutable_summary()->add_value();
  v->set_tag(tag);
  h.EncodeToProto(v->mutable_histo());
  return AddEvent(std::move(e));
}

Status SummaryWriter::AddImage(const std::string& tag, const Tensor& image, int64_t step) {
  FLOWVM_RETURN_IF_ERROR(CheckTag(tag));
  if (image.dtype() != DT_UINT8 || image.dims() != 3 || image.dim_size(2) < 1 || image.dim_size(2) > 4)
    return errors::InvalidArgument("image '", tag, "' must be uint8 [height, width, channels] with 1 to 4 channels, got ",
                                   DataTypeName(image.dtype()), " ", image.shape().DebugString());
  if (image.dim_size(0) > INT_MAX || image.dim_size(1) > INT_MAX)
    return errors::InvalidArgument("image '", tag, "' of shape ", image.shape().DebugString(), " is too large");
  const int height = static_cast<int>(image.dim_size(0));
  const int width = static_cast<int>(image.dim_size(1));
  const int channels = static_cast<int>(image.dim_size(2));
  Event e;
  e.set_step(step);
  Summary::Value* v = e.mutable_summary()->add_value();
  v->set_tag(tag);
  Summary::Image* img = v->mutable_image();
  img->set_height(height);
  img->set_width(width);
  img->set_colorspace(channels);
  Status s = EncodePng(image.data<uint8_t>(), height, width, channels, img->mutable_encoded_image_string());
  if (!s.ok()) return s.WithContext(internal::StrCat("image '", tag, "'"));
  return AddEvent(std::move(e));
}

Status SummaryWriter::AddGraph(const GraphDef& graph) {
  Event e;
  if (!graph.SerializeToString(e.mutable_graph_def()))
    return errors::InvalidArgument("summary writer ", path_, ": the graph does not serialize (over 2 GiB?)");
  return AddEvent(std::move(e));
}

Status SummaryWriter::AddRunMetadata(const std::string& tag, const RunMetadata& metadata, int64_t step) {
  FLOWVM_RETURN_IF_ERROR(CheckTag(tag));
  Event e;
  e.set_step(step);
  TaggedRunMetadata* t = e.mutable_tagged_run_metadata();
  t->set_tag(tag);
  if (!metadata.SerializeToString(t->mutable_run_metadata()))
    return errors::InvalidArgument("run metadata '", tag, "' does not serialize (over 2 GiB?)");
  return AddEvent(std::move(e));
}

}  // namespace flowvm

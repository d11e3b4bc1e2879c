// Readers (paper 4.5): TFRecordReaderV2, WholeFileReaderV2 and
// TextLineReaderV2 are resources that turn the files named by a queue of
// file names into records; ReaderReadV2 and ReaderReadUpToV2 read them. A
// read that needs the next file name waits on the queue without holding a
// thread; once the queue is closed and empty, reads end with OutOfRange
// (the end of an epoch). A damaged record is DataLoss naming the file and
// offset. One reader serves concurrent reads one record at a time. On a
// server, a file outside the directories it allows is PermissionDenied
// naming the ReaderRead node (kernels/framework/file_access.h), checked as
// the reader opens it.
#include <algorithm>
#include <deque>
#include <mutex>

#include "flowvm/record_io.h"
#include "flowvm/resource_handle.h"
#include "core/file_util.h"
#include "kernels/data_flow/queue_base.h"
#include "kernels/framework/file_access.h"
#include "kernels/framework/kernel_registry.h"
#include "kernels/framework/op_kernel.h"
#include "kernels/framework/resource_handles.h"

namespace flowvm {
namespace {

// What a reader kind does with one open file.
class FileFormat {
 public:
  virtual ~FileFormat() = default;
  // The next record of the file: OK, OutOfRange at its end, or an error.
  // `key` may be null: nobody reads it.
  virtual Status Next(std::string* key, std::string* value) = 0;
};

class TFRecordFormat : public FileFormat {
 public:
  static StatusOr<std::unique_ptr<FileFormat>> Open(const std::string& path) {
    FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<RecordReader> r, RecordReader::Open(path));
    auto f = std::make_unique<TFRecordFormat>();
    f->reader_ = std::move(r);
    f->path_ = path;
    return std::unique_ptr<FileFormat>(std::move(f));
  }
  Status Next(std::string* key, std::string* value) override {
    const uint64_t at = offset_;
    FLOWVM_RETURN_IF_ERROR(reader_->ReadRecord(&offset_, value));
    if (key != nullptr) *key = path_ + ":" + std::to_string(at);
    return Status::OK();
  }

 private:
  std::unique_ptr<RecordReader> reader_;
  std::string path_;
  uint64_t offset_ = 0;
};

// Whole files and lines: the file is read at once.
StatusOr<std::string> ReadWholeFile(const std::string& path) {
  FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<RandomAccessFile> f, RandomAccessFile::Open(path));
  std::string contents(f->size(), '\0');
  if (!contents.empty()) FLOWVM_RETURN_IF_ERROR(f->Read(0, contents.size(), contents.data()));
  return contents;
}

class WholeFileFormat : public FileFormat {
 public:
  explicit WholeFileFormat(std::string path) : path_(std::move(path)) {}
  Status Next(std::string* key, std::string* value) override {
    if (done_) return errors::OutOfRange("end of ", path_);
    FLOWVM_ASSIGN_OR_RETURN(*value, ReadWholeFile(path_));
    if (key != nullptr) *key = path_;
    done_ = true;
    return Status::OK();
  }

 private:
  std::string path_;
  bool done_ = false;
};

class TextLineFormat : public FileFormat {
 public:
  static StatusOr<std::unique_ptr<FileFormat>> Open(const std::string& path, int64_t skip) {
    auto f = std::make_unique<TextLineFormat>();
    FLOWVM_ASSIGN_OR_RETURN(f->contents_, ReadWholeFile(path));
    f->path_ = path;
    std::string ignored;
    for (int64_t i = 0; i < skip; ++i)
      if (!f->NextLine(&ignored)) break;
    return std::unique_ptr<FileFormat>(std::move(f));
  }
  Status Next(std::string* key, std::string* value) override {
    if (!NextLine(value)) return errors::OutOfRange("end of ", path_);
    if (key != nullptr) *key = path_ + ":" + std::to_string(line_);
    return Status::OK();
  }

 private:
  bool NextLine(std::string* line) {
    if (pos_ >= contents_.size()) return false;
    size_t end = contents_.find('\n', pos_);
    if (end == std::string::npos) end = contents_.size();
    size_t stop = end;
    if (stop > pos_ && contents_[stop - 1] == '\r') --stop;
    line->assign(contents_, pos_, stop - pos_);
    pos_ = end + 1;
    ++line_;
    return true;
  }
  std::string contents_, path_;
  size_t pos_ = 0;
  int64_t line_ = 0;
};

class Reader : public ResourceBase {
 public:
  Reader(std::string kind, std::string name, int64_t skip_header_lines)
      : kind_(std::move(kind)), name_(std::move(name)), skip_header_lines_(skip_header_lines) {}
  std::string DebugString() const override { return kind_ + " '" + name_ + "'"; }
  const std::string& kind() const { return kind_; }

  // Reads up to `n` records (n = 1: one record) into values (and keys,
  // unless `keys` is null) and calls done(status) once; OutOfRange only if
  // none was read. Asks `queue` for file names as needed; `access` checks
  // each before it is opened.
  void Read(std::shared_ptr<QueueBase> queue, int64_t n, CancellationManager* cancel, std::vector<std::string>* keys,
            std::vector<std::string>* values, FileAccessChecker access, std::function<void(const Status&)> done) {
    for (;;) {
      Status s;
      bool need_file = false;
      {
        std::lock_guard<std::mutex> lock(mu_);
        while (static_cast<int64_t>(values->size()) < n) {
          if (file_ == nullptr) {
            if (pending_files_.empty()) {
              need_file = true;
              break;
            }
            s = access.Check(pending_files_.front(), PathAccess::kRead);
            if (s.ok()) s = OpenLocked(pending_files_.front());
            pending_files_.pop_front();
            if (!s.ok()) break;
          }
          std::string key, value;
          Status r = file_->Next(keys != nullptr ? &key : nullptr, &value);
          if (r.code() == Code::kOutOfRange) {
            file_.reset();
            continue;
          }
          if (!r.ok()) {
            file_.reset();  // a damaged file is given up; the next read goes on with the next file
            s = r;
            break;
          }
          if (keys != nullptr) keys->push_back(std::move(key));
          values->push_back(std::move(value));
          ++produced_;
        }
      }
      if (!s.ok() || !need_file) {
        done(s);
        return;
      }
      // Wait for the next file name, holding no thread; continue there.
      auto self = std::static_pointer_cast<Reader>(shared_from_this_());
      queue->TryDequeue(cancel, 0, [self, queue, n, cancel, keys, values, access, done](const Status& st,
                                                                                         QueueBase::Tuple t) {
        if (!st.ok()) {
          // The end of the file names: the records read so far, if any.
          if (st.code() == Code::kOutOfRange && !values->empty()) done(Status::OK());
          else done(st);
          return;
        }
        if (t.size() != 1 || t[0].dtype() != DT_STRING || t[0].NumElements() != 1) {
          done(errors::InvalidArgument("the queue of file names must hold single strings"));
          return;
        }
        {
          std::lock_guard<std::mutex> lock(self->mu_);
          self->pending_files_.push_back(t[0].flat<std::string>()[0]);
        }
        self->Read(queue, n, cancel, keys, values, access, done);
      });
      return;
    }
  }

  int64_t produced() const {
    std::lock_guard<std::mutex> lock(mu_);
    return produced_;
  }
  void Reset() {
    std::lock_guard<std::mutex> lock(mu_);
    file_.reset();
    pending_files_.clear();
    produced_ = 0;
  }

  std::weak_ptr<Reader> weak_self;

 private:
  std::shared_ptr<Reader> shared_from_this_() { return weak_self.lock(); }

  Status OpenLocked(const std::string& path) {
    if (kind_ == "TFRecordReader") {
      FLOWVM_ASSIGN_OR_RETURN(file_, TFRecordFormat::Open(path));
    } else if (kind_ == "TextLineReader") {
      FLOWVM_ASSIGN_OR_RETURN(file_, TextLineFormat::Open(path, skip_header_lines_));
    } else {
      file_ = std::make_unique<WholeFileFormat>(path);
    }
    return Status::OK();
  }

  const std::string kind_, name_;
  const int64_t skip_header_lines_;
  mutable std::mutex mu_;
  std::unique_ptr<FileFormat> file_;
  std::deque<std::string> pending_files_;
  int64_t produced_ = 0;
};

class ReaderCreatorOp : public OpKernel {
 public:
  explicit ReaderCreatorOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    kind_ = ctx->def().op().substr(0, ctx->def().op().size() - 2);  // without "V2"
    OP_REQUIRES_OK(ctx, ctx->GetAttr("container", &container_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shared_name", &reader_name_));
    if (reader_name_.empty()) reader_name_ = name();
    if (kind_ == "TextLineReader") OP_REQUIRES_OK(ctx, ctx->GetAttr("skip_header_lines", &skip_header_lines_));
    if (kind_ == "TFRecordReader") {
      std::string compression;
      OP_REQUIRES_OK(ctx, ctx->GetAttr("compression_type", &compression));
      OP_REQUIRES(ctx, compression.empty() || compression == "NONE",
                  errors::Unimplemented("compressed record files (", compression, ") are not supported"));
    }
  }
  void Compute(OpKernelContext* ctx) override {
    ResourceMgr* rm = ctx->resource_manager();
    OP_REQUIRES(ctx, rm != nullptr, errors::Internal("no resource manager for reader '", reader_name_, "'"));
    std::shared_ptr<Reader> reader;
    OP_REQUIRES_OK(ctx, rm->LookupOrCreate<Reader>(container_, reader_name_, &reader,
                                                   [this]() -> StatusOr<std::shared_ptr<Reader>> {
                                                     auto r = std::make_shared<Reader>(kind_, reader_name_,
                                                                                       skip_header_lines_);
                                                     r->weak_self = r;
                                                     return r;
                                                   }));
    OP_REQUIRES(ctx, reader->kind() == kind_,
                errors::InvalidArgument("reader '", reader_name_, "' is shared as a ", reader->kind()));
    ctx->set_output(0, MakeResourceHandleTensor(ctx, container_, reader_name_, kind_));
    ctx->KeepAliveForStep(std::move(reader));
  }
  bool IsExpensive() const override { return false; }

 private:
  std::string kind_, container_, reader_name_;
  int64_t skip_header_lines_ = 0;
};

// The strings as a vector tensor, moved rather than copied.
Tensor MoveIntoTensor(std::vector<std::string>* strings) {
  Tensor t(DT_STRING, TensorShape({static_cast<int64_t>(strings->size())}));
  auto flat = t.flat<std::string>();
  for (size_t i = 0; i < strings->size(); ++i) flat[i] = std::move((*strings)[i]);
  return t;
}

class ReaderReadOp : public AsyncOpKernel {
 public:
  explicit ReaderReadOp(OpKernelConstruction* ctx)
      : AsyncOpKernel(ctx), up_to_(ctx->def().op() == "ReaderReadUpToV2") {}
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    std::shared_ptr<Reader> reader;
    std::shared_ptr<QueueBase> queue;
    OP_REQUIRES_OK_ASYNC(ctx, LookupResource(ctx, 0, "reader", &reader), done);
    OP_REQUIRES_OK_ASYNC(ctx, LookupResource(ctx, 1, "queue", &queue), done);
    int64_t n = 1;
    if (up_to_) {
      const Tensor& t = ctx->input(2);
      OP_REQUIRES_ASYNC(ctx, t.dims() == 0, errors::InvalidArgument("num_records must be a scalar"), done);
      n = t.scalar<int64_t>();
      OP_REQUIRES_ASYNC(ctx, n > 0, errors::InvalidArgument("num_records must be positive, got ", n), done);
    }
    auto keys = std::make_shared<std::vector<std::string>>();
    auto values = std::make_shared<std::vector<std::string>>();
    // Keys nobody reads are not made (an input pipeline usually drops them).
    const bool want_keys = ctx->output_required(0);
    values->reserve(static_cast<size_t>(std::min<int64_t>(n, 1 << 16)));
    if (want_keys) keys->reserve(values->capacity());
    const bool up_to = up_to_;
    reader->Read(queue, n, ctx->cancellation_manager(), want_keys ? keys.get() : nullptr, values.get(),
                 FileAccessFor(*ctx), [ctx, keys, values, up_to, want_keys, done = std::move(done)](const Status& s) {
                   if (!s.ok()) {
                     ctx->SetStatus(s);
                   } else {
                     if (!want_keys) keys->resize(values->size());  // empty strings
                     if (up_to) {
                       ctx->set_output(0, MoveIntoTensor(keys.get()));
                       ctx->set_output(1, MoveIntoTensor(values.get()));
                     } else {
                       ctx->set_output(0, Tensor::Scalar<std::string>(std::move((*keys)[0])));
                       ctx->set_output(1, Tensor::Scalar<std::string>(std::move((*values)[0])));
                     }
                   }
                   done();
                 });
  }
  // Reading a file is I/O: a thread of the pool, not the caller's.
  bool IsExpensive() const override { return true; }

 private:
  const bool up_to_;
};

class ReaderNumRecordsProducedOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<Reader> reader;
    OP_REQUIRES_OK(ctx, LookupResource(ctx, 0, "reader", &reader));
    ctx->set_output(0, Tensor::Scalar<int64_t>(reader->produced()));
  }
};

class ReaderResetOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<Reader> reader;
    OP_REQUIRES_OK(ctx, LookupResource(ctx, 0, "reader", &reader));
    reader->Reset();
  }
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("TFRecordReaderV2").Device(DEVICE_CPU), ReaderCreatorOp);
REGISTER_KERNEL_BUILDER(Name("WholeFileReaderV2").Device(DEVICE_CPU), ReaderCreatorOp);
REGISTER_KERNEL_BUILDER(Name("TextLineReaderV2").Device(DEVICE_CPU), ReaderCreatorOp);
REGISTER_KERNEL_BUILDER(Name("ReaderReadV2").Device(DEVICE_CPU), ReaderReadOp);
REGISTER_KERNEL_BUILDER(Name("ReaderReadUpToV2").Device(DEVICE_CPU), ReaderReadOp);
REGISTER_KERNEL_BUILDER(Name("ReaderNumRecordsProducedV2").Device(DEVICE_CPU), ReaderNumRecordsProducedOp);
REGISTER_KERNEL_BUILDER(Name("ReaderResetV2").Device(DEVICE_CPU), ReaderResetOp);

}  // namespace flowvm

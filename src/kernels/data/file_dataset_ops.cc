// The file sources: TFRecordDataset (TFRecord framing, shared/spec/
// formats.md, decoded with core/record_framing.h), TextLineDataset and
// FixedLengthRecordDataset(V2). Files stream through input_stream.h.
#include <cstring>

#include "core/record_framing.h"
#include "kernels/data/dataset_op_kernel.h"
#include "kernels/data/file_dataset.h"
#include "kernels/framework/kernel_registry.h"

namespace flowvm::data {
namespace {

using record_framing::kFooterBytes;
using record_framing::kHeaderBytes;

class TFRecordDataset : public FileDataset {
 public:
  using FileDataset::FileDataset;
  const char* op() const override { return "TFRecordDataset"; }
  StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(IteratorContext* ctx) const override {
    return std::unique_ptr<IteratorBase>(new Iterator(ctx, this));
  }

 private:
  class Iterator : public FileIterator<TFRecordDataset> {
   public:
    using FileIterator::FileIterator;

   protected:
    Status ReadRecord(InputStream* in, std::string* record, bool* got) override {
      const uint64_t at = in->position();
      std::string header;
      size_t n = 0;
      FLOWVM_RETURN_IF_ERROR(in->Read(kHeaderBytes, &header, &n));
      *got = n > 0;
      if (n == 0) return Status::OK();
      if (n < kHeaderBytes)
        return errors::DataLoss("truncated record in ", in->path(), " at offset ", at, " (the file ends inside its header)");
      uint64_t length = 0;
      if (!record_framing::DecodeHeader(header.data(), &length) || length > (uint64_t{1} << 62))
        return errors::DataLoss("corrupted record in ", in->path(), " at offset ", at, " (length CRC mismatch)");
      // Read in pieces: a damaged length cannot make us allocate it at once.
      record->clear();
      FLOWVM_RETURN_IF_ERROR(in->Read(length + kFooterBytes, record, &n));
      if (n < length + kFooterBytes)
        return errors::DataLoss("truncated record in ", in->path(), " at offset ", at, " (", length,
                                " bytes declared, the file ends first)");
      if (!record_framing::DataMatchesFooter(record->data(), length))
        return errors::DataLoss("corrupted record in ", in->path(), " at offset ", at, " (data CRC mismatch)");
      record->resize(length);
      return Status::OK();
    }
  };
};

class TextLineDataset : public FileDataset {
 public:
  using FileDataset::FileDataset;
  const char* op() const override { return "TextLineDataset"; }
  StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(IteratorContext* ctx) const override {
    return std::unique_ptr<IteratorBase>(new Iterator(ctx, this));
  }

 private:
  class Iterator : public FileIterator<TextLineDataset> {
   public:
    using FileIterator::FileIterator;

   protected:
    Status ReadRecord(InputStream* in, std::string* record, bool* got) override { return in->ReadLine(record, got); }
  };
};

class FixedLengthRecordDataset : public FileDataset {
 public:
  FixedLengthRecordDataset(std::string node, FileDatasetParams params, int64_t header, int64_t record, int64_t footer,
                           const char* op)
      : FileDataset(std::move(node), std::move(params)), header_(header), record_(record), footer_(footer), op_(op) {}
  const char* op() const override { return op_; }
  StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(IteratorContext* ctx) const override {
    return std::unique_ptr<IteratorBase>(new Iterator(ctx, this));
  }

 private:
  // Keeps record + footer bytes ahead, so that the footer is never taken
  // for a record, also when the stream's length is unknown (compressed).
  class Iterator : public FileIterator<FixedLengthRecordDataset> {
   public:
    using FileIterator::FileIterator;

   protected:
    Status StartFile(InputStream* in) override {
      const FixedLengthRecordDataset* d = dataset();
      std::string header;
      size_t n = 0;
      FLOWVM_RETURN_IF_ERROR(in->Read(static_cast<size_t>(d->header_), &header, &n));
      ahead_.clear();
      return TopUp(in);
    }
    Status ReadRecord(InputStream* in, std::string* record, bool* got) override {
      const FixedLengthRecordDataset* d = dataset();
      const size_t r = static_cast<size_t>(d->record_), f = static_cast<size_t>(d->footer_);
      *got = ahead_.size() >= r + f;
      if (!*got) {
        if (ahead_.size() != f) {
          // What is left cannot be whole records and a footer.
          const int64_t body = static_cast<int64_t>(in->position()) - d->header_ - d->footer_;
          return errors::InvalidArgument("Excluding the header (", d->header_, " bytes) and footer (", d->footer_,
                                         " bytes), input file \"", in->path(), "\" has body length ", body,
                                         " bytes, which is not an exact multiple of the record length (", d->record_,
                                         " bytes).");
        }
        return Status::OK();
      }
      record->assign(ahead_, 0, r);
      ahead_.erase(0, r);
      return TopUp(in);
    }

   private:
    Status TopUp(InputStream* in) {
      const FixedLengthRecordDataset* d = dataset();
      const size_t want = static_cast<size_t>(d->record_ + d->footer_);
      size_t n = 0;
      if (ahead_.size() < want) FLOWVM_RETURN_IF_ERROR(in->Read(want - ahead_.size(), &ahead_, &n));
      return Status::OK();
    }
    std::string ahead_;
  };

  const int64_t header_, record_, footer_;
  const char* const op_;
};

// filenames, then the inputs named in the op.
class FileDatasetOp : public DatasetOpKernel {
 public:
  explicit FileDatasetOp(OpKernelConstruction* ctx) : DatasetOpKernel(ctx) {}

 protected:
  StatusOr<FileDatasetParams> CommonParams(OpKernelContext* ctx, int compression_input, int buffer_input) {
    FileDatasetParams p;
    FLOWVM_ASSIGN_OR_RETURN(p.filenames, StringsInput(ctx, 0, "filenames"));
    if (compression_input >= 0) {
      FLOWVM_ASSIGN_OR_RETURN(p.compression_type, ScalarInput<std::string>(ctx, compression_input, "compression_type"));
      FLOWVM_RETURN_IF_ERROR(ValidateCompressionType(p.compression_type));
    }
    FLOWVM_ASSIGN_OR_RETURN(p.buffer_size, ScalarInput<int64_t>(ctx, buffer_input, "buffer_size"));
    if (p.buffer_size < 0) return errors::InvalidArgument("`buffer_size` must be >= 0 (0 == no buffering)");
    p.access = FileAccessFor(*ctx);
    return p;
  }
};

template <typename D>
class StreamDatasetOp : public FileDatasetOp {
 public:
  using FileDatasetOp::FileDatasetOp;

 protected:
  StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    FLOWVM_ASSIGN_OR_RETURN(FileDatasetParams p, CommonParams(ctx, 1, 2));
    return DatasetPtr(std::make_shared<D>(name(), std::move(p)));
  }
};

class FixedLengthRecordDatasetOp : public FileDatasetOp {
 public:
  using FileDatasetOp::FileDatasetOp;

 protected:
  StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    const bool v2 = ctx->num_inputs() > 5;
    FLOWVM_ASSIGN_OR_RETURN(FileDatasetParams p, CommonParams(ctx, v2 ? 5 : -1, 4));
    FLOWVM_ASSIGN_OR_RETURN(int64_t header, ScalarInput<int64_t>(ctx, 1, "header_bytes"));
    FLOWVM_ASSIGN_OR_RETURN(int64_t record, ScalarInput<int64_t>(ctx, 2, "record_bytes"));
    FLOWVM_ASSIGN_OR_RETURN(int64_t footer, ScalarInput<int64_t>(ctx, 3, "footer_bytes"));
    if (header < 0) return errors::InvalidArgument("`header_bytes` must be >= 0");
    if (record <= 0) return errors::InvalidArgument("`record_bytes` must be > 0");
    if (footer < 0) return errors::InvalidArgument("`footer_bytes` must be >= 0");
    return DatasetPtr(std::make_shared<FixedLengthRecordDataset>(
        name(), std::move(p), header, record, footer, v2 ? "FixedLengthRecordDatasetV2" : "FixedLengthRecordDataset"));
  }
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("TFRecordDataset").Device(DEVICE_CPU), StreamDatasetOp<TFRecordDataset>);
REGISTER_KERNEL_BUILDER(Name("TextLineDataset").Device(DEVICE_CPU), StreamDatasetOp<TextLineDataset>);
REGISTER_KERNEL_BUILDER(Name("FixedLengthRecordDataset").Device(DEVICE_CPU), FixedLengthRecordDatasetOp);
REGISTER_KERNEL_BUILDER(Name("FixedLengthRecordDatasetV2").Device(DEVICE_CPU), FixedLengthRecordDatasetOp);

}  // namespace flowvm::data

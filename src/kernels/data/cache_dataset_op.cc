// CacheDataset: the first pass that reads the input to its end keeps its
// elements; later iterators read them back instead of the input.
//
// filename "": kept in memory, in the dataset object (a pass abandoned
// before the end keeps nothing). Otherwise kept in the file
// `<filename>.flowvm_cache`: TFRecord framing (CRC32C on every record), a
// header record naming the format and the dtypes, then one record per
// component of each element, a serialized TensorProto. A pass writes a
// temporary file and renames it into place only once complete, so a file
// that exists is whole; its records are still checked as they are read
// (DataLoss naming the file and offset). Files go through the device's path
// policy.
#include <filesystem>
#include <mutex>

#include "core/file_util.h"
#include "flowvm/record_io.h"
#include "flowvm/tensor.pb.h"
#include "kernels/data/dataset_op_kernel.h"
#include "kernels/framework/file_access.h"
#include "kernels/framework/kernel_registry.h"

namespace flowvm::data {
namespace {

constexpr const char* kCacheSuffix = ".flowvm_cache";
constexpr const char* kMagic = "flowvm dataset cache v1";

using Element = std::vector<Tensor>;

std::string HeaderFor(const DataTypeVector& types) {
  std::string h = kMagic;
  for (DataType t : types) h += " " + DataTypeName(t);
  return h;
}

struct MemoryCache {
  std::mutex mu;
  bool complete = false;           // guarded by mu
  std::vector<Element> elements;  // immutable once complete
};

class CacheDataset : public UnaryDataset {
 public:
  CacheDataset(std::string node, DatasetPtr input, std::string filename, FileAccessChecker access,
               std::vector<PartialTensorShape> shapes)
      : UnaryDataset(std::move(node), std::move(input), std::move(shapes)),
        path_(filename.empty() ? std::string() : filename + kCacheSuffix),
        access_(std::move(access)) {}
  const char* op() const override { return "CacheDataset"; }

  StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(IteratorContext* ctx) const override {
    if (path_.empty()) {
      std::lock_guard<std::mutex> lock(memory_.mu);
      if (memory_.complete) return std::unique_ptr<IteratorBase>(new MemoryReader(ctx, this));
    } else {
      std::error_code ec;
      if (std::filesystem::exists(path_, ec)) {
        FLOWVM_RETURN_IF_ERROR(access_.Check(path_, PathAccess::kRead));
        auto reader = RecordReader::Open(path_);
        if (!reader.ok()) return reader.status().WithContext(DebugString());
        auto it = std::make_unique<FileReader>(ctx, this, std::move(*reader));
        FLOWVM_RETURN_IF_ERROR(it->ReadHeader());
        return std::unique_ptr<IteratorBase>(std::move(it));
      }
    }
    FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<IteratorBase> input, input()->MakeIterator(ctx));
    return std::unique_ptr<IteratorBase>(new Writer(ctx, this, std::move(input)));
  }

 private:
  class MemoryReader : public DatasetIterator<CacheDataset> {
   public:
    using DatasetIterator::DatasetIterator;
    Status GetNext(std::vector<Tensor>* out, bool* end_of_sequence) override {
      const auto& elements = dataset()->memory_.elements;
      *end_of_sequence = next_ >= elements.size();
      if (!*end_of_sequence) *out = elements[next_++];
      return Status::OK();
    }

   private:
    size_t next_ = 0;
  };

  class FileReader : public DatasetIterator<CacheDataset> {
   public:
    FileReader(IteratorContext* ctx, const CacheDataset* d, std::unique_ptr<RecordReader> reader)
        : DatasetIterator(ctx, d), reader_(std::move(reader)) {}
    Status ReadHeader() {
      std::string header;
      FLOWVM_RETURN_IF_ERROR(Read(&header));
      const std::string want = HeaderFor(dataset()->output_dtypes());
      if (header != want)
        return errors::InvalidArgument(dataset()->DebugString(), ": the cache file ", reader_->path(), " holds '",
                                       header, "', but this dataset caches '", want,
                                       "'; remove the file or use another filename");
      return Status::OK();
    }
    Status GetNext(std::vector<Tensor>* out, bool* end_of_sequence) override {
      *end_of_sequence = offset_ >= reader_->size();
      if (*end_of_sequence) return Status::OK();
      out->clear();
      for (size_t c = 0; c < dataset()->output_dtypes().size(); ++c) {
        const uint64_t at = offset_;
        std::string record;
        FLOWVM_RETURN_IF_ERROR(Read(&record));
        TensorProto proto;
        if (!proto.ParseFromString(record))
          return errors::DataLoss("cache file ", reader_->path(), ": the record at offset ", at,
                                  " is not a tensor");
        auto t = Tensor::FromProto(proto);
        if (!t.ok()) return errors::DataLoss("cache file ", reader_->path(), " at offset ", at, ": ", t.status().message());
        out->push_back(std::move(*t));
      }
      return Status::OK();
    }

   private:
    Status Read(std::string* record) {
      Status s = reader_->ReadRecord(&offset_, record);
      if (s.code() == Code::kOutOfRange)
        return errors::DataLoss("cache file ", reader_->path(), " ends inside an element at offset ", offset_);
      return s;
    }
    std::unique_ptr<RecordReader> reader_;
    uint64_t offset_ = 0;
  };

  // Reads the input, passing its elements on and keeping them; commits the
  // cache when the input ends.
  class Writer : public DatasetIterator<CacheDataset> {
   public:
    Writer(IteratorContext* ctx, const CacheDataset* d, std::unique_ptr<IteratorBase> input)
        : DatasetIterator(ctx, d), input_(std::move(input)) {}
    ~Writer() override {
      if (file_ != nullptr) {
        file_.reset();
        RemoveFileQuietly(tmp_path_);
      }
    }
    Status GetNext(std::vector<Tensor>* out, bool* end_of_sequence) override {
      const CacheDataset* d = dataset();
      FLOWVM_RETURN_IF_ERROR(input_->GetNext(out, end_of_sequence));
      if (failed_) return Status::OK();  // the cache is given up; the elements still flow
      if (*end_of_sequence) return Commit();
      if (d->path_.empty()) {
        kept_.push_back(*out);
        return Status::OK();
      }
      Status s = WriteElement(*out);
      if (!s.ok()) {
        failed_ = true;
        return s.WithContext(d->DebugString() + ", writing its cache");
      }
      return Status::OK();
    }

   private:
    Status WriteElement(const std::vector<Tensor>& element) {
      const CacheDataset* d = dataset();
      if (file_ == nullptr) {
        tmp_path_ = d->path_ + ".tmp-" + RandomHex64();
        FLOWVM_RETURN_IF_ERROR(d->access_.Check(d->path_, PathAccess::kWrite));
        FLOWVM_RETURN_IF_ERROR(d->access_.Check(tmp_path_, PathAccess::kWrite));
        FLOWVM_ASSIGN_OR_RETURN(file_, RecordWriter::Create(tmp_path_));
        FLOWVM_RETURN_IF_ERROR(file_->Write(HeaderFor(d->output_dtypes())));
      }
      for (const Tensor& t : element) {
        if (!DataTypeIsSerializable(t.dtype()))
          return errors::Unimplemented("cannot cache a ", DataTypeName(t.dtype()), " tensor in a file");
        TensorProto proto;
        t.AsProtoTensorContent(&proto);
        FLOWVM_RETURN_IF_ERROR(file_->Write(proto.SerializeAsString()));
      }
      return Status::OK();
    }

    Status Commit() {
      const CacheDataset* d = dataset();
      if (d->path_.empty()) {
        std::lock_guard<std::mutex> lock(d->memory_.mu);
        if (!d->memory_.complete) {
          d->memory_.elements = std::move(kept_);
          d->memory_.complete = true;
        }
        return Status::OK();
      }
      if (file_ == nullptr) FLOWVM_RETURN_IF_ERROR(WriteElement({}));  // an empty input: header only
      Status s = file_->Flush();
      if (s.ok()) s = file_->Close();
      if (s.ok()) s = RenameFile(tmp_path_, d->path_);
      file_.reset();
      if (!s.ok()) {
        RemoveFileQuietly(tmp_path_);
        failed_ = true;
        return s.WithContext(d->DebugString() + ", writing its cache");
      }
      return Status::OK();
    }

    std::unique_ptr<IteratorBase> input_;
    std::vector<Element> kept_;  // the memory cache's pass
    std::unique_ptr<RecordWriter> file_;
    std::string tmp_path_;
    bool failed_ = false;
  };

  const std::string path_;  // "" for the memory cache
  const FileAccessChecker access_;
  mutable MemoryCache memory_;
};

class CacheDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 protected:
  StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    FLOWVM_ASSIGN_OR_RETURN(DatasetPtr input, InputDataset(ctx, 0));
    FLOWVM_ASSIGN_OR_RETURN(std::string filename, ScalarInput<std::string>(ctx, 1, "filename"));
    FLOWVM_RETURN_IF_ERROR(CheckDatasetMatches(*input, output_types(), {}, Describe()));
    return DatasetPtr(
        std::make_shared<CacheDataset>(name(), std::move(input), filename, FileAccessFor(*ctx), output_shapes()));
  }
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("CacheDataset").Device(DEVICE_CPU), CacheDatasetOp);

}  // namespace flowvm::data

// What the file sources (TFRecordDataset, TextLineDataset,
// FixedLengthRecordDataset) share: a list of files read one after the
// other, each opened only when reached, through the device's path policy
// (kernels/framework/file_access.h), as a stream (input_stream.h). Each
// element is one scalar string.
#ifndef FLOWVM_KERNELS_DATA_FILE_DATASET_H_
#define FLOWVM_KERNELS_DATA_FILE_DATASET_H_

#include <memory>
#include <string>
#include <vector>

#include "kernels/data/dataset.h"
#include "kernels/data/input_stream.h"
#include "kernels/framework/file_access.h"

namespace flowvm::data {

struct FileDatasetParams {
  std::vector<std::string> filenames;
  std::string compression_type;
  int64_t buffer_size = 0;
  FileAccessChecker access;  // of the node that made the dataset
};

class FileDataset : public DatasetBase {
 public:
  FileDataset(std::string node, FileDatasetParams params)
      : DatasetBase(std::move(node), {DT_STRING}, {PartialTensorShape(std::initializer_list<int64_t>{})}),
        params_(std::move(params)) {}
  const FileDatasetParams& params() const { return params_; }

 private:
  const FileDatasetParams params_;
};

// An iterator over the files of a FileDataset of type D; subclasses read
// one record of the open file.
template <typename D>
class FileIterator : public DatasetIterator<D> {
 public:
  using DatasetIterator<D>::DatasetIterator;

  Status GetNext(std::vector<Tensor>* out, bool* end_of_sequence) override {
    const FileDatasetParams& p = this->dataset()->params();
    while (true) {
      if (this->ctx()->cancelled()) return errors::Cancelled("reading ", this->dataset()->DebugString(), " was cancelled");
      if (stream_ == nullptr) {
        if (next_file_ >= p.filenames.size()) {
          *end_of_sequence = true;
          return Status::OK();
        }
        const std::string& path = p.filenames[next_file_++];
        FLOWVM_RETURN_IF_ERROR(p.access.Check(path, PathAccess::kRead));
        auto opened = InputStream::Open(path, p.compression_type, p.buffer_size);
        if (!opened.ok()) return opened.status().WithContext(this->dataset()->DebugString());
        stream_ = std::move(*opened);
        FLOWVM_RETURN_IF_ERROR(StartFile(stream_.get()));
      }
      std::string record;
      bool got = false;
      Status s = ReadRecord(stream_.get(), &record, &got);
      if (!s.ok()) {
        stream_.reset();  // the rest of a damaged file cannot be trusted
        return s;
      }
      if (got) {
        out->assign(1, Tensor::Scalar<std::string>(std::move(record)));
        *end_of_sequence = false;
        return Status::OK();
      }
      stream_.reset();
    }
  }

 protected:
  // Called once per file after it opens (a header to skip).
  virtual Status StartFile(InputStream*) { return Status::OK(); }
  // The next record of the file; *got false at its end.
  virtual Status ReadRecord(InputStream* in, std::string* record, bool* got) = 0;

 private:
  size_t next_file_ = 0;
  std::unique_ptr<InputStream> stream_;
};

}  // namespace flowvm::data

#endif  // FLOWVM_KERNELS_DATA_FILE_DATASET_H_

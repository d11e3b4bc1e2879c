#include "flowvm/record_io.h"

#include <algorithm>
#include <cstring>

#include "core/file_util.h"
#include "core/record_framing.h"

namespace flowvm {

namespace {

using record_framing::kFooterBytes;
using record_framing::kHeaderBytes;
constexpr size_t kReadAhead = 256 << 10;

}  // namespace

RecordWriter::RecordWriter(std::unique_ptr<WritableFile> file) : file_(std::move(file)) {}
RecordWriter::~RecordWriter() = default;

StatusOr<std::unique_ptr<RecordWriter>> RecordWriter::Create(const std::string& path) {
  FLOWVM_RETURN_IF_ERROR(CreateParentDirs(path));
  FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file, WritableFile::Create(path));
  return std::unique_ptr<RecordWriter>(new RecordWriter(std::move(file)));
}

Status RecordWriter::Write(std::string_view record) {
  char header[kHeaderBytes];
  record_framing::EncodeHeader(record.size(), header);
  char footer[kFooterBytes];
  record_framing::EncodeFooter(record, footer);
  FLOWVM_RETURN_IF_ERROR(file_->Append(header, sizeof(header)));
  FLOWVM_RETURN_IF_ERROR(file_->Append(record));
  return file_->Append(footer, sizeof(footer));
}

Status RecordWriter::Flush() { return file_->Sync(); }
Status RecordWriter::Close() { return file_->Close(); }
const std::string& RecordWriter::path() const { return file_->path(); }

RecordReader::RecordReader(std::unique_ptr<RandomAccessFile> file) : file_(std::move(file)) {}
RecordReader::~RecordReader() = default;

StatusOr<std::unique_ptr<RecordReader>> RecordReader::Open(const std::string& path) {
  FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<RandomAccessFile> file, RandomAccessFile::Open(path));
  return std::unique_ptr<RecordReader>(new RecordReader(std::move(file)));
}

const std::string& RecordReader::path() const { return file_->path(); }
uint64_t RecordReader::size() const { return file_->size(); }

Status RecordReader::Fill(uint64_t offset, size_t n, const char** out) {
  if (offset >= buf_offset_ && offset + n <= buf_offset_ + buf_.size()) {
    *out = buf_.data() + (offset - buf_offset_);
    return Status::OK();
  }
  if (offset + n > file_->size())
    return errors::DataLoss("record file ", file_->path(), " ends at byte ", file_->size(),
                            " inside a record (truncated?)");
  const size_t want = static_cast<size_t>(std::min<uint64_t>(std::max(n, kReadAhead), file_->size() - offset));
  buf_.resize(want);
  FLOWVM_RETURN_IF_ERROR(file_->Read(offset, want, buf_.data()));
  buf_offset_ = offset;
  *out = buf_.data();
  return Status::OK();
}

Status RecordReader::ReadRecord(uint64_t* offset, std::string* record) {
  const uint64_t at = *offset;
  if (at >= file_->size()) return errors::OutOfRange("end of record file ", file_->path());
  const char* header;
  FLOWVM_RETURN_IF_ERROR(Fill(at, kHeaderBytes, &header));
  uint64_t length = 0;
  if (!record_framing::DecodeHeader(header, &length))
    return errors::DataLoss("corrupted record length in ", file_->path(), " at offset ", at);
  if (length > file_->size() - at - kHeaderBytes)
    return errors::DataLoss("record file ", file_->path(), " ends inside the record at offset ", at, " (",
                            length, " bytes declared)");
  const char* data;
  FLOWVM_RETURN_IF_ERROR(Fill(at + kHeaderBytes, static_cast<size_t>(length) + kFooterBytes, &data));
  if (!record_framing::DataMatchesFooter(data, length))
    return errors::DataLoss("corrupted record in ", file_->path(), " at offset ", at, " (data CRC mismatch)");
  record->assign(data, static_cast<size_t>(length));
  *offset = at + kHeaderBytes + length + kFooterBytes;
  return Status::OK();
}

}  // namespace flowvm

// TFRecord files, byte-compatible with TensorFlow's: each record is
//   uint64 length (little-endian) | uint32 masked CRC32C of those 8 bytes |
//   data | uint32 masked CRC32C of the data
// (shared/spec/formats.md). Input pipelines read them (TFRecordReaderV2),
// event files use the same framing, and `flowvm records FILE` lists or
// checks one.
//
// Errors name the file and, for bad records, the byte offset: a missing
// file is NotFound, a CRC mismatch or a record cut short DataLoss, a full
// disk ResourceExhausted. Neither class is thread-safe.
#ifndef FLOWVM_RECORD_IO_H_
#define FLOWVM_RECORD_IO_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "flowvm/status.h"

namespace flowvm {

class WritableFile;
class RandomAccessFile;

class RecordWriter {
 public:
  // Creates `path` (which must not exist) and its parent directories.
  static StatusOr<std::unique_ptr<RecordWriter>> Create(const std::string& path);
  ~RecordWriter();  // closes without syncing
  RecordWriter(const RecordWriter&) = delete;
  RecordWriter& operator=(const RecordWriter&) = delete;

  Status Write(std::string_view record);
  // Makes every record written so far durable (fsync).
  Status Flush();
  Status Close();
  const std::string& path() const;

 private:
  explicit RecordWriter(std::unique_ptr<WritableFile> file);
  std::unique_ptr<WritableFile> file_;
};

class RecordReader {
 public:
  static StatusOr<std::unique_ptr<RecordReader>> Open(const std::string& path);
  ~RecordReader();
  RecordReader(const RecordReader&) = delete;
  RecordReader& operator=(const RecordReader&) = delete;

  // The record at `*offset` into `record`, and `*offset` moved past it.
  // OutOfRange at the end of the file; DataLoss ("... at offset N") for a
  // corrupted or truncated record, leaving `*offset` where it was.
  Status ReadRecord(uint64_t* offset, std::string* record);
  const std::string& path() const;
  uint64_t size() const;  // the file's size when opened

 private:
  explicit RecordReader(std::unique_ptr<RandomAccessFile> file);
  // Makes [offset, offset + n) available in buf_; DataLoss if the file
  // ends first.
  Status Fill(uint64_t offset, size_t n, const char** out);

  std::unique_ptr<RandomAccessFile> file_;
  std::string buf_;
  uint64_t buf_offset_ = 0;
};

}  // namespace flowvm

#endif  // FLOWVM_RECORD_IO_H_

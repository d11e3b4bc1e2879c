// InputStream: a file read front to back through a buffer of `buffer_size`
// bytes, optionally decompressed on the fly (TensorFlow's compression
// types: "" none, "ZLIB" a zlib stream, "GZIP" a gzip file; concatenated
// streams are read one after the other). File-based datasets read through
// it, so a file never sits in memory whole. Not thread-safe.
//
// Errors name the file: a missing file is NotFound, a corrupt compressed
// stream DataLoss with the compressed byte offset, an unknown compression
// type InvalidArgument.
#ifndef FLOWVM_KERNELS_DATA_INPUT_STREAM_H_
#define FLOWVM_KERNELS_DATA_INPUT_STREAM_H_

#include <cstdint>
#include <memory>
#include <string>

#include "flowvm/status.h"

namespace flowvm::data {

// OK for "", "ZLIB" and "GZIP"; else TensorFlow's InvalidArgument.
Status ValidateCompressionType(const std::string& compression_type);

// Where the bytes come from: a file, or a decompressor over one.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Up to n bytes into dst; *got == 0 only at the end.
  virtual Status Fill(char* dst, size_t n, size_t* got) = 0;
};

class InputStream {
 public:
  // `buffer_size`: bytes read from the file at a time (<= 0: 256 KiB).
  static StatusOr<std::unique_ptr<InputStream>> Open(const std::string& path, const std::string& compression_type,
                                                     int64_t buffer_size);

  // Appends up to n bytes to *out; fewer only at the end of the stream
  // (*got says how many).
  Status Read(size_t n, std::string* out, size_t* got);
  // The next line without its "\n" (or "\r\n") into *line; *got_line false
  // at the end of the stream. A last line without a newline still counts.
  Status ReadLine(std::string* line, bool* got_line);

  // Bytes of the (decompressed) stream consumed so far.
  uint64_t position() const { return position_; }
  const std::string& path() const { return path_; }

  InputStream(std::string path, std::unique_ptr<ByteSource> source, size_t chunk)
      : path_(std::move(path)), source_(std::move(source)), chunk_(chunk) {}

 private:
  // Makes buf_ hold unread bytes unless the stream has ended.
  Status Refill();

  const std::string path_;
  const std::unique_ptr<ByteSource> source_;
  const size_t chunk_;
  std::string buf_;
  size_t pos_ = 0, end_ = 0;  // unread bytes are buf_[pos_, end_)
  bool eof_ = false;
  uint64_t position_ = 0;
};

}  // namespace flowvm::data

#endif  // FLOWVM_KERNELS_DATA_INPUT_STREAM_H_

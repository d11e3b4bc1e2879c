// Reading event files (events.out.tfevents.*: TFRecord-framed Event protos)
// while a writer may still be appending to them, as a board tails a run.
//
// A record that is not all there yet (the end of the file, or a last record
// cut short by a writer that has not finished it, or that crashed) is never
// an error: Next() says OutOfRange and a later call, after the file grew,
// continues from the same offset. Damage is DataLoss naming the file and the
// byte offset:
// - a complete record whose data CRC does not match, or whose data does not
//   parse as an Event, or that is over 2 GiB (no Event is; it is not read),
//   is skipped: the next call reads the record after it;
// - a header whose length CRC does not match leaves nowhere to go on from:
//   the reader stops there, and every later call returns the same DataLoss.
//
// Reading is incremental: each call stats the open file and reads only the
// bytes past the offset it has reached (with a read-ahead buffer), never the
// whole file again. The bytes past the last whole record are read afresh
// each time, since a writer may cut a failed write back and write again.
// An I/O error (EIO) is returned as such and the offset stays: a later call
// tries again.
#ifndef FLOWVM_EVENT_READER_H_
#define FLOWVM_EVENT_READER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "flowvm/event.pb.h"
#include "flowvm/status.h"

namespace flowvm {

// True for a file name (not a path) of an event file: "events.out.tfevents."
// followed by anything.
bool IsEventFileName(const std::string& name);

// The paths ("dir/name") of the event files directly in `dir` (regular files
// only, no recursion), sorted by name, which is time order for files named
// events.out.tfevents.<time>.<host>. NotFound if `dir` does not exist,
// FailedPrecondition if it is not a directory.
StatusOr<std::vector<std::string>> ListEventFiles(const std::string& dir);

// One event file, read front to back. Keeps the file open. Not thread-safe
// (thread-compatible): one thread at a time may call it.
class EventFileReader {
 public:
  // NotFound (naming the path) if the file does not exist.
  static StatusOr<std::unique_ptr<EventFileReader>> Open(const std::string& path);
  ~EventFileReader();
  EventFileReader(const EventFileReader&) = delete;
  EventFileReader& operator=(const EventFileReader&) = delete;

  // The next complete event into `*event`. OutOfRange when no complete
  // record is there yet; DataLoss as described at the top of this file.
  // Never blocks beyond the reads themselves.
  Status Next(Event* event);

  const std::string& path() const { return path_; }
  // The byte offset of the next record to read.
  uint64_t offset() const { return offset_; }
  // True once a bad length CRC has stopped the reader.
  bool stopped() const { return !stopped_status_.ok(); }

 private:
  EventFileReader(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  // Makes [offset, offset + n) readable through *out. OutOfRange if the
  // file does not hold that many bytes (yet).
  Status Fill(uint64_t offset, uint64_t n, const char** out);
  // OutOfRange for a record not (yet) whole at `offset`; drops the buffer.
  Status AtEnd(uint64_t offset);

  std::string path_;
  int fd_;
  uint64_t offset_ = 0;
  uint64_t file_size_ = 0;  // at the last stat
  std::string buf_;         // file bytes [buf_offset_, buf_offset_ + buf_.size())
  uint64_t buf_offset_ = 0;
  Status stopped_status_;
};

}  // namespace flowvm

#endif  // FLOWVM_EVENT_READER_H_

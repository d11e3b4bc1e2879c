// SummaryWriter: writes TensorBoard event files, which `flowvm board` and
// TensorBoard read while they grow.
//
//   auto w = SummaryWriter::Create("/tmp/logs/run1");
//   (*w)->AddScalar("loss", 0.25, step);
//   (*w)->AddHistogram("layer1/weights", weights, step);
//
// The file is <logdir>/events.out.tfevents.<unix seconds>.<hostname><suffix>
// (logdir and its parents are created; should that name exist, the writer
// picks "<hostname>.1<suffix>", ".2", ... and never overwrites a file). It is
// a sequence of TFRecord records (flowvm/record_io.h), each a serialized
// flowvm::Event (flowvm/event.pb.h, TensorFlow's field numbers); the first
// carries file_version "brain.Event:2" and is written and synced by Create.
//
// Adding an event serializes it into a memory buffer: no system call, no
// fsync. The buffer goes to the file, whole records at a time, when
// max_queue events are pending (by a background thread), every
// flush_interval_ms (the same thread), and on Flush and Close. So a crash
// loses at most the pending events and leaves at most the last record torn,
// which readers skip.
//
// Errors: a write that fails (a full disk is ResourceExhausted) is undone
// (the file is cut back to its last whole record, the failed batch dropped)
// and its error, naming the file and how many events were lost, is returned
// once, by the next call; that call still takes its own event. Bad input
// (a summary that does not parse, a non-finite histogram value, an image
// of the wrong type or shape) is InvalidArgument naming the tag. After
// Close every call returns FailedPrecondition.
//
// Thread-safe: any number of threads may add events at once; events from
// one thread are written in the order they were added.
#ifndef FLOWVM_SUMMARY_WRITER_H_
#define FLOWVM_SUMMARY_WRITER_H_

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "flowvm/config.pb.h"
#include "flowvm/event.pb.h"
#include "flowvm/graph.pb.h"
#include "flowvm/status.h"
#include "flowvm/summary.pb.h"
#include "flowvm/tensor.h"

namespace flowvm {

struct SummaryWriterOptions {
  // Pending events are written at least this often (<= 0: only when
  // max_queue is reached, on Flush and on Close).
  int flush_interval_ms = 2000;
  // Pending events that start a write (at least 1). Large by default: a
  // trainer adds several scalars a step, and each write wakes a thread and
  // makes a system call; the timer keeps the file fresh all the same.
  int max_queue = 1000;
  // Appended to the file name, e.g. ".v2" or ".chief".
  std::string filename_suffix;
};

class SummaryWriter {
 public:
  // Creates the event file and writes its file_version event. Errors name
  // the directory or file (NotFound, PermissionDenied, ResourceExhausted).
  static StatusOr<std::unique_ptr<SummaryWriter>> Create(const std::string& logdir,
                                                         SummaryWriterOptions options = {});
  // Closes (flushing and syncing), dropping any error.
  ~SummaryWriter();
  SummaryWriter(const SummaryWriter&) = delete;
  SummaryWriter& operator=(const SummaryWriter&) = delete;

  // Queues `e`; its wall_time is set to now if 0.
  Status AddEvent(Event e);
  Status AddSummary(const Summary& summary, int64_t step);
  // `bytes` is a serialized Summary (what a summary op outputs).
  // InvalidArgument if it does not parse.
  Status AddSerializedSummary(std::string_view bytes, int64_t step);
  // A simple_value (float, as TensorFlow stores scalars).
  Status AddScalar(const std::string& tag, double value, int64_t step);
  // Several scalars of one step in one event (one Summary with a value per
  // tag, as a merged summary op writes them): what a trainer adds every
  // step, at a fraction of the cost of one event each.
  struct Scalar {
    std::string_view tag;
    double value;
  };
  Status AddScalars(std::initializer_list<Scalar> scalars, int64_t step);
  Status AddScalars(const Scalar* scalars, size_t count, int64_t step);
  // A histogram of every element of `values`, a tensor of any real number
  // type, in TensorFlow's buckets (as HistogramSummary builds it).
  Status AddHistogram(const std::string& tag, const Tensor& values, int64_t step);
  // A PNG of `image`, uint8 [height, width, channels] with 1 to 4 channels
  // (gray, gray + alpha, RGB, RGBA).
  Status AddImage(const std::string& tag, const Tensor& image, int64_t step);
  // The graph, as Event.graph_def (step 0), which the board draws.
  Status AddGraph(const GraphDef& graph);
  // A traced step's metadata, as Event.tagged_run_metadata.
  Status AddRunMetadata(const std::string& tag, const RunMetadata& metadata, int64_t step);

  // Writes every pending event and fsyncs the file.
  Status Flush();
  // Flushes, stops the background thread and closes the file. Later calls,
  // Close included, return FailedPrecondition.
  Status Close();

  const std::string& path() const { return path_; }

 private:
  SummaryWriter(std::string path, int fd, uint64_t size, SummaryWriterOptions options);
  // Frames `e` as a record into the pending buffer.
  Status Enqueue(const Event& e);
  Status EnqueueSerialized(std::string_view event_bytes);
  // InvalidArgument naming the tag (escaped) if it is not UTF-8.
  Status CheckTag(std::string_view tag) const;
  // Writes the pending buffer to the file (and fsyncs if `sync`). Returns
  // the error of this write or one stashed by an earlier background write.
  Status WritePending(bool sync);
  // Writes `records` whole at the end of the file, or cuts the file back.
  Status WriteRecords(const std::string& records, int events);
  Status TakeError();  // REQUIRES: mu_ held
  void FlushLoop();

  const std::string path_;
  const SummaryWriterOptions options_;

  // Held while writing to the file, so batches land in the order they
  // were taken from the buffer. Taken before mu_, never after.
  std::mutex io_mu_;
  int fd_;          // guarded by io_mu_; -1 once closed
  uint64_t size_;   // guarded by io_mu_: bytes of whole records in the file

  std::mutex mu_;
  std::condition_variable wake_;  // the flush thread: work to do, or stop
  std::string pending_;           // guarded by mu_: framed records
  int pending_events_ = 0;        // guarded by mu_
  Status error_;                  // guarded by mu_: a write error not yet returned
  bool closed_ = false;           // guarded by mu_
  bool stop_ = false;             // guarded by mu_
  std::thread flusher_;
};

}  // namespace flowvm

#endif  // FLOWVM_SUMMARY_WRITER_H_

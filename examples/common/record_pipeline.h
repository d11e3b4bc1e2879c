// An input pipeline for the example trainers (paper 4.5, Figure 1 of the
// OSDI paper): a dataset written as TFRecord shards, a queue of their file
// names that a queue runner refills epoch after epoch, a reader and a
// decoder run by a second queue-runner thread as concurrent steps that fill
// a shuffling queue of examples, and a third that takes batches out of it,
// eight at a time, into a queue of batches that training dequeues.
#ifndef FLOWVM_EXAMPLES_COMMON_RECORD_PIPELINE_H_
#define FLOWVM_EXAMPLES_COMMON_RECORD_PIPELINE_H_

#include <memory>
#include <string>
#include <vector>

#include "common/datasets.h"
#include "flowvm/cc/ops.h"
#include "flowvm/cc/queue_runner.h"

namespace flowvm::examples {

// Writes `data` (flat images) as `shards` TFRecord files in `dir`, one
// record per example: its pixels and then its label, as float32 bytes.
// Returns the file names. Existing shards of the same size are kept.
StatusOr<std::vector<std::string>> WriteExampleRecords(const Dataset& data, const std::string& dir, int shards);

struct RecordPipeline {
  Output images;  // [batch, pixels] float32, dequeued
  Output labels;  // [batch] int32
  std::vector<std::unique_ptr<QueueRunner>> runners;
};

// Builds the pipeline under `scope` ("input/..."): batches of `batch_size`
// from `files`, shuffled with `seed` (min_after_dequeue 500). When the
// files end (a closed file-name queue), the last examples that do not fill
// eight batches are dropped.
Status BuildRecordPipeline(const Scope& scope, const std::vector<std::string>& files, int64_t pixels,
                           int64_t batch_size, int64_t seed, RecordPipeline* out);

}  // namespace flowvm::examples

#endif  // FLOWVM_EXAMPLES_COMMON_RECORD_PIPELINE_H_

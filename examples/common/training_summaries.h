// TrainingSummaries: what a training example writes for `flowvm board` (and
// TensorBoard) when given --logdir DIR:
// - the graph, once, at the start;
// - "loss", "accuracy", "learning_rate" and "examples_per_sec" every
//   --summary-every steps (default 1), from what the step fetched anyway:
//   no graph work, so a summary every step costs well under 2% of the
//   digits step (bench/run_summary_bench.sh);
// - a histogram of every trainable variable ("weights/<name>"), and the
//   first images of the batch ("inputs") where the trainer says their shape, every
//   --histogram-every steps (default 500), from HistogramSummary ops in the
//   graph, merged by MergeSummary and fetched with the training step;
// - the RunMetadata (step statistics of every device; the first one also
//   the partition graphs, which give the board the placement) of one step
//   every --trace-every steps (default 500; 0: never), tagged "step_<N>",
//   for the board's trace view;
// - "test_accuracy" and "test_loss" at the end.
// The writer's file is events.out.tfevents.<time>.<host> in DIR.
//
// Use: Create before the session's first Run; each step, call BeforeStep,
// run with the fetches and options it gave, then call AfterStep with the
// outputs. Not thread-safe: one training loop.
#ifndef FLOWVM_EXAMPLES_COMMON_TRAINING_SUMMARIES_H_
#define FLOWVM_EXAMPLES_COMMON_TRAINING_SUMMARIES_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "flowvm/cc/ops.h"
#include "flowvm/cc/scope.h"
#include "flowvm/config.pb.h"
#include "flowvm/summary_writer.h"

namespace flowvm::examples {

struct SummaryOptions {
  std::string logdir;  // "": write nothing
  int64_t summary_every = 1;
  int64_t histogram_every = 500;
  int64_t trace_every = 500;
  double learning_rate = 0;  // reported as "learning_rate"
  // With both set, the first 3 images of the batch are written as "inputs"
  // (ImageSummary, grayscale) with the histograms.
  int64_t image_height = 0, image_width = 0;
};

class TrainingSummaries {
 public:
  // Adds the histogram ops of the trainable variables to `root` (under the
  // name scope "summaries"), and the image summary of `images` (a batch of
  // flat images, [batch, height * width]) where the options ask for it;
  // creates the event file and writes the graph.
  static StatusOr<std::unique_ptr<TrainingSummaries>> Create(const Scope& root, const SummaryOptions& options,
                                                             Output images = Output());

  // Before the step at global step `step` (the value before it runs):
  // appends what is due to `fetches` (after the step's own) and returns the
  // run options (traced when a trace is due; the first trace asks for the
  // partition graphs too).
  RunOptions BeforeStep(int64_t step, std::vector<Output>* fetches) const;
  // After it: its mean loss, batch accuracy and examples (the throughput
  // reported is over the steps since the previous summary), the Run's
  // outputs (`outputs[own...]` are what BeforeStep added) and metadata.
  struct StepResult {
    double loss = 0, accuracy = 0;
    int64_t examples = 0;
  };
  Status AfterStep(int64_t step, const StepResult& result, const std::vector<Tensor>& outputs, size_t own,
                   const RunMetadata& metadata);
  Status AddTestResult(int64_t step, double accuracy, double loss);
  Status Close();

  const std::string& path() const { return writer_->path(); }

 private:
  TrainingSummaries() = default;
  bool Due(int64_t step, int64_t every) const { return every > 0 && step % every == 0; }

  SummaryOptions options_;
  Output histograms_;  // merged HistogramSummary of the weights and ImageSummary of the inputs (may be unset)
  std::unique_ptr<SummaryWriter> writer_;
  // Examples since the previous summary, and when that was (the throughput
  // of traced steps is left out: tracing slows them).
  int64_t examples_since_ = 0;
  std::chrono::steady_clock::time_point since_;
  bool have_since_ = false;
  bool traced_ = false;  // a traced step's metadata (with partition graphs) was written
};

}  // namespace flowvm::examples

#endif  // FLOWVM_EXAMPLES_COMMON_TRAINING_SUMMARIES_H_

// Trains a multilayer perceptron on the 1,797 8x8 handwritten digits that
// Debian's python3-sklearn ships (read straight from its digits.csv.gz) and
// reports its accuracy on a held-out fifth of them. The README's first
// command runs it.
//
//   flowvm_digits [--steps 1500] [--batch 32] [--lr 0.01] [--optimizer adam]
//                 [--seed 1] [--threads N] [--cpu-devices N] [--checkpoint-dir DIR] [--save-every N]
//                 [--min-accuracy 0.95] [--data digits.csv.gz] [--no-progress] [--records DIR]
//
// With --records DIR the training examples are written to DIR as TFRecord
// shards (once) and training reads them through an input pipeline: queue
// runners read and decode records as concurrent steps that fill a shuffling
// queue, and each training step dequeues its batch (record_pipeline.h).
//
// With --checkpoint-dir it saves every --save-every steps and at the end, and
// a run started again resumes from the newest checkpoint there.
#include <cstdio>

#include "common/record_pipeline.h"
#include "common/train_flags.h"

int main(int argc, char** argv) {
  using namespace flowvm::examples;  // NOLINT: a program
  TrainFlags flags;
  flags.train.steps = 1500;
  flags.train.batch_size = 32;
  flags.model.learning_rate = 0.01f;
  std::string data = kDigitsPath;
  std::string records;
  flowvm::Status s = ParseTrainFlags(argc, argv, &flags, [&](const std::string& flag, const std::string& value) {
    if (flag == "--data") data = value;
    else if (flag == "--records") records = value;
    else return flowvm::StatusOr<bool>(false);
    return flowvm::StatusOr<bool>(true);
  });
  if (!s.ok()) {
    std::fprintf(stderr, "flowvm_digits: %s\n", s.ToString().c_str());
    return 2;
  }
  auto digits = LoadDigits(data);
  if (!digits.ok()) {
    std::fprintf(stderr, "flowvm_digits: %s\n", digits.status().ToString().c_str());
    return 1;
  }
  auto split = SplitTrainTest(*digits, 0.2, /*seed=*/42);
  if (!split.ok()) {
    std::fprintf(stderr, "flowvm_digits: %s\n", split.status().ToString().c_str());
    return 1;
  }
  Classifier model;
  RecordPipeline pipeline;
  if (records.empty()) {
    s = BuildMlp(64, {128}, 10, flags.model, &model);
  } else {
    auto files = WriteExampleRecords(split->train, records, /*shards=*/4);
    s = files.status();
    if (s.ok()) s = BuildRecordPipeline(model.root, *files, 64, flags.train.batch_size, flags.model.seed, &pipeline);
    InputDefaults defaults{pipeline.images, pipeline.labels};
    if (s.ok()) s = BuildMlp(64, {128}, 10, flags.model, &model, &defaults);
    for (auto& r : pipeline.runners) flags.train.queue_runners.push_back(r.get());
  }
  if (!s.ok()) {
    std::fprintf(stderr, "flowvm_digits: %s\n", s.ToString().c_str());
    return 1;
  }
  flags.train.summaries.image_height = 8;
  flags.train.summaries.image_width = 8;
  return TrainAndReport("flowvm_digits", model, split->train, split->test, flags);
}

// Command-line flags shared by the training examples:
//   --steps N  --batch N  --lr X  --optimizer sgd|momentum|adam|adagrad|rmsprop  --seed N
//   --threads N  --cpu-devices N  --checkpoint-dir DIR  --save-every N  --save-every-secs S
//   --keep N  --min-accuracy F  --no-progress
//   --logdir DIR  --summary-every N  --histogram-every N  --trace-every N
//     (event files for `flowvm board`; see training_summaries.h)
// plus program-specific ones handled by `extra`. Errors are InvalidArgument
// naming the flag.
#ifndef FLOWVM_EXAMPLES_COMMON_TRAIN_FLAGS_H_
#define FLOWVM_EXAMPLES_COMMON_TRAIN_FLAGS_H_

#include <functional>
#include <string>

#include "common/classifier.h"

namespace flowvm::examples {

struct TrainFlags {
  TrainOptions train;
  ModelOptions model;
  double min_accuracy = 0;  // exit non-zero below this test accuracy
  bool steps_set = false;   // --steps was given
  bool lr_set = false;      // --lr was given
};

// `extra(flag, value)` returns true if it consumed a flag this parser does
// not know. Flags take their value as "--flag value" or "--flag=value".
Status ParseTrainFlags(int argc, char** argv, TrainFlags* flags,
                       const std::function<StatusOr<bool>(const std::string&, const std::string&)>& extra = {});

// Runs Train, prints the summary line to stdout and returns the exit code
// (0, or 1 when an error occurred or accuracy < min_accuracy).
int TrainAndReport(const char* program, Classifier& model, const Dataset& train, const Dataset& test,
                   const TrainFlags& flags);

}  // namespace flowvm::examples

#endif  // FLOWVM_EXAMPLES_COMMON_TRAIN_FLAGS_H_

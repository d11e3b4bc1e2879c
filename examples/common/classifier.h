// Image classifiers for the example programs, built with the C++ client API
// (flowvm/cc), and the training loop they share: batches from a
// BatchIterator, a progress bar, periodic checkpoints, resuming from the
// newest checkpoint of a directory, and test accuracy at the end.
#ifndef FLOWVM_EXAMPLES_COMMON_CLASSIFIER_H_
#define FLOWVM_EXAMPLES_COMMON_CLASSIFIER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/datasets.h"
#include "common/training_summaries.h"
#include "flowvm/cc/client_session.h"
#include "flowvm/cc/ops.h"
#include "flowvm/cc/queue_runner.h"
#include "flowvm/cc/training.h"

namespace flowvm::examples {

// A classifier graph: images and labels are fed; logits [batch, classes].
struct Classifier {
  Scope root = Scope::NewRootScope();
  Output images, labels;
  Output logits, loss, correct;  // loss: mean cross-entropy; correct: number right (int32)
  Variable global_step;          // int64, incremented by `train`
  Operation train;
  // images and labels default to tensors of the graph (an input pipeline's
  // batches): training runs without feeds; evaluation feeds them.
  bool inputs_have_defaults = false;
};

// Where a classifier's inputs come from when nothing is fed.
struct InputDefaults {
  Output images;
  Output labels;
};

enum class OptimizerKind { kSgd, kMomentum, kAdam, kAdagrad, kRMSProp };

struct ModelOptions {
  OptimizerKind optimizer = OptimizerKind::kAdam;
  float learning_rate = 0.001f;
  int64_t seed = 1;  // weight initialization
};

// The optimizer `options` names, with its learning rate (momentum 0.9 for
// kMomentum; TensorFlow's defaults otherwise).
std::unique_ptr<Optimizer> MakeOptimizer(const ModelOptions& options);

// A fully connected network: inputs -> hidden (ReLU each) -> classes.
// `images` is fed as [batch, inputs].
// With `defaults`, images and labels are PlaceholderWithDefault of them.
Status BuildMlp(int64_t inputs, const std::vector<int64_t>& hidden, int classes, const ModelOptions& options,
                Classifier* model, const InputDefaults* defaults = nullptr);

// conv5x5xC1 -> ReLU -> maxpool 2 -> conv5x5xC2 -> ReLU -> maxpool 2 -> fc F -> ReLU -> fc classes,
// NHWC; `images` is fed as [batch, height, width, 1].
Status BuildConvNet(int64_t height, int64_t width, int64_t c1, int64_t c2, int64_t fc, int classes,
                    const ModelOptions& options, Classifier* model);

struct TrainOptions {
  int64_t steps = 1000;        // global steps in all (a resumed run continues up to it)
  int64_t batch_size = 32;
  uint64_t data_seed = 1;      // batch order
  int threads = 0;             // session threads; 0: one per core
  int cpu_devices = 1;         // CPU devices the session places the model on
  std::string checkpoint_dir;  // "": no checkpoints
  int64_t save_every_steps = 0;
  double save_every_secs = 0;
  int keep_checkpoints = 3;
  bool progress = true;        // progress bar on stderr
  // Started after the variables are initialized, stopped before the test
  // (an input pipeline's; see record_pipeline.h). Not owned.
  std::vector<QueueRunner*> queue_runners;
  // --logdir and friends: event files for `flowvm board` (logdir "": none).
  SummaryOptions summaries;
};

struct TrainResult {
  int64_t resumed_from_step = -1;  // -1: started fresh
  int64_t steps = 0;               // global step at the end
  double final_loss = 0;           // mean training loss of the last (up to 50) steps run
  double train_seconds = 0;        // the training loop's wall time (no setup, no test)
  double test_accuracy = 0;        // fraction of `test` classified right
  double test_loss = 0;            // mean loss over `test`
};

StatusOr<TrainResult> Train(Classifier& model, const Dataset& train, const Dataset& test,
                            const TrainOptions& options);

struct Evaluation {
  double accuracy = 0;  // fraction classified right
  double loss = 0;      // mean cross-entropy
};
// The model's accuracy and loss over `data`, computed in batches.
StatusOr<Evaluation> Evaluate(const Classifier& model, const ClientSession& session, const Dataset& data,
                              int64_t batch_size = 500);

}  // namespace flowvm::examples

#endif  // FLOWVM_EXAMPLES_COMMON_CLASSIFIER_H_

#include "common/classifier.h"

#include <chrono>
#include <memory>

#include "common/batches.h"
#include "common/progress.h"
#include "flowvm/cc/saver.h"

namespace flowvm::examples {

namespace {

Output Dense(const Scope& s, const Output& x, int64_t in, int64_t out, int64_t seed, bool relu) {
  Variable w(s.WithOpName("weights"), {in, out}, DT_FLOAT, init::GlorotUniform(seed));
  Variable b(s.WithOpName("biases"), {out}, DT_FLOAT, init::Zeros());
  Output y = ops::BiasAdd(s, ops::MatMul(s, x, w), b);
  return relu ? Output(ops::Relu(s, y)) : y;
}

// Loss, accuracy count, global step and the optimizer's train op.
Status Finish(const Output& logits, const ModelOptions& options, Classifier* m) {
  Scope& root = m->root;
  m->logits = logits;
  auto xent = ops::SparseSoftmaxCrossEntropyWithLogits(root.NewSubScope("xent"), logits, m->labels);
  m->loss = ops::Mean(root.WithOpName("loss"), xent.loss, {0});
  auto predicted = ops::ArgMax(root, logits, 1, ops::ArgMax::OutputType(DT_INT32));
  m->correct = ops::Sum(root.WithOpName("correct"),
                        ops::Cast(root, ops::Equal(root, predicted, m->labels), DT_INT32), {0});
  m->global_step = Variable(root.WithOpName("global_step"), {}, DT_INT64, init::Zeros(), /*trainable=*/false);
  std::unique_ptr<Optimizer> opt = MakeOptimizer(options);
  m->train = opt->Minimize(root, m->loss, {}, &m->global_step);
  return root.status();
}

}  // namespace

std::unique_ptr<Optimizer> MakeOptimizer(const ModelOptions& options) {
  switch (options.optimizer) {
    case OptimizerKind::kSgd:
      return std::make_unique<GradientDescentOptimizer>(options.learning_rate);
    case OptimizerKind::kMomentum:
      return std::make_unique<MomentumOptimizer>(options.learning_rate, 0.9f);
    case OptimizerKind::kAdam:
      break;
    case OptimizerKind::kAdagrad:
      return std::make_unique<AdagradOptimizer>(options.learning_rate);
    case OptimizerKind::kRMSProp:
      return std::make_unique<RMSPropOptimizer>(options.learning_rate);
  }
  return std::make_unique<AdamOptimizer>(options.learning_rate);
}

Status BuildMlp(int64_t inputs, const std::vector<int64_t>& hidden, int classes, const ModelOptions& options,
                Classifier* m, const InputDefaults* defaults) {
  if (defaults != nullptr) {
    m->images = ops::PlaceholderWithDefault(m->root.WithOpName("images"), defaults->images,
                                            PartialTensorShape({-1, inputs}));
    m->labels = ops::PlaceholderWithDefault(m->root.WithOpName("labels"), defaults->labels, PartialTensorShape({-1}));
    m->inputs_have_defaults = true;
  } else {
    m->images = ops::Placeholder(m->root.WithOpName("images"), DT_FLOAT,
                                 ops::Placeholder::Shape(PartialTensorShape({-1, inputs})));
    m->labels = ops::Placeholder(m->root.WithOpName("labels"), DT_INT32,
                                 ops::Placeholder::Shape(PartialTensorShape({-1})));
  }
  Output x = m->images;
  int64_t width = inputs;
  for (size_t i = 0; i < hidden.size(); ++i) {
    x = Dense(m->root.NewSubScope("hidden" + std::to_string(i + 1)), x, width, hidden[i], options.seed + i, true);
    width = hidden[i];
  }
  Output logits = Dense(m->root.NewSubScope("logits"), x, width, classes, options.seed + hidden.size(), false);
  return Finish(logits, options, m);
}

Status BuildConvNet(int64_t height, int64_t width, int64_t c1, int64_t c2, int64_t fc, int classes,
                    const ModelOptions& options, Classifier* m) {
  m->images = ops::Placeholder(m->root.WithOpName("images"), DT_FLOAT,
                               ops::Placeholder::Shape(PartialTensorShape({-1, height, width, 1})));
  m->labels = ops::Placeholder(m->root.WithOpName("labels"), DT_INT32,
                               ops::Placeholder::Shape(PartialTensorShape({-1})));
  auto conv_pool = [&](const Scope& s, const Output& x, int64_t in, int64_t out, int64_t seed) -> Output {
    Variable w(s.WithOpName("weights"), {5, 5, in, out}, DT_FLOAT, init::GlorotUniform(seed));
    Variable b(s.WithOpName("biases"), {out}, DT_FLOAT, init::Zeros());
    auto relu = ops::Relu(s, ops::BiasAdd(s, ops::Conv2D(s, x, w, {1, 1, 1, 1}, "SAME"), b));
    return ops::MaxPool(s, relu, {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME");
  };
  Output h1 = conv_pool(m->root.NewSubScope("conv1"), m->images, 1, c1, options.seed);
  Output h2 = conv_pool(m->root.NewSubScope("conv2"), h1, c1, c2, options.seed + 1);
  int64_t flat = ((height + 3) / 4) * ((width + 3) / 4) * c2;
  Output x = ops::Reshape(m->root, h2, Input(Tensor::FromVector<int64_t>({-1, flat})));
  Output f = Dense(m->root.NewSubScope("fc1"), x, flat, fc, options.seed + 2, true);
  Output logits = Dense(m->root.NewSubScope("logits"), f, fc, classes, options.seed + 3, false);
  return Finish(logits, options, m);
}

StatusOr<Evaluation> Evaluate(const Classifier& m, const ClientSession& session, const Dataset& data,
                              int64_t batch_size) {
  int64_t correct = 0;
  double loss = 0;
  for (int64_t start = 0; start < data.size(); start += batch_size) {
    std::vector<int64_t> idx;
    for (int64_t i = start; i < std::min(data.size(), start + batch_size); ++i) idx.push_back(i);
    FLOWVM_ASSIGN_OR_RETURN(Dataset batch, Gather(data, idx));
    std::vector<Tensor> out;
    FLOWVM_RETURN_IF_ERROR(
        session.Run({{m.images, batch.images}, {m.labels, batch.labels}}, {m.correct, m.loss}, &out));
    correct += out[0].scalar<int32_t>();
    loss += static_cast<double>(out[1].scalar<float>()) * static_cast<double>(batch.size());
  }
  Evaluation e;
  if (data.size() > 0) {
    e.accuracy = static_cast<double>(correct) / static_cast<double>(data.size());
    e.loss = loss / static_cast<double>(data.size());
  }
  return e;
}

StatusOr<TrainResult> Train(Classifier& m, const Dataset& train, const Dataset& test, const TrainOptions& options) {
  FLOWVM_RETURN_IF_ERROR(m.root.status());
  SessionOptions session_options;
  session_options.num_threads = options.threads;
  session_options.cpu_devices = options.cpu_devices;
  SaverOptions saver_options;
  saver_options.max_to_keep = options.keep_checkpoints;
  saver_options.save_every_steps = options.save_every_steps;
  saver_options.save_every_secs = options.save_every_secs;
  Saver saver(m.root, saver_options);
  Operation init = GlobalVariablesInitializer(m.root);
  FLOWVM_RETURN_IF_ERROR(m.root.status());
  ClientSession session(m.root, session_options);

  TrainResult result;
  bool restored = false;
  if (!options.checkpoint_dir.empty()) {
    auto latest = Saver::LatestCheckpoint(options.checkpoint_dir);
    if (latest.ok()) {
      FLOWVM_RETURN_IF_ERROR(saver.Restore(session, *latest));
      restored = true;
    } else if (latest.status().code() != Code::kNotFound) {
      return latest.status();
    }
  }
  if (!restored) FLOWVM_RETURN_IF_ERROR(session.Run({}, {}, {init}, nullptr));
  std::vector<Tensor> out;
  FLOWVM_RETURN_IF_ERROR(session.Run({m.global_step}, &out));
  int64_t step = out[0].scalar<int64_t>();
  if (restored) result.resumed_from_step = step;

  FLOWVM_ASSIGN_OR_RETURN(BatchIterator batches, BatchIterator::Create(train, options.batch_size, options.data_seed));
  // An input pipeline's threads run beside training; the first error of any
  // of them ends the run.
  Coordinator coord;
  for (QueueRunner* r : options.queue_runners) FLOWVM_RETURN_IF_ERROR(r->Start(&session, &coord));
  std::unique_ptr<TrainingSummaries> summaries;
  if (!options.summaries.logdir.empty()) {
    FLOWVM_ASSIGN_OR_RETURN(summaries, TrainingSummaries::Create(m.root, options.summaries, m.images));
  }
  std::unique_ptr<ProgressBar> bar;
  if (options.progress) bar = std::make_unique<ProgressBar>(options.steps);
  auto start = std::chrono::steady_clock::now();
  int64_t examples = 0;
  double loss_sum = 0;
  int64_t loss_count = 0;
  bool saved_last = false;
  RunMetadata metadata;
  while (step < options.steps) {
    std::vector<Output> fetches = {m.loss, m.correct};
    RunOptions run_options;
    if (summaries) run_options = summaries->BeforeStep(step, &fetches);
    metadata.Clear();
    if (m.inputs_have_defaults) {
      Status s = session.Run(run_options, {}, fetches, {m.train}, &out, &metadata);
      if (!s.ok()) {
        coord.ReportStatus(s);
        return coord.Join();
      }
    } else {
      FLOWVM_ASSIGN_OR_RETURN(Dataset batch, batches.Batch(step));
      FLOWVM_RETURN_IF_ERROR(session.Run(run_options, {{m.images, batch.images}, {m.labels, batch.labels}}, fetches,
                                         {m.train}, &out, &metadata));
    }
    examples += options.batch_size;
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    double loss = out[0].scalar<float>();
    double accuracy = static_cast<double>(out[1].scalar<int32_t>()) / static_cast<double>(options.batch_size);
    if (summaries)
      FLOWVM_RETURN_IF_ERROR(summaries->AfterStep(step, {loss, accuracy, options.batch_size}, out, 2, metadata));
    ++step;
    // The mean loss of the last 50 steps is the run's final loss.
    if (options.steps - step < 50) loss_sum += loss, ++loss_count;
    if (bar) {
      bar->Update(step, loss, accuracy, secs > 0 ? examples / secs : 0);
    }
    saved_last = false;
    if (!options.checkpoint_dir.empty()) {
      FLOWVM_ASSIGN_OR_RETURN(std::string saved, saver.MaybeSave(session, options.checkpoint_dir, step));
      saved_last = !saved.empty();
    }
  }
  result.train_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (bar) bar->Finish();
  FLOWVM_RETURN_IF_ERROR(coord.Join());
  if (!options.checkpoint_dir.empty() && !saved_last)
    FLOWVM_RETURN_IF_ERROR(saver.Save(session, options.checkpoint_dir, step).status());
  result.steps = step;
  result.final_loss = loss_count > 0 ? loss_sum / loss_count : 0;
  FLOWVM_ASSIGN_OR_RETURN(Evaluation eval, Evaluate(m, session, test));
  result.test_accuracy = eval.accuracy;
  result.test_loss = eval.loss;
  if (summaries) {
    FLOWVM_RETURN_IF_ERROR(summaries->AddTestResult(step, eval.accuracy, eval.loss));
    FLOWVM_RETURN_IF_ERROR(summaries->Close());
  }
  return result;
}

}  // namespace flowvm::examples

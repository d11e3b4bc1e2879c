// The digits MLP of flowvm_digits trained on a cluster of flowvm servers,
// the three ways the TensorFlow white paper describes (sections 4 and 7):
//
//   --mode sync            synchronous data parallelism, in-graph replication
//                          from one client: each worker task computes the
//                          gradient of its shard of the batch, the parameter
//                          server averages the gradients and applies them once
//                          per step. Same losses as --mode local up to float
//                          rounding (the sums run in another order).
//   --mode async           asynchronous data parallelism, between-graph
//                          replication: the program runs once per worker
//                          (--worker-index I --workers N); each builds the same
//                          graph (variables on /job:ps/task:0, computation on
//                          its own /job:worker/task:I) and trains at its own
//                          pace against the shared variables. Worker 0, the
//                          chief, initializes them; the others wait for that.
//   --mode model-parallel  one model split over tasks: layer k (its variables
//                          and computation) on /job:worker/task:(k mod N).
//   --mode local           the same model in this process: the reference.
//
// Start a cluster with `flowvm cluster up --ps 1 --workers 2` (it prints the
// target), then e.g.
//
//   flowvm_distributed_digits --mode sync --target grpc://127.0.0.1:PORT --workers 2
//
// Batches are a function of the step (common/batches.h), so a sync or
// model-parallel run and a local run with the same flags see the same data.
//
// --mode sync --checkpoint-dir DIR runs the training under a
// TrainingSupervisor (flowvm/cc/supervisor.h): checkpoints every
// --save-every N steps or --save-every-secs S, and when a task dies,
// restarts or hangs, it waits for the cluster to be whole again, restores
// the newest checkpoint and continues. It prints each fault and recovery,
// then the faults survived and the time lost; the final weights (their
// fingerprint is printed) are the same as an undisturbed run's.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/batches.h"
#include "common/progress.h"
#include "common/train_flags.h"
#include "flowvm/cc/client_session.h"
#include "flowvm/cc/gradients.h"
#include "flowvm/cc/ops.h"
#include "flowvm/cc/supervisor.h"
#include "flowvm/cc/training.h"

namespace flowvm::examples {
namespace {

constexpr char kProgram[] = "flowvm_distributed_digits";
constexpr char kPs[] = "/job:ps/task:0";

constexpr char kUsage[] = R"(usage: flowvm_distributed_digits [--mode local|sync|async|model-parallel] [flags]

Trains the MLP of flowvm_digits (64-128-10, Adam, on scikit-learn's 8x8 digits)
on a cluster of flowvm servers and reports its test accuracy. Start a cluster
with `flowvm cluster up --ps 1 --workers 2`; it prints the --target.

modes:
  local           in this process, no cluster: the reference for the others (default)
  sync            synchronous data parallelism from one client: each of --workers worker
                  tasks computes the gradient of its shard of the batch (--batch / N
                  examples); the gradients are averaged on /job:ps/task:0 and applied once
                  per step. Matches --mode local up to float rounding.
  async           asynchronous data parallelism, between-graph: start the program once per
                  worker with --worker-index I --workers N. Each trains against the
                  variables on /job:ps/task:0 at its own pace until the shared global step
                  reaches --steps. Worker 0 (the chief) initializes the variables (or
                  continues from those a previous run left) and reports the test accuracy;
                  the others wait until the variables are initialized.
  model-parallel  one client, the layers on different tasks: layer k (its variables and
                  its computation) on /job:worker/task:(k mod N). Matches --mode local.

cluster flags:
  --target grpc://HOST:PORT  a master of the cluster (any task; required but for local)
  --workers N                worker tasks to use (sync, model-parallel: default 2; async: required)
  --worker-index I           async: this program's worker task, 0 <= I < N
  --init-timeout-ms MS       async, workers other than the chief: how long to wait for the
                             chief to initialize the variables (default 30000)
  --health-check-interval-ms MS, --health-check-timeout-ms MS
                             how often the master checks every task while steps run, and how
                             long a task has to answer before it counts as lost (default
                             2000, 4000)

fault tolerance (--mode sync):
  --checkpoint-dir DIR       train under the supervisor: checkpoints in DIR (made absolute;
                             the chief, /job:worker/task:0, writes them, so it must see DIR at
                             the same path), resumed from the newest at the start, and after a
                             task dies, restarts or hangs: wait for the cluster, restore, go on
  --save-every N             checkpoint every N steps
  --save-every-secs S        checkpoint when S seconds have passed since the last one
  --keep N                   checkpoints kept (default 3)
  --cluster-wait-ms MS       how long to wait for the cluster to be whole after a fault before
                             giving up (default 60000)

model and training flags:
  --hidden N[,N...]  widths of the hidden layers (default 128)
  --steps N          global steps (default 1500; async: all workers' steps together)
  --batch N          examples per step (default 32; sync: divisible by --workers)
  --lr X             learning rate (default 0.01)
  --optimizer sgd|momentum|adam|adagrad|rmsprop   (default adam)
  --seed N           weight initialization and batch order (default 1)
  --threads N        local: session threads (default: one per core)
  --cpu-devices N    local: CPU devices of the session (default 1)
  --min-accuracy F   exit 1 if the test accuracy is below F (a fraction)
  --logdir DIR       event files for `flowvm board` (the chief writes them: the sync client,
                     or async worker 0): loss, accuracy, learning rate, examples/s every
                     --summary-every N steps (1), weight histograms every --histogram-every N
                     (500), a step trace every --trace-every N (500; 0: none)
  --data FILE        the digits (default: python3-sklearn's digits.csv.gz)
  --no-progress      no progress bar
  --help             this text

It prints the loss of the last step, a fingerprint of the trained weights (the same
for runs that must agree bit for bit) and the test accuracy, e.g.
  training loss at step 1500: 0.01234567
  weights fingerprint: 1f3a5c7e9b2d4f60
  test accuracy: 97.21% (359 examples), test loss 0.10102346, 1500 steps
Under the supervisor it also prints "supervisor: ..." lines (each fault, the tasks it
waits for, each recovery) and at the end
  faults survived: 2, steps redone: 14, time lost: 7.3 s (5.1 s waiting for the cluster)
)";

enum class Mode { kLocal, kSync, kAsync, kModelParallel };

struct Flags {
  TrainFlags train;
  Mode mode = Mode::kLocal;
  std::string target;
  int workers = 0;  // 0: not given
  int worker_index = -1;
  int64_t init_timeout_ms = 30000;
  int64_t health_check_interval_ms = 2000;
  int64_t health_check_timeout_ms = 4000;
  int64_t cluster_wait_ms = 60000;
  std::vector<int64_t> hidden = {128};
  std::string data = kDigitsPath;
};

const char* ModeName(Mode m) {
  switch (m) {
    case Mode::kLocal:
      return "local";
    case Mode::kSync:
      return "sync";
    case Mode::kAsync:
      return "async";
    case Mode::kModelParallel:
      return "model-parallel";
  }
  return "?";
}

StatusOr<int64_t> ParseInt(const std::string& flag, const std::string& v) {
  char* end = nullptr;
  long long x = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0') return errors::InvalidArgument(flag, ": '", v, "' is not an integer");
  return static_cast<int64_t>(x);
}

Status ParseFlags(int argc, char** argv, Flags* f) {
  bool threads_or_devices = false;
  FLOWVM_RETURN_IF_ERROR(ParseTrainFlags(argc, argv, &f->train, [&](const std::string& flag, const std::string& v)
                                                                     -> StatusOr<bool> {
    if (flag == "--mode") {
      if (v == "local") f->mode = Mode::kLocal;
      else if (v == "sync") f->mode = Mode::kSync;
      else if (v == "async") f->mode = Mode::kAsync;
      else if (v == "model-parallel") f->mode = Mode::kModelParallel;
      else return errors::InvalidArgument("--mode: '", v, "' is not one of local, sync, async, model-parallel");
    } else if (flag == "--target") {
      f->target = v;
    } else if (flag == "--workers") {
      FLOWVM_ASSIGN_OR_RETURN(int64_t n, ParseInt(flag, v));
      if (n < 1 || n > 64) return errors::InvalidArgument("--workers: must be in [1, 64], got ", n);
      f->workers = static_cast<int>(n);
    } else if (flag == "--worker-index") {
      FLOWVM_ASSIGN_OR_RETURN(int64_t i, ParseInt(flag, v));
      if (i < 0) return errors::InvalidArgument("--worker-index: must be >= 0, got ", i);
      f->worker_index = static_cast<int>(i);
    } else if (flag == "--init-timeout-ms") {
      FLOWVM_ASSIGN_OR_RETURN(f->init_timeout_ms, ParseInt(flag, v));
      if (f->init_timeout_ms < 0) return errors::InvalidArgument("--init-timeout-ms: must be >= 0");
    } else if (flag == "--health-check-interval-ms" || flag == "--health-check-timeout-ms" ||
               flag == "--cluster-wait-ms") {
      FLOWVM_ASSIGN_OR_RETURN(int64_t ms, ParseInt(flag, v));
      if (ms < 1) return errors::InvalidArgument(flag, ": must be >= 1, got ", ms);
      if (flag == "--health-check-interval-ms") f->health_check_interval_ms = ms;
      else if (flag == "--health-check-timeout-ms") f->health_check_timeout_ms = ms;
      else f->cluster_wait_ms = ms;
    } else if (flag == "--hidden") {
      f->hidden.clear();
      for (size_t b = 0; b <= v.size();) {
        size_t e = v.find(',', b);
        if (e == std::string::npos) e = v.size();
        FLOWVM_ASSIGN_OR_RETURN(int64_t w, ParseInt(flag, v.substr(b, e - b)));
        if (w < 1) return errors::InvalidArgument("--hidden: widths must be >= 1, got ", w);
        f->hidden.push_back(w);
        b = e + 1;
      }
    } else if (flag == "--data") {
      f->data = v;
    } else {
      return false;
    }
    return true;
  }));
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--threads", 0) == 0 || a.rfind("--cpu-devices", 0) == 0) threads_or_devices = true;
  }
  const std::string mode = std::string("--mode ") + ModeName(f->mode);
  const TrainOptions& t = f->train.train;
  if (!t.checkpoint_dir.empty() && f->mode != Mode::kSync)
    return errors::InvalidArgument("--checkpoint-dir is for --mode sync (training under the supervisor), not ", mode);
  if (t.checkpoint_dir.empty() && (t.save_every_steps > 0 || t.save_every_secs > 0))
    return errors::InvalidArgument("--save-every and --save-every-secs need --checkpoint-dir");
  if (t.save_every_steps < 0 || t.save_every_secs < 0 || t.keep_checkpoints < 0)
    return errors::InvalidArgument("--save-every, --save-every-secs and --keep must be >= 0");
  if (f->mode == Mode::kLocal) {
    if (!f->target.empty())
      return errors::InvalidArgument("--target: ", mode, " runs in this process; the cluster modes are sync, async "
                                     "and model-parallel");
    if (f->workers != 0 || f->worker_index >= 0)
      return errors::InvalidArgument("--workers and --worker-index are for the cluster modes, not ", mode);
    return Status::OK();
  }
  if (f->target.empty())
    return errors::InvalidArgument(mode, " needs --target grpc://HOST:PORT (a master of the cluster; "
                                   "`flowvm cluster up` prints one)");
  if (threads_or_devices)
    return errors::InvalidArgument("--threads and --cpu-devices are for --mode local (the cluster's servers size "
                                   "their own thread pools and devices)");
  if (f->mode == Mode::kAsync) {
    if (f->workers == 0 || f->worker_index < 0)
      return errors::InvalidArgument(mode, " needs --workers N and --worker-index I (the program runs once per "
                                     "worker task)");
    if (f->worker_index >= f->workers)
      return errors::InvalidArgument("--worker-index ", f->worker_index, " is not below --workers ", f->workers);
    return Status::OK();
  }
  if (f->worker_index >= 0)
    return errors::InvalidArgument("--worker-index is for --mode async (", mode, " runs one client for all workers)");
  if (f->workers == 0) f->workers = 2;
  if (f->mode == Mode::kSync && f->train.train.batch_size % f->workers != 0)
    return errors::InvalidArgument("--batch ", f->train.train.batch_size, " is not divisible by --workers ", f->workers,
                                   " (each worker computes the gradient of an equal shard)");
  return Status::OK();
}

std::string Worker(int i) { return "/job:worker/task:" + std::to_string(i); }

// The MLP's variables, named as flowvm_digits names them (hidden1/weights,
// ..., logits/biases, global_step), each layer's where `device(layer)` says.
struct Layer {
  std::string name;
  int64_t in = 0, out = 0;
  Variable weights, biases;
};
struct Params {
  std::vector<Layer> layers;
  Variable global_step;
  std::vector<Variable> trainable() const {
    std::vector<Variable> v;
    for (const Layer& l : layers) v.insert(v.end(), {l.weights, l.biases});
    return v;
  }
};

Params MakeParams(const Scope& root, const Flags& f, const std::function<std::string(int layer)>& device,
                  const std::string& step_device) {
  Params p;
  int64_t width = 64;
  const int n = static_cast<int>(f.hidden.size()) + 1;
  for (int k = 0; k < n; ++k) {
    Layer l;
    l.name = k + 1 < n ? "hidden" + std::to_string(k + 1) : "logits";
    l.in = width;
    l.out = k + 1 < n ? f.hidden[k] : 10;
    const Scope s = root.WithDevice(device(k)).NewSubScope(l.name);
    l.weights = Variable(s.WithOpName("weights"), {l.in, l.out}, DT_FLOAT, init::GlorotUniform(f.train.model.seed + k));
    l.biases = Variable(s.WithOpName("biases"), {l.out}, DT_FLOAT, init::Zeros());
    width = l.out;
    p.layers.push_back(l);
  }
  p.global_step = Variable(root.WithDevice(step_device).WithOpName("global_step"), {}, DT_INT64, init::Zeros(),
                           /*trainable=*/false);
  return p;
}

// One copy of the forward computation and its loss: layer k's nodes under
// layer_scope(k), the loss with the last layer.
struct Tower {
  Output images, labels, loss, correct;
};

Tower BuildTower(const Params& p, const std::function<Scope(int layer)>& layer_scope) {
  Tower t;
  const Scope first = layer_scope(0);
  t.images = ops::Placeholder(first.WithOpName("images"), DT_FLOAT,
                              ops::Placeholder::Shape(PartialTensorShape({-1, 64})));
  const int n = static_cast<int>(p.layers.size());
  const Scope last = layer_scope(n - 1);
  t.labels = ops::Placeholder(last.WithOpName("labels"), DT_INT32, ops::Placeholder::Shape(PartialTensorShape({-1})));
  Output x = t.images;
  for (int k = 0; k < n; ++k) {
    const Scope s = layer_scope(k).NewSubScope(p.layers[k].name);
    x = ops::BiasAdd(s, ops::MatMul(s, x, p.layers[k].weights), p.layers[k].biases);
    if (k + 1 < n) x = ops::Relu(s, x);
  }
  auto xent = ops::SparseSoftmaxCrossEntropyWithLogits(last.NewSubScope("xent"), x, t.labels);
  t.loss = ops::Mean(last.WithOpName("loss"), xent.loss, {0});
  auto predicted = ops::ArgMax(last, x, 1, ops::ArgMax::OutputType(DT_INT32));
  t.correct = ops::Sum(last.WithOpName("correct"), ops::Cast(last, ops::Equal(last, predicted, t.labels), DT_INT32),
                       {0});
  return t;
}

// The graph one client runs: towers (one, or one per worker for sync), the
// loss and number right over the whole batch, the train op.
struct Model {
  Scope root = Scope::NewRootScope();
  Params params;
  std::vector<Tower> towers;  // towers[i] gets the i-th shard of each batch
  Output loss;                // mean over the batch
  std::vector<Output> correct;
  Operation train, init;
  std::vector<Output> initialized;  // IsVariableInitialized of every variable
};

Status Build(const Flags& f, Model* m) {
  const Scope& root = m->root;
  std::unique_ptr<Optimizer> opt = MakeOptimizer(f.train.model);
  switch (f.mode) {
    case Mode::kLocal: {
      m->params = MakeParams(root, f, [](int) { return ""; }, "");
      m->towers.push_back(BuildTower(m->params, [&](int) { return root; }));
      m->train = opt->Minimize(root, m->towers[0].loss, m->params.trainable(), &m->params.global_step);
      m->loss = m->towers[0].loss;
      break;
    }
    case Mode::kModelParallel: {
      auto device = [&](int layer) { return Worker(layer % f.workers); };
      m->params = MakeParams(root, f, device, Worker(0));
      m->towers.push_back(BuildTower(m->params, [&](int layer) { return root.WithDevice(device(layer)); }));
      // No device for the optimizer: each update goes with its variable (it
      // takes it by reference), each gradient with its forward op.
      m->train = opt->Minimize(root, m->towers[0].loss, m->params.trainable(), &m->params.global_step);
      m->loss = m->towers[0].loss;
      break;
    }
    case Mode::kSync: {
      const Scope ps = root.WithDevice(kPs);
      m->params = MakeParams(root, f, [](int) { return kPs; }, kPs);
      const std::vector<Variable> vars = m->params.trainable();
      std::vector<Output> refs;
      for (const Variable& v : vars) refs.push_back(v.ref());
      std::vector<std::vector<Output>> grads(vars.size());
      std::vector<Output> losses;
      for (int i = 0; i < f.workers; ++i) {
        const Scope w = root.WithDevice(Worker(i)).NewSubScope("tower_" + std::to_string(i));
        m->towers.push_back(BuildTower(m->params, [&](int) { return w; }));
        std::vector<Output> g;
        FLOWVM_RETURN_IF_ERROR(AddSymbolicGradients(w, {m->towers.back().loss}, refs, &g));
        for (size_t j = 0; j < vars.size(); ++j) grads[j].push_back(g[j]);
        losses.push_back(m->towers.back().loss);
      }
      // The shards are equal, so the mean of their mean gradients is the
      // gradient of the batch's mean loss.
      const Scope avg = ps.NewSubScope("average");
      const float n = static_cast<float>(f.workers);
      std::vector<std::pair<Output, Variable>> grads_and_vars;
      for (size_t j = 0; j < vars.size(); ++j)
        grads_and_vars.emplace_back(ops::RealDiv(avg, ops::AddN(avg, grads[j]), n), vars[j]);
      m->loss = ops::RealDiv(avg.WithOpName("loss"), ops::AddN(avg, losses), n);
      m->train = opt->ApplyGradients(ps, grads_and_vars, &m->params.global_step);
      break;
    }
    case Mode::kAsync: {
      // Every worker builds this graph; only the device of its computation
      // differs. Updates run on the ps, with the variables.
      const Scope ps = root.WithDevice(kPs);
      const Scope w = root.WithDevice(Worker(f.worker_index));
      m->params = MakeParams(root, f, [](int) { return kPs; }, kPs);
      const std::vector<Variable> vars = m->params.trainable();
      m->towers.push_back(BuildTower(m->params, [&](int) { return w; }));
      std::vector<Output> refs, grads;
      for (const Variable& v : vars) refs.push_back(v.ref());
      FLOWVM_RETURN_IF_ERROR(AddSymbolicGradients(w, {m->towers[0].loss}, refs, &grads));
      std::vector<std::pair<Output, Variable>> grads_and_vars;
      for (size_t j = 0; j < vars.size(); ++j) grads_and_vars.emplace_back(grads[j], vars[j]);
      m->train = opt->ApplyGradients(ps, grads_and_vars, &m->params.global_step);
      m->loss = m->towers[0].loss;
      break;
    }
  }
  for (const Tower& t : m->towers) m->correct.push_back(t.correct);
  m->init = GlobalVariablesInitializer(root);
  for (const Variable& v : GlobalVariables(root))
    m->initialized.push_back(ops::IsVariableInitialized(root.NewSubScope("is_initialized"), v));
  return root.status();
}

// Test accuracy and loss through tower 0.
struct Evaluation {
  double accuracy = 0, loss = 0;
};
StatusOr<Evaluation> Evaluate(const Model& m, const ClientSession& session, const Dataset& data) {
  const Tower& t = m.towers[0];
  std::vector<Tensor> out;
  FLOWVM_RETURN_IF_ERROR(session.Run({{t.images, data.images}, {t.labels, data.labels}}, {t.correct, t.loss}, &out));
  Evaluation e;
  e.accuracy = static_cast<double>(out[0].scalar<int32_t>()) / static_cast<double>(data.size());
  e.loss = out[1].scalar<float>();
  return e;
}

// How many of the variables are initialized.
StatusOr<size_t> CountInitialized(const Model& m, const ClientSession& session) {
  std::vector<Tensor> out;
  FLOWVM_RETURN_IF_ERROR(session.Run(m.initialized, &out));
  size_t n = 0;
  for (const Tensor& t : out) n += t.scalar<bool>() ? 1 : 0;
  return n;
}

// FNV-1a over the bytes of every trained variable, in order: equal for two
// runs exactly when their weights are bit for bit the same.
StatusOr<uint64_t> WeightsFingerprint(const Model& m, const ClientSession& session) {
  std::vector<Output> refs;
  for (const Variable& v : m.params.trainable()) refs.push_back(v.ref());
  std::vector<Tensor> out;
  FLOWVM_RETURN_IF_ERROR(session.Run(refs, &out));
  uint64_t h = 1469598103934665603ull;
  for (const Tensor& t : out) {
    const auto* bytes = static_cast<const unsigned char*>(t.raw_data());
    for (size_t i = 0; i < t.TotalBytes(); ++i) h = (h ^ bytes[i]) * 1099511628211ull;
  }
  return h;
}

struct Result {
  int64_t global_step = 0;
  int64_t local_steps = 0;
  double last_loss = 0;
  bool evaluated = false;
  Evaluation test;
  uint64_t fingerprint = 0;
};

SessionOptions ClusterSessionOptions(const Flags& f) {
  SessionOptions options;
  options.target = f.target;
  options.health_check_interval_ms = f.health_check_interval_ms;
  options.health_check_timeout_ms = f.health_check_timeout_ms;
  return options;
}

// The feeds of global step `batch_step` (0-based): shard i of its batch to tower i.
StatusOr<ClientSession::FeedType> StepFeeds(const Model& m, BatchIterator& batches, const Dataset& train,
                                            int64_t batch_step, int64_t batch_size) {
  FLOWVM_ASSIGN_OR_RETURN(std::vector<int64_t> indices, batches.Indices(batch_step));
  const int64_t shards = static_cast<int64_t>(m.towers.size());
  const int64_t shard_size = batch_size / shards;
  ClientSession::FeedType feeds;
  for (int64_t i = 0; i < shards; ++i) {
    std::vector<int64_t> part(indices.begin() + i * shard_size, indices.begin() + (i + 1) * shard_size);
    FLOWVM_ASSIGN_OR_RETURN(Dataset shard, Gather(train, part));
    feeds[m.towers[i].images] = shard.images;
    feeds[m.towers[i].labels] = shard.labels;
  }
  return feeds;
}

// --mode sync under the supervisor: step N (1-based) trains on the batch of
// global step N - 1, as an unsupervised run does, so faults change nothing.
// --logdir: the summaries of flowvm_digits (training_summaries.h).
StatusOr<std::unique_ptr<TrainingSummaries>> MakeSummaries(const Flags& f, const Model& m) {
  if (f.train.train.summaries.logdir.empty()) return std::unique_ptr<TrainingSummaries>();
  SummaryOptions o = f.train.train.summaries;
  o.learning_rate = f.train.model.learning_rate;
  o.image_height = o.image_width = 8;  // the first tower's shard of the batch
  return TrainingSummaries::Create(m.root, o, m.towers.front().images);
}

Status CloseSummaries(TrainingSummaries* summaries, const Result& r) {
  if (summaries == nullptr) return Status::OK();
  FLOWVM_RETURN_IF_ERROR(summaries->AddTestResult(r.global_step, r.test.accuracy, r.test.loss));
  return summaries->Close();
}

StatusOr<Result> RunSupervised(const Flags& f, const Model& m, const Dataset& train, const Dataset& test) {
  SupervisorOptions o;
  o.session = ClusterSessionOptions(f);
  std::error_code ec;
  o.checkpoint_dir = std::filesystem::absolute(f.train.train.checkpoint_dir, ec).lexically_normal().string();
  if (ec) return errors::InvalidArgument("--checkpoint-dir '", f.train.train.checkpoint_dir, "': ", ec.message());
  o.save_every_steps = f.train.train.save_every_steps;
  o.save_every_secs = f.train.train.save_every_secs;
  o.keep_checkpoints = f.train.train.keep_checkpoints;
  o.cluster_wait_ms = f.cluster_wait_ms;
  o.log = [](const std::string& line) {
    std::printf("supervisor: %s\n", line.c_str());
    std::fflush(stdout);
  };
  TrainingSupervisor supervisor(m.root, o);
  const int64_t batch_size = f.train.train.batch_size;
  FLOWVM_ASSIGN_OR_RETURN(BatchIterator batches, BatchIterator::Create(train, batch_size, f.train.train.data_seed));
  std::unique_ptr<ProgressBar> bar;
  if (f.train.train.progress) bar = std::make_unique<ProgressBar>(f.train.train.steps);
  Result r;
  const auto start = std::chrono::steady_clock::now();
  std::vector<Output> fetches = {m.loss};
  fetches.insert(fetches.end(), m.correct.begin(), m.correct.end());
  const size_t step_fetches = fetches.size();
  FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<TrainingSummaries> summaries, MakeSummaries(f, m));
  Status s = supervisor.Train(f.train.train.steps, [&](ClientSession& session, int64_t step) -> Status {
    FLOWVM_ASSIGN_OR_RETURN(ClientSession::FeedType feeds, StepFeeds(m, batches, train, step - 1, batch_size));
    std::vector<Tensor> out;
    std::vector<Output> all = fetches;
    RunOptions run_options;
    RunMetadata metadata;
    if (summaries) run_options = summaries->BeforeStep(step - 1, &all);
    FLOWVM_RETURN_IF_ERROR(session.Run(run_options, feeds, all, {m.train}, &out, &metadata));
    ++r.local_steps;
    r.last_loss = out[0].scalar<float>();
    int64_t correct = 0;
    for (size_t i = 1; i < step_fetches; ++i) correct += out[i].scalar<int32_t>();
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double accuracy = static_cast<double>(correct) / static_cast<double>(batch_size);
    const double examples_per_sec = secs > 0 ? static_cast<double>(r.local_steps * batch_size) / secs : 0;
    if (summaries)
      FLOWVM_RETURN_IF_ERROR(summaries->AfterStep(step - 1, {r.last_loss, accuracy, batch_size}, out, step_fetches,
                                                  metadata));
    if (bar) bar->Update(step, r.last_loss, accuracy, examples_per_sec);
    return Status::OK();
  });
  if (bar) bar->Finish();
  // Printed also when training failed: what it survived until then.
  auto report = [&supervisor] {
    const SupervisorStats& st = supervisor.stats();
    std::printf("faults survived: %d, steps redone: %lld, time lost: %.1f s (%.1f s waiting for the cluster), "
                "checkpoints saved: %d\n",
                st.recoveries, static_cast<long long>(st.steps_redone), st.seconds_lost, st.seconds_waiting,
                st.checkpoints_saved);
    std::fflush(stdout);
  };
  if (!s.ok()) {
    report();
    return s;
  }
  // Evaluation, the fingerprint and the global step come from the final
  // checkpoint's state, also if a task fails meanwhile.
  s = supervisor.Run([&](ClientSession& session) -> Status {
    FLOWVM_ASSIGN_OR_RETURN(r.test, Evaluate(m, session, test));
    FLOWVM_ASSIGN_OR_RETURN(r.fingerprint, WeightsFingerprint(m, session));
    std::vector<Tensor> out;
    FLOWVM_RETURN_IF_ERROR(session.Run({m.params.global_step}, &out));
    r.global_step = out[0].scalar<int64_t>();
    return Status::OK();
  });
  report();
  FLOWVM_RETURN_IF_ERROR(s);
  FLOWVM_RETURN_IF_ERROR(CloseSummaries(summaries.get(), r));
  r.evaluated = true;
  if (r.global_step != f.train.train.steps)
    return errors::Internal("the global step is ", r.global_step, " after ", f.train.train.steps,
                            " supervised steps");
  return r;
}

StatusOr<Result> Run(const Flags& f, const Dataset& train, const Dataset& test) {
  Model m;
  FLOWVM_RETURN_IF_ERROR(Build(f, &m));
  if (!f.train.train.checkpoint_dir.empty()) return RunSupervised(f, m, train, test);
  SessionOptions options = ClusterSessionOptions(f);
  if (f.mode == Mode::kLocal) {
    options.num_threads = f.train.train.threads;
    options.cpu_devices = f.train.train.cpu_devices;
  }
  ClientSession session(m.root, options);
  std::vector<Tensor> out;
  const bool chief = f.mode != Mode::kAsync || f.worker_index == 0;
  if (f.mode != Mode::kAsync) {
    FLOWVM_RETURN_IF_ERROR(session.Run({}, {}, {m.init}, nullptr));
  } else if (chief) {
    // Initialize, unless a previous run left the model there.
    FLOWVM_ASSIGN_OR_RETURN(size_t ready, CountInitialized(m, session));
    if (ready < m.initialized.size()) {
      FLOWVM_RETURN_IF_ERROR(session.Run({}, {}, {m.init}, nullptr));
    } else {
      FLOWVM_RETURN_IF_ERROR(session.Run({m.params.global_step}, &out));
      std::fprintf(stderr, "%s: the variables on %s are initialized already: continuing at global step %lld\n",
                   kProgram, kPs, static_cast<long long>(out[0].scalar<int64_t>()));
    }
  } else {
    // Wait for the chief: poll, within a bound.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(f.init_timeout_ms);
    bool said = false;
    for (;;) {
      FLOWVM_ASSIGN_OR_RETURN(size_t ready, CountInitialized(m, session));
      if (ready == m.initialized.size()) break;
      if (std::chrono::steady_clock::now() >= deadline)
        return errors::DeadlineExceeded("worker ", f.worker_index, ": the chief (worker 0) did not initialize the "
                                        "variables on ", kPs, " within ", f.init_timeout_ms,
                                        " ms (--init-timeout-ms); ", ready, " of ", m.initialized.size(),
                                        " are initialized");
      if (!said)
        std::fprintf(stderr, "worker %d: waiting for the chief to initialize the variables\n", f.worker_index);
      said = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  FLOWVM_RETURN_IF_ERROR(session.Run({m.params.global_step}, &out));
  Result r;
  r.global_step = out[0].scalar<int64_t>();

  // Async workers draw batches from their own streams; the others take the
  // batch of each global step, as flowvm_digits does.
  const uint64_t data_seed = f.train.train.data_seed + (f.mode == Mode::kAsync ? 7919u * f.worker_index : 0u);
  const int64_t batch_size = f.train.train.batch_size;
  FLOWVM_ASSIGN_OR_RETURN(BatchIterator batches, BatchIterator::Create(train, batch_size, data_seed));
  std::unique_ptr<ProgressBar> bar;
  if (f.train.train.progress) bar = std::make_unique<ProgressBar>(f.train.train.steps);
  const auto start = std::chrono::steady_clock::now();
  std::vector<Output> fetches = {m.loss, m.params.global_step};
  fetches.insert(fetches.end(), m.correct.begin(), m.correct.end());
  const size_t step_fetches = fetches.size();
  // Only the chief writes summaries (one event file per run, however many
  // workers train).
  std::unique_ptr<TrainingSummaries> summaries;
  if (chief) {
    FLOWVM_ASSIGN_OR_RETURN(summaries, MakeSummaries(f, m));
  }
  RunMetadata metadata;
  while (r.global_step < f.train.train.steps) {
    const int64_t batch_step = f.mode == Mode::kAsync ? r.local_steps : r.global_step;
    FLOWVM_ASSIGN_OR_RETURN(ClientSession::FeedType feeds, StepFeeds(m, batches, train, batch_step, batch_size));
    std::vector<Output> all = fetches;
    RunOptions run_options;
    const int64_t summary_step = r.global_step;
    if (summaries) run_options = summaries->BeforeStep(summary_step, &all);
    metadata.Clear();
    FLOWVM_RETURN_IF_ERROR(session.Run(run_options, feeds, all, {m.train}, &out, &metadata));
    ++r.local_steps;
    r.last_loss = out[0].scalar<float>();
    // The global step as read during the step: this worker's increment may
    // or may not be in it (async), so count it in at least.
    const int64_t seen = out[1].scalar<int64_t>();
    r.global_step = f.mode == Mode::kAsync ? std::max(seen, r.global_step + 1) : r.global_step + 1;
    int64_t correct = 0;
    for (size_t i = 2; i < step_fetches; ++i) correct += out[i].scalar<int32_t>();
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double accuracy = static_cast<double>(correct) / static_cast<double>(batch_size);
    const double examples_per_sec = secs > 0 ? static_cast<double>(r.local_steps * batch_size) / secs : 0;
    if (summaries)
      FLOWVM_RETURN_IF_ERROR(summaries->AfterStep(summary_step, {r.last_loss, accuracy, batch_size}, out,
                                                  step_fetches, metadata));
    if (bar) bar->Update(std::min(r.global_step, f.train.train.steps), r.last_loss, accuracy, examples_per_sec);
  }
  if (bar) bar->Finish();
  if (chief) {
    FLOWVM_ASSIGN_OR_RETURN(r.test, Evaluate(m, session, test));
    FLOWVM_ASSIGN_OR_RETURN(r.fingerprint, WeightsFingerprint(m, session));
    r.evaluated = true;
    FLOWVM_RETURN_IF_ERROR(session.Run({m.params.global_step}, &out));
    r.global_step = out[0].scalar<int64_t>();
    FLOWVM_RETURN_IF_ERROR(CloseSummaries(summaries.get(), r));
  }
  return r;
}

int Main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
  }
  Flags flags;
  flags.train.train.steps = 1500;
  flags.train.train.batch_size = 32;
  flags.train.model.learning_rate = 0.01f;
  Status s = ParseFlags(argc, argv, &flags);
  if (!s.ok()) {
    std::fprintf(stderr, "%s: %s (--help lists the flags)\n", kProgram, s.ToString().c_str());
    return 2;
  }
  auto digits = LoadDigits(flags.data);
  if (!digits.ok()) {
    std::fprintf(stderr, "%s: %s\n", kProgram, digits.status().ToString().c_str());
    return 1;
  }
  auto split = SplitTrainTest(*digits, 0.2, /*seed=*/42);
  if (!split.ok()) {
    std::fprintf(stderr, "%s: %s\n", kProgram, split.status().ToString().c_str());
    return 1;
  }
  if (flags.train.train.batch_size > split->train.size()) {
    std::fprintf(stderr, "%s: InvalidArgument: --batch %lld is larger than the %lld training examples\n", kProgram,
                 static_cast<long long>(flags.train.train.batch_size), static_cast<long long>(split->train.size()));
    return 2;
  }
  if (flags.mode == Mode::kLocal) {
    std::printf("mode local: one process\n");
  } else if (flags.mode == Mode::kSync) {
    std::printf("mode sync: %d workers, %lld examples each per step, variables and updates on %s\n", flags.workers,
                static_cast<long long>(flags.train.train.batch_size / flags.workers), kPs);
  } else if (flags.mode == Mode::kAsync) {
    std::printf("mode async: worker %d of %d%s, variables and updates on %s\n", flags.worker_index, flags.workers,
                flags.worker_index == 0 ? " (chief)" : "", kPs);
  } else {
    std::printf("mode model-parallel: %zu layers over %d workers (layer k on /job:worker/task:(k mod %d))\n",
                flags.hidden.size() + 1, flags.workers, flags.workers);
  }
  std::fflush(stdout);
  auto r = Run(flags, split->train, split->test);
  if (!r.ok()) {
    std::fprintf(stderr, "%s: %s\n", kProgram, r.status().ToString().c_str());
    return 1;
  }
  if (flags.mode == Mode::kAsync)
    std::printf("worker %d: %lld steps of its own\n", flags.worker_index, static_cast<long long>(r->local_steps));

  // Enough digits to compare runs (tests compare sync and model-parallel
  // runs with local ones).
  std::printf("training loss at step %lld: %.8f\n", static_cast<long long>(r->global_step), r->last_loss);
  if (!r->evaluated) return 0;
  std::printf("weights fingerprint: %016llx\n", static_cast<unsigned long long>(r->fingerprint));
  std::printf("test accuracy: %.2f%% (%lld examples), test loss %.8f, %lld steps\n", 100 * r->test.accuracy,
              static_cast<long long>(split->test.size()), r->test.loss, static_cast<long long>(r->global_step));
  if (r->test.accuracy < flags.train.min_accuracy) {
    std::fprintf(stderr, "%s: test accuracy %.2f%% is below --min-accuracy %.2f%%\n", kProgram,
                 100 * r->test.accuracy, 100 * flags.train.min_accuracy);
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace flowvm::examples

int main(int argc, char** argv) { return flowvm::examples::Main(argc, argv); }

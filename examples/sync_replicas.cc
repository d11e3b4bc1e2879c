// flowvm_sync_replicas: one worker of synchronous training with backup
// workers (OSDI'16 4.4) on a cluster of `flowvm server` processes with one
// ps task and W worker tasks (e.g. `flowvm cluster up --ps 1 --workers 3`).
// Start one client per worker task; worker 0 is the chief: it initializes
// the model and runs the sync op (SyncReplicasOptimizer::RunSyncLoop) in a
// thread of its own beside its own training.
//
//   for i in 0 1 2; do
//     flowvm_sync_replicas --target grpc://<worker i's address> --task $i
//         --workers 3 --replicas-to-aggregate 2 --steps 200 &
//   done
//
// Each step needs the gradients of the first 2 of the 3 workers; a slow or
// stopped worker's gradients arrive stale and are dropped, and it rejoins
// at the current step. Each client's session takes in only the ps and its
// own task (device filters), so no health check of one worker's session
// waits on another worker.
//
// The model: least squares on synthetic data (y = x w* + noise), a batch
// per (task, step) drawn from --seed; the loss falls as the steps go on.
//
// Prints, one line per train step (the test and bench/ read them):
//   worker I: applied at step L, next step M, loss X, t=S.SSS
// and at the end: worker I: done at global step G after K train steps
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "flowvm/cc/ops.h"
#include "flowvm/cc/sync_replicas.h"
#include "flowvm/cc/training.h"
#include "flowvm/session.h"

namespace flowvm {
namespace {

constexpr char kUsage[] = R"(usage: flowvm_sync_replicas --target grpc://HOST:PORT --task I --workers W
       [--replicas-to-aggregate N] [--steps S] [--dim D] [--batch B] [--learning-rate LR] [--seed N]
       [--init-timeout-ms MS] [--poll-ms MS] [--step-timeout-ms MS] [--max-failures K]
       [--stop-file PATH]

  --target                 this worker task's server (its master)
  --task I                 this worker's task index; task 0 is the chief
  --workers W              worker tasks in the cluster (N + b)
  --replicas-to-aggregate  gradients per step, N (default W - 1, at least 1)
  --steps S                train until the global step reaches S (default 100)
  --dim D, --batch B       model size and batch (default 256, 64)
  --learning-rate LR       default 0.05
  --init-timeout-ms MS     workers other than the chief: how long to wait for the model (default 30000)
  --poll-ms MS             the chief's sync loop: how long one sync step waits for gradients (default 1000)
  --step-timeout-ms MS     a train step (with its wait for a token) that takes longer fails (default 60000)
  --stop-file PATH         stop after the current step once PATH exists (the chief then stops syncing)
  --max-failures K         consecutive failed train steps (a task unreachable) before giving up (default 20)
)";

struct Flags {
  std::string target;
  int task = -1, workers = 0, aggregate = 0;
  int64_t steps = 100, dim = 256, batch = 64, seed = 1;
  float learning_rate = 0.05f;
  int64_t init_timeout_ms = 30000, poll_ms = 1000, step_timeout_ms = 60000;
  int max_failures = 20;
  std::string stop_file;
};

Status ParseFlags(int argc, char** argv, Flags* f) {
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") return errors::InvalidArgument("help");
    if (i + 1 >= argc) return errors::InvalidArgument(flag, ": needs a value");
    const std::string v = argv[++i];
    char* end = nullptr;
    const long long n = std::strtoll(v.c_str(), &end, 10);
    const bool is_int = end != v.c_str() && *end == '\0';
    auto need_int = [&](int64_t min) -> Status {
      if (!is_int || n < min) return errors::InvalidArgument(flag, ": '", v, "' is not an integer >= ", min);
      return Status::OK();
    };
    if (flag == "--target") {
      f->target = v;
    } else if (flag == "--task") {
      FLOWVM_RETURN_IF_ERROR(need_int(0));
      f->task = static_cast<int>(n);
    } else if (flag == "--workers") {
      FLOWVM_RETURN_IF_ERROR(need_int(1));
      f->workers = static_cast<int>(n);
    } else if (flag == "--replicas-to-aggregate") {
      FLOWVM_RETURN_IF_ERROR(need_int(1));
      f->aggregate = static_cast<int>(n);
    } else if (flag == "--steps") {
      FLOWVM_RETURN_IF_ERROR(need_int(1));
      f->steps = n;
    } else if (flag == "--dim") {
      FLOWVM_RETURN_IF_ERROR(need_int(1));
      f->dim = n;
    } else if (flag == "--batch") {
      FLOWVM_RETURN_IF_ERROR(need_int(1));
      f->batch = n;
    } else if (flag == "--seed") {
      FLOWVM_RETURN_IF_ERROR(need_int(0));
      f->seed = n;
    } else if (flag == "--init-timeout-ms") {
      FLOWVM_RETURN_IF_ERROR(need_int(0));
      f->init_timeout_ms = n;
    } else if (flag == "--poll-ms") {
      FLOWVM_RETURN_IF_ERROR(need_int(1));
      f->poll_ms = n;
    } else if (flag == "--step-timeout-ms") {
      FLOWVM_RETURN_IF_ERROR(need_int(1));
      f->step_timeout_ms = n;
    } else if (flag == "--stop-file") {
      f->stop_file = v;
    } else if (flag == "--max-failures") {
      FLOWVM_RETURN_IF_ERROR(need_int(1));
      f->max_failures = static_cast<int>(n);
    } else if (flag == "--learning-rate") {
      f->learning_rate = std::strtof(v.c_str(), &end);
      if (end == v.c_str() || *end != '\0' || !(f->learning_rate > 0))
        return errors::InvalidArgument(flag, ": '", v, "' is not a positive number");
    } else {
      return errors::InvalidArgument("unknown flag ", flag);
    }
  }
  if (f->target.empty()) return errors::InvalidArgument("--target is required");
  if (f->workers < 1) return errors::InvalidArgument("--workers is required");
  if (f->task < 0 || f->task >= f->workers)
    return errors::InvalidArgument("--task must be in [0, ", f->workers, ")");
  if (f->aggregate == 0) f->aggregate = f->workers > 1 ? f->workers - 1 : 1;
  if (f->aggregate > f->workers)
    return errors::InvalidArgument("--replicas-to-aggregate (", f->aggregate, ") exceeds --workers (", f->workers, ")");
  return Status::OK();
}

struct Model {
  Scope root = Scope::NewRootScope();
  Variable w, global_step;
  Output x, y, loss;
  std::vector<Output> initialized;
  Operation init, train;
};

bool Transient(const Status& s) {
  return s.code() == Code::kUnavailable || s.code() == Code::kAborted || s.code() == Code::kCancelled ||
         s.code() == Code::kDeadlineExceeded;
}

double Seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

Status Run(const Flags& f) {
  const std::string ps = "/job:ps/replica:0/task:0/device:CPU:0";
  const std::string me = "/job:worker/replica:0/task:" + std::to_string(f.task);
  Model m;
  Scope on_ps = m.root.WithDevice(ps);
  m.w = Variable(on_ps.WithOpName("w"), {f.dim, 1}, DT_FLOAT, init::Zeros());
  m.global_step = Variable(on_ps.WithOpName("global_step"), {}, DT_INT64, init::Zeros(), /*trainable=*/false);
  Scope worker = m.root.WithDevice(me + "/device:CPU:0");
  m.x = ops::Placeholder(worker.WithOpName("x"), DT_FLOAT);
  m.y = ops::Placeholder(worker.WithOpName("y"), DT_FLOAT);
  auto err = ops::Sub(worker, ops::MatMul(worker, m.x, m.w), m.y);
  m.loss = ops::Mean(worker.WithOpName("loss"), ops::Square(worker, err), ops::Const(worker, {0, 1}));
  GradientDescentOptimizer sgd(f.learning_rate);
  SyncReplicasOptimizer sync(&sgd, f.aggregate, f.workers);
  m.train = sync.Minimize(worker, m.loss, m.global_step, {m.w});
  m.init = GlobalVariablesInitializer(m.root);
  for (const Variable& v : {m.w, m.global_step})
    m.initialized.push_back(ops::IsVariableInitialized(on_ps, v));
  FLOWVM_RETURN_IF_ERROR(m.root.status());
  GraphDef graph;
  FLOWVM_RETURN_IF_ERROR(m.root.ToGraphDef(&graph));

  SessionOptions options;
  options.target = f.target;
  options.device_filters = {"/job:ps", me};
  FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::Create(options, graph));
  auto count_initialized = [&]() -> StatusOr<int> {
    std::vector<std::string> fetches;
    for (const Output& o : m.initialized) fetches.push_back(o.name());
    std::vector<Tensor> out;
    FLOWVM_RETURN_IF_ERROR(session->Run({}, fetches, {}, &out));
    int n = 0;
    for (const Tensor& t : out) n += t.scalar<bool>() ? 1 : 0;
    return n;
  };
  const bool chief = f.task == 0;
  if (chief) {
    FLOWVM_ASSIGN_OR_RETURN(int ready, count_initialized());
    if (ready < static_cast<int>(m.initialized.size()))
      FLOWVM_RETURN_IF_ERROR(session->Run({}, {}, {m.init.name()}, nullptr));
    FLOWVM_RETURN_IF_ERROR(session->Run({}, {}, {sync.chief_init_op().name()}, nullptr));
  } else {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(f.init_timeout_ms);
    for (;;) {
      FLOWVM_ASSIGN_OR_RETURN(int ready, count_initialized());
      if (ready == static_cast<int>(m.initialized.size())) break;
      if (std::chrono::steady_clock::now() >= deadline)
        return errors::DeadlineExceeded("worker ", f.task, ": the chief (worker 0) did not initialize the model within ",
                                        f.init_timeout_ms, " ms (--init-timeout-ms)");
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  FLOWVM_RETURN_IF_ERROR(session->Run({}, {}, {sync.local_step_init_op().name()}, nullptr));

  // The chief's sync loop, beside its own training.
  std::atomic<bool> stop_sync{false};
  Status sync_status;
  int64_t synced = 0;
  std::thread sync_thread;
  if (chief)
    sync_thread = std::thread([&] {
      // A task unreachable for a while (Unavailable: a health check that
      // went unanswered on a loaded machine) ends a loop; start another.
      for (int failures = 0;;) {
        int64_t before = synced;
        sync_status = sync.RunSyncLoop(session.get(), [&] { return stop_sync.load(); }, f.poll_ms, &synced);
        if (stop_sync && Transient(sync_status)) sync_status = Status::OK();
        if (sync_status.ok() || stop_sync) break;
        if (synced > before) failures = 0;
        if (!Transient(sync_status) || ++failures > f.max_failures) break;
        std::fprintf(stderr, "chief: a sync step failed (%s); going on\n", sync_status.ToString().c_str());
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
      if (!sync_status.ok()) std::fprintf(stderr, "chief: the sync loop ended: %s\n", sync_status.ToString().c_str());
    });

  // The data: y = x w* + noise, w* fixed by the seed; x drawn per (task, step).
  std::mt19937_64 truth_rng(static_cast<uint64_t>(f.seed));
  std::normal_distribution<float> normal(0.f, 1.f);
  std::vector<float> w_true(static_cast<size_t>(f.dim));
  for (float& v : w_true) v = normal(truth_rng);
  const auto start = std::chrono::steady_clock::now();
  int64_t train_steps = 0, next = 0;
  int failures = 0;
  Status status;
  auto stop_requested = [&] {
    struct stat st;
    return !f.stop_file.empty() && ::stat(f.stop_file.c_str(), &st) == 0;
  };
  while (next < f.steps && !stop_requested()) {
    std::mt19937_64 rng(static_cast<uint64_t>(f.seed) * 1000003u + static_cast<uint64_t>(f.task) * 7919u +
                        static_cast<uint64_t>(train_steps));
    std::vector<float> xs(static_cast<size_t>(f.batch * f.dim)), ys(static_cast<size_t>(f.batch));
    for (int64_t r = 0; r < f.batch; ++r) {
      double dot = 0;
      for (int64_t c = 0; c < f.dim; ++c) {
        const float v = normal(rng);
        xs[static_cast<size_t>(r * f.dim + c)] = v;
        dot += static_cast<double>(v) * w_true[static_cast<size_t>(c)];
      }
      ys[static_cast<size_t>(r)] = static_cast<float>(dot) + 0.01f * normal(rng);
    }
    std::vector<Tensor> out;
    RunOptions run_options;
    run_options.set_timeout_in_ms(f.step_timeout_ms);
    Status s = session->Run(run_options, {{m.x.name(), Tensor::FromVector<float>(xs, TensorShape({f.batch, f.dim}))},
                             {m.y.name(), Tensor::FromVector<float>(ys, TensorShape({f.batch, 1}))}},
                            {sync.local_step().name(), sync.next_local_step().name(), m.loss.name()},
                            {m.train.name()}, &out, nullptr);
    if (!s.ok()) {
      // A task was unreachable for a while (this one was stopped, say):
      // start again from the current global step.
      if (!Transient(s) || ++failures > f.max_failures) {
        status = s;
        break;
      }
      std::fprintf(stderr, "worker %d: a train step failed (%s); retrying from the current global step\n", f.task,
                   s.ToString().c_str());
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      Status r = session->Run({}, {sync.local_step().name()}, {sync.local_step_init_op().name()}, &out);
      if (!r.ok() && !Transient(r)) {
        status = r;
        break;
      }
      // Training may have ended meanwhile (no token will come any more).
      if (r.ok()) next = out[0].scalar<int64_t>();
      continue;
    }
    failures = 0;
    ++train_steps;
    next = out[1].scalar<int64_t>();
    std::printf("worker %d: applied at step %lld, next step %lld, loss %.6g, t=%.3f\n", f.task,
                static_cast<long long>(out[0].scalar<int64_t>()), static_cast<long long>(next),
                static_cast<double>(out[2].scalar<float>()), Seconds(start));
    std::fflush(stdout);
  }
  if (chief) {
    stop_sync = true;
    sync_thread.join();
    if (status.ok()) status = sync_status;
    // A worker that took two tokens around the last sync step left another
    // one waiting: a last top-up lets every worker still running finish.
    if (status.ok()) status = session->Run({}, {}, {sync.recover_op().name()}, nullptr);
  }
  FLOWVM_RETURN_IF_ERROR(status);
  std::printf("worker %d: done at global step %lld after %lld train steps in %.3f s%s\n", f.task,
              static_cast<long long>(next), static_cast<long long>(train_steps), Seconds(start),
              chief ? (" (chief: " + std::to_string(synced) + " sync steps)").c_str() : "");
  return session->Close();
}

}  // namespace
}  // namespace flowvm

int main(int argc, char** argv) {
  flowvm::Flags flags;
  flowvm::Status s = flowvm::ParseFlags(argc, argv, &flags);
  if (!s.ok()) {
    if (s.message() != "help") std::fprintf(stderr, "flowvm_sync_replicas: %s\n", s.ToString().c_str());
    std::fputs(flowvm::kUsage, stderr);
    return s.message() == "help" ? 0 : 2;
  }
  s = flowvm::Run(flags);
  if (!s.ok()) {
    std::fprintf(stderr, "flowvm_sync_replicas: worker %d: %s\n", flags.task, s.ToString().c_str());
    return 1;
  }
  return 0;
}

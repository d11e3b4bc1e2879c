// TrainingSupervisor (flowvm/cc/supervisor.h) on local clusters of
// `flowvm server` processes that each test starts, kills (SIGKILL),
// restarts on the same port, stops (SIGSTOP) and resumes, and stops at the
// end, also when it fails:
//
//   a worker dies and comes back; the ps dies and comes back (its variables
//   are gone: restored from the checkpoint); tasks restarted between steps
//   (a new incarnation; the master itself); the chief killed in the middle
//   of saving, many times, never leaves a checkpoint half-visible; a hung
//   task is found by the health checks, named while the supervisor waits,
//   and training goes on once it resumes; a bad graph is not retried; a
//   cluster that does not come back within the bound ends training.
//
// Each training under faults ends with the same weights, bit for bit, as
// the same training undisturbed. The last test does the same with
// flowvm_distributed_digits --mode sync --checkpoint-dir. No test asserts on
// time; the health-check bounds are small (300 ms / 1000 ms) to keep them
// quick.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <random>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "flowvm/cc/gradients.h"
#include "flowvm/cc/ops.h"
#include "flowvm/cc/supervisor.h"
#include "flowvm/checkpoint.h"
#include "flowvm/cluster.h"
#include "util/cli_runner.h"
#include "util/test_paths.h"

namespace flowvm {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using testing::ReadFileBytes;

constexpr char kPs[] = "/job:ps/task:0";
constexpr char kWorker0[] = "/job:worker/task:0";
constexpr char kWorker1[] = "/job:worker/task:1";

// ps:0, worker:0 (the chief and the master the client uses), worker:1, each
// a `flowvm server` process started in the test's directory (its working
// directory, so the servers may write the checkpoints there).
class ServerCluster {
 public:
  // `server_flags` go to every `flowvm server` (e.g. --allow-dir).
  explicit ServerCluster(std::vector<std::string> server_flags = {}) : server_flags_(std::move(server_flags)) {
    char templ[] = "/tmp/flowvm_supervisor_recovery_XXXXXX";
    dir_ = ::mkdtemp(templ);
    std::string json = "{";
    for (const auto& [job, n] : std::vector<std::pair<std::string, int>>{{"ps", 1}, {"worker", 2}}) {
      json += std::string(json.size() > 1 ? "," : "") + "\"" + job + "\":[";
      for (int i = 0; i < n; ++i) {
        auto port = PickUnusedLoopbackPort();
        EXPECT_TRUE(port.ok()) << port.status();
        const std::string address = "127.0.0.1:" + std::to_string(port.ok() ? *port : 1);
        json += std::string(i ? "," : "") + "\"" + address + "\"";
        if (job == "worker" && i == 0) target_ = "grpc://" + address;
      }
      json += "]";
    }
    json += "}";
    std::FILE* f = std::fopen((dir_ + "/cluster.json").c_str(), "w");
    std::fputs(json.c_str(), f);
    std::fclose(f);
  }
  ~ServerCluster() {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [task, pid] : pids_) {
      if (pid <= 0) continue;
      ::kill(pid, SIGCONT);
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  ::testing::AssertionResult StartAll() {
    for (const char* t : {"ps-0", "worker-0", "worker-1"}) {
      auto r = Start(t);
      if (!r) return r;
    }
    return ::testing::AssertionSuccess();
  }

  // Starts task "job-index" and waits (bounded) until it serves.
  ::testing::AssertionResult Start(const std::string& task) {
    const std::string job = task.substr(0, task.find('-'));
    const std::string index = task.substr(task.find('-') + 1);
    const std::string log = dir_ + "/" + task + ".log";
    const size_t served_before = Count(ReadFileBytes(log), "serving at");
    const std::string cli = testing::CliPath();
    std::vector<std::string> args = {cli, "server", "--cluster", "cluster.json", "--job", job, "--task", index};
    args.insert(args.end(), server_flags_.begin(), server_flags_.end());
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid == 0) {
      // Only async-signal-safe calls between fork and exec.
      if (::chdir(dir_.c_str()) != 0) ::_exit(126);
      const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      if (fd < 0) ::_exit(126);
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    if (pid < 0) return ::testing::AssertionFailure() << "fork failed";
    {
      std::lock_guard<std::mutex> lock(mu_);
      pids_[task] = pid;
    }
    for (int i = 0; i < 1500; ++i) {
      if (Count(ReadFileBytes(log), "serving at") > served_before) return ::testing::AssertionSuccess();
      if (::waitpid(pid, nullptr, WNOHANG) == pid) {
        std::lock_guard<std::mutex> lock(mu_);
        pids_[task] = -1;
        return ::testing::AssertionFailure() << task << " exited at start:\n" << ReadFileBytes(log);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return ::testing::AssertionFailure() << task << " did not serve within 15 s:\n" << ReadFileBytes(log);
  }

  void Kill(const std::string& task) {
    std::lock_guard<std::mutex> lock(mu_);
    pid_t& pid = pids_[task];
    if (pid <= 0) return;
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    pid = -1;
  }
  void Signal(const std::string& task, int sig) {
    std::lock_guard<std::mutex> lock(mu_);
    if (pids_[task] > 0) ::kill(pids_[task], sig);
  }

  const std::string& dir() const { return dir_; }
  const std::string& target() const { return target_; }

  static size_t Count(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  }

 private:
  std::vector<std::string> server_flags_;
  std::string dir_, target_;
  std::mutex mu_;
  std::map<std::string, pid_t> pids_;
};

// Synchronous data parallelism, as flowvm_distributed_digits --mode sync:
// the weights (and an optional large variable, to make saves slow) on the
// ps, one tower per worker computing the gradient of its half of the batch,
// the averaged gradient applied on the ps.
struct SyncModel {
  Scope root = Scope::NewRootScope();
  Variable w1, w2, global_step, big;
  std::vector<Output> x, y;
  Operation train;

  explicit SyncModel(int64_t big_floats = 0) {
    const Scope ps = root.WithDevice(kPs);
    w1 = Variable(ps.WithOpName("w1"), {6, 8}, DT_FLOAT, init::GlorotUniform(3));
    w2 = Variable(ps.WithOpName("w2"), {8, 1}, DT_FLOAT, init::GlorotUniform(4));
    global_step = Variable(ps.WithOpName("global_step"), {}, DT_INT64, init::Zeros(), false);
    if (big_floats > 0) big = Variable(ps.WithOpName("big"), {big_floats}, DT_FLOAT, init::Constant(0.5), false);
    std::vector<Output> refs = {w1.ref(), w2.ref()};
    std::vector<std::vector<Output>> grads(2);
    for (const char* worker : {kWorker0, kWorker1}) {
      const Scope w = root.WithDevice(worker).NewSubScope(worker == kWorker0 ? "tower0" : "tower1");
      x.push_back(ops::Placeholder(w.WithOpName("x"), DT_FLOAT));
      y.push_back(ops::Placeholder(w.WithOpName("y"), DT_FLOAT));
      auto h = ops::Relu(w, ops::MatMul(w, x.back(), w1));
      auto d = ops::Sub(w, ops::MatMul(w, h, w2), y.back());
      auto loss = ops::Mean(w, ops::Mul(w, d, d), {0, 1});
      std::vector<Output> g;
      EXPECT_TRUE(AddSymbolicGradients(w, {loss}, refs, &g).ok());
      if (g.size() == 2) {
        grads[0].push_back(g[0]);
        grads[1].push_back(g[1]);
      }
    }
    const Scope avg = ps.NewSubScope("average");
    GradientDescentOptimizer opt(0.05f);
    train = opt.ApplyGradients(ps,
                               {{ops::Mul(avg, ops::AddN(avg, grads[0]), 0.5f), w1},
                                {ops::Mul(avg, ops::AddN(avg, grads[1]), 0.5f), w2}},
                               &global_step);
    EXPECT_TRUE(root.status().ok()) << root.status();
  }

  // Step N's batch is a function of N alone.
  Status Step(ClientSession& session, int64_t step) const {
    std::mt19937 rng(static_cast<uint32_t>(step * 7919 + 1));
    std::uniform_real_distribution<float> u(-1, 1);
    ClientSession::FeedType feeds;
    for (int t = 0; t < 2; ++t) {
      Tensor xs(DT_FLOAT, TensorShape({4, 6})), ys(DT_FLOAT, TensorShape({4, 1}));
      for (int i = 0; i < 4; ++i) {
        float target = 0;
        for (int j = 0; j < 6; ++j) {
          xs.flat<float>()[i * 6 + j] = u(rng);
          target += (j % 2 ? 0.5f : -0.25f) * xs.flat<float>()[i * 6 + j];
        }
        ys.flat<float>()[i] = target;
      }
      feeds[x[t]] = xs;
      feeds[y[t]] = ys;
    }
    return session.Run(feeds, {}, {train}, nullptr);
  }

  // w1, w2 and the global step, read through the supervisor.
  struct Final {
    std::vector<float> w1, w2;
    int64_t global_step = -1;
  };
  Final Read(TrainingSupervisor& sv) const {
    Final f;
    Status s = sv.Run([&](ClientSession& session) -> Status {
      std::vector<Tensor> out;
      FLOWVM_RETURN_IF_ERROR(session.Run({w1.ref(), w2.ref(), global_step.ref()}, &out));
      f.w1.assign(out[0].flat<float>().begin(), out[0].flat<float>().end());
      f.w2.assign(out[1].flat<float>().begin(), out[1].flat<float>().end());
      f.global_step = out[2].scalar<int64_t>();
      return Status::OK();
    });
    EXPECT_TRUE(s.ok()) << s;
    return f;
  }
};

// Thread-safe log of what the supervisor said.
class Log {
 public:
  std::function<void(const std::string&)> Callback(std::function<void(const std::string&)> also = {}) {
    return [this, also](const std::string& line) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        lines_.push_back(line);
      }
      std::printf("  supervisor: %s\n", line.c_str());
      if (also) also(line);
    };
  }
  std::vector<std::string> Lines() {
    std::lock_guard<std::mutex> lock(mu_);
    return lines_;
  }
  // Lines that start with `prefix` and contain every one of `words`.
  int Count(const std::string& prefix, const std::vector<std::string>& words = {}) {
    int n = 0;
    for (const std::string& line : Lines()) {
      if (line.rfind(prefix, 0) != 0) continue;
      bool all = true;
      for (const std::string& w : words) all = all && line.find(w) != std::string::npos;
      n += all;
    }
    return n;
  }

 private:
  std::mutex mu_;
  std::vector<std::string> lines_;
};

SupervisorOptions Options(const ServerCluster& c, const std::string& ckpt, Log* log) {
  SupervisorOptions o;
  o.session.target = c.target();
  o.session.health_check_interval_ms = 300;
  o.session.health_check_timeout_ms = 1000;
  o.checkpoint_dir = c.dir() + "/" + ckpt;
  o.save_every_steps = 10;
  o.cluster_wait_ms = 30000;
  o.cluster_poll_ms = 1000;
  o.log = log->Callback();
  return o;
}

constexpr int64_t kSteps = 60;

// The reference: the same training on the same cluster, undisturbed.
SyncModel::Final Undisturbed(const ServerCluster& c, int64_t big_floats = 0) {
  SyncModel m(big_floats);
  Log log;
  TrainingSupervisor sv(m.root, Options(c, "reference", &log));
  Status s = sv.Train(kSteps, [&](ClientSession& session, int64_t step) { return m.Step(session, step); });
  EXPECT_TRUE(s.ok()) << s;
  EXPECT_EQ(sv.stats().faults, 0);
  return m.Read(sv);
}

void ExpectSame(const SyncModel::Final& got, const SyncModel::Final& want) {
  EXPECT_EQ(got.w1, want.w1);
  EXPECT_EQ(got.w2, want.w2);
  EXPECT_EQ(got.global_step, kSteps);
  EXPECT_EQ(want.global_step, kSteps);
}

void Print(const SupervisorStats& st) {
  std::printf("faults %d, recoveries %d, steps redone %lld, time lost %.2f s (%.2f s waiting)\n", st.faults,
              st.recoveries, static_cast<long long>(st.steps_redone), st.seconds_lost, st.seconds_waiting);
}

// Kills `task` when step `at` starts and restarts it after `down`, on a
// thread of its own (joined by the destructor).
class KillAndRestart {
 public:
  KillAndRestart(ServerCluster* c, std::string task, std::chrono::milliseconds down) : c_(c), task_(std::move(task)), down_(down) {}
  ~KillAndRestart() {
    if (t_.joinable()) t_.join();
  }
  void Fire() {
    if (fired_) return;
    fired_ = true;
    c_->Kill(task_);
    t_ = std::thread([this] {
      std::this_thread::sleep_for(down_);
      restarted_ = c_->Start(task_);
    });
  }
  bool fired() const { return fired_; }
  void Join() {
    if (t_.joinable()) t_.join();
  }
  ::testing::AssertionResult restarted() const { return restarted_; }

 private:
  ServerCluster* c_;
  std::string task_;
  std::chrono::milliseconds down_;
  bool fired_ = false;
  std::thread t_;
  ::testing::AssertionResult restarted_ = ::testing::AssertionFailure() << "not restarted";
};

void TrainThroughAKill(const std::string& task, const std::vector<std::string>& named) {
  ServerCluster c;
  ASSERT_TRUE(c.StartAll());
  const SyncModel::Final want = Undisturbed(c);
  SyncModel m;
  Log log;
  TrainingSupervisor sv(m.root, Options(c, "ckpt", &log));
  KillAndRestart chaos(&c, task, std::chrono::milliseconds(500));
  Status s = sv.Train(kSteps, [&](ClientSession& session, int64_t step) {
    if (step == 25) chaos.Fire();
    return m.Step(session, step);
  });
  chaos.Join();
  ASSERT_TRUE(chaos.restarted());
  ASSERT_TRUE(s.ok()) << s;
  Print(sv.stats());
  EXPECT_GE(sv.stats().faults, 1);
  EXPECT_EQ(sv.stats().recoveries, sv.stats().faults);
  // At most one checkpoint interval (10 steps) redone per fault.
  EXPECT_LE(sv.stats().steps_redone, 10 * sv.stats().faults);
  EXPECT_GE(log.Count("fault 1 ", named), 1) << "the fault names the task";
  EXPECT_GE(log.Count("restored checkpoint", {"ckpt-20"}), 1);
  EXPECT_GE(log.Count("recovered"), 1);
  ExpectSame(m.Read(sv), want);
}

TEST(SupervisorRecoveryTest, AWorkerDiesAndComesBack) {
  TrainThroughAKill("worker-1", {"Unavailable", "/job:worker/replica:0/task:1"});
}

// The ps's variables die with it: the restored checkpoint brings them back.
TEST(SupervisorRecoveryTest, ThePsDiesAndComesBack) {
  TrainThroughAKill("ps-0", {"/job:ps/replica:0/task:0"});
}

// A task killed and restarted between two steps comes back as a new
// incarnation, which the next step finds (Aborted); so does the master
// itself (worker 0), which no longer knows the session.
TEST(SupervisorRecoveryTest, TasksRestartedBetweenStepsAreNewIncarnations) {
  ServerCluster c;
  ASSERT_TRUE(c.StartAll());
  const SyncModel::Final want = Undisturbed(c);
  SyncModel m;
  Log log;
  TrainingSupervisor sv(m.root, Options(c, "ckpt", &log));
  bool restarted1 = false, restarted0 = false;
  Status s = sv.Train(kSteps, [&](ClientSession& session, int64_t step) -> Status {
    if (step == 25 && !restarted1) {
      restarted1 = true;
      c.Kill("worker-1");
      EXPECT_TRUE(c.Start("worker-1"));
    }
    if (step == 45 && !restarted0) {
      restarted0 = true;
      c.Kill("worker-0");
      EXPECT_TRUE(c.Start("worker-0"));
    }
    return m.Step(session, step);
  });
  ASSERT_TRUE(s.ok()) << s;
  Print(sv.stats());
  // (A link between two tasks that broke may fail a step more than once.)
  EXPECT_GE(sv.stats().faults, 2);
  EXPECT_EQ(log.Count("fault 1 ", {"Aborted", "/job:worker/replica:0/task:1", "restarted"}), 1);
  // The master's connection to the client broke, or it answers that it
  // does not know the session (it restarted).
  EXPECT_GE(log.Count("fault ", {"master"}), 1);
  EXPECT_LE(sv.stats().steps_redone, 10 * sv.stats().faults);
  ExpectSame(m.Read(sv), want);
}

// Every checkpoint in `dir`'s list opens and every tensor passes its CRC.
::testing::AssertionResult ListedCheckpointsAreWhole(const std::string& dir) {
  auto latest = Saver::LatestCheckpoint(dir);
  if (!latest.ok()) return ::testing::AssertionFailure() << latest.status();
  const std::string list = ReadFileBytes(dir + "/checkpoint");
  std::smatch m;
  std::string rest = list;
  int n = 0;
  while (std::regex_search(rest, m, std::regex("all_model_checkpoint_paths: \"([^\"]+)\""))) {
    auto reader = CheckpointReader::Open(dir + "/" + m[1].str());
    if (!reader.ok()) return ::testing::AssertionFailure() << reader.status();
    for (const CheckpointTensor& t : (*reader)->tensors()) {
      Status s = (*reader)->Verify(t.name);
      if (!s.ok()) return ::testing::AssertionFailure() << s;
    }
    ++n;
    rest = m.suffix();
  }
  if (n == 0) return ::testing::AssertionFailure() << "no checkpoint listed: " << list;
  return ::testing::AssertionSuccess();
}

bool HasTemporaryCheckpointFile(const std::string& dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().filename().string().find(".tempstate") != std::string::npos) return true;
  return false;
}

// The chief (worker 0: it runs SaveV2, and is the master) killed while a
// 16 MiB checkpoint is being written, at several moments of the save.
TEST(SupervisorRecoveryTest, TheChiefKilledMidSaveNeverLeavesAHalfVisibleCheckpoint) {
  constexpr int64_t kBig = 4 << 20;  // floats
  ServerCluster c;
  ASSERT_TRUE(c.StartAll());
  const SyncModel::Final want = Undisturbed(c, kBig);
  SyncModel m(kBig);
  Log log;
  SupervisorOptions o = Options(c, "ckpt", &log);
  o.save_every_steps = 2;
  const std::string ckpt = o.checkpoint_dir;
  TrainingSupervisor sv(m.root, o);
  std::atomic<int64_t> steps{0};
  std::atomic<bool> done{false};
  int kills = 0, mid_save = 0;
  ::testing::AssertionResult whole = ::testing::AssertionSuccess();
  std::thread chaos([&] {
    std::mt19937 rng(12);  // seeded: the same moments each run
    // From the first checkpoint listed on (a kill before it is recovered
    // from by running the initializer again).
    for (int i = 0; i < 4000 && !done && !fs::exists(ckpt + "/checkpoint"); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    for (int k = 0; k < 4 && !done; ++k) {
      // Wait for a save in progress (its temporary files), then a moment.
      const auto give_up = Clock::now() + std::chrono::seconds(20);
      while (!done && Clock::now() < give_up && !HasTemporaryCheckpointFile(ckpt))
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      if (done || Clock::now() >= give_up) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(0, 30)(rng)));
      c.Kill("worker-0");
      ++kills;
      mid_save += HasTemporaryCheckpointFile(ckpt);
      // What a restoring task would see now.
      auto r = ListedCheckpointsAreWhole(ckpt);
      if (!r && whole) whole = r;
      auto started = c.Start("worker-0");
      if (!started) {
        whole = started;
        break;
      }
      // Let training get past the recovery (a save or two, which also
      // removes the killed save's leftovers) before the next kill.
      const int64_t before = steps;
      while (!done && steps < before + 3) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
  Status s = sv.Train(kSteps, [&](ClientSession& session, int64_t step) {
    Status r = m.Step(session, step);
    if (r.ok()) steps = std::max<int64_t>(steps, step);
    return r;
  });
  done = true;
  chaos.join();
  ASSERT_TRUE(s.ok()) << s;
  Print(sv.stats());
  std::printf("chief killed %d times, %d of them with a save's temporary files present\n", kills, mid_save);
  EXPECT_TRUE(whole);
  EXPECT_GE(kills, 1);
  EXPECT_GE(sv.stats().faults, kills);
  EXPECT_TRUE(ListedCheckpointsAreWhole(ckpt));
  EXPECT_FALSE(HasTemporaryCheckpointFile(ckpt));  // the last save removed the leftovers
  ExpectSame(m.Read(sv), want);
}

// A hung task (SIGSTOP): the health checks find it, the supervisor names it
// while it waits for the cluster, and goes on once it resumes (SIGCONT).
TEST(SupervisorRecoveryTest, AHungTaskIsFoundByHealthChecksAndNamed) {
  ServerCluster c;
  ASSERT_TRUE(c.StartAll());
  const SyncModel::Final want = Undisturbed(c);
  SyncModel m;
  Log log;
  std::atomic<bool> stopped{false};
  Clock::time_point stopped_at, found_at;
  SupervisorOptions o = Options(c, "ckpt", &log);
  o.log = log.Callback([&](const std::string& line) {
    if (line.rfind("fault", 0) == 0 && found_at == Clock::time_point()) found_at = Clock::now();
    // Resume it once the supervisor has said what it waits for.
    if (stopped && line.find("waiting") != std::string::npos &&
        line.find("/job:worker/replica:0/task:1") != std::string::npos) {
      c.Signal("worker-1", SIGCONT);
      stopped = false;
    }
  });
  TrainingSupervisor sv(m.root, o);
  std::thread resume_anyway;
  Status s = sv.Train(kSteps, [&](ClientSession& session, int64_t step) {
    if (step == 25 && !resume_anyway.joinable()) {
      stopped_at = Clock::now();
      stopped = true;
      c.Signal("worker-1", SIGSTOP);
      // Bounded: resumed after 20 s whatever happens (the test then fails
      // on the log).
      resume_anyway = std::thread([&] {
        for (int i = 0; i < 2000 && stopped; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        c.Signal("worker-1", SIGCONT);
      });
    }
    return m.Step(session, step);
  });
  stopped = false;
  if (resume_anyway.joinable()) resume_anyway.join();
  ASSERT_TRUE(s.ok()) << s;
  Print(sv.stats());
  std::printf("the hang was reported %.2f s after SIGSTOP (health checks every 300 ms, 1000 ms to answer)\n",
              std::chrono::duration<double>(found_at - stopped_at).count());
  EXPECT_GE(sv.stats().faults, 1);
  EXPECT_EQ(log.Count("fault 1 ", {"Unavailable", "/job:worker/replica:0/task:1"}), 1);
  EXPECT_GE(log.Count("waiting for the cluster", {"/job:worker/replica:0/task:1"}), 1);
  ExpectSame(m.Read(sv), want);
}

// A bad graph (a node on a task the cluster does not have) is the user's
// error: Train returns it at once, without a retry.
TEST(SupervisorRecoveryTest, AnUnrecoverableErrorIsNotRetried) {
  ServerCluster c;
  ASSERT_TRUE(c.StartAll());
  SyncModel m;
  Log log;
  TrainingSupervisor sv(m.root, Options(c, "ckpt", &log));
  int calls = 0;
  Status s = sv.Train(kSteps, [&](ClientSession& session, int64_t step) -> Status {
    ++calls;
    if (step == 5) {
      auto bad = ops::Identity(m.root.WithDevice("/job:worker/task:9").WithOpName("bad"), m.w2.ref());
      std::vector<Tensor> out;
      return session.Run({bad}, &out);
    }
    return m.Step(session, step);
  });
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("step 5"), std::string::npos) << s;
  EXPECT_NE(s.message().find("task:9"), std::string::npos) << s;
  EXPECT_EQ(calls, 5);
  EXPECT_EQ(sv.stats().faults, 0);
  EXPECT_EQ(log.Count("fault"), 0);
}

// A task that does not come back: Train gives up after cluster_wait_ms,
// naming it.
TEST(SupervisorRecoveryTest, AClusterThatDoesNotComeBackEndsTraining) {
  ServerCluster c;
  ASSERT_TRUE(c.StartAll());
  SyncModel m;
  Log log;
  SupervisorOptions o = Options(c, "ckpt", &log);
  o.cluster_wait_ms = 1500;
  o.cluster_poll_ms = 500;
  TrainingSupervisor sv(m.root, o);
  Status s = sv.Train(kSteps, [&](ClientSession& session, int64_t step) {
    if (step == 5) c.Kill("worker-1");
    return m.Step(session, step);
  });
  EXPECT_EQ(s.code(), Code::kUnavailable) << s;
  EXPECT_NE(s.message().find("not whole within 1500 ms"), std::string::npos) << s;
  EXPECT_NE(s.message().find("/job:worker/replica:0/task:1"), std::string::npos) << s;
  EXPECT_EQ(sv.stats().faults, 1);
  EXPECT_EQ(sv.stats().recoveries, 0);
}

// flowvm_distributed_digits --mode sync under the supervisor: a worker and
// the ps killed and restarted while it trains; its weights come out the same
// as an undisturbed run's, and it reports the faults.
TEST(SupervisorRecoveryTest, DistributedDigitsUnderFaultsMatchesAnUndisturbedRun) {
  ServerCluster c;
  ASSERT_TRUE(c.StartAll());
  const std::string program = std::string(FLOWVM_BINARY_DIR) + "/examples/flowvm_distributed_digits";
  const std::string flags = " --mode sync --target " + c.target() +
                            " --steps 400 --no-progress --save-every 25 --health-check-interval-ms 300 "
                            "--health-check-timeout-ms 1000 --cluster-wait-ms 30000";
  fs::create_directories(c.dir() + "/quiet");
  fs::create_directories(c.dir() + "/chaos");
  testing::CliResult quiet = testing::RunProgram(c.dir() + "/quiet", program, flags + " --checkpoint-dir ckpt");
  ASSERT_EQ(quiet.exit_code, 0) << quiet.out << quiet.err;
  std::atomic<bool> done{false};
  std::thread chaos([&] {
    // Kill a worker once ckpt-100 is written, the ps once ckpt-250 is.
    for (const auto& [when, task] : std::vector<std::pair<std::string, std::string>>{{"ckpt-100", "worker-1"},
                                                                                       {"ckpt-250", "ps-0"}}) {
      const std::string index = c.dir() + "/chaos/ckpt/" + when + ".index";
      for (int i = 0; i < 6000 && !done && !fs::exists(index); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      if (done) return;
      c.Kill(task);
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      EXPECT_TRUE(c.Start(task));
    }
  });
  testing::CliResult chaotic = testing::RunProgram(c.dir() + "/chaos", program, flags + " --checkpoint-dir ckpt");
  done = true;
  chaos.join();
  std::printf("%s", chaotic.out.c_str());
  ASSERT_EQ(chaotic.exit_code, 0) << chaotic.out << chaotic.err;
  std::smatch a, b;
  const std::regex fingerprint("weights fingerprint: ([0-9a-f]+)");
  ASSERT_TRUE(std::regex_search(quiet.out, a, fingerprint)) << quiet.out;
  ASSERT_TRUE(std::regex_search(chaotic.out, b, fingerprint)) << chaotic.out;
  EXPECT_EQ(a[1].str(), b[1].str());
  const std::regex accuracy("test accuracy: [0-9.]+%.*");
  ASSERT_TRUE(std::regex_search(quiet.out, a, accuracy));
  ASSERT_TRUE(std::regex_search(chaotic.out, b, accuracy));
  EXPECT_EQ(a[0].str(), b[0].str());
  ASSERT_TRUE(std::regex_search(chaotic.out, a, std::regex("faults survived: ([0-9]+)")));
  EXPECT_GE(std::stoi(a[1].str()), 2);
  EXPECT_NE(chaotic.out.find("supervisor: fault 1 "), std::string::npos);
  EXPECT_NE(chaotic.out.find("/job:ps/replica:0/task:0"), std::string::npos);
  EXPECT_NE(chaotic.out.find("supervisor: recovered"), std::string::npos);
  EXPECT_NE(quiet.out.find("faults survived: 0"), std::string::npos) << quiet.out;
}

}  // namespace
}  // namespace flowvm

// TrainingSupervisor in one process: faults are injected by the step
// function (a local session loses its variables when the supervisor drops
// it, as a cluster loses them with a ps). Recovery on real clusters is in
// tests/supervisor_recovery_test.cc.
#include "flowvm/cc/supervisor.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "flowvm/cc/ops.h"

namespace flowvm {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    char templ[] = "/tmp/flowvm_supervisor_XXXXXX";
    path_ = ::mkdtemp(templ);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// w <- 0.5 * w + x(step): the result depends on every step's input and
// their order, so a step run twice or skipped shows.
struct Model {
  Scope root = Scope::NewRootScope();
  Variable w;
  Output x;
  Operation update;

  Model() {
    w = Variable(root.WithOpName("w"), {2}, DT_FLOAT, init::Constant(1));
    x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
    update = ops::Assign(root, w, ops::Add(root, ops::Mul(root, w, 0.5f), x)).operation;
  }
  Status Step(ClientSession& session, int64_t step) const {
    const float v = static_cast<float>(step % 7) + 0.25f;
    return session.Run({{x, Tensor::FromVector<float>({v, -v})}}, {}, {update}, nullptr);
  }
  std::vector<float> Value(ClientSession& session) const {
    std::vector<Tensor> out;
    EXPECT_TRUE(session.Run({w.ref()}, &out).ok());
    return out.empty() ? std::vector<float>{} : std::vector<float>{out[0].flat<float>()[0], out[0].flat<float>()[1]};
  }
};

SupervisorOptions Options(const std::string& dir, std::vector<std::string>* log) {
  SupervisorOptions o;
  o.checkpoint_dir = dir;
  o.save_every_steps = 4;
  o.session.num_threads = 1;
  o.cluster_wait_ms = 5000;
  o.retry_backoff_ms = 10;
  o.log = [log](const std::string& line) { log->push_back(line); };
  return o;
}

std::vector<float> TrainUndisturbed(int64_t steps) {
  TempDir dir;
  Model m;
  std::vector<std::string> log;
  TrainingSupervisor sv(m.root, Options(dir.path(), &log));
  EXPECT_TRUE(sv.Train(steps, [&](ClientSession& s, int64_t step) { return m.Step(s, step); }).ok());
  std::vector<float> value;
  EXPECT_TRUE(sv.Run([&](ClientSession& s) {
                  value = m.Value(s);
                  return Status::OK();
                }).ok());
  return value;
}

TEST(TrainingSupervisorTest, FaultsDoNotChangeTheResult) {
  const std::vector<float> expected = TrainUndisturbed(30);
  TempDir dir;
  Model m;
  std::vector<std::string> log;
  TrainingSupervisor sv(m.root, Options(dir.path(), &log));
  std::set<int64_t> failed;
  std::vector<int64_t> calls;
  Status s = sv.Train(30, [&](ClientSession& session, int64_t step) -> Status {
    calls.push_back(step);
    // Each of these steps fails once, after its work is done (the worst
    // case: the state moved on but the step is not counted).
    Status r = m.Step(session, step);
    if ((step == 3 || step == 10 || step == 11 || step == 30) && failed.insert(step).second)
      return errors::Unavailable("task /job:worker/replica:0/task:1 is unreachable (injected)");
    if (step == 17 && failed.insert(step).second) return errors::Aborted("task /job:ps/task:0 restarted (injected)");
    return r;
  });
  ASSERT_TRUE(s.ok()) << s;
  std::vector<float> value;
  ASSERT_TRUE(sv.Run([&](ClientSession& session) {
                  value = m.Value(session);
                  return Status::OK();
                }).ok());
  EXPECT_EQ(value, expected);
  const SupervisorStats& st = sv.stats();
  EXPECT_EQ(st.faults, 5);
  EXPECT_EQ(st.recoveries, 5);
  // Steps 1-2 (back to ckpt-0), 9 (ckpt-8), 9-10 (ckpt-8), 16 (ckpt-16: none), 29 (ckpt-28).
  EXPECT_EQ(st.steps_redone, 2 + 1 + 2 + 0 + 1);
  EXPECT_EQ(sv.steps_done(), 30);
  // Never more than one checkpoint interval redone: each step ran at most
  // twice, and steps after a fault resume at the checkpoint.
  std::vector<int64_t> expected_calls = {1, 2, 3, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 9, 10, 11, 9, 10, 11};
  for (int64_t i = 12; i <= 17; ++i) expected_calls.push_back(i);
  for (int64_t i = 17; i <= 30; ++i) expected_calls.push_back(i);
  expected_calls.push_back(29);
  expected_calls.push_back(30);
  EXPECT_EQ(calls, expected_calls);
  // The log names each fault and recovery.
  int faults = 0, recovered = 0;
  for (const std::string& line : log) {
    faults += line.rfind("fault ", 0) == 0;
    recovered += line.rfind("recovered ", 0) == 0;
  }
  EXPECT_EQ(faults, 5);
  EXPECT_EQ(recovered, 5);
  bool named = false;
  for (const std::string& line : log) named = named || line.find("/job:ps/task:0 restarted") != std::string::npos;
  EXPECT_TRUE(named);
}

TEST(TrainingSupervisorTest, ResumesFromTheNewestCheckpoint) {
  const std::vector<float> expected = TrainUndisturbed(20);
  TempDir dir;
  std::vector<std::string> log;
  {
    Model m;
    TrainingSupervisor sv(m.root, Options(dir.path(), &log));
    ASSERT_TRUE(sv.Train(9, [&](ClientSession& s, int64_t step) { return m.Step(s, step); }).ok());
    EXPECT_EQ(sv.stats().start_step, 0);
  }
  EXPECT_TRUE(fs::exists(dir.path() + "/ckpt-9.index"));  // saved at the end
  Model m;
  TrainingSupervisor sv(m.root, Options(dir.path(), &log));
  int64_t first = -1;
  ASSERT_TRUE(sv.Train(20, [&](ClientSession& s, int64_t step) {
                  if (first < 0) first = step;
                  return m.Step(s, step);
                }).ok());
  EXPECT_EQ(sv.stats().start_step, 9);
  EXPECT_EQ(first, 10);
  std::vector<float> value;
  ASSERT_TRUE(sv.Run([&](ClientSession& s) {
                  value = m.Value(s);
                  return Status::OK();
                }).ok());
  EXPECT_EQ(value, expected);
}

TEST(TrainingSupervisorTest, AnUnrecoverableErrorIsNotRetried) {
  TempDir dir;
  Model m;
  std::vector<std::string> log;
  TrainingSupervisor sv(m.root, Options(dir.path(), &log));
  int calls = 0;
  Status s = sv.Train(10, [&](ClientSession& session, int64_t step) -> Status {
    ++calls;
    if (step == 5) {
      // A graph error from the runtime itself: x fed with the wrong type.
      return session.Run({{m.x, Tensor::FromVector<int32_t>({1, 2})}}, {}, {m.update}, nullptr);
    }
    return m.Step(session, step);
  });
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("step 5"), std::string::npos) << s;
  EXPECT_EQ(calls, 5);
  EXPECT_EQ(sv.stats().faults, 0);
  for (const std::string& line : log) EXPECT_EQ(line.find("fault"), std::string::npos) << line;
  EXPECT_FALSE(TrainingSupervisor::IsRecoverable(errors::InvalidArgument("bad graph")));
  EXPECT_FALSE(TrainingSupervisor::IsRecoverable(errors::NotFound("x")));
  EXPECT_FALSE(TrainingSupervisor::IsRecoverable(errors::PermissionDenied("x")));
  EXPECT_TRUE(TrainingSupervisor::IsRecoverable(errors::Unavailable("x")));
  EXPECT_TRUE(TrainingSupervisor::IsRecoverable(errors::Aborted("x")));
  EXPECT_TRUE(TrainingSupervisor::IsRecoverable(errors::DeadlineExceeded("x")));
  EXPECT_FALSE(TrainingSupervisor::IsRecoverable(errors::DeadlineExceeded("x"), false));
}

TEST(TrainingSupervisorTest, AFaultThatRecursAtOnceEndsTraining) {
  TempDir dir;
  Model m;
  std::vector<std::string> log;
  SupervisorOptions o = Options(dir.path(), &log);
  o.max_consecutive_faults = 3;
  TrainingSupervisor sv(m.root, o);
  int calls = 0;
  Status s = sv.Train(10, [&](ClientSession& session, int64_t step) -> Status {
    if (step < 6) return m.Step(session, step);
    ++calls;
    return errors::Unavailable("task /job:worker/replica:0/task:1 is unreachable (injected, always)");
  });
  EXPECT_EQ(s.code(), Code::kUnavailable) << s;
  EXPECT_NE(s.message().find("giving up after 4 faults in a row"), std::string::npos) << s;
  EXPECT_NE(s.message().find("task:1"), std::string::npos) << s;
  EXPECT_EQ(calls, 4);
  EXPECT_EQ(sv.stats().faults, 4);
}

TEST(TrainingSupervisorTest, WithoutCheckpointsAFaultStartsOver) {
  const std::vector<float> expected = TrainUndisturbed(12);
  Model m;
  std::vector<std::string> log;
  SupervisorOptions o = Options("", &log);
  TrainingSupervisor sv(m.root, o);
  bool failed = false;
  int64_t calls = 0;
  ASSERT_TRUE(sv.Train(12, [&](ClientSession& session, int64_t step) -> Status {
                  ++calls;
                  if (step == 7 && !failed) {
                    failed = true;
                    return errors::Unavailable("injected");
                  }
                  return m.Step(session, step);
                }).ok());
  EXPECT_EQ(calls, 7 + 12);
  EXPECT_EQ(sv.stats().steps_redone, 6);
  std::vector<float> value;
  ASSERT_TRUE(sv.Run([&](ClientSession& s) {
                  value = m.Value(s);
                  return Status::OK();
                }).ok());
  EXPECT_EQ(value, expected);
  // Run cannot recover without a checkpoint of the current state.
  Status s = sv.Run([](ClientSession&) { return errors::Unavailable("injected"); });
  EXPECT_EQ(s.code(), Code::kUnavailable);
}

TEST(TrainingSupervisorTest, RunAfterTrainRecoversTheFinalState) {
  TempDir dir;
  Model m;
  std::vector<std::string> log;
  SupervisorOptions o = Options(dir.path(), &log);
  o.save_every_steps = 0;  // only ckpt-0 and the final one
  TrainingSupervisor sv(m.root, o);
  ASSERT_TRUE(sv.Train(7, [&](ClientSession& s, int64_t step) { return m.Step(s, step); }).ok());
  std::vector<float> before, after;
  bool failed = false;
  ASSERT_TRUE(sv.Run([&](ClientSession& s) -> Status {
                  before = m.Value(s);
                  if (!failed) {
                    failed = true;
                    return errors::Unavailable("injected");
                  }
                  return Status::OK();
                }).ok());
  ASSERT_TRUE(sv.Run([&](ClientSession& s) {
                  after = m.Value(s);
                  return Status::OK();
                }).ok());
  EXPECT_EQ(before, after);
  EXPECT_EQ(sv.stats().faults, 1);
  EXPECT_EQ(sv.stats().checkpoints_saved, 2);
}

TEST(TrainingSupervisorTest, ACheckpointDirectoryItCannotUseIsAClearError) {
  TempDir dir;
  // A file where the directory should be.
  const std::string file = dir.path() + "/not_a_dir";
  { std::FILE* f = std::fopen(file.c_str(), "w"); std::fclose(f); }
  Model m;
  std::vector<std::string> log;
  TrainingSupervisor sv(m.root, Options(file + "/ckpt", &log));
  Status s = sv.Train(3, [&](ClientSession& session, int64_t step) { return m.Step(session, step); });
  EXPECT_EQ(s.code(), Code::kFailedPrecondition) << s;
  EXPECT_NE(s.message().find("not_a_dir"), std::string::npos) << s;
  EXPECT_EQ(sv.stats().faults, 0);
}

}  // namespace
}  // namespace flowvm

// Saver: save/restore round trips, keeping the last K, periodic saves, the
// checkpoint list, and the errors a restore can meet.
#include "flowvm/cc/saver.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

#include "flowvm/cc/ops.h"

namespace flowvm {
namespace {

namespace fs = std::filesystem;

class SaverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (fs::temp_directory_path() /
            ("flowvm_saver_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name()))
               .string();
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string dir_;
};

// A model with two variables and an op that changes them.
struct Model {
  Scope root = Scope::NewRootScope();
  Variable w, step;
  Operation bump;
  explicit Model(TensorShape w_shape = {2}, DataType w_type = DT_FLOAT, bool extra = false) {
    w = Variable(root.WithOpName("w"), w_shape, w_type, init::Ones());
    step = Variable(root.WithOpName("step"), {}, DT_INT64, init::Zeros(), false);
    if (extra) Variable(root.WithOpName("extra"), {1}, DT_FLOAT, init::Zeros());
    if (w_type == DT_FLOAT && w_shape == TensorShape({2})) {
      auto a = ops::AssignAdd(root, w, {1.f, 2.f});
      auto b = ops::AssignAdd(root, step, Input(int64_t{1}));
      bump = ops::NoOp(root.WithControlDependencies({a.operation, b.operation})).operation;
    }
  }
};

TEST_F(SaverTest, SavesAndRestoresVariables) {
  Model m;
  Saver saver(m.root);
  ASSERT_TRUE(m.root.ok()) << m.root.status();
  ClientSession session(m.root);
  ASSERT_TRUE(session.Run({}, {}, {GlobalVariablesInitializer(m.root)}, nullptr).ok());
  ASSERT_TRUE(session.Run({}, {}, {m.bump}, nullptr).ok());
  auto prefix = saver.Save(session, dir_, 1);
  ASSERT_TRUE(prefix.ok()) << prefix.status();
  EXPECT_EQ(*prefix, dir_ + "/ckpt-1");
  EXPECT_TRUE(fs::exists(*prefix + ".index"));
  ASSERT_TRUE(session.Run({}, {}, {m.bump}, nullptr).ok());
  ASSERT_TRUE(saver.Restore(session, *prefix).ok());
  std::vector<Tensor> out;
  ASSERT_TRUE(session.Run({m.w, m.step}, &out).ok());
  EXPECT_EQ(out[0].flat<float>()[0], 2);
  EXPECT_EQ(out[0].flat<float>()[1], 3);
  EXPECT_EQ(out[1].scalar<int64_t>(), 1);

  // A fresh process-like start: another graph and session (with variables
  // of its own), restored from the newest checkpoint.
  Model again;
  Saver saver2(again.root);
  ClientSession session2(again.root);
  auto latest = Saver::LatestCheckpoint(dir_);
  ASSERT_TRUE(latest.ok()) << latest.status();
  ASSERT_TRUE(saver2.Restore(session2, *latest).ok());
  ASSERT_TRUE(session2.Run({again.step}, &out).ok());
  EXPECT_EQ(out[0].scalar<int64_t>(), 1);
}

TEST_F(SaverTest, KeepsTheLastKAndListsTheNewest) {
  Model m;
  SaverOptions options;
  options.max_to_keep = 2;
  Saver saver(m.root, options);
  ClientSession session(m.root);
  ASSERT_TRUE(session.Run({}, {}, {GlobalVariablesInitializer(m.root)}, nullptr).ok());
  for (int step = 1; step <= 4; ++step) ASSERT_TRUE(saver.Save(session, dir_, step * 10).ok());
  EXPECT_FALSE(fs::exists(dir_ + "/ckpt-10.index"));
  EXPECT_FALSE(fs::exists(dir_ + "/ckpt-20.index"));
  EXPECT_TRUE(fs::exists(dir_ + "/ckpt-30.index"));
  EXPECT_TRUE(fs::exists(dir_ + "/ckpt-40.index"));
  auto latest = Saver::LatestCheckpoint(dir_);
  ASSERT_TRUE(latest.ok());
  EXPECT_EQ(*latest, dir_ + "/ckpt-40");
  std::ifstream state(dir_ + "/checkpoint");
  std::string text((std::istreambuf_iterator<char>(state)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text,
            "model_checkpoint_path: \"ckpt-40\"\nall_model_checkpoint_paths: \"ckpt-30\"\n"
            "all_model_checkpoint_paths: \"ckpt-40\"\n");
}

TEST_F(SaverTest, LeftoversOfAKilledSaveAreRemovedByTheNextSave) {
  Model m;
  Saver saver(m.root);
  ClientSession session(m.root);
  ASSERT_TRUE(session.Run({}, {}, {GlobalVariablesInitializer(m.root)}, nullptr).ok());
  ASSERT_TRUE(saver.Save(session, dir_, 1).ok());
  // What a kill can leave: an unlisted checkpoint and a temporary file.
  std::ofstream(dir_ + "/ckpt-7.index") << "x";
  std::ofstream(dir_ + "/ckpt-9.data-00000-of-00001.tempstate1234") << "x";
  std::ofstream(dir_ + "/notes.txt") << "not ours";
  ASSERT_TRUE(saver.Save(session, dir_, 2).ok());
  EXPECT_FALSE(fs::exists(dir_ + "/ckpt-7.index"));
  EXPECT_FALSE(fs::exists(dir_ + "/ckpt-9.data-00000-of-00001.tempstate1234"));
  EXPECT_TRUE(fs::exists(dir_ + "/notes.txt"));
  EXPECT_TRUE(fs::exists(dir_ + "/ckpt-1.index"));
  EXPECT_TRUE(fs::exists(dir_ + "/ckpt-2.index"));
}

TEST_F(SaverTest, MaybeSaveEveryNStepsOrSeconds) {
  Model m;
  SaverOptions by_steps;
  by_steps.save_every_steps = 3;
  by_steps.max_to_keep = 0;
  Saver saver(m.root, by_steps);
  ClientSession session(m.root);
  ASSERT_TRUE(session.Run({}, {}, {GlobalVariablesInitializer(m.root)}, nullptr).ok());
  std::vector<int> saved;
  for (int step = 1; step <= 7; ++step) {
    auto r = saver.MaybeSave(session, dir_, step);
    ASSERT_TRUE(r.ok()) << r.status();
    if (!r->empty()) saved.push_back(step);
  }
  EXPECT_EQ(saved, (std::vector<int>{3, 6}));

  SaverOptions by_time;
  by_time.save_every_secs = 0.05;
  Saver timed(m.root, by_time);
  auto r = timed.MaybeSave(session, dir_, 100);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->empty());  // too soon after the Saver was made
  std::this_thread::sleep_for(std::chrono::milliseconds(80));
  r = timed.MaybeSave(session, dir_, 101);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, dir_ + "/ckpt-101");
}

TEST_F(SaverTest, NoCheckpointIsNotFoundAndAMalformedListIsDataLoss) {
  auto latest = Saver::LatestCheckpoint(dir_);
  EXPECT_EQ(latest.status().code(), Code::kNotFound) << latest.status();
  fs::create_directories(dir_);
  std::ofstream(dir_ + "/checkpoint") << "model_checkpoint_path: ckpt-1\n";
  latest = Saver::LatestCheckpoint(dir_);
  EXPECT_EQ(latest.status().code(), Code::kDataLoss) << latest.status();
  std::ofstream(dir_ + "/checkpoint") << "model_checkpoint_path: \"ckpt-9\"\n";
  latest = Saver::LatestCheckpoint(dir_);
  EXPECT_EQ(latest.status().code(), Code::kDataLoss) << latest.status();
  EXPECT_NE(latest.status().ToString().find("ckpt-9.index does not exist"), std::string::npos) << latest.status();
}

// Saves the standard model and returns the checkpoint's prefix.
std::string SaveStandard(const std::string& dir) {
  Model m;
  Saver saver(m.root);
  ClientSession session(m.root);
  EXPECT_TRUE(session.Run({}, {}, {GlobalVariablesInitializer(m.root)}, nullptr).ok());
  auto prefix = saver.Save(session, dir, 5);
  EXPECT_TRUE(prefix.ok()) << prefix.status();
  return prefix.ok() ? *prefix : "";
}

TEST_F(SaverTest, RestoreErrorsNameWhatIsWrong) {
  std::string prefix = SaveStandard(dir_);
  struct Case {
    const char* what;
    TensorShape shape;
    DataType dtype;
    bool extra;
    Code code;
    const char* needle;
  };
  for (const Case& c : {Case{"shape", {3}, DT_FLOAT, false, Code::kInvalidArgument, "[3]"},
                        Case{"dtype", {2}, DT_DOUBLE, false, Code::kInvalidArgument, "double"},
                        Case{"missing tensor", {2}, DT_FLOAT, true, Code::kNotFound, "extra"}}) {
    Model m(c.shape, c.dtype, c.extra);
    Saver saver(m.root);
    ASSERT_TRUE(m.root.ok()) << m.root.status();
    ClientSession session(m.root);
    Status s = saver.Restore(session, prefix);
    EXPECT_EQ(s.code(), c.code) << c.what << ": " << s;
    EXPECT_NE(s.ToString().find(c.needle), std::string::npos) << c.what << ": " << s;
  }
}

TEST_F(SaverTest, TruncatedOrCorruptCheckpointsAreDataLoss) {
  std::string prefix = SaveStandard(dir_);
  std::string data = prefix + ".data-00000-of-00001";
  for (const std::string& file : {prefix + ".index", data}) {
    std::string backup = file + ".bak";
    fs::copy_file(file, backup);
    fs::resize_file(file, fs::file_size(file) - 3);
    Model m;
    Saver saver(m.root);
    ClientSession session(m.root);
    Status s = saver.Restore(session, prefix);
    EXPECT_EQ(s.code(), Code::kDataLoss) << s;
    EXPECT_NE(s.ToString().find(file), std::string::npos) << s;
    fs::rename(backup, file);
  }
  fs::remove(data);
  Model m;
  Saver saver(m.root);
  ClientSession session(m.root);
  Status s = saver.Restore(session, prefix);
  EXPECT_EQ(s.code(), Code::kNotFound) << s;
  EXPECT_NE(s.ToString().find(data), std::string::npos) << s;
}

TEST_F(SaverTest, UnwritableDirectoryIsAnError) {
  Model m;
  Saver saver(m.root);
  ClientSession session(m.root);
  ASSERT_TRUE(session.Run({}, {}, {GlobalVariablesInitializer(m.root)}, nullptr).ok());
  fs::create_directories(dir_);
  std::ofstream(dir_ + "/file") << "x";
  auto r = saver.Save(session, dir_ + "/file/sub", 1);  // a path through a regular file
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.status().ToString().find(dir_ + "/file/sub"), std::string::npos) << r.status();
}

}  // namespace
}  // namespace flowvm

// Checkpoints end to end through a Session, the way tf.train.Saver builds
// them: SaveV2 of the variables to a prefix fed at run time, RestoreV2 into
// Assigns, across sessions; and each way a restore fails, naming the node,
// the tensor and the file.
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "flowvm/checkpoint.h"
#include "flowvm/graph_io.h"
#include "flowvm/session.h"

namespace flowvm {
namespace {

// w: float [2,2] and step: int64 [], with init, save/SaveV2 (prefix fed
// through save/prefix), restore_all (RestoreV2 into both) and bump (w += 1).
const char kSaverGraph[] = R"(
node { name: "w" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: 2 } dim { size: 2 } } } } }
node { name: "step" op: "VariableV2" attr { key: "dtype" value { type: DT_INT64 } }
       attr { key: "shape" value { shape {} } } }
node { name: "w_init" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 2 } }
                                            float_val: 1 float_val: 2 float_val: 3 float_val: 4 } } } }
node { name: "step_init" op: "Const" attr { key: "dtype" value { type: DT_INT64 } }
       attr { key: "value" value { tensor { dtype: DT_INT64 tensor_shape {} int64_val: 5 } } } }
node { name: "w/Assign" op: "Assign" input: "w" input: "w_init" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "step/Assign" op: "Assign" input: "step" input: "step_init" attr { key: "T" value { type: DT_INT64 } } }
node { name: "init" op: "NoOp" input: "^w/Assign" input: "^step/Assign" }
node { name: "ones" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 2 } }
                                            float_val: 1 } } } }
node { name: "bump" op: "AssignAdd" input: "w" input: "ones" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "save/prefix" op: "Placeholder" attr { key: "dtype" value { type: DT_STRING } }
       attr { key: "shape" value { shape {} } } }
node { name: "save/names" op: "Const" attr { key: "dtype" value { type: DT_STRING } }
       attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim { size: 2 } }
                                            string_val: "step" string_val: "w" } } } }
node { name: "save/slices" op: "Const" attr { key: "dtype" value { type: DT_STRING } }
       attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim { size: 2 } }
                                            string_val: "" string_val: "" } } } }
node { name: "save/SaveV2" op: "SaveV2" input: "save/prefix" input: "save/names" input: "save/slices"
       input: "step" input: "w" attr { key: "dtypes" value { list { type: DT_INT64 type: DT_FLOAT } } } }
node { name: "restore/RestoreV2" op: "RestoreV2" input: "save/prefix" input: "save/names" input: "save/slices"
       attr { key: "dtypes" value { list { type: DT_INT64 type: DT_FLOAT } } } }
node { name: "restore/step" op: "Assign" input: "step" input: "restore/RestoreV2:0"
       attr { key: "T" value { type: DT_INT64 } } }
node { name: "restore/w" op: "Assign" input: "w" input: "restore/RestoreV2:1"
       attr { key: "T" value { type: DT_FLOAT } } }
node { name: "restore_all" op: "NoOp" input: "^restore/step" input: "^restore/w" }
versions { producer: 1205 }
)";

bool Contains(const Status& s, const std::string& part) { return s.message().find(part) != std::string::npos; }

class CheckpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/checkpoint_test_XXXXXX";
    ASSERT_NE(::mkdtemp(dir_.data()), nullptr);
    prefix_ = dir_ + "/train/model.ckpt-100";
    auto graph = ParseGraphDef(kSaverGraph);
    ASSERT_TRUE(graph.ok()) << graph.status();
    graph_ = *graph;
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  std::unique_ptr<Session> NewSession() {
    auto s = Session::Create(SessionOptions{}, graph_);
    EXPECT_TRUE(s.ok()) << s.status();
    return s.ok() ? std::move(*s) : nullptr;
  }

  Status RunTarget(Session* s, const std::string& target) {
    std::vector<Tensor> out;
    return s->Run({{"save/prefix", Tensor::Scalar<std::string>(prefix_)}}, {}, {target}, &out);
  }

  // w and step, read through the session.
  std::vector<Tensor> Fetch(Session* s) {
    std::vector<Tensor> out;
    Status st = s->Run({}, {"w:0", "step:0"}, {}, &out);
    EXPECT_TRUE(st.ok()) << st;
    return out;
  }

  std::string dir_, prefix_;
  GraphDef graph_;
};

TEST_F(CheckpointTest, SaveAndRestoreAcrossSessions) {
  auto s1 = NewSession();
  ASSERT_NE(s1, nullptr);
  ASSERT_TRUE(RunTarget(s1.get(), "init").ok());
  Status st = RunTarget(s1.get(), "save/SaveV2");
  ASSERT_TRUE(st.ok()) << st;

  auto reader = CheckpointReader::Open(prefix_);
  ASSERT_TRUE(reader.ok()) << reader.status();
  ASSERT_EQ((*reader)->tensors().size(), 2u);
  EXPECT_EQ((*reader)->tensors()[0].name, "step");
  EXPECT_EQ((*reader)->tensors()[1].name, "w");
  EXPECT_EQ((*reader)->tensors()[1].shape, TensorShape({2, 2}));

  // Change w, then restore within the same session.
  ASSERT_TRUE(RunTarget(s1.get(), "bump").ok());
  EXPECT_EQ(Fetch(s1.get())[0].data<float>()[0], 2);
  st = RunTarget(s1.get(), "restore_all");
  ASSERT_TRUE(st.ok()) << st;
  auto out = Fetch(s1.get());
  EXPECT_EQ(out[0].DebugString(), "float [2,2] [[1 2] [3 4]]");
  EXPECT_EQ(out[1].DebugString(), "int64 [] 5");
  ASSERT_TRUE(s1->Close().ok());

  // A new session has variables of its own: none has a value until the restore.
  auto s2 = NewSession();
  ASSERT_NE(s2, nullptr);
  std::vector<Tensor> none;
  EXPECT_EQ(s2->Run({}, {"w:0"}, {}, &none).code(), Code::kFailedPrecondition);
  st = RunTarget(s2.get(), "restore_all");
  ASSERT_TRUE(st.ok()) << st;
  out = Fetch(s2.get());
  EXPECT_EQ(out[0].DebugString(), "float [2,2] [[1 2] [3 4]]");
  EXPECT_EQ(out[1].DebugString(), "int64 [] 5");
}

TEST_F(CheckpointTest, RestoringAnotherShapeNamesTheAssign) {
  ASSERT_TRUE(WriteCheckpoint(prefix_, {{"w", Tensor::FromVector<float>({1, 2, 3})},
                                        {"step", Tensor::Scalar<int64_t>(1)}}).ok());
  auto s = NewSession();
  ASSERT_NE(s, nullptr);
  // Into fresh variables (checked against the declared shape) and into
  // initialized ones.
  for (bool initialized : {false, true}) {
    if (initialized) {
      ASSERT_TRUE(RunTarget(s.get(), "init").ok());
    }
    Status st = RunTarget(s.get(), "restore_all");
    EXPECT_EQ(st.code(), Code::kInvalidArgument) << st;
    for (const char* part : {"node 'restore/w' (Assign)", "[2,2]", "[3]"})
      EXPECT_TRUE(Contains(st, part)) << part << " missing: " << st;
  }
}

TEST_F(CheckpointTest, RestoreErrorsNameTheNodeTensorAndFile) {
  auto s = NewSession();
  ASSERT_NE(s, nullptr);
  const std::string node = "node 'restore/RestoreV2' (RestoreV2)";

  Status st = RunTarget(s.get(), "restore_all");
  EXPECT_EQ(st.code(), Code::kNotFound) << st;
  EXPECT_TRUE(Contains(st, node)) << st;
  EXPECT_TRUE(Contains(st, prefix_ + ".index")) << st;

  ASSERT_TRUE(WriteCheckpoint(prefix_, {{"step", Tensor::Scalar<int64_t>(1)}}).ok());
  st = RunTarget(s.get(), "restore_all");
  EXPECT_EQ(st.code(), Code::kNotFound) << st;
  for (const std::string& part : {node, std::string("'w'"), prefix_})
    EXPECT_TRUE(Contains(st, part)) << part << " missing: " << st;

  ASSERT_TRUE(WriteCheckpoint(prefix_, {{"step", Tensor::Scalar<int64_t>(1)},
                                        {"w", Tensor::Scalar<double>(1)}}).ok());
  st = RunTarget(s.get(), "restore_all");
  EXPECT_EQ(st.code(), Code::kInvalidArgument) << st;
  for (const std::string& part : {node, std::string("'w'"), std::string("double"), std::string("float")})
    EXPECT_TRUE(Contains(st, part)) << part << " missing: " << st;

  ASSERT_TRUE(WriteCheckpoint(prefix_, {{"step", Tensor::Scalar<int64_t>(1)},
                                        {"w", Tensor(DT_FLOAT, TensorShape({2, 2}))}}).ok());
  std::filesystem::resize_file(prefix_ + ".data-00000-of-00001", 20);
  st = RunTarget(s.get(), "restore_all");
  EXPECT_EQ(st.code(), Code::kDataLoss) << st;
  EXPECT_TRUE(Contains(st, node)) << st;
  EXPECT_TRUE(Contains(st, prefix_ + ".data-00000-of-00001")) << st;
}

TEST_F(CheckpointTest, SaveErrorsNameTheNodeAndPath) {
  auto s = NewSession();
  ASSERT_NE(s, nullptr);
  // Uninitialized variables cannot be saved.
  Status st = RunTarget(s.get(), "save/SaveV2");
  EXPECT_EQ(st.code(), Code::kFailedPrecondition) << st;
  EXPECT_TRUE(Contains(st, "node 'save/SaveV2' (SaveV2)")) << st;

  ASSERT_TRUE(RunTarget(s.get(), "init").ok());
  std::ofstream(dir_ + "/file") << "x";
  prefix_ = dir_ + "/file/model";
  st = RunTarget(s.get(), "save/SaveV2");
  EXPECT_FALSE(st.ok());
  EXPECT_TRUE(Contains(st, "node 'save/SaveV2' (SaveV2)")) << st;
  EXPECT_TRUE(Contains(st, dir_ + "/file")) << st;
}

}  // namespace
}  // namespace flowvm

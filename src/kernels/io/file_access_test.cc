// The kernels that touch files, on a device with a path policy (as a
// server's are): ReadFile, WriteFile, SaveV2, RestoreV2 and a record reader
// work inside the allowed directory and fail with PermissionDenied naming
// the node and the path outside it, through `..` and symbolic links too,
// without creating anything there.
#include <limits.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "flowvm/record_io.h"
#include "graph/attr_value_util.h"
#include "graph/graph.h"
#include "kernels/framework/call_frame.h"
#include "kernels/framework/cancellation.h"
#include "kernels/framework/file_access.h"
#include "runtime/executor.h"
#include "util/op_test_util.h"

namespace flowvm {
namespace {

namespace fs = std::filesystem;
using testing::ConstNode;
using testing::OpTest;
using testing::TestNode;

Tensor Str(const std::string& s) { return Tensor::Scalar<std::string>(s); }
Tensor Strings(std::vector<std::string> v) { return Tensor::FromVector<std::string>(v); }

class FileAccessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string root = ::testing::TempDir() + "/file_access_XXXXXX";
    ASSERT_NE(::mkdtemp(root.data()), nullptr);
    char real[PATH_MAX];
    ASSERT_NE(::realpath(root.c_str(), real), nullptr);
    root_ = real;
    allowed_ = root_ + "/allowed";
    outside_ = root_ + "/outside";
    fs::create_directories(allowed_);
    fs::create_directories(outside_);
    std::ofstream(allowed_ + "/in.txt") << "inside";
    std::ofstream(outside_ + "/secret.txt") << "secret";
    fs::create_symlink(outside_, allowed_ + "/escape");
    auto p = PathPolicy::Create({allowed_});
    ASSERT_TRUE(p.ok()) << p.status();
    policy_ = *p;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }

  // Runs `node` on a device with the policy.
  StatusOr<std::vector<Tensor>> Run(const NodeDef& node, const std::vector<Tensor>& inputs) {
    OpTest t;
    t.device()->set_path_policy(policy_);
    FLOWVM_RETURN_IF_ERROR(t.Init(node));
    for (const Tensor& in : inputs) t.AddInput(in);
    FLOWVM_RETURN_IF_ERROR(t.Run());
    std::vector<Tensor> out;
    for (int i = 0; i < t.num_outputs(); ++i) out.push_back(t.output(i));
    return out;
  }
  StatusOr<std::vector<Tensor>> ReadFile(const std::string& path) {
    return Run(TestNode("read/ReadFile", "ReadFile").Input("f"), {Str(path)});
  }
  Status WriteFile(const std::string& path) {
    return Run(TestNode("write/WriteFile", "WriteFile").Input("f").Input("c"), {Str(path), Str("x")}).status();
  }
  Status Save(const std::string& prefix) {
    auto node = TestNode("save/SaveV2", "SaveV2").Input("p").Input("n").Input("s").Input("t0").Attr(
        "dtypes", std::vector<DataType>{DT_FLOAT});
    return Run(node, {Str(prefix), Strings({"w"}), Strings({""}), Tensor::FromVector<float>({1, 2})}).status();
  }
  StatusOr<std::vector<Tensor>> Restore(const std::string& prefix) {
    auto node = TestNode("save/RestoreV2", "RestoreV2").Input("p").Input("n").Input("s").Attr(
        "dtypes", std::vector<DataType>{DT_FLOAT});
    return Run(node, {Str(prefix), Strings({"w"}), Strings({""})});
  }

  // PermissionDenied naming the node and the path, the node once.
  static void ExpectRefused(const Status& s, const std::string& node, const std::string& verb,
                            const std::string& path) {
    ASSERT_EQ(s.code(), Code::kPermissionDenied) << s;
    const std::string want = "node '" + node + "' may not " + verb + " '" + path + "'";
    EXPECT_EQ(s.message().rfind(want, 0), 0u) << s;
    EXPECT_EQ(s.message().find("node '" + node + "'", 1), std::string::npos) << "node named twice: " << s;
  }
  bool Exists(const std::string& path) { return fs::exists(fs::symlink_status(path)); }

  std::string root_, allowed_, outside_;
  std::shared_ptr<const PathPolicy> policy_;
};

TEST_F(FileAccessTest, ReadFile) {
  auto in = ReadFile(allowed_ + "/in.txt");
  ASSERT_TRUE(in.ok()) << in.status();
  EXPECT_EQ((*in)[0].scalar<std::string>(), "inside");
  ExpectRefused(ReadFile(outside_ + "/secret.txt").status(), "read/ReadFile", "read", outside_ + "/secret.txt");
  ExpectRefused(ReadFile(allowed_ + "/../outside/secret.txt").status(), "read/ReadFile", "read",
                allowed_ + "/../outside/secret.txt");
  ExpectRefused(ReadFile(allowed_ + "/escape/secret.txt").status(), "read/ReadFile", "read",
                allowed_ + "/escape/secret.txt");
  Status s = ReadFile("/etc/passwd").status();
  EXPECT_EQ(s.message(), "node 'read/ReadFile' may not read '/etc/passwd': outside the directories this server "
                         "allows (" + allowed_ + ")");
}

TEST_F(FileAccessTest, WriteFile) {
  FLOWVM_ASSERT_OK(WriteFile(allowed_ + "/logs/run/out.txt"));
  EXPECT_TRUE(fs::exists(allowed_ + "/logs/run/out.txt"));
  ExpectRefused(WriteFile(outside_ + "/new/out.txt"), "write/WriteFile", "write", outside_ + "/new/out.txt");
  ExpectRefused(WriteFile(allowed_ + "/../outside/out.txt"), "write/WriteFile", "write",
                allowed_ + "/../outside/out.txt");
  ExpectRefused(WriteFile(allowed_ + "/missing/../../outside/out.txt"), "write/WriteFile", "write",
                allowed_ + "/missing/../../outside/out.txt");
  ExpectRefused(WriteFile(allowed_ + "/escape/out.txt"), "write/WriteFile", "write", allowed_ + "/escape/out.txt");
  fs::create_symlink(outside_ + "/planted.txt", allowed_ + "/dangling");
  ExpectRefused(WriteFile(allowed_ + "/dangling"), "write/WriteFile", "write", allowed_ + "/dangling");
  EXPECT_FALSE(Exists(outside_ + "/new"));
  EXPECT_FALSE(Exists(outside_ + "/out.txt"));
  EXPECT_FALSE(Exists(outside_ + "/planted.txt"));
  EXPECT_FALSE(Exists(allowed_ + "/missing"));
}

TEST_F(FileAccessTest, SaveAndRestore) {
  FLOWVM_ASSERT_OK(Save(allowed_ + "/ckpt/model-1"));
  auto restored = Restore(allowed_ + "/ckpt/model-1");
  ASSERT_TRUE(restored.ok()) << restored.status();
  testing::ExpectTensorEqual((*restored)[0], Tensor::FromVector<float>({1, 2}));

  ExpectRefused(Save(outside_ + "/ckpt/model-1"), "save/SaveV2", "write", outside_ + "/ckpt/model-1.index");
  ExpectRefused(Save(allowed_ + "/../outside/model-1"), "save/SaveV2", "write",
                allowed_ + "/../outside/model-1.index");
  ExpectRefused(Save(allowed_ + "/escape/model-1"), "save/SaveV2", "write", allowed_ + "/escape/model-1.index");
  EXPECT_FALSE(Exists(outside_ + "/ckpt"));
  EXPECT_EQ(std::distance(fs::directory_iterator(outside_), fs::directory_iterator()), 1) << "only secret.txt";

  // A checkpoint outside (written by someone else) is not read either.
  fs::copy(allowed_ + "/ckpt", outside_ + "/ckpt");
  ExpectRefused(Restore(outside_ + "/ckpt/model-1").status(), "save/RestoreV2", "read",
                outside_ + "/ckpt/model-1.index");
  ExpectRefused(Restore(allowed_ + "/escape/ckpt/model-1").status(), "save/RestoreV2", "read",
                allowed_ + "/escape/ckpt/model-1.index");
}

TEST_F(FileAccessTest, NoPolicyMeansUnrestricted) {
  auto out = testing::RunOpKernel(TestNode("r", "ReadFile").Input("f"), {Str(outside_ + "/secret.txt")});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].scalar<std::string>(), "secret");
  FileAccessChecker none;
  FLOWVM_EXPECT_OK(none.Check("/etc/passwd", PathAccess::kWrite));
}

// A reader opens the files its queue names one by one: each is checked as
// it is opened, and the refusal names the ReaderRead node.
class ReaderFileAccessTest : public FileAccessTest {
 protected:
  std::string WriteRecords(const std::string& path, const std::vector<std::string>& records) {
    auto w = RecordWriter::Create(path);
    EXPECT_TRUE(w.ok()) << w.status();
    for (const auto& r : records) EXPECT_TRUE((*w)->Write(r).ok());
    EXPECT_TRUE((*w)->Close().ok());
    return path;
  }
  static NodeDef Node(const std::string& name, const std::string& op, const std::vector<std::string>& inputs,
                      std::map<std::string, AttrValue> attrs = {}) {
    TestNode n(name, op);
    for (const auto& in : inputs) n.Input(in);
    NodeDef def = n;
    for (auto& [k, v] : attrs) (*def.mutable_attr())[k] = v;
    return def;
  }
  // One step on a device with the policy: the files are queued, the queue
  // closed, and up to 100 records read.
  StatusOr<std::vector<std::string>> ReadAll(const std::vector<std::string>& files) {
    auto strings = MakeAttrValue(DataTypeVector{DT_STRING});
    GraphDef g;
    g.mutable_versions()->set_producer(1205);
    for (NodeDef n : {Node("files", "FIFOQueueV2", {}, {{"component_types", strings}}), ConstNode("names", Strings(files)),
                      ConstNode("n", Tensor::Scalar<int64_t>(100)),
                      Node("enqueue", "QueueEnqueueManyV2", {"files", "names"}, {{"Tcomponents", strings}}),
                      Node("close", "QueueCloseV2", {"files", "^enqueue"}), Node("reader", "TFRecordReaderV2", {}),
                      Node("input/read", "ReaderReadUpToV2", {"reader", "files", "n", "^close"}),
                      Node("ret", "_Retval", {"input/read:1"},
                           {{"T", MakeAttrValue(DT_STRING)}, {"index", MakeAttrValue(int64_t{0})}})})
      *g.add_node() = n;
    auto graph = std::make_unique<Graph>();
    graph->set_allow_internal_names(true);
    FLOWVM_RETURN_IF_ERROR(ConvertGraphDefToGraph(g, graph.get()));
    DeviceBase device("/job:localhost/replica:0/task:0/device:CPU:0", DEVICE_CPU, 1, nullptr);
    device.set_path_policy(policy_);
    ExecutorOptions options;
    options.device = &device;
    FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<Executor> executor, Executor::Create(std::move(graph), options));
    Tensor values;
    CallFrame frame(nullptr, 0, &values, 1);
    CancellationManager cancellation;
    Executor::RunArgs args;
    args.cancellation = &cancellation;
    args.call_frame = &frame;
    FLOWVM_RETURN_IF_ERROR(executor->Run(args));
    std::vector<std::string> out;
    for (const std::string& v : values.flat<std::string>()) out.push_back(v);
    return out;
  }
};

TEST_F(ReaderFileAccessTest, ChecksEachFileAsItOpensIt) {
  const std::string a = WriteRecords(allowed_ + "/a.tfrecord", {"a0", "a1"});
  const std::string b = WriteRecords(allowed_ + "/b.tfrecord", {"b0"});
  const std::string out = WriteRecords(outside_ + "/c.tfrecord", {"c0"});
  auto read = ReadAll({a, b});
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, (std::vector<std::string>{"a0", "a1", "b0"}));

  for (const std::string& bad : {out, allowed_ + "/../outside/c.tfrecord", allowed_ + "/escape/c.tfrecord"}) {
    auto refused = ReadAll({a, bad});
    ExpectRefused(refused.status(), "input/read", "read", bad);
  }
}

}  // namespace
}  // namespace flowvm

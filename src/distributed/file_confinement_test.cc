// A server confines its graphs' file ops to the directories it allows
// (ServerOptions::allowed_dirs): through a grpc:// session, ReadFile,
// WriteFile, SaveV2 and RestoreV2 inside work; outside, also through `..`
// or a symbolic link, and also with a constant file name, they fail with
// PermissionDenied naming the node and the path, and the server stays up.
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "distributed/distributed_test_util.h"
#include "flowvm/session.h"
#include "runtime/runtime_test_util.h"

namespace flowvm {
namespace {

namespace fs = std::filesystem;
using namespace runtime_testing;  // NOLINT
using distributed_testing::LocalCluster;

Tensor Str(const std::string& s) { return Tensor::Scalar<std::string>(s); }

std::string RealPath(const std::string& p) {
  char buf[PATH_MAX];
  return ::realpath(p.c_str(), buf) != nullptr ? std::string(buf) : p;
}

class FileConfinementTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string root = ::testing::TempDir() + "/file_confinement_XXXXXX";
    ASSERT_NE(::mkdtemp(root.data()), nullptr);
    root_ = RealPath(root);
    allowed_ = root_ + "/allowed";
    outside_ = root_ + "/outside";
    fs::create_directories(allowed_);
    fs::create_directories(outside_);
    std::ofstream(allowed_ + "/in.txt") << "inside";
    std::ofstream(outside_ + "/secret.txt") << "secret";
    fs::create_symlink(outside_, allowed_ + "/escape");
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }

  // Every file op of the tests, each path fed; a ReadFile of a constant
  // outside name too (constant folding must not read it for the graph).
  static GraphDef FileOps(const std::string& constant_name) {
    auto scalar = PartialTensorShape(std::initializer_list<int64_t>{});
    return GraphOf({
        PlaceholderNode("path", DT_STRING, scalar),
        TestNode("read", "ReadFile").Input("path"),
        ConstNode("contents", Str("written")),
        TestNode("write", "WriteFile").Input("path").Input("contents"),
        ConstNode("names", Tensor::FromVector<std::string>({"v"})),
        ConstNode("slices", Tensor::FromVector<std::string>({""})),
        ConstNode("value", F({1, 2, 3}, {3})),
        TestNode("save/SaveV2", "SaveV2")
            .Input("path").Input("names").Input("slices").Input("value")
            .Attr("dtypes", std::vector<DataType>{DT_FLOAT}),
        TestNode("save/RestoreV2", "RestoreV2")
            .Input("path").Input("names").Input("slices")
            .Attr("dtypes", std::vector<DataType>{DT_FLOAT}),
        ConstNode("constant_name", Str(constant_name)),
        TestNode("read_constant", "ReadFile").Input("constant_name"),
    });
  }

  static Status Read(Session* s, const std::string& path, std::string* contents = nullptr) {
    std::vector<Tensor> out;
    FLOWVM_RETURN_IF_ERROR(s->Run({{"path", Str(path)}}, {"read"}, {}, &out));
    if (contents != nullptr) *contents = out[0].scalar<std::string>();
    return Status::OK();
  }
  static Status Run(Session* s, const std::string& path, const std::string& target) {
    return s->Run({{"path", Str(path)}}, {}, {target}, nullptr);
  }
  static void ExpectRefused(const Status& s, const std::string& node, const std::string& verb,
                            const std::string& path) {
    EXPECT_EQ(s.code(), Code::kPermissionDenied) << s;
    EXPECT_NE(s.message().find("node '" + node + "' may not " + verb + " '" + path + "'"), std::string::npos) << s;
  }

  std::string root_, allowed_, outside_;
};

TEST_F(FileConfinementTest, GraphsTouchFilesOnlyInsideTheAllowedDirectory) {
  ServerOptions base;
  base.allowed_dirs = {allowed_};
  LocalCluster cluster({{"worker", 1}}, base);
  ASSERT_TRUE(cluster.StartAll());
  EXPECT_EQ(cluster.server({"worker", 0})->allowed_dirs(), std::vector<std::string>{allowed_});
  SessionOptions options;
  options.target = cluster.Target();
  options.connect_timeout_ms = 10000;
  auto session = NewSessionOrDie(FileOps(outside_ + "/secret.txt"), options);
  ASSERT_NE(session, nullptr);
  Session* s = session.get();

  // Inside: read, write, save and restore.
  std::string contents;
  FLOWVM_ASSERT_OK(Read(s, allowed_ + "/in.txt", &contents));
  EXPECT_EQ(contents, "inside");
  FLOWVM_ASSERT_OK(Run(s, allowed_ + "/out/written.txt", "write"));
  FLOWVM_ASSERT_OK(Read(s, allowed_ + "/out/written.txt", &contents));
  EXPECT_EQ(contents, "written");
  FLOWVM_ASSERT_OK(Run(s, allowed_ + "/ckpt/model-1", "save/SaveV2"));
  std::vector<Tensor> restored;
  FLOWVM_ASSERT_OK(s->Run({{"path", Str(allowed_ + "/ckpt/model-1")}}, {"save/RestoreV2"}, {}, &restored));
  ExpectTensorNear(restored[0], F({1, 2, 3}, {3}));

  // Outside: directly, through `..`, through a link.
  for (const std::string& secret :
       {outside_ + "/secret.txt", allowed_ + "/../outside/secret.txt", allowed_ + "/escape/secret.txt"}) {
    ExpectRefused(Read(s, secret), "read", "read", secret);
  }
  for (const std::string& dir : {outside_, allowed_ + "/../outside", allowed_ + "/escape"}) {
    ExpectRefused(Run(s, dir + "/new.txt", "write"), "write", "write", dir + "/new.txt");
    ExpectRefused(Run(s, dir + "/ckpt/model-1", "save/SaveV2"), "save/SaveV2", "write",
                  dir + "/ckpt/model-1.index");
  }
  fs::copy(allowed_ + "/ckpt", outside_ + "/ckpt");
  ExpectRefused(s->Run({{"path", Str(allowed_ + "/escape/ckpt/model-1")}}, {"save/RestoreV2"}, {}, &restored),
                "save/RestoreV2", "read", allowed_ + "/escape/ckpt/model-1.index");
  // A constant name is read on the server when the step runs, checked too.
  std::vector<Tensor> out;
  ExpectRefused(s->Run({}, {"read_constant"}, {}, &out), "read_constant", "read", outside_ + "/secret.txt");
  EXPECT_FALSE(fs::exists(outside_ + "/new.txt"));
  EXPECT_FALSE(fs::exists(outside_ + "/ckpt/model-1.index.tempstate"));
  int outside_files = 0;
  for (const auto& e : fs::recursive_directory_iterator(outside_)) outside_files += e.is_regular_file() ? 1 : 0;
  EXPECT_EQ(outside_files, 3) << "secret.txt and the copied checkpoint only";

  // The server is still up and serves the same session.
  FLOWVM_ASSERT_OK(Read(s, allowed_ + "/in.txt", &contents));
  EXPECT_EQ(contents, "inside");
}

TEST_F(FileConfinementTest, TheDefaultIsTheWorkingDirectoryAndBadDirectoriesFailCreate) {
  ServerDef def;
  auto spec = ClusterSpec::FromJson("{\"worker\": [\"127.0.0.1:" +
                                    std::to_string(distributed_testing::PickUnusedPort()) + "\"]}");
  ASSERT_TRUE(spec.ok()) << spec.status();
  def.cluster = *spec;
  def.task = {"worker", 0};
  ServerOptions options;
  options.def = def;
  auto server = Server::Create(options);
  ASSERT_TRUE(server.ok()) << server.status();
  EXPECT_EQ((*server)->allowed_dirs(), std::vector<std::string>{RealPath(fs::current_path().string())});

  options.allowed_dirs = {allowed_, root_ + "/missing"};
  server = Server::Create(options);
  ASSERT_FALSE(server.ok());
  EXPECT_EQ(server.status().code(), Code::kInvalidArgument) << server.status();
  EXPECT_NE(server.status().message().find(root_ + "/missing"), std::string::npos) << server.status();
  options.allowed_dirs = {allowed_ + "/in.txt"};
  server = Server::Create(options);
  ASSERT_FALSE(server.ok());
  EXPECT_NE(server.status().message().find("is not a directory"), std::string::npos) << server.status();
}

}  // namespace
}  // namespace flowvm

// ClusterSpec and ServerDef parsing (flowvm/cluster.h): the JSON forms
// TensorFlow accepts, every error (with its code and what it names), and
// where a server finds its own task (cluster file, TF_CONFIG).
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "flowvm/cluster.h"
#include "runtime/runtime_test_util.h"

namespace flowvm {
namespace {

using runtime_testing::HasError;

ClusterSpec Parse(const std::string& json) {
  auto spec = ClusterSpec::FromJson(json);
  EXPECT_TRUE(spec.ok()) << spec.status() << " for " << json;
  return spec.ok() ? *spec : ClusterSpec();
}

// A file under the test's temporary directory, removed with the object.
class TempFile {
 public:
  explicit TempFile(const std::string& contents) {
    std::string tmpl = ::testing::TempDir() + "/cluster_spec_test_XXXXXX";
    int fd = mkstemp(tmpl.data());
    EXPECT_GE(fd, 0);
    if (fd >= 0) close(fd);
    path_ = tmpl;
    std::ofstream(path_, std::ios::binary) << contents;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Sets an environment variable for the test's scope and restores it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value == nullptr) {
      unsetenv(name);
    } else {
      setenv(name, value, 1);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// ---- FromJson / ToJson ------------------------------------------------------

TEST(ClusterSpecTest, ListFormGivesTasksInOrder) {
  ClusterSpec spec = Parse(R"({"ps": ["localhost:2222"], "worker": ["localhost:2223", "localhost:2224"]})");
  ASSERT_EQ(spec.jobs().size(), 2u);
  EXPECT_EQ(spec.jobs().at("worker").at(1), "localhost:2224");
  ASSERT_EQ(spec.Tasks().size(), 3u);
  EXPECT_EQ(spec.Tasks()[0], (TaskId{"ps", 0}));
  EXPECT_EQ(spec.Tasks()[2], (TaskId{"worker", 1}));
  EXPECT_TRUE(spec.HasTask({"worker", 1}));
  EXPECT_FALSE(spec.HasTask({"worker", 2}));
  EXPECT_FALSE(spec.HasTask({"chief", 0}));
  EXPECT_EQ(*spec.Address({"ps", 0}), "localhost:2222");
  EXPECT_TRUE(HasError(spec.Address({"worker", 7}).status(), Code::kNotFound,
                       {"/job:worker/replica:0/task:7", "/job:ps/replica:0/task:0 (localhost:2222)"}));
  EXPECT_EQ((TaskId{"worker", 1}).Name(), "/job:worker/replica:0/task:1");
}

TEST(ClusterSpecTest, ObjectFormKeepsSparseIndices) {
  ClusterSpec spec = Parse(R"({"worker": {"0": "a:1", "3": "b:1"}, "ps": {"1": "c:1"}})");
  EXPECT_TRUE(spec.HasTask({"worker", 3}));
  EXPECT_FALSE(spec.HasTask({"worker", 1}));
  EXPECT_FALSE(spec.HasTask({"ps", 0}));
  EXPECT_EQ(*spec.Address({"ps", 1}), "c:1");
  // Sparse jobs go back out as objects, dense ones as lists.
  EXPECT_EQ(spec.ToJson(), R"({"ps":{"1":"c:1"},"worker":{"0":"a:1","3":"b:1"}})");
}

TEST(ClusterSpecTest, ToJsonRoundTrips) {
  for (const char* json : {R"({"ps":["localhost:2222"],"worker":["localhost:2223","localhost:2224"]})",
                           R"({"chief":["c:1"],"worker":{"1":"w1:1","5":"w5:1"}})",
                           R"({"worker":{"0":"a:1","1":"b:1"}})"}) {
    ClusterSpec spec = Parse(json);
    ClusterSpec again = Parse(spec.ToJson());
    EXPECT_EQ(again.jobs(), spec.jobs()) << json;
    EXPECT_EQ(again.ToJson(), spec.ToJson());
  }
  // An object with indices 0..n-1 is dense: it comes back as a list.
  EXPECT_EQ(Parse(R"({"worker":{"1":"b:1","0":"a:1"}})").ToJson(), R"({"worker":["a:1","b:1"]})");
}

TEST(ClusterSpecTest, AcceptsHostNamesAndIpv6) {
  ClusterSpec spec = Parse(
      R"({"worker": ["trainer-worker-0.default.svc:2222", "[::1]:2223", "10.0.0.1:65535", "h:1"]})");
  EXPECT_EQ(*spec.Address({"worker", 1}), "[::1]:2223");
  EXPECT_EQ(spec.Tasks().size(), 4u);
}

TEST(ClusterSpecTest, RejectsWhatIsNotJson) {
  for (const char* bad : {"", "{", "not json", R"({"worker": ["a:1",]})"})
    EXPECT_TRUE(HasError(ClusterSpec::FromJson(bad).status(), Code::kInvalidArgument, {"not valid JSON"})) << bad;
  EXPECT_TRUE(HasError(ClusterSpec::FromJson(R"(["a:1"])").status(), Code::kInvalidArgument, {"JSON object"}));
  EXPECT_TRUE(HasError(ClusterSpec::FromJson("3").status(), Code::kInvalidArgument, {"JSON object"}));
}

TEST(ClusterSpecTest, RejectsBadJobNames) {
  for (const char* job : {"", "my job", "ps/0", "w:1", "j\u00e9"}) {
    const std::string json = std::string(R"({")") + job + R"(": ["a:1"]})";
    EXPECT_TRUE(HasError(ClusterSpec::FromJson(json).status(), Code::kInvalidArgument,
                         {"job name '" + std::string(job) + "'", "[A-Za-z0-9_-]+"}))
        << json;
  }
  EXPECT_TRUE(ClusterSpec::FromJson(R"({"Worker_2-b": ["a:1"]})").ok());
}

TEST(ClusterSpecTest, RejectsBadAddresses) {
  struct Case {
    const char* address;
    const char* says;
  };
  for (const Case& c : {Case{"localhost", "not host:port"}, Case{"localhost:", "not host:port"},
                        Case{":2222", "not host:port"}, Case{"h:0", "no valid port"},
                        Case{"h:65536", "no valid port"}, Case{"h:99999", "no valid port"},
                        Case{"h:123456", "no valid port"}, Case{"h:-1", "no valid port"},
                        Case{"h:22a", "no valid port"}, Case{"h:+80", "no valid port"},
                        Case{"a b:1", "invalid host"}, Case{"a/b:1", "invalid host"}}) {
    const std::string json = std::string(R"({"worker": ["ok:1", ")") + c.address + R"("]})";
    EXPECT_TRUE(HasError(ClusterSpec::FromJson(json).status(), Code::kInvalidArgument,
                         {"/job:worker/replica:0/task:1", std::string("'") + c.address + "'", c.says}))
        << json;
  }
}

TEST(ClusterSpecTest, RejectsAnAddressUsedTwice) {
  EXPECT_TRUE(HasError(ClusterSpec::FromJson(R"({"ps": ["h:1"], "worker": ["h:2", "h:1"]})").status(),
                       Code::kInvalidArgument, {"/job:worker/replica:0/task:1", "'h:1'", "used twice"}));
  EXPECT_TRUE(HasError(ClusterSpec::FromJson(R"({"worker": {"0": "h:1", "4": "h:1"}})").status(),
                       Code::kInvalidArgument, {"'h:1'", "used twice"}));
}

TEST(ClusterSpecTest, RejectsATaskIndexGivenTwice) {
  // "0" and "00" are the same task: the second address must not silently
  // replace the first.
  EXPECT_TRUE(HasError(ClusterSpec::FromJson(R"({"worker": {"0": "a:1", "00": "b:1"}})").status(),
                       Code::kInvalidArgument, {"/job:worker/replica:0/task:0", "twice"}));
}

TEST(ClusterSpecTest, RejectsBadTaskIndices) {
  for (const char* key : {"-1", "x", "", "1.5", "1234567"})
    EXPECT_TRUE(HasError(
        ClusterSpec::FromJson(std::string(R"({"worker": {")") + key + R"(": "a:1"}})").status(),
        Code::kInvalidArgument, {"job 'worker'", "task index '" + std::string(key) + "'"}))
        << key;
}

TEST(ClusterSpecTest, RejectsEmptyJobsAndClusters) {
  EXPECT_TRUE(HasError(ClusterSpec::FromJson(R"({"ps": ["a:1"], "worker": []})").status(), Code::kInvalidArgument,
                       {"job 'worker' has no tasks"}));
  EXPECT_TRUE(HasError(ClusterSpec::FromJson(R"({"worker": {}})").status(), Code::kInvalidArgument,
                       {"job 'worker' has no tasks"}));
  EXPECT_TRUE(HasError(ClusterSpec::FromJson("{}").status(), Code::kInvalidArgument, {"no jobs"}));
  EXPECT_TRUE(HasError(ClusterSpec::FromJson(R"({"worker": "a:1"})").status(), Code::kInvalidArgument,
                       {"job 'worker'", "list of addresses"}));
}

TEST(ClusterSpecTest, RejectsAddressesThatAreNotStrings) {
  for (const char* value : {"2222", "null", "[\"a:1\"]", "{\"host\": \"a\"}", "true"}) {
    EXPECT_TRUE(HasError(ClusterSpec::FromJson(std::string(R"({"worker": ["a:1", )") + value + "]}").status(),
                         Code::kInvalidArgument, {"/job:worker/replica:0/task:1", "must be a string"}))
        << value;
    EXPECT_TRUE(HasError(ClusterSpec::FromJson(std::string(R"({"ps": {"2": )") + value + "}}").status(),
                         Code::kInvalidArgument, {"/job:ps/replica:0/task:2", "must be a string"}))
        << value;
  }
}

TEST(ClusterSpecTest, FromFile) {
  TempFile file(R"({"worker": ["localhost:2223", "localhost:2224"]})");
  auto spec = ClusterSpec::FromFile(file.path());
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->Tasks().size(), 2u);

  const std::string missing = ::testing::TempDir() + "/no_such_cluster_file.json";
  EXPECT_TRUE(HasError(ClusterSpec::FromFile(missing).status(), Code::kNotFound, {missing}));

  TempFile bad(R"({"worker": ["localhost"]})");
  EXPECT_TRUE(HasError(ClusterSpec::FromFile(bad.path()).status(), Code::kInvalidArgument,
                       {bad.path(), "'localhost'", "not host:port"}));
}

// ---- TaskByName and Describe -------------------------------------------------

TEST(ClusterSpecTest, TaskByName) {
  ClusterSpec spec = Parse(R"({"ps": ["h:1"], "worker": {"0": "h:2", "3": "h:3"}})");
  auto t = spec.TaskByName("/job:worker/replica:0/task:3");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(*t, (TaskId{"worker", 3}));
  // The replica may be left out; a device part is ignored.
  EXPECT_EQ(*spec.TaskByName("/job:ps/task:0"), (TaskId{"ps", 0}));
  EXPECT_EQ(*spec.TaskByName("/job:ps/replica:0/task:0/device:CPU:0"), (TaskId{"ps", 0}));

  EXPECT_TRUE(HasError(spec.TaskByName("/job:worker/replica:0/task:1").status(), Code::kNotFound,
                       {"'/job:worker/replica:0/task:1'", "/job:worker/replica:0/task:3 (h:3)"}));
  EXPECT_TRUE(HasError(spec.TaskByName("/job:chief/task:0").status(), Code::kNotFound, {"/job:chief/task:0"}));
  // Only replica 0 exists.
  EXPECT_EQ(spec.TaskByName("/job:ps/replica:1/task:0").status().code(), Code::kNotFound);
  // Names that are not a task.
  EXPECT_TRUE(HasError(spec.TaskByName("/job:ps").status(), Code::kInvalidArgument, {"does not name a task"}));
  EXPECT_TRUE(HasError(spec.TaskByName("/task:0").status(), Code::kInvalidArgument, {"does not name a task"}));
  EXPECT_FALSE(spec.TaskByName("not a name").ok());
  EXPECT_FALSE(spec.TaskByName("").ok());
}

TEST(ClusterSpecTest, Describe) {
  EXPECT_EQ(Parse(R"({"worker": ["h:2", "h:3"], "ps": ["h:1"]})").Describe(),
            "/job:ps/replica:0/task:0 (h:1), /job:worker/replica:0/task:0 (h:2), /job:worker/replica:0/task:1 (h:3)");
  EXPECT_EQ(ClusterSpec().Describe(), "(no tasks)");
  EXPECT_EQ(ClusterSpec().ToJson(), "{}");
  EXPECT_TRUE(ClusterSpec().Tasks().empty());
}

// ---- ServerDefFromClusterFile --------------------------------------------------

TEST(ServerDefTest, FromClusterFile) {
  TempFile file(R"({"ps": ["h:1"], "worker": ["h:2", "h:3"]})");
  auto def = ServerDefFromClusterFile(file.path(), "worker", 1);
  ASSERT_TRUE(def.ok()) << def.status();
  EXPECT_EQ(def->task, (TaskId{"worker", 1}));
  EXPECT_EQ(*def->cluster.Address(def->task), "h:3");

  EXPECT_TRUE(HasError(ServerDefFromClusterFile(file.path(), "worker", 2).status(), Code::kInvalidArgument,
                       {"/job:worker/replica:0/task:2", file.path(), "/job:ps/replica:0/task:0 (h:1)"}));
  EXPECT_TRUE(HasError(ServerDefFromClusterFile(file.path(), "chief", 0).status(), Code::kInvalidArgument,
                       {"/job:chief/replica:0/task:0"}));
  EXPECT_EQ(ServerDefFromClusterFile(file.path(), "worker", -1).status().code(), Code::kInvalidArgument);

  const std::string missing = ::testing::TempDir() + "/missing_cluster.json";
  EXPECT_TRUE(HasError(ServerDefFromClusterFile(missing, "worker", 0).status(), Code::kNotFound, {missing}));
}

// ---- ServerDefFromTfConfig -------------------------------------------------------

TEST(ServerDefTest, TfConfigAsTensorFlowDocumentsIt) {
  // https://www.tensorflow.org/guide/distributed_training#TF_CONFIG, whose
  // "port" placeholders are no port: rejected, naming the address.
  auto def = ServerDefFromTfConfig(R"({
      "cluster": {"worker": ["host1:port", "host2:port", "host3:port"], "ps": ["host4:port", "host5:port"]},
      "task": {"type": "worker", "index": 1}})");
  EXPECT_TRUE(HasError(def.status(), Code::kInvalidArgument, {"'host4:port'", "no valid port"}));
  def = ServerDefFromTfConfig(R"({
      "cluster": {"worker": ["host1:2222", "host2:2222", "host3:2222"], "ps": ["host4:2222", "host5:2222"]},
      "task": {"type": "worker", "index": 1}})");
  ASSERT_TRUE(def.ok()) << def.status();
  EXPECT_EQ(def->task, (TaskId{"worker", 1}));
  EXPECT_EQ(*def->cluster.Address({"ps", 1}), "host5:2222");
  EXPECT_EQ(def->cluster.Tasks().size(), 5u);
}

TEST(ServerDefTest, TfConfigIndexAsNumberOrString) {
  const std::string cluster = R"("cluster": {"worker": ["a:1", "b:1", "c:1"]})";
  for (const char* index : {"2", "\"2\""}) {
    auto def = ServerDefFromTfConfig("{" + cluster + R"(, "task": {"type": "worker", "index": )" + index + "}}");
    ASSERT_TRUE(def.ok()) << def.status() << " for index " << index;
    EXPECT_EQ(def->task.index, 2);
  }
  // No index: task 0, as in TensorFlow.
  auto def = ServerDefFromTfConfig("{" + cluster + R"(, "task": {"type": "worker"}})");
  ASSERT_TRUE(def.ok()) << def.status();
  EXPECT_EQ(def->task.index, 0);
  for (const char* index : {"\"x\"", "\"\"", "\"-1\"", "1.5", "true", "[1]", "\"1234567\""})
    EXPECT_TRUE(HasError(
        ServerDefFromTfConfig("{" + cluster + R"(, "task": {"type": "worker", "index": )" + index + "}}").status(),
        Code::kInvalidArgument, {"index"}))
        << index;
  // Out of int's range: not silently wrapped to some other task (2^32 is 0
  // modulo 2^32).
  for (const char* index : {"4294967296", "4294967298", "-4294967294", "18446744073709551615"}) {
    auto s = ServerDefFromTfConfig("{" + cluster + R"(, "task": {"type": "worker", "index": )" + index + "}}");
    EXPECT_TRUE(HasError(s.status(), Code::kInvalidArgument, {"index"})) << index << ": " << s.status();
  }
  EXPECT_TRUE(HasError(
      ServerDefFromTfConfig("{" + cluster + R"(, "task": {"type": "worker", "index": -1}})").status(),
      Code::kInvalidArgument, {"not in its cluster"}));
}

TEST(ServerDefTest, TfConfigChiefIsAJobLikeAnyOther) {
  auto def = ServerDefFromTfConfig(
      R"({"cluster": {"chief": ["c:2222"], "worker": ["w0:2222", "w1:2222"]}, "task": {"type": "chief", "index": 0}})");
  ASSERT_TRUE(def.ok()) << def.status();
  EXPECT_EQ(def->task, (TaskId{"chief", 0}));
  EXPECT_EQ(def->task.Name(), "/job:chief/replica:0/task:0");
}

TEST(ServerDefTest, TfConfigEvaluatorIsNotPartOfTheCluster) {
  EXPECT_TRUE(HasError(ServerDefFromTfConfig(R"({"cluster": {"chief": ["c:2222"], "worker": ["w0:2222"]},
                                                "task": {"type": "evaluator", "index": 0}})")
                           .status(),
                       Code::kFailedPrecondition, {"evaluator", "local session"}));
}

TEST(ServerDefTest, TfConfigRpcLayer) {
  const std::string rest = R"("cluster": {"worker": ["a:1"]}, "task": {"type": "worker", "index": 0})";
  EXPECT_TRUE(ServerDefFromTfConfig("{" + rest + R"(, "rpc_layer": "grpc"})").ok());
  for (const char* layer : {"\"grpc+verbs\"", "\"grpc+mpi\"", "\"ucx\"", "3"})
    EXPECT_TRUE(HasError(ServerDefFromTfConfig("{" + rest + R"(, "rpc_layer": )" + layer + "}").status(),
                         Code::kUnimplemented, {"rpc_layer", "grpc"}))
        << layer;
}

TEST(ServerDefTest, TfConfigMissingParts) {
  EXPECT_TRUE(HasError(ServerDefFromTfConfig("").status(), Code::kInvalidArgument, {"not a JSON object"}));
  EXPECT_TRUE(HasError(ServerDefFromTfConfig("[]").status(), Code::kInvalidArgument, {"not a JSON object"}));
  EXPECT_TRUE(HasError(ServerDefFromTfConfig(R"({"task": {"type": "worker", "index": 0}})").status(),
                       Code::kInvalidArgument, {"no \"cluster\""}));
  const std::string cluster = R"("cluster": {"worker": ["a:1"]})";
  EXPECT_TRUE(HasError(ServerDefFromTfConfig("{" + cluster + "}").status(), Code::kInvalidArgument,
                       {"no \"task\""}));
  EXPECT_TRUE(HasError(ServerDefFromTfConfig("{" + cluster + R"(, "task": "worker"})").status(),
                       Code::kInvalidArgument, {"no \"task\""}));
  EXPECT_TRUE(HasError(ServerDefFromTfConfig("{" + cluster + R"(, "task": {"index": 0}})").status(),
                       Code::kInvalidArgument, {"\"type\""}));
  EXPECT_TRUE(HasError(ServerDefFromTfConfig("{" + cluster + R"(, "task": {"type": 1, "index": 0}})").status(),
                       Code::kInvalidArgument, {"\"type\""}));
  // The cluster's own errors, prefixed.
  EXPECT_TRUE(HasError(ServerDefFromTfConfig(R"({"cluster": {"worker": ["a"]}, "task": {"type": "worker"}})")
                           .status(),
                       Code::kInvalidArgument, {"TF_CONFIG cluster", "'a'"}));
}

TEST(ServerDefTest, TfConfigTaskNotInTheCluster) {
  const std::string cluster = R"("cluster": {"worker": ["a:1", "b:1"]})";
  EXPECT_TRUE(HasError(
      ServerDefFromTfConfig("{" + cluster + R"(, "task": {"type": "worker", "index": 2}})").status(),
      Code::kInvalidArgument, {"/job:worker/replica:0/task:2", "not in its cluster", "/job:worker/replica:0/task:1 (b:1)"}));
  EXPECT_TRUE(HasError(ServerDefFromTfConfig("{" + cluster + R"(, "task": {"type": "ps", "index": 0}})").status(),
                       Code::kInvalidArgument, {"/job:ps/replica:0/task:0"}));
}

TEST(ServerDefTest, TfConfigFromAKubernetesTfJob) {
  // What the Kubeflow training operator puts in a TFJob's pods; it also adds
  // "environment": "cloud", which only TensorFlow's estimator read.
  auto def = ServerDefFromTfConfig(R"({
      "cluster": {
        "chief": ["mnist-chief-0.kubeflow.svc:2222"],
        "ps": ["mnist-ps-0.kubeflow.svc:2222"],
        "worker": ["mnist-worker-0.kubeflow.svc:2222", "mnist-worker-1.kubeflow.svc:2222"]
      },
      "task": {"type": "worker", "index": 1},
      "environment": "cloud"
    })");
  ASSERT_TRUE(def.ok()) << def.status();
  EXPECT_EQ(def->task, (TaskId{"worker", 1}));
  EXPECT_EQ(*def->cluster.Address(def->task), "mnist-worker-1.kubeflow.svc:2222");
  EXPECT_EQ(*def->cluster.Address({"chief", 0}), "mnist-chief-0.kubeflow.svc:2222");
}

// ---- ServerDefFromEnvironment ---------------------------------------------------

TEST(ServerDefTest, FromEnvironment) {
  {
    ScopedEnv env("TF_CONFIG", nullptr);
    EXPECT_TRUE(HasError(ServerDefFromEnvironment().status(), Code::kNotFound, {"TF_CONFIG is not set"}));
  }
  {
    ScopedEnv env("TF_CONFIG", "");
    EXPECT_EQ(ServerDefFromEnvironment().status().code(), Code::kNotFound);
  }
  {
    ScopedEnv env("TF_CONFIG", R"({"cluster": {"ps": ["p:1"], "worker": ["w:1"]}, "task": {"type": "ps"}})");
    auto def = ServerDefFromEnvironment();
    ASSERT_TRUE(def.ok()) << def.status();
    EXPECT_EQ(def->task, (TaskId{"ps", 0}));
  }
  {
    ScopedEnv env("TF_CONFIG", R"({"cluster": {"worker": ["w:1"]}, "task": {"type": "evaluator"}})");
    EXPECT_EQ(ServerDefFromEnvironment().status().code(), Code::kFailedPrecondition);
  }
}

}  // namespace
}  // namespace flowvm

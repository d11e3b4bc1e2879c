// What a server accepts and from whom: the cluster token, TLS with and
// without client certificates, the loopback-or-TLS bind rule, and the
// limits on what one client may send (flowvm/server.h, credentials.h).
#include <stdlib.h>

#include <cstdio>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "distributed/distributed_test_util.h"
#include "flowvm/credentials.h"
#include "flowvm/session.h"
#include "runtime/runtime_test_util.h"
#include "util/test_paths.h"

namespace flowvm {
namespace {

using distributed_testing::LocalCluster;
using runtime_testing::Binary;
using runtime_testing::ConstNode;
using runtime_testing::F;
using runtime_testing::GraphOf;
using runtime_testing::HasError;
using runtime_testing::On;

constexpr char kPs[] = "/job:ps/task:0";
constexpr char kWorker[] = "/job:worker/task:0";
constexpr char kToken[] = "0123456789abcdef-the-right-token";
constexpr char kWrongToken[] = "fedcba9876543210-a-wrong-token!!";

// a (on ps) + b (on the worker): a step that crosses tasks.
GraphDef CrossTaskGraph() {
  return GraphOf({On(ConstNode("a", F({1, 2}, {2})), kPs), On(ConstNode("b", F({10, 20}, {2})), kWorker),
                  On(Binary("c", "Add", "a", "b"), kWorker)});
}

class SecurityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Credentials must come from the test, not from whoever runs it.
    for (const char* env : {kClusterTokenEnv, kTlsCaEnv, kTlsCertEnv, kTlsKeyEnv}) unsetenv(env);
  }

  static Status RunCrossTask(const std::string& target, const ClusterCredentials& credentials,
                             int64_t connect_timeout_ms = 5000) {
    SessionOptions options;
    options.target = target;
    options.credentials = credentials;
    options.connect_timeout_ms = connect_timeout_ms;
    FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::Create(options, CrossTaskGraph()));
    std::vector<Tensor> out;
    FLOWVM_RETURN_IF_ERROR(session->Run({}, {"c:0"}, {}, &out));
    if (out.size() != 1 || out[0].flat<float>()[0] != 11 || out[0].flat<float>()[1] != 22)
      return errors::Internal("wrong result");
    return session->Close();
  }
};

ServerOptions WithToken(const std::string& token) {
  ServerOptions o;
  o.credentials.token = token;
  return o;
}

TEST_F(SecurityTest, TokenIsCheckedOnEveryCall) {
  LocalCluster cluster({{"ps", 1}, {"worker", 1}}, WithToken(kToken));
  ASSERT_TRUE(cluster.StartAll());
  const std::string target = cluster.Target("worker");

  ::testing::internal::CaptureStderr();
  Status none = RunCrossTask(target, ClusterCredentials());
  ClusterCredentials wrong;
  wrong.token = kWrongToken;
  Status bad = RunCrossTask(target, wrong);
  const std::string log = ::testing::internal::GetCapturedStderr();

  EXPECT_TRUE(HasError(none, Code::kPermissionDenied, {"/job:worker/replica:0/task:0", "no cluster token"})) << none;
  EXPECT_TRUE(HasError(bad, Code::kPermissionDenied, {"wrong cluster token"})) << bad;
  EXPECT_EQ(bad.message().find(kWrongToken), std::string::npos);
  // Logged, naming the method, without either token.
  EXPECT_NE(log.find("refused /flowvm.MasterService/CreateSession"), std::string::npos) << log;
  EXPECT_NE(log.find("wrong cluster token"), std::string::npos) << log;
  EXPECT_EQ(log.find(kWrongToken), std::string::npos);
  EXPECT_EQ(log.find(kToken), std::string::npos);

  // The right token: the step crosses tasks, which call each other with it.
  ClusterCredentials right;
  right.token = kToken;
  FLOWVM_EXPECT_OK(RunCrossTask(target, right));
  // From the environment, as every client program gets it.
  setenv(kClusterTokenEnv, kToken, 1);
  FLOWVM_EXPECT_OK(RunCrossTask(target, ClusterCredentials()));
  std::vector<std::string> stopped, unreachable;
  FLOWVM_EXPECT_OK(ShutdownCluster(target, &stopped, &unreachable));
  EXPECT_EQ(stopped.size(), 2u);
}

TEST_F(SecurityTest, ShutdownNeedsTheToken) {
  LocalCluster cluster({{"worker", 1}}, WithToken(kToken));
  ASSERT_TRUE(cluster.StartAll());
  ::testing::internal::CaptureStderr();
  Status s = ShutdownCluster(cluster.Target(), nullptr, nullptr, 5000);
  ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(HasError(s, Code::kPermissionDenied, {"ShutdownCluster"})) << s;
  // Still serving.
  ClusterCredentials right;
  right.token = kToken;
  SessionOptions options;
  options.target = cluster.Target();
  options.credentials = right;
  auto session = Session::Create(options, GraphOf({ConstNode("k", F({1}, {1}))}));
  FLOWVM_EXPECT_OK(session.status());
}

TEST_F(SecurityTest, TokensAreValidated) {
  char templ[] = "/tmp/flowvm_token_XXXXXX";
  ASSERT_NE(mkdtemp(templ), nullptr);
  const std::string dir = templ;
  std::ofstream(dir + "/short") << "abc\n";
  std::ofstream(dir + "/good") << "  " << kToken << "\n";
  auto s = LoadClusterToken(dir + "/short");
  EXPECT_TRUE(HasError(s.status(), Code::kInvalidArgument, {"at least 16"})) << s.status();
  EXPECT_EQ(s.status().message().find("abc"), std::string::npos);
  EXPECT_TRUE(HasError(LoadClusterToken(dir + "/missing").status(), Code::kNotFound, {"missing"}));
  auto good = LoadClusterToken(dir + "/good");
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_EQ(*good, kToken);
  setenv(kClusterTokenEnv, "short", 1);
  ClusterCredentials c;
  EXPECT_TRUE(HasError(c.FillFromEnvironment(), Code::kInvalidArgument, {kClusterTokenEnv}));
  std::remove((dir + "/short").c_str());
  std::remove((dir + "/good").c_str());
  rmdir(dir.c_str());
}

TEST_F(SecurityTest, NonLoopbackAddressNeedsTlsOrInsecure) {
  ServerOptions o;
  auto cluster = ClusterSpec::FromJson(R"({"worker": ["10.255.255.1:2222"]})");
  ASSERT_TRUE(cluster.ok());
  o.def = {*cluster, {"worker", 0}};
  auto refused = Server::Create(o);
  EXPECT_TRUE(HasError(refused.status(), Code::kFailedPrecondition, {"10.255.255.1:2222", "--insecure", "TLS"}))
      << refused.status();
  o.insecure = true;
  auto allowed = Server::Create(o);
  ASSERT_TRUE(allowed.ok()) << allowed.status();
  EXPECT_NE((*allowed)->security_summary().find("INSECURE"), std::string::npos) << (*allowed)->security_summary();
  // Loopback needs neither.
  LocalCluster local({{"worker", 1}});
  ASSERT_TRUE(local.StartAll());
  EXPECT_NE(local.server({"worker", 0})->security_summary().find("loopback only"), std::string::npos);
}

TEST_F(SecurityTest, TlsFilesAreChecked) {
  ServerOptions o;
  o.credentials.cert_file = "/nonexistent/task.pem";
  o.credentials.key_file = "/nonexistent/task.key";
  o.def = {*ClusterSpec::FromJson(R"({"worker": ["127.0.0.1:1"]})"), {"worker", 0}};
  EXPECT_TRUE(HasError(Server::Create(o).status(), Code::kNotFound, {"/nonexistent/task.pem"}));
  o.credentials.key_file.clear();
  EXPECT_TRUE(HasError(Server::Create(o).status(), Code::kInvalidArgument, {"needs its key"}));
}

// Throwaway CA and certificates (tests/tls/make_test_certs.sh, openssl).
class TlsTest : public SecurityTest {
 protected:
  static void SetUpTestSuite() {
    char templ[] = "/tmp/flowvm_tls_XXXXXX";
    ASSERT_NE(mkdtemp(templ), nullptr);
    dir_ = templ;
    const std::string cmd = "bash " + testing::SourcePath("tests/tls/make_test_certs.sh") + " " + dir_;
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  }
  static void TearDownTestSuite() { std::system(("rm -rf " + dir_).c_str()); }

  static ClusterCredentials Files(const std::string& ca, const std::string& cert) {
    ClusterCredentials c;
    if (!ca.empty()) c.ca_file = dir_ + "/" + ca + ".pem";
    if (!cert.empty()) {
      c.cert_file = dir_ + "/" + cert + ".pem";
      c.key_file = dir_ + "/" + cert + ".key";
    }
    return c;
  }
  static ServerOptions MutualTls(const std::string& token = "") {
    ServerOptions o;
    o.credentials = Files("ca", "task");
    o.credentials.token = token;
    return o;
  }

  static std::string dir_;
};
std::string TlsTest::dir_;

TEST_F(TlsTest, MutualTlsAdmitsOnlyCertificatesOfTheClusterCa) {
  LocalCluster cluster({{"ps", 1}, {"worker", 1}}, MutualTls());
  ASSERT_TRUE(cluster.StartAll());
  const std::string target = cluster.Target("worker");
  EXPECT_NE(cluster.server({"worker", 0})->security_summary().find("certificate of the cluster's CA"),
            std::string::npos);
  // A client of the cluster's CA: the step crosses tasks over TLS.
  FLOWVM_EXPECT_OK(RunCrossTask(target, Files("ca", "client")));
  // Refused: no TLS at all; TLS without a certificate; a certificate of
  // another CA; a client that does not trust the cluster's CA.
  EXPECT_FALSE(RunCrossTask(target, ClusterCredentials(), 1500).ok());
  EXPECT_FALSE(RunCrossTask(target, Files("ca", ""), 1500).ok());
  EXPECT_FALSE(RunCrossTask(target, Files("ca", "rogue"), 1500).ok());
  EXPECT_FALSE(RunCrossTask(target, Files("rogue-ca", "client"), 1500).ok());
  // Still serving the right client.
  FLOWVM_EXPECT_OK(RunCrossTask(target, Files("ca", "client")));
}

TEST_F(TlsTest, TlsAndTokenTogether) {
  // Both: TLS certificates and the token.
  ServerOptions o;
  o.credentials = Files("", "task");
  o.credentials.token = kToken;
  // The tasks verify each other's certificates against the CA, so they
  // have it too; as a server, each then requires callers' certificates.
  ServerOptions with_ca = o;
  with_ca.credentials.ca_file = dir_ + "/ca.pem";
  LocalCluster trusted({{"ps", 1}, {"worker", 1}}, with_ca);
  ASSERT_TRUE(trusted.StartAll());
  ClusterCredentials client = Files("ca", "client");
  EXPECT_TRUE(HasError(RunCrossTask(trusted.Target("worker"), client), Code::kPermissionDenied, {"cluster token"}));
  client.token = kToken;
  FLOWVM_EXPECT_OK(RunCrossTask(trusted.Target("worker"), client));
}

TEST_F(SecurityTest, GraphLimitsAreResourceExhausted) {
  ServerOptions o;
  o.limits.max_graph_nodes = 10;
  LocalCluster cluster({{"worker", 1}}, o);
  ASSERT_TRUE(cluster.StartAll());
  std::vector<NodeDef> nodes;
  for (int i = 0; i < 20; ++i) nodes.push_back(ConstNode("k" + std::to_string(i), F({1}, {1})));
  SessionOptions options;
  options.target = cluster.Target();
  auto big = Session::Create(options, GraphOf(nodes));
  EXPECT_TRUE(HasError(big.status(), Code::kResourceExhausted, {"20 nodes", "max_graph_nodes"})) << big.status();
  // The server stays up; a small graph runs, and growing past the limit
  // by Extend is refused too.
  nodes.resize(5);
  auto small = Session::Create(options, GraphOf(nodes));
  ASSERT_TRUE(small.ok()) << small.status();
  std::vector<Tensor> out;
  FLOWVM_EXPECT_OK((*small)->Run({}, {"k1:0"}, {}, &out));
  std::vector<NodeDef> more;
  for (int i = 0; i < 8; ++i) more.push_back(ConstNode("m" + std::to_string(i), F({1}, {1})));
  EXPECT_TRUE(HasError((*small)->Extend(GraphOf(more)), Code::kResourceExhausted, {"max_graph_nodes"}));
  FLOWVM_EXPECT_OK((*small)->Run({}, {"k1:0"}, {}, &out));
}

TEST_F(SecurityTest, MessageLimitIsResourceExhaustedAndTensorsStillTravelInChunks) {
  ServerOptions o;
  o.limits.max_message_bytes = 4 << 20;
  LocalCluster cluster({{"ps", 1}, {"worker", 1}}, o);
  ASSERT_TRUE(cluster.StartAll());
  SessionOptions options;
  options.target = cluster.Target("worker");
  // A 6 MB constant makes the graph one message larger than the limit.
  std::vector<float> big(6 << 18, 1.0f);
  auto refused = Session::Create(options, GraphOf({ConstNode("big", F(big, {static_cast<int64_t>(big.size())}))}));
  EXPECT_TRUE(HasError(refused.status(), Code::kResourceExhausted, {"max_message_bytes"})) << refused.status();
  // Fed, 6 MB goes through in chunks that fit, to the other task and back.
  GraphDef g = GraphOf({On(runtime_testing::PlaceholderNode("x", DT_FLOAT, PartialTensorShape({-1})), kWorker),
                        On(Binary("y", "Mul", "x", "x"), kPs)});
  auto session = Session::Create(options, g);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK((*session)->Run({{"x", F(big, {static_cast<int64_t>(big.size())})}}, {"y:0"}, {}, &out));
  EXPECT_EQ(out[0].NumElements(), static_cast<int64_t>(big.size()));
}

}  // namespace
}  // namespace flowvm

namespace flowvm {
namespace {

// Fill of [n, n] floats on `device`, summed. The value is fed, so that
// nothing is folded into a constant before the step.
GraphDef FillGraph(int n, const std::string& device) {
  using runtime_testing::ConstNode;
  NodeDef dims = ConstNode("dims", Tensor::FromVector<int32_t>({n, n}, TensorShape({2})));
  NodeDef value = runtime_testing::PlaceholderNode("value", DT_FLOAT, PartialTensorShape({}));
  NodeDef fill = Binary("fill", "Fill", "dims", "value");
  fill.mutable_attr()->erase("T");
  (*fill.mutable_attr())["T"].set_type(DT_FLOAT);
  (*fill.mutable_attr())["index_type"].set_type(DT_INT32);
  NodeDef axes = ConstNode("axes", Tensor::FromVector<int32_t>({0, 1}, TensorShape({2})));
  NodeDef sum = Binary("sum", "Sum", "fill", "axes");
  (*sum.mutable_attr())["Tidx"].set_type(DT_INT32);
  return GraphOf({On(dims, device), On(value, device), On(fill, device), On(axes, device), On(sum, device)});
}

TEST_F(SecurityTest, StepMemoryLimits) {
  const std::vector<std::pair<std::string, Tensor>> kOne = {{"value", F({1}, {})}};
  // A server's own limit: 1 MiB a step; a 4 MiB tensor on it fails naming
  // the node and the limit, a small one runs, the server stays up.
  ServerOptions o;
  o.limits.max_step_memory_bytes = 1 << 20;
  LocalCluster cluster({{"worker", 1}}, o);
  ASSERT_TRUE(cluster.StartAll());
  SessionOptions options;
  options.target = cluster.Target();
  auto big = Session::Create(options, FillGraph(1024, kWorker));
  ASSERT_TRUE(big.ok()) << big.status();
  std::vector<Tensor> out;
  Status s = (*big)->Run(kOne, {"sum:0"}, {}, &out);
  EXPECT_TRUE(HasError(s, Code::kResourceExhausted, {"fill", "max_step_memory_bytes of task", "1048576"})) << s;
  auto small = Session::Create(options, FillGraph(64, kWorker));
  ASSERT_TRUE(small.ok()) << small.status();
  FLOWVM_ASSERT_OK((*small)->Run(kOne, {"sum:0"}, {}, &out));
  EXPECT_EQ(out[0].flat<float>()[0], 64 * 64);
  // A session's own, lower limit.
  options.max_step_memory_bytes = 8 << 10;
  auto limited = Session::Create(options, FillGraph(64, kWorker));
  ASSERT_TRUE(limited.ok()) << limited.status();
  s = (*limited)->Run(kOne, {"sum:0"}, {}, &out);
  EXPECT_TRUE(HasError(s, Code::kResourceExhausted, {"fill", "the session's max_step_memory_bytes"})) << s;
  // In-process sessions take the option too.
  SessionOptions local;
  local.max_step_memory_bytes = 1 << 20;
  auto in_process = Session::Create(local, FillGraph(1024, ""));
  ASSERT_TRUE(in_process.ok()) << in_process.status();
  s = (*in_process)->Run(kOne, {"sum:0"}, {}, &out);
  EXPECT_TRUE(HasError(s, Code::kResourceExhausted, {"fill", "the session's max_step_memory_bytes"})) << s;
  auto fits = Session::Create(local, FillGraph(256, ""));
  ASSERT_TRUE(fits.ok());
  FLOWVM_ASSERT_OK((*fits)->Run(kOne, {"sum:0"}, {}, &out));
  EXPECT_EQ(out[0].flat<float>()[0], 256 * 256);
}

}  // namespace
}  // namespace flowvm

// A secure local cluster from the command line: `flowvm cluster up` with
// TLS certificates and a token file, clients with and without them, and the
// flags that must not exist (a token on the command line).
#include <stdlib.h>

#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "util/cli_runner.h"
#include "util/test_paths.h"

namespace flowvm {
namespace {

using testing::CliResult;
using testing::ReadFileBytes;
using testing::ShellQuote;

const char kGraph[] = R"(
node { name: "a" op: "Const" device: "/job:ps/task:0"
       attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 1 float_val: 2 } } } }
node { name: "c" op: "Add" input: "a" input: "a" device: "/job:worker/task:1" attr { key: "T" value { type: DT_FLOAT } } }
)";

class SecureClusterCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* env : {"FLOWVM_CLUSTER_TOKEN", "FLOWVM_TLS_CA", "FLOWVM_TLS_CERT", "FLOWVM_TLS_KEY"})
      unsetenv(env);
    char templ[] = "/tmp/flowvm_secure_cli_XXXXXX";
    ASSERT_NE(mkdtemp(templ), nullptr);
    dir_ = templ;
    ASSERT_EQ(std::system(("bash " + testing::SourcePath("tests/tls/make_test_certs.sh") + " " + dir_ + "/tls").c_str()),
              0);
    std::ofstream(dir_ + "/g.pbtxt") << kGraph;
    servers_ = " --tls-ca tls/ca.pem --tls-cert tls/task.pem --tls-key tls/task.key --token-file tls/token";
    client_ = " --tls-ca tls/ca.pem --tls-cert tls/client.pem --tls-key tls/client.key --token-file tls/token";
  }
  void TearDown() override {
    if (up_) {
      CliResult r = testing::RunCli(dir_, "cluster down --dir cluster" + client_);
      EXPECT_EQ(r.exit_code, 0) << r.err;
      EXPECT_EQ(r.err.find("killing"), std::string::npos) << r.err;
    }
    std::system(("rm -rf " + ShellQuote(dir_)).c_str());
  }

  std::string dir_, servers_, client_, target_;
  bool up_ = false;
};

TEST_F(SecureClusterCliTest, RefusesClientsWithoutTheCredentials) {
  CliResult up = testing::RunCli(dir_, "cluster up --ps 1 --workers 2 --dir cluster" + servers_);
  ASSERT_EQ(up.exit_code, 0) << up.err;
  up_ = true;
  target_ = up.out.substr(0, up.out.find('\n'));
  const std::string log = ReadFileBytes(dir_ + "/cluster/worker-0.log");
  EXPECT_NE(log.find("TLS, callers must present a certificate of the cluster's CA, cluster token required"),
            std::string::npos)
      << log;

  const std::string run = "run g.pbtxt --fetch c --connect-timeout-ms 1500 --target-server " + target_;
  CliResult ok = testing::RunCli(dir_, run + client_);
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(ok.out.find("c:0 float [2] [2 4]"), std::string::npos) << ok.out;

  CliResult plain = testing::RunCli(dir_, run);
  EXPECT_EQ(plain.exit_code, 1);
  EXPECT_NE(plain.err.find("TLS"), std::string::npos) << plain.err;  // the hint
  CliResult no_token = testing::RunCli(dir_, run + " --tls-ca tls/ca.pem --tls-cert tls/client.pem --tls-key tls/client.key");
  EXPECT_EQ(no_token.exit_code, 1);
  EXPECT_NE(no_token.err.find("PermissionDenied"), std::string::npos) << no_token.err;
  CliResult rogue = testing::RunCli(dir_, run + " --tls-ca tls/ca.pem --tls-cert tls/rogue.pem --tls-key tls/rogue.key"
                                                " --token-file tls/token");
  EXPECT_EQ(rogue.exit_code, 1);
  // The token from the environment works like the file.
  const std::string token = ReadFileBytes(dir_ + "/tls/token");
  setenv("FLOWVM_CLUSTER_TOKEN", token.substr(0, token.find('\n')).c_str(), 1);
  CliResult env = testing::RunCli(dir_, run + " --tls-ca tls/ca.pem --tls-cert tls/client.pem --tls-key tls/client.key");
  unsetenv("FLOWVM_CLUSTER_TOKEN");
  EXPECT_EQ(env.exit_code, 0) << env.err;
  // The refusals are in the master's log, without the token.
  const std::string after = ReadFileBytes(dir_ + "/cluster/worker-0.log");
  EXPECT_NE(after.find("no cluster token"), std::string::npos) << after;
  EXPECT_EQ(after.find(token.substr(0, 64)), std::string::npos);
}

TEST_F(SecureClusterCliTest, NoTokenOnTheCommandLine) {
  CliResult r = testing::RunCli(dir_, "server --cluster c.json --job ps --token 0123456789abcdef0123");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--token-file"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("0123456789abcdef0123"), std::string::npos) << r.err;
  std::ofstream(dir_ + "/short") << "abc\n";
  r = testing::RunCli(dir_, "run g.pbtxt --fetch c --target-server grpc://127.0.0.1:1 --token-file short");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("at least 16"), std::string::npos) << r.err;
}

TEST_F(SecureClusterCliTest, NonLoopbackNeedsTlsOrInsecure) {
  std::ofstream(dir_ + "/c.json") << R"({"worker": ["10.255.255.1:2222"]})";
  CliResult r = testing::RunCli(dir_, "server --cluster c.json --job worker");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--insecure"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace flowvm

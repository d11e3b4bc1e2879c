// Test helpers for the distributed layer: free loopback ports and a
// cluster of in-process servers (header-only).
#ifndef FLOWVM_DISTRIBUTED_DISTRIBUTED_TEST_UTIL_H_
#define FLOWVM_DISTRIBUTED_DISTRIBUTED_TEST_UTIL_H_


#include <map>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "flowvm/cluster.h"
#include "flowvm/server.h"

namespace flowvm::distributed_testing {

// A TCP port on 127.0.0.1 that was free a moment ago (0 if none).
inline int PickUnusedPort() {
  auto port = PickUnusedLoopbackPort();
  EXPECT_TRUE(port.ok()) << port.status();
  return port.ok() ? *port : 0;
}

// Servers for the tasks of a cluster, in this process, on free ports.
class LocalCluster {
 public:
  // jobs: job -> number of tasks.
  explicit LocalCluster(const std::map<std::string, int>& jobs, ServerOptions base = ServerOptions()) : base_(base) {
    std::string json = "{";
    for (const auto& [job, n] : jobs) {
      if (json.size() > 1) json += ",";
      json += "\"" + job + "\":[";
      for (int i = 0; i < n; ++i) json += std::string(i ? "," : "") + "\"127.0.0.1:" + std::to_string(PickUnusedPort()) + "\"";
      json += "]";
    }
    json += "}";
    auto spec = ClusterSpec::FromJson(json);
    EXPECT_TRUE(spec.ok()) << spec.status();
    if (spec.ok()) spec_ = *spec;
  }
  ~LocalCluster() {
    for (auto& [task, s] : servers_)
      if (s) s->Stop();
  }

  // Starts every task (or the ones not running).
  ::testing::AssertionResult StartAll() {
    for (const TaskId& t : spec_.Tasks()) {
      auto r = Start(t);
      if (!r) return r;
    }
    return ::testing::AssertionSuccess();
  }
  ::testing::AssertionResult Start(const TaskId& t) {
    if (servers_[t.Name()] != nullptr) return ::testing::AssertionSuccess();
    ServerOptions options = base_;
    options.def.cluster = spec_;
    options.def.task = t;
    auto server = Server::Create(options);
    if (!server.ok()) return ::testing::AssertionFailure() << server.status();
    Status s = (*server)->Start();
    if (!s.ok()) return ::testing::AssertionFailure() << s;
    servers_[t.Name()] = std::move(*server);
    return ::testing::AssertionSuccess();
  }
  void Stop(const TaskId& t) {
    auto& s = servers_[t.Name()];
    if (s) s->Stop();
    s.reset();
  }

  const ClusterSpec& spec() const { return spec_; }
  // The master of task `task` of `job` (default: the first task of the
  // first job).
  std::string Target(const std::string& job = "", int task = 0) const {
    TaskId t = job.empty() ? spec_.Tasks().front() : TaskId{job, task};
    return "grpc://" + *spec_.Address(t);
  }
  Server* server(const TaskId& t) { return servers_[t.Name()].get(); }

 private:
  ServerOptions base_;
  ClusterSpec spec_;
  std::map<std::string, std::unique_ptr<Server>> servers_;
};

}  // namespace flowvm::distributed_testing

#endif  // FLOWVM_DISTRIBUTED_DISTRIBUTED_TEST_UTIL_H_

// ClusterSpec: the tasks of a cluster and their addresses, in TensorFlow's
// ClusterSpec shape, and where a server finds its own task:
//
//   cluster.json:  {"ps": ["localhost:2222"], "worker": ["localhost:2223", "localhost:2224"]}
//   TF_CONFIG:     {"cluster": {...}, "task": {"type": "worker", "index": 1}}
//
// A job's tasks are a list (task i at position i) or an object from task
// index to address ({"0": "a:1", "3": "b:1"}, as TensorFlow allows). Task
// names are "/job:J/replica:0/task:I". Values are immutable and thread-safe.
#ifndef FLOWVM_CLUSTER_H_
#define FLOWVM_CLUSTER_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "flowvm/status.h"

namespace flowvm {

struct TaskId {
  std::string job;
  int index = 0;
  // "/job:worker/replica:0/task:1"
  std::string Name() const;
  bool operator<(const TaskId& o) const { return job != o.job ? job < o.job : index < o.index; }
  bool operator==(const TaskId& o) const { return job == o.job && index == o.index; }
};

class ClusterSpec {
 public:
  ClusterSpec() = default;
  // InvalidArgument naming the job, task or address that is wrong: not
  // JSON, a job name that is not [A-Za-z0-9_-]+, an address that is not
  // host:port, the same address twice, no tasks at all.
  static StatusOr<ClusterSpec> FromJson(std::string_view json);
  // NotFound if the file is missing; errors name the file.
  static StatusOr<ClusterSpec> FromFile(const std::string& path);
  // {"job": ["host:port", ...]} (object form for jobs with gaps).
  std::string ToJson() const;

  // job -> task index -> "host:port"
  const std::map<std::string, std::map<int, std::string>>& jobs() const { return jobs_; }
  std::vector<TaskId> Tasks() const;
  bool HasTask(const TaskId& task) const;
  // NotFound listing the cluster's tasks.
  StatusOr<std::string> Address(const TaskId& task) const;
  // The task with a given name ("/job:ps/replica:0/task:0", or without the
  // replica); NotFound if it is not in the cluster.
  StatusOr<TaskId> TaskByName(std::string_view name) const;
  // "/job:ps/replica:0/task:0 (localhost:2222), ..." for messages.
  std::string Describe() const;

 private:
  std::map<std::string, std::map<int, std::string>> jobs_;
};

// Where a server is in its cluster.
struct ServerDef {
  ClusterSpec cluster;
  TaskId task;
};

// A ServerDef from the cluster file and the task's job and index;
// InvalidArgument if the task is not in the cluster.
StatusOr<ServerDef> ServerDefFromClusterFile(const std::string& path, const std::string& job, int index);
// From TF_CONFIG's JSON. "chief" is a job like any other; an "evaluator"
// is not part of the cluster (FailedPrecondition); an "rpc_layer" other
// than "grpc" is Unimplemented.
StatusOr<ServerDef> ServerDefFromTfConfig(std::string_view tf_config);
// From the TF_CONFIG environment variable; NotFound if it is not set.
StatusOr<ServerDef> ServerDefFromEnvironment();

// A TCP port on 127.0.0.1 that was free a moment ago, for a local cluster's
// tasks (another process may take it before a server binds it).
// Unavailable if none could be found.
StatusOr<int> PickUnusedLoopbackPort();

}  // namespace flowvm

#endif  // FLOWVM_CLUSTER_H_

// ClusterSpec and ServerDef parsing (flowvm/cluster.h).
#include "flowvm/cluster.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "graph/device_name.h"

namespace flowvm {

namespace {

using json = nlohmann::json;

bool ValidJobName(const std::string& job) {
  if (job.empty()) return false;
  for (char c : job)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) return false;
  return true;
}

// "host:port", "[v6::addr]:port"; port 1..65535.
Status CheckAddress(const std::string& where, const std::string& address) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == address.size())
    return errors::InvalidArgument(where, ": address '", address, "' is not host:port");
  const std::string port = address.substr(colon + 1);
  if (port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos || std::stoi(port) < 1 ||
      std::stoi(port) > 65535)
    return errors::InvalidArgument(where, ": address '", address, "' has no valid port (1-65535)");
  const std::string host = address.substr(0, colon);
  if (host.find_first_of(" \t/") != std::string::npos)
    return errors::InvalidArgument(where, ": address '", address, "' has an invalid host");
  return Status::OK();
}

Status ParseJobs(const json& cluster, std::map<std::string, std::map<int, std::string>>* jobs) {
  if (!cluster.is_object())
    return errors::InvalidArgument("a cluster must be a JSON object from job name to addresses, got ",
                                   cluster.type_name());
  std::set<std::string> seen;
  for (auto it = cluster.begin(); it != cluster.end(); ++it) {
    const std::string& job = it.key();
    if (!ValidJobName(job)) return errors::InvalidArgument("job name '", job, "' is not [A-Za-z0-9_-]+");
    std::map<int, std::string>& tasks = (*jobs)[job];
    auto add = [&](int index, const json& address) -> Status {
      const std::string where = TaskId{job, index}.Name();
      if (!address.is_string())
        return errors::InvalidArgument(where, ": address must be a string, got ", address.dump());
      const std::string a = address.get<std::string>();
      FLOWVM_RETURN_IF_ERROR(CheckAddress(where, a));
      // Object keys "0" and "00" are the same task.
      if (tasks.count(index) > 0)
        return errors::InvalidArgument(where, ": task index given twice ('", tasks[index], "' and '", a, "')");
      if (!seen.insert(a).second) return errors::InvalidArgument(where, ": address '", a, "' is used twice");
      tasks[index] = a;
      return Status::OK();
    };
    if (it->is_array()) {
      for (size_t i = 0; i < it->size(); ++i) FLOWVM_RETURN_IF_ERROR(add(static_cast<int>(i), (*it)[i]));
    } else if (it->is_object()) {
      for (auto t = it->begin(); t != it->end(); ++t) {
        const std::string& key = t.key();
        if (key.empty() || key.size() > 6 || key.find_first_not_of("0123456789") != std::string::npos)
          return errors::InvalidArgument("job '", job, "': task index '", key, "' is not a number");
        FLOWVM_RETURN_IF_ERROR(add(std::stoi(key), t.value()));
      }
    } else {
      return errors::InvalidArgument("job '", job, "': tasks must be a list of addresses or an object from index "
                                     "to address, got ", it->type_name());
    }
    if (tasks.empty()) return errors::InvalidArgument("job '", job, "' has no tasks");
  }
  if (jobs->empty()) return errors::InvalidArgument("the cluster has no jobs");
  return Status::OK();
}

}  // namespace

std::string TaskId::Name() const { return "/job:" + job + "/replica:0/task:" + std::to_string(index); }

StatusOr<ClusterSpec> ClusterSpec::FromJson(std::string_view text) {
  json doc = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return errors::InvalidArgument("the cluster is not valid JSON");
  ClusterSpec spec;
  FLOWVM_RETURN_IF_ERROR(ParseJobs(doc, &spec.jobs_));
  return spec;
}

StatusOr<ClusterSpec> ClusterSpec::FromFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return errors::NotFound("cluster file '", path, "' cannot be opened");
  std::ostringstream text;
  text << in.rdbuf();
  auto spec = FromJson(text.str());
  if (!spec.ok()) return spec.status().WithContext("cluster file '" + path + "'");
  return spec;
}

std::string ClusterSpec::ToJson() const {
  json doc = json::object();
  for (const auto& [job, tasks] : jobs_) {
    bool dense = true;
    int expect = 0;
    for (const auto& [index, address] : tasks) dense = dense && index == expect++;
    if (dense) {
      json list = json::array();
      for (const auto& [index, address] : tasks) list.push_back(address);
      doc[job] = list;
    } else {
      json object = json::object();
      for (const auto& [index, address] : tasks) object[std::to_string(index)] = address;
      doc[job] = object;
    }
  }
  return doc.dump();
}

std::vector<TaskId> ClusterSpec::Tasks() const {
  std::vector<TaskId> out;
  for (const auto& [job, tasks] : jobs_)
    for (const auto& [index, address] : tasks) out.push_back({job, index});
  return out;
}

bool ClusterSpec::HasTask(const TaskId& task) const {
  auto it = jobs_.find(task.job);
  return it != jobs_.end() && it->second.count(task.index) > 0;
}

StatusOr<std::string> ClusterSpec::Address(const TaskId& task) const {
  auto it = jobs_.find(task.job);
  if (it != jobs_.end()) {
    auto t = it->second.find(task.index);
    if (t != it->second.end()) return t->second;
  }
  return errors::NotFound("task ", task.Name(), " is not in the cluster: ", Describe());
}

StatusOr<TaskId> ClusterSpec::TaskByName(std::string_view name) const {
  auto parsed = ParseDeviceName(name);
  if (!parsed.ok()) return parsed.status();
  if (!parsed->has_job || !parsed->has_task)
    return errors::InvalidArgument("'", name, "' does not name a task (/job:J/task:I)");
  TaskId id{parsed->job, parsed->task};
  if (!HasTask(id) || (parsed->has_replica && parsed->replica != 0))
    return errors::NotFound("task '", name, "' is not in the cluster: ", Describe());
  return id;
}

std::string ClusterSpec::Describe() const {
  std::string out;
  for (const auto& [job, tasks] : jobs_)
    for (const auto& [index, address] : tasks) {
      if (!out.empty()) out += ", ";
      out += TaskId{job, index}.Name() + " (" + address + ")";
    }
  return out.empty() ? "(no tasks)" : out;
}

StatusOr<ServerDef> ServerDefFromClusterFile(const std::string& path, const std::string& job, int index) {
  ServerDef def;
  FLOWVM_ASSIGN_OR_RETURN(def.cluster, ClusterSpec::FromFile(path));
  def.task = {job, index};
  if (!def.cluster.HasTask(def.task))
    return errors::InvalidArgument("task ", def.task.Name(), " is not in cluster file '", path,
                                   "': ", def.cluster.Describe());
  return def;
}

StatusOr<ServerDef> ServerDefFromTfConfig(std::string_view text) {
  json doc = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return errors::InvalidArgument("TF_CONFIG is not a JSON object");
  if (doc.contains("rpc_layer")) {
    const json& rpc = doc["rpc_layer"];
    if (!rpc.is_string() || (rpc.get<std::string>() != "grpc" && !rpc.get<std::string>().empty()))
      return errors::Unimplemented("TF_CONFIG rpc_layer ", rpc.dump(), ": flowvm speaks \"grpc\" only");
  }
  if (!doc.contains("cluster")) return errors::InvalidArgument("TF_CONFIG has no \"cluster\"");
  ServerDef def;
  auto cluster = ClusterSpec::FromJson(doc["cluster"].dump());
  if (!cluster.ok()) return cluster.status().WithContext("TF_CONFIG cluster");
  def.cluster = std::move(*cluster);
  if (!doc.contains("task") || !doc["task"].is_object())
    return errors::InvalidArgument("TF_CONFIG has no \"task\" object ({\"type\": \"worker\", \"index\": 0})");
  const json& task = doc["task"];
  if (!task.contains("type") || !task["type"].is_string())
    return errors::InvalidArgument("TF_CONFIG task has no \"type\" string");
  def.task.job = task["type"].get<std::string>();
  if (task.contains("index")) {
    const json& index = task["index"];
    if (index.is_number_integer()) {
      // get<int>() would wrap an index outside int's range onto another task.
      const bool fits = index.is_number_unsigned()
                            ? index.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<int>::max())
                            : index.get<int64_t>() >= std::numeric_limits<int>::min() &&
                                  index.get<int64_t>() <= std::numeric_limits<int>::max();
      if (!fits) return errors::InvalidArgument("TF_CONFIG task index ", index.dump(), " is out of range");
      def.task.index = index.get<int>();
    } else if (index.is_string() && !index.get<std::string>().empty() &&
               index.get<std::string>().find_first_not_of("0123456789") == std::string::npos &&
               index.get<std::string>().size() < 7) {
      def.task.index = std::stoi(index.get<std::string>());
    } else {
      return errors::InvalidArgument("TF_CONFIG task index ", index.dump(), " is not a number");
    }
  }
  if (def.task.job == "evaluator" && !def.cluster.HasTask(def.task))
    return errors::FailedPrecondition("TF_CONFIG task is an evaluator, which is not part of the cluster: run it "
                                      "with a local session instead of a server");
  if (!def.cluster.HasTask(def.task))
    return errors::InvalidArgument("TF_CONFIG task ", def.task.Name(), " is not in its cluster: ",
                                   def.cluster.Describe());
  return def;
}

StatusOr<int> PickUnusedLoopbackPort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return errors::Unavailable("socket: ", std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
    port = ntohs(addr.sin_port);
  close(fd);
  if (port == 0) return errors::Unavailable("no free port on 127.0.0.1");
  return port;
}

StatusOr<ServerDef> ServerDefFromEnvironment() {
  const char* env = std::getenv("TF_CONFIG");
  if (env == nullptr || *env == '\0')
    return errors::NotFound("TF_CONFIG is not set (give --cluster FILE --job NAME --task I instead)");
  return ServerDefFromTfConfig(env);
}

}  // namespace flowvm

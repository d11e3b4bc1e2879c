// _flowvm.Session, _flowvm.Callable and _flowvm.Server.
//
// A Session runs steps of a _flowvm.Graph: before each step the nodes added
// since the last one are sent with Session::Extend, so a Python program may
// keep building between runs. Feeds are NumPy arrays (see py_tensor.h);
// the GIL is released while the step runs, so other Python threads (queue
// runners, a coordinator) go on, and a step blocked in a queue does not
// stop them. A Callable is a step whose feeds, fetches and targets are
// fixed, for the lowest overhead per call (TensorFlow's make_callable).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "flowvm/cluster.h"
#include "flowvm/config.pb.h"
#include "flowvm/server.h"
#include "flowvm/session.h"
#include "py_errors.h"
#include "py_graph.h"
#include "py_tensor.h"

namespace py = pybind11;

namespace flowvm::python {
namespace {

// Calls that are inside the runtime without the GIL. At exit the package
// closes its sessions (cancelling their steps) and waits for this to reach
// zero: a thread still waiting to take the GIL back when the interpreter
// finalizes would be ended by it in the middle of C++ code.
std::atomic<int> g_calls_in_flight{0};

// Counts one call; construct before releasing the GIL, so that it is
// destroyed after the GIL is taken back.
class InFlight {
 public:
  InFlight() { g_calls_in_flight.fetch_add(1); }
  ~InFlight() { g_calls_in_flight.fetch_sub(1); }
  InFlight(const InFlight&) = delete;
  InFlight& operator=(const InFlight&) = delete;
};

SessionOptions OptionsFromConfig(const std::string& target, const ConfigProto& config) {
  SessionOptions o;
  o.target = target;
  auto cpu = config.device_count().find("CPU");
  if (cpu != config.device_count().end() && cpu->second > 0) o.cpu_devices = cpu->second;
  // One pool serves both kinds of parallelism here.
  o.num_threads = std::max(config.intra_op_parallelism_threads(), config.inter_op_parallelism_threads());
  if (o.num_threads < 0) o.num_threads = 0;
  o.allow_soft_placement = config.allow_soft_placement();
  for (const auto& f : config.device_filters()) o.device_filters.push_back(f);
  if (config.has_graph_options()) {
    const auto& opt = config.graph_options().optimizer_options();
    if (opt.opt_level() == OptimizerOptionsProto_Level_L0) {
      o.optimizer.common_subexpression_elimination = false;
      o.optimizer.constant_folding = false;
    }
    if (opt.max_folded_constant_in_bytes() > 0) o.optimizer.max_folded_constant_bytes = opt.max_folded_constant_in_bytes();
  }
  return o;
}

std::vector<std::pair<std::string, Tensor>> FeedsFromPython(const py::list& names, const py::list& values) {
  if (names.size() != values.size())
    RaiseStatus(errors::InvalidArgument("feeds: ", names.size(), " names but ", values.size(), " values"));
  std::vector<std::pair<std::string, Tensor>> feeds;
  feeds.reserve(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    std::string name = names[i].cast<std::string>();
    auto t = NumpyToTensor(values[i]);
    if (!t.ok()) RaiseStatus(errors::InvalidArgument("feed for '", name, "': ", t.status().message()));
    feeds.emplace_back(std::move(name), std::move(*t));
  }
  return feeds;
}

py::list OutputsToPython(const std::vector<Tensor>& outputs, const std::vector<std::string>& fetches) {
  py::list result(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    auto v = TensorToNumpy(outputs[i]);
    if (!v.ok()) RaiseStatus(Status(v.status().code(), "fetch '" + fetches[i] + "': " + v.status().message()));
    result[i] = std::move(*v);
  }
  return result;
}

class PySession {
 public:
  PySession(const std::string& target, const py::bytes& config_bytes) {
    ConfigProto config;
    if (!config.ParseFromString(std::string(config_bytes)))
      RaiseStatus(errors::InvalidArgument("Session: config is not a ConfigProto"));
    log_placement_ = config.log_device_placement();
    default_timeout_ms_ = config.operation_timeout_in_ms();
    SessionOptions options = OptionsFromConfig(target, config);
    GraphDef empty;
    StatusOr<std::unique_ptr<Session>> s = [&] {
      InFlight in_flight;
      py::gil_scoped_release nogil;
      return Session::Create(options, empty);
    }();
    session_ = std::shared_ptr<Session>(ValueOrThrow(std::move(s)).release());
  }

  // Extends the session with the nodes of `graph` it has not seen.
  // Requires the GIL, which serializes it with other threads' runs.
  void Sync(PyGraph& graph) {
    if (&graph != graph_) {
      if (graph_ != nullptr)
        RaiseStatus(errors::InvalidArgument("this session runs another graph than the one given"));
      graph_ = &graph;
    }
    const int n = graph.NumNodeIds();
    if (n == synced_) return;
    std::string bytes = graph.ToGraphDefString(synced_);
    GraphDef def;
    def.ParseFromString(bytes);
    // The GIL stays held: another Python thread's Run must not extend the
    // session with the same nodes meanwhile.
    if (def.node_size() > 0) ThrowIfError(Live()->Extend(def));
    synced_ = n;
  }

  // Returns (outputs, run_metadata bytes or None).
  py::tuple Run(PyGraph& graph, const py::list& feed_names, const py::list& feed_values,
                const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
                const py::object& run_options, bool want_metadata) {
    std::shared_ptr<Session> session = Live();
    ReleaseDeferredArrays();
    Sync(graph);
    auto feeds = FeedsFromPython(feed_names, feed_values);
    RunOptions options;
    if (!run_options.is_none() && !options.ParseFromString(run_options.cast<std::string>()))
      RaiseStatus(errors::InvalidArgument("run: options is not a RunOptions"));
    if (options.timeout_in_ms() == 0 && default_timeout_ms_ > 0) options.set_timeout_in_ms(default_timeout_ms_);
    std::vector<Tensor> outputs;
    RunMetadata metadata;
    RunStats stats;
    Status st;
    InFlight in_flight;
    {
      py::gil_scoped_release nogil;
      st = session->Run(options, feeds, fetches, targets, &outputs, want_metadata ? &metadata : nullptr,
                        log_placement_ ? &stats : nullptr);
    }
    ThrowIfError(st);
    if (log_placement_) LogPlacement(stats);
    py::object md = want_metadata ? py::object(py::bytes(metadata.SerializeAsString())) : py::object(py::none());
    return py::make_tuple(OutputsToPython(outputs, fetches), md);
  }

  py::list RunFixed(PyGraph& graph, const std::vector<std::string>& feed_names, const py::args& values,
                    const std::vector<std::string>& fetches, const std::vector<std::string>& targets) {
    std::shared_ptr<Session> session = Live();
    ReleaseDeferredArrays();
    Sync(graph);
    if (values.size() != feed_names.size())
      RaiseStatus(errors::InvalidArgument("callable takes ", feed_names.size(), " feeds, got ", values.size()));
    std::vector<std::pair<std::string, Tensor>> feeds;
    feeds.reserve(values.size());
    for (size_t i = 0; i < values.size(); ++i) {
      auto t = NumpyToTensor(values[i]);
      if (!t.ok()) RaiseStatus(errors::InvalidArgument("feed for '", feed_names[i], "': ", t.status().message()));
      feeds.emplace_back(feed_names[i], std::move(*t));
    }
    std::vector<Tensor> outputs;
    Status st;
    if (default_timeout_ms_ > 0 || log_placement_) {
      RunOptions options;
      options.set_timeout_in_ms(default_timeout_ms_);
      RunStats stats;
      InFlight in_flight;
      {
        py::gil_scoped_release nogil;
        st = session->Run(options, feeds, fetches, targets, &outputs, nullptr, &stats);
      }
      if (st.ok() && log_placement_) LogPlacement(stats);
    } else {
      InFlight in_flight;
      py::gil_scoped_release nogil;
      st = session->Run(feeds, fetches, targets, &outputs);
    }
    ThrowIfError(st);
    return OutputsToPython(outputs, fetches);
  }

  py::list ListDevices() {
    std::shared_ptr<Session> session = Live();
    std::vector<DeviceInfo> devices;
    ThrowIfError(session->ListDevices(&devices));
    py::list out;
    for (const auto& d : devices) out.append(py::make_tuple(d.name, d.type, int64_t{0}, d.incarnation));
    return out;
  }

  void Reset(const std::vector<std::string>& containers) {
    std::shared_ptr<Session> session = Live();
    Status st;
    InFlight in_flight;
    {
      py::gil_scoped_release nogil;
      st = session->ResetContainers(containers);
    }
    ThrowIfError(st);
  }

  // Cancels running steps (other threads' runs fail with Cancelled) and
  // waits for them; later calls fail with FailedPrecondition. Threads still
  // inside a run keep the session alive until they return.
  void Close() {
    if (session_ == nullptr) return;
    std::shared_ptr<Session> session = std::move(session_);
    session_ = nullptr;
    Status st;
    InFlight in_flight;
    {
      py::gil_scoped_release nogil;
      st = session->Close();
    }
    ThrowIfError(st);
  }

  int synced() const { return synced_; }

  bool closed() const { return session_ == nullptr; }

 private:
  // The session, for one call; the GIL is held. Close() drops session_,
  // while a call that got it keeps it alive until it returns.
  std::shared_ptr<Session> Live() const {
    if (session_ == nullptr) RaiseStatus(errors::FailedPrecondition("Attempted to use a closed Session."));
    return session_;
  }
  void LogPlacement(const RunStats& stats) const {
    for (const std::string& line : stats.placement) std::fprintf(stderr, "%s\n", line.c_str());
  }

  std::shared_ptr<Session> session_;  // null once closed; read and written under the GIL
  PyGraph* graph_ = nullptr;  // the Python Session keeps its Graph alive
  int synced_ = 0;
  bool log_placement_ = false;
  int64_t default_timeout_ms_ = 0;
};

// A fixed (feeds, fetches, targets) step of one session.
class PyCallable {
 public:
  PyCallable(PySession* session, PyGraph* graph, std::vector<std::string> feeds, std::vector<std::string> fetches,
             std::vector<std::string> targets)
      : session_(session), graph_(graph), feeds_(std::move(feeds)), fetches_(std::move(fetches)),
        targets_(std::move(targets)) {}
  py::list Call(const py::args& values) { return session_->RunFixed(*graph_, feeds_, values, fetches_, targets_); }

 private:
  PySession* session_;  // kept alive by the Python object (keep_alive)
  PyGraph* graph_;
  std::vector<std::string> feeds_, fetches_, targets_;
};

class PyServer {
 public:
  PyServer(const std::string& cluster_json, const std::string& job, int task, int cpu_devices, int num_threads,
           const std::vector<std::string>& allowed_dirs, bool start) {
    ServerOptions o;
    o.def.cluster = ValueOrThrow(ClusterSpec::FromJson(cluster_json));
    o.def.task.job = job;
    o.def.task.index = task;
    o.cpu_devices = cpu_devices > 0 ? cpu_devices : 1;
    o.num_threads = num_threads;
    o.allowed_dirs = allowed_dirs;
    server_ = ValueOrThrow(Server::Create(o));
    if (start) Start();
  }
  void Start() {
    Status st;
    InFlight in_flight;
    {
      py::gil_scoped_release nogil;
      st = server_->Start();
    }
    ThrowIfError(st);
  }
  void Join() {
    // Not counted: a thread that joins a server at exit never comes back.
    py::gil_scoped_release nogil;
    server_->Join();
  }
  void Stop() {
    InFlight in_flight;
    py::gil_scoped_release nogil;
    server_->Stop();
  }
  std::string target() const { return server_->target(); }

 private:
  std::unique_ptr<Server> server_;
};

}  // namespace

void RegisterSession(py::module_& m) {
  py::class_<PySession>(m, "Session")
      .def(py::init<const std::string&, const py::bytes&>(), py::arg("target"), py::arg("config"))
      .def("run", &PySession::Run)
      .def("extend", &PySession::Sync)
      .def("list_devices", &PySession::ListDevices)
      .def("reset", &PySession::Reset)
      .def("close", &PySession::Close)
      .def_property_readonly("closed", &PySession::closed)
      .def_property_readonly("synced", &PySession::synced, "Node ids below this have been sent to the session.")
      .def(
          "make_callable",
          [](PySession* s, PyGraph* g, std::vector<std::string> feeds, std::vector<std::string> fetches,
             std::vector<std::string> targets) {
            return new PyCallable(s, g, std::move(feeds), std::move(fetches), std::move(targets));
          },
          py::keep_alive<0, 1>(), py::keep_alive<0, 2>());
  py::class_<PyCallable>(m, "Callable").def("__call__", &PyCallable::Call);
  py::class_<PyServer>(m, "Server")
      .def(py::init<const std::string&, const std::string&, int, int, int, const std::vector<std::string>&, bool>(),
           py::arg("cluster_json"), py::arg("job"), py::arg("task"), py::arg("cpu_devices") = 1,
           py::arg("num_threads") = 0, py::arg("allowed_dirs") = std::vector<std::string>(), py::arg("start") = true)
      .def("start", &PyServer::Start)
      .def("join", &PyServer::Join)
      .def("stop", &PyServer::Stop)
      .def_property_readonly("target", &PyServer::target);
  m.def("pick_unused_port", [] { return ValueOrThrow(PickUnusedLoopbackPort()); });
  m.def("calls_in_flight", [] { return g_calls_in_flight.load(); },
        "Calls (runs, closes) inside the runtime without the GIL right now.");
}

}  // namespace flowvm::python

// The distributed runtime against its peers, every party a process of its
// own on loopback (bench/run_distributed_bench.sh prints the ratios):
//
//   distributed_bench [--rounds=5] [--transfer_iters=3] [--steps=300] [--mib=64]
//                     [--server_threads=0] [--only=name,name...]
//
// It starts, next to itself, three dist_bench_server processes (a cluster
// {"master": [m], "worker": [w0, w1]}, each task its own flowvm::Server) and
// two dist_bench_peer (plain TCP and plain gRPC servers), and is itself the
// client. Samples (microseconds, one per step or call) go to stdout as JSON.
//
// RecvTensor throughput (a float32 tensor of --mib MiB):
//   recv_remote   a step on the master of w0 whose target is Identity(v) on
//                 w1, v a variable on w0: w1's Recv pulls v's bytes from the
//                 w0 process with RecvTensor.
//   recv_local    the same step with the Identity on w0 (no transfer): the
//                 step's control cost, subtracted from recv_remote.
//   tcp           the peer: an 8-byte request on a TCP socket, answered with
//                 the same number of bytes from another process, read into
//                 one reused buffer.
//   tcp_fresh     the same, read into a newly allocated buffer each time
//                 (what receiving into new memory costs: every page faults in).
//   grpc_bytes    a naive gRPC unary call whose response is one protobuf
//                 `bytes` field of that size (default channel settings).
//   memcpy        copying that many bytes once in this process, between two
//                 buffers already touched (the copy out of gRPC's receive
//                 buffers that a RecvTensor makes and a socket read does not).
// Trivial step round trip (client -> master -> 2 workers -> client):
//   step          client -> master of w0 (in w0's process) -> RunGraph on w0
//                 (in-process) and w1 (RPC): a scalar Const fetched from w0,
//                 a scalar Const run as a target on w1. 3 processes.
//   step_master   the same step through the master task m (device filters
//                 /job:worker): RunGraph is an RPC to both workers. 4
//                 processes.
//   step_edge     like `step`, but fetching a0 + a1 on w0, a1 on w1: one
//                 scalar also crosses workers with RecvTensor.
//   grpc_ping     the peer: a plain gRPC unary round trip (generated stub,
//                 synchronous API, one small message each way).
//   grpc_ping_callback  the same round trip on gRPC's callback API, client
//                 and server (what flowvm's services use), the caller waiting
//                 on a condition variable for the callback.
//   grpc_relay    the peer: a plain gRPC unary call that the peer forwards to
//                 a second peer process (synchronous stubs and services on
//                 both) before it answers: client -> peer -> peer -> back,
//                 the least any step through a master costs (3 processes).
//   step_stats    `step` asking for RunStats: the master's own time for the
//                 step (its run_ms) is kept as step_in_master.
// Each round runs every benchmark of a group, in a random order.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "bench_peer.grpc.pb.h"
#include "flowvm/cluster.h"
#include "flowvm/session.h"
#include "flowvm/tensor.h"
#include "flowvm/tensor.pb.h"

namespace {

using namespace flowvm;  // NOLINT: a benchmark file
using Clock = std::chrono::steady_clock;

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "distributed_bench: %s\n", what.c_str());
  std::exit(1);
}

void Check(const Status& s, const std::string& what) {
  if (!s.ok()) Die(what + ": " + s.ToString());
}

int PickUnusedPort() {
  auto port = PickUnusedLoopbackPort();
  Check(port.status(), "picking a free port");
  return *port;
}

// ---- child processes ---------------------------------------------------------

struct Child {
  std::string name;
  pid_t pid = -1;
  int out = -1;  // its stdout
};
std::vector<Child> children;

void KillChildren() {
  for (Child& c : children)
    if (c.pid > 0) kill(c.pid, SIGTERM);
  for (Child& c : children)
    if (c.pid > 0) {
      waitpid(c.pid, nullptr, 0);
      c.pid = -1;
    }
}

Child& Spawn(const std::string& name, const std::vector<std::string>& argv) {
  int fds[2];
  if (pipe(fds) != 0) Die("pipe");
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) Die("fork");
  if (pid == 0) {
    // Dies with the driver, however the driver ends.
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(1);
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    close(fds[1]);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    std::perror(("exec " + argv[0]).c_str());
    _exit(127);
  }
  close(fds[1]);
  children.push_back({name, pid, fds[0]});
  return children.back();
}

// Waits for the child's "ready" line.
void WaitReady(const Child& c) {
  std::string line;
  const auto deadline = Clock::now() + std::chrono::seconds(60);
  while (line.find('\n') == std::string::npos) {
    const int left = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count());
    pollfd p{c.out, POLLIN, 0};
    if (left <= 0 || poll(&p, 1, left) <= 0) Die(c.name + " did not start within 60 s");
    char buf[256];
    const ssize_t n = read(c.out, buf, sizeof(buf));
    if (n <= 0) Die(c.name + " exited before it was ready");
    line.append(buf, static_cast<size_t>(n));
  }
  if (line.rfind("ready", 0) != 0) Die(c.name + " said: " + line);
}

std::string SelfDir() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) Die("readlink /proc/self/exe");
  std::string path(buf, static_cast<size_t>(n));
  return path.substr(0, path.rfind('/'));
}

// ---- the graph -------------------------------------------------------------------

constexpr char kW0[] = "/job:worker/replica:0/task:0/device:CPU:0";
constexpr char kW1[] = "/job:worker/replica:0/task:1/device:CPU:0";

NodeDef* AddNode(GraphDef* g, const std::string& name, const std::string& op, const std::string& device,
                 const std::vector<std::string>& inputs) {
  NodeDef* n = g->add_node();
  n->set_name(name);
  n->set_op(op);
  n->set_device(device);
  for (const std::string& i : inputs) n->add_input(i);
  return n;
}

void AddConst(GraphDef* g, const std::string& name, const std::string& device, const Tensor& value) {
  NodeDef* n = AddNode(g, name, "Const", device, {});
  (*n->mutable_attr())["dtype"].set_type(value.dtype());
  value.AsProtoTensorContent((*n->mutable_attr())["value"].mutable_tensor());
}

Tensor ScalarFloat(float v) {
  Tensor t(DT_FLOAT, TensorShape({}));
  t.data<float>()[0] = v;
  return t;
}

GraphDef BenchGraph(int64_t floats) {
  GraphDef g;
  g.mutable_versions()->set_producer(1205);
  NodeDef* v = AddNode(&g, "v", "VariableV2", kW0, {});
  (*v->mutable_attr())["dtype"].set_type(DT_FLOAT);
  TensorShape({floats}).AsProto((*v->mutable_attr())["shape"].mutable_shape());
  Tensor dims(DT_INT32, TensorShape({1}));
  dims.data<int32_t>()[0] = static_cast<int32_t>(floats);
  AddConst(&g, "fill_dims", kW0, dims);
  AddConst(&g, "fill_value", kW0, ScalarFloat(1.0f));
  (*AddNode(&g, "fill", "Fill", kW0, {"fill_dims", "fill_value"})->mutable_attr())["T"].set_type(DT_FLOAT);
  (*AddNode(&g, "init", "Assign", kW0, {"v", "fill"})->mutable_attr())["T"].set_type(DT_FLOAT);
  (*AddNode(&g, "y_remote", "Identity", kW1, {"v"})->mutable_attr())["T"].set_type(DT_FLOAT);
  (*AddNode(&g, "y_local", "Identity", kW0, {"v"})->mutable_attr())["T"].set_type(DT_FLOAT);
  // Checks, once, that the bytes arrived: the sum of `floats` ones.
  AddConst(&g, "axis", kW1, Tensor::FromVector<int32_t>({0}));
  NodeDef* sum = AddNode(&g, "check", "Sum", kW1, {"y_remote", "axis"});
  (*sum->mutable_attr())["T"].set_type(DT_FLOAT);
  (*sum->mutable_attr())["Tidx"].set_type(DT_INT32);
  // The trivial step.
  AddConst(&g, "a0", kW0, ScalarFloat(2.0f));
  AddConst(&g, "a1", kW1, ScalarFloat(3.0f));
  (*AddNode(&g, "a_sum", "AddV2", kW0, {"a0", "a1"})->mutable_attr())["T"].set_type(DT_FLOAT);
  return g;
}

std::unique_ptr<Session> Connect(const std::string& target, int64_t floats) {
  SessionOptions options;
  options.target = target;
  options.device_filters = {"/job:worker"};
  options.optimizer.remove_identity_chains = false;  // the Identity is the point
  options.optimizer.constant_folding = false;        // a_sum stays a step's work
  auto s = Session::Create(options, BenchGraph(floats));
  if (!s.ok()) Die("session on " + target + ": " + s.status().ToString());
  return std::move(*s);
}

// ---- the peers' clients -------------------------------------------------------

class TcpClient {
 public:
  explicit TcpClient(int port) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(port));
    if (connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) Die("connect to the TCP peer");
    int one = 1;
    setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  }
  ~TcpClient() { close(fd_); }
  // Asks for `n` bytes and reads them to `dst`.
  void Fetch(char* dst, uint64_t n) {
    if (send(fd_, &n, sizeof(n), MSG_NOSIGNAL) != sizeof(n)) Die("TCP request");
    uint64_t got = 0;
    while (got < n) {
      const ssize_t r = recv(fd_, dst + got, n - got, 0);
      if (r <= 0) Die("TCP read");
      got += static_cast<uint64_t>(r);
    }
    if (dst[n - 1] != '\x5a') Die("TCP peer sent the wrong bytes");
  }

 private:
  int fd_ = -1;
};

std::shared_ptr<grpc::Channel> PeerChannel(int port) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(-1);
  return grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials(), args);
}

// ---- timing --------------------------------------------------------------------

std::map<std::string, std::vector<double>> samples;  // microseconds

void Time(const std::string& name, int iters, const std::function<void()>& fn) {
  auto& out = samples[name];
  for (int i = 0; i < iters; ++i) {
    const auto start = Clock::now();
    fn();
    out.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
  }
}

std::string StringFlag(int argc, char** argv, const std::string& name) {
  const std::string prefix = "--" + name + "=";
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]).rfind(prefix, 0) == 0) return argv[i] + prefix.size();
  return "";
}

int Flag(int argc, char** argv, const std::string& name, int def) {
  const std::string prefix = "--" + name + "=";
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]).rfind(prefix, 0) == 0) return std::atoi(argv[i] + prefix.size());
  return def;
}

std::string Json(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    if (static_cast<unsigned char>(c) >= 0x20) out.push_back(c);
  }
  return out + "\"";
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = Flag(argc, argv, "rounds", 5);
  const int transfer_iters = Flag(argc, argv, "transfer_iters", 3);
  const int steps = Flag(argc, argv, "steps", 300);
  const int mib = Flag(argc, argv, "mib", 64);
  const int server_threads = Flag(argc, argv, "server_threads", 0);
  // --only=a,b: just these benchmarks (profiling).
  const std::string only = "," + StringFlag(argc, argv, "only") + ",";
  auto wanted = [&](const std::string& name) { return only == ",," || only.find("," + name + ",") != std::string::npos; };
  const int64_t floats = int64_t{mib} << 18;
  const uint64_t bytes = static_cast<uint64_t>(floats) * 4;

  // The cluster and the peers, each a process.
  const int pm = PickUnusedPort(), p0 = PickUnusedPort(), p1 = PickUnusedPort();
  const int tcp_port = PickUnusedPort(), grpc_port = PickUnusedPort();
  const int tcp_port2 = PickUnusedPort(), grpc_port2 = PickUnusedPort();
  char tmpl[] = "/tmp/flowvm_dist_bench.XXXXXX";
  if (mkdtemp(tmpl) == nullptr) Die("mkdtemp");
  const std::string cluster_file = std::string(tmpl) + "/cluster.json";
  {
    std::ofstream f(cluster_file);
    f << "{\"master\": [\"127.0.0.1:" << pm << "\"], \"worker\": [\"127.0.0.1:" << p0 << "\", \"127.0.0.1:" << p1
      << "\"]}\n";
  }
  const std::string dir = SelfDir();
  const std::string threads = std::to_string(server_threads);
  std::atexit(KillChildren);
  Spawn("master task m", {dir + "/dist_bench_server", cluster_file, "master", "0", threads});
  Spawn("worker task w0", {dir + "/dist_bench_server", cluster_file, "worker", "0", threads});
  Spawn("worker task w1", {dir + "/dist_bench_server", cluster_file, "worker", "1", threads});
  Spawn("peer", {dir + "/dist_bench_peer", std::to_string(tcp_port), std::to_string(grpc_port),
                 std::to_string(grpc_port2)});
  Spawn("second peer", {dir + "/dist_bench_peer", std::to_string(tcp_port2), std::to_string(grpc_port2)});
  for (const Child& c : children) WaitReady(c);
  std::remove(cluster_file.c_str());
  rmdir(tmpl);
  std::fprintf(stderr, "distributed_bench: cluster m=%d w0=%d w1=%d, peer tcp=%d grpc=%d; %d MiB, %d rounds\n", pm,
               p0, p1, tcp_port, grpc_port, mib, rounds);

  // Sessions: through w0's master (3 processes) and through m (4).
  auto via_w0 = Connect("grpc://127.0.0.1:" + std::to_string(p0), floats);
  auto via_m = Connect("grpc://127.0.0.1:" + std::to_string(pm), floats);
  std::vector<Tensor> out;
  Check(via_w0->Run({}, {}, {"init"}, &out), "init");
  RunStats stats;
  Check(via_w0->Run({}, {"check"}, {}, &out, &stats), "check");
  if (out[0].data<float>()[0] != static_cast<float>(floats))
    Die("the transferred tensor sums to " + std::to_string(out[0].data<float>()[0]));
  const std::vector<std::string> remote_targets = {"y_remote"}, local_targets = {"y_local", "a1"};
  Check(via_w0->Run({}, {}, remote_targets, &out, &stats), "recv_remote");
  std::string transfers;
  for (const std::string& t : stats.transfers) transfers += (transfers.empty() ? "" : "; ") + t;
  std::fprintf(stderr, "distributed_bench: recv_remote partitions=%d transfers: %s\n", stats.partitions,
               transfers.c_str());
  Check(via_w0->Run({}, {}, local_targets, &out, &stats), "recv_local");

  TcpClient tcp(tcp_port);
  std::vector<char> tcp_buffer(bytes, 0);
  auto grpc_channel = PeerChannel(grpc_port);
  auto stub = flowvm_bench::BenchPeer::NewStub(grpc_channel);
  auto callback_stub = flowvm_bench::BenchPeerCallback::NewStub(grpc_channel);

  auto remote = [&] { Check(via_w0->Run({}, {}, remote_targets, &out), "recv_remote"); };
  auto local = [&] { Check(via_w0->Run({}, {}, local_targets, &out), "recv_local"); };
  auto tcp_reused = [&] { tcp.Fetch(tcp_buffer.data(), bytes); };
  std::vector<char> copy_from(bytes, 1), copy_to(bytes, 0);
  auto copy = [&] {
    std::memcpy(copy_to.data(), copy_from.data(), bytes);
    if (copy_to[bytes / 2] != 1) Die("memcpy");
  };
  auto tcp_fresh = [&] {
    std::unique_ptr<char[]> b(new char[bytes]);
    tcp.Fetch(b.get(), bytes);
  };
  auto grpc_bytes = [&] {
    grpc::ClientContext context;
    flowvm_bench::BlobRequest request;
    request.set_bytes(static_cast<int64_t>(bytes));
    flowvm_bench::BlobResponse response;
    grpc::Status s = stub->Fetch(&context, request, &response);
    if (!s.ok() || response.data().size() != bytes) Die("gRPC Fetch: " + s.error_message());
  };
  auto step_with = [&](Session* session, const std::vector<std::string>& fetch, const std::vector<std::string>& targets,
                       float expect) {
    Check(session->Run({}, fetch, targets, &out), "step");
    if (out.size() != 1 || out[0].data<float>()[0] != expect) Die("the step fetched a wrong value");
  };
  auto step = [&] { step_with(via_w0.get(), {"a0"}, {"a1"}, 2.0f); };
  auto step_master = [&] { step_with(via_m.get(), {"a0"}, {"a1"}, 2.0f); };
  // The step again, with the master's own time for it (RunStats.run_ms:
  // from its RunStep handler's start to its end) kept as "step_in_master".
  auto step_stats = [&] {
    RunStats st;
    Check(via_w0->Run({}, {"a0"}, {"a1"}, &out, &st), "step");
    samples["step_in_master"].push_back(st.run_ms * 1e3);
  };
  auto step_edge = [&] { step_with(via_w0.get(), {"a_sum"}, {}, 5.0f); };
  int64_t seq = 0;
  auto grpc_ping = [&] {
    grpc::ClientContext context;
    flowvm_bench::PingRequest request;
    request.set_seq(++seq);
    flowvm_bench::PingResponse response;
    grpc::Status s = stub->Ping(&context, request, &response);
    if (!s.ok() || response.seq() != seq) Die("gRPC Ping: " + s.error_message());
  };

  auto grpc_relay = [&] {
    grpc::ClientContext context;
    flowvm_bench::PingRequest request;
    request.set_seq(++seq);
    flowvm_bench::PingResponse response;
    grpc::Status s = stub->Relay(&context, request, &response);
    if (!s.ok() || response.seq() != seq) Die("gRPC Relay: " + s.error_message());
  };
  // Callback API on both sides, the caller waiting for the callback (as
  // flowvm's client and master do).
  auto grpc_ping_callback = [&] {
    grpc::ClientContext context;
    flowvm_bench::PingRequest request;
    request.set_seq(++seq);
    flowvm_bench::PingResponse response;
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    grpc::Status status;
    callback_stub->async()->Ping(&context, &request, &response, [&](grpc::Status s) {
      std::lock_guard<std::mutex> lock(mu);
      status = std::move(s);
      done = true;
      cv.notify_all();
    });
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return done; });
    if (!status.ok() || response.seq() != seq) Die("gRPC callback Ping: " + status.error_message());
  };
  struct Bench {
    std::string name;
    std::function<void()> fn;
  };
  std::vector<Bench> transfer_group = {{"recv_remote", remote},  {"recv_local", local},
                                             {"tcp", tcp_reused},      {"tcp_fresh", tcp_fresh},
                                             {"grpc_bytes", grpc_bytes},  {"memcpy", copy}};
  std::vector<Bench> step_group = {
      {"step", step}, {"step_master", step_master}, {"step_edge", step_edge}, {"grpc_ping", grpc_ping},
      {"grpc_ping_callback", grpc_ping_callback}, {"grpc_relay", grpc_relay}, {"step_stats", step_stats}};
  for (auto* group : {&transfer_group, &step_group})
    group->erase(std::remove_if(group->begin(), group->end(), [&](const Bench& b) { return !wanted(b.name); }),
                 group->end());
  // Warm-up: connections, registered graphs, allocator.
  for (const Bench& b : transfer_group)
    for (int i = 0; i < 2; ++i) b.fn();
  for (const Bench& b : step_group)
    for (int i = 0; i < 30; ++i) b.fn();
  samples.clear();

  std::mt19937 rng(12345);
  for (int r = 0; r < rounds; ++r) {
    std::vector<Bench> t = transfer_group, s = step_group;
    std::shuffle(t.begin(), t.end(), rng);
    std::shuffle(s.begin(), s.end(), rng);
    for (const Bench& b : t) Time(b.name, transfer_iters, b.fn);
    for (const Bench& b : s) Time(b.name, steps, b.fn);
    std::fprintf(stderr, "distributed_bench: round %d of %d done\n", r + 1, rounds);
  }
  Check(via_w0->Close(), "close");
  Check(via_m->Close(), "close");

  std::printf("{\"bytes\": %llu, \"rounds\": %d, \"transfer_iters\": %d, \"steps\": %d, \"transfers\": %s,\n",
              static_cast<unsigned long long>(bytes), rounds, transfer_iters, steps, Json(transfers).c_str());
  std::printf(" \"samples_us\": {");
  bool first = true;
  for (const auto& [name, v] : samples) {
    std::printf("%s\n  %s: [", first ? "" : ",", Json(name).c_str());
    for (size_t i = 0; i < v.size(); ++i) std::printf("%s%.2f", i ? ", " : "", v[i]);
    std::printf("]");
    first = false;
  }
  std::printf("\n }}\n");
  std::fflush(stdout);
  return 0;
}

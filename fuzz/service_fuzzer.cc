// libFuzzer target: random bytes as a request to a server's gRPC methods.
//
// Each input gets a fresh task of a one-task cluster, built the way
// src/distributed/server.cc builds one (devices, Worker, WorkerCache,
// Master, CallThreads, a GrpcDispatcher with every worker and master
// method), without starting gRPC: the handlers are called directly with a
// grpc::ByteBuffer, as the dispatcher's reactor would. The input is
//
//   byte 0: low 5 bits pick the call (below), high 3 bits how the request
//           is cut into slices (0: one slice; k: slices of 2^(k-1) bytes)
//   rest:   the request message, an envelope (distributed/wire.h)
//
// Calls 0-15 send the bytes as they are to one method each. Calls 16-19
// first set up what the bytes cannot guess (random handles and device
// incarnations) and patch them into the request when it parses:
//   16 RunStep in a session on a small graph (placeholders x: float and
//      s: string, y = x + c, z = s, a variable v with init and r = v),
//   17 ExtendSession of that session,
//   18 RunGraph of a registered partition (fed x, fetched y = x + c),
//   19 RecvTensor, with rendezvous keys naming this task's incarnation,
//   20 PutTensor (a chunk of a large feed), as the bytes are.
// The same bytes are also read as envelopes directly (WireReader::Open and
// ReadTensor, ChunkedTensor for chunks of a bounded size).
//
// A request may legitimately wait forever (a RecvTensor of a key nobody
// sends, a RunGraph whose feed is missing): if no reply has come after a
// moment, the harness aborts every step of the worker, as a stopping server
// does, and the reply must then come promptly.
//
// Checked invariants (a violation aborts, so libFuzzer reports it):
//   - every handler replies exactly once, and within a bound once the
//     worker's steps are aborted;
//   - a successful reply is a well-formed envelope of the method's response
//     type, with the tensors its header announces;
//   - the task then shuts down (nothing of it outlives the input).
// Not sent: RegisterGraph requests with huge Const values and PutTensor
// chunks of huge tensors (see WouldExhaustMemory): a worker allocates them
// when the machine has the memory, which is slow under ASan.
//
// Build: cmake -DFLOWVM_BUILD_FUZZ=ON with clang (see fuzz/CMakeLists.txt).
// Run:   service_fuzzer CORPUS_COPY_DIR (seeds: fuzz/service_corpus/).
// Seeds: SERVICE_FUZZER_WRITE_SEEDS=DIR service_fuzzer writes them and exits.
// SERVICE_FUZZER_VERBOSE=1 prints each call's method and status.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/text_format.h>

#include "core/path_policy.h"
#include "core/thread_pool.h"
#include "distributed/call_threads.h"
#include "distributed/client_terminated.h"
#include "distributed/grpc_master_service.h"
#include "distributed/grpc_service.h"
#include "distributed/transport_security.h"
#include "distributed/grpc_util.h"
#include "distributed/grpc_worker_service.h"
#include "distributed/master.h"
#include "distributed/wire.h"
#include "distributed/worker.h"
#include "distributed/worker_cache.h"
#include "flowvm/cluster.h"
#include "flowvm/master.pb.h"
#include "kernels/framework/rendezvous.h"
#include "runtime/device.h"

namespace flowvm {
namespace {

// How long a reply may take before the harness aborts the worker's steps
// (a request that waits for a tensor nobody sends waits until then).
constexpr auto kAbortAfter = std::chrono::milliseconds(250);
// After that, a reply that does not come is a hang (libFuzzer's -timeout
// in scripts/test.sh is 30 s).
constexpr auto kHangAfter = std::chrono::seconds(20);
// RecvTensor serves tensors above this many bytes in chunks, so that small
// inputs reach the chunked path.
constexpr uint64_t kChunkBytes = 64;
// ChunkedTensor allocates a numeric tensor as its first chunk claims: the
// direct reads below try it only for claims this small (a peer may
// legitimately announce gigabytes; libFuzzer would report the malloc).
constexpr uint64_t kMaxChunkedBytes = uint64_t{1} << 20;

constexpr char kTask[] = "/job:worker/replica:0/task:0";
constexpr char kDevice[] = "/job:worker/replica:0/task:0/device:CPU:0";

const char* const kMethods[] = {
    method::kGetStatus,     method::kRegisterGraph, method::kDeregisterGraph, method::kRunGraph,
    method::kRecvTensor,    method::kCleanupGraph,  method::kAbortStep,       method::kShutdown,
    method::kResetContainers, method::kCreateSession, method::kExtendSession, method::kRunStep,
    method::kCloseSession,  method::kListDevices,   method::kReset,           method::kShutdownCluster};
enum Call {
  kRunStepInSession = 16,
  kExtendInSession,
  kRunGraphOfPartition,
  kRecvTensorOfTask,
  kPutTensorCall,
  kNumCalls
};
static_assert(std::size(kMethods) == kRunStepInSession, "calls 0-15 are the methods");

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "service_fuzzer: invariant violated: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

constexpr char kSessionGraph[] = R"pb(
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "s" op: "Placeholder" attr { key: "dtype" value { type: DT_STRING } } }
  node {
    name: "c" op: "Const"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 1 float_val: 2 } } }
  }
  node { name: "y" op: "Add" input: "x" input: "c" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "z" op: "Identity" input: "s" attr { key: "T" value { type: DT_STRING } } }
  node {
    name: "v" op: "VariableV2"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: 2 } } } }
  }
  node { name: "init" op: "Assign" input: "v" input: "c" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "r" op: "Identity" input: "v" attr { key: "T" value { type: DT_FLOAT } } }
)pb";

// y = x + c with x fed and y fetched, as the master would register it
// before MakeClientTerminated.
constexpr char kPartition[] = R"pb(
  node { name: "x" op: "_Arg" attr { key: "T" value { type: DT_FLOAT } } attr { key: "index" value { i: 0 } } }
  node {
    name: "c" op: "Const"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 1 float_val: 2 } } }
  }
  node { name: "y" op: "Add" input: "x" input: "c" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "y_ret" op: "_Retval" input: "y" attr { key: "T" value { type: DT_FLOAT } } attr { key: "index" value { i: 0 } } }
)pb";

GraphDef ParseText(const char* text, const std::string& device) {
  GraphDef g;
  if (!google::protobuf::TextFormat::ParseFromString(text, &g)) Fail("the harness's own graph does not parse");
  for (NodeDef& n : *g.mutable_node()) n.set_device(device);
  return g;
}

grpc::ByteBuffer Sliced(const std::string& bytes, int cut) {
  std::vector<grpc::Slice> slices;
  const size_t step = cut == 0 ? bytes.size() : size_t{1} << (cut - 1);
  for (size_t at = 0; at < bytes.size(); at += step)
    slices.emplace_back(bytes.data() + at, std::min(step, bytes.size() - at));
  return grpc::ByteBuffer(slices.data(), slices.size());
}

std::string Flatten(const grpc::ByteBuffer& b) {
  std::vector<grpc::Slice> slices;
  std::string out;
  if (!b.Valid() || !b.Dump(&slices).ok()) return out;
  for (const grpc::Slice& s : slices) out.append(reinterpret_cast<const char*>(s.begin()), s.size());
  return out;
}

// `header` as an envelope, followed by `payload` as it is.
std::string Envelope(const google::protobuf::Message& header, const std::string& payload = "") {
  WirePayload p;
  return Flatten(p.Seal(header)) + payload;
}

// If `bytes` is an envelope of a `Msg`, lets `patch` change its header and
// puts it back together with the payload untouched.
template <class Msg>
std::string Patched(const std::string& bytes, const std::function<void(Msg*)>& patch) {
  WireReader reader;
  Msg header;
  if (!reader.Open(Sliced(bytes, 0), &header).ok()) return bytes;
  std::string payload(reader.remaining(), '\0');
  if (!reader.ReadBytes(payload.data(), payload.size()).ok()) return bytes;
  patch(&header);
  return Envelope(header, payload);
}

// The rendezvous key with its incarnation field (the second) replaced.
std::string WithIncarnation(const std::string& key, uint64_t incarnation) {
  const size_t a = key.find(';');
  if (a == std::string::npos) return key;
  const size_t b = key.find(';', a + 1);
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%llx", static_cast<unsigned long long>(incarnation));
  return key.substr(0, a + 1) + hex + (b == std::string::npos ? "" : key.substr(b));
}

// Reads every tensor `metas` announce from `reader`.
Status ReadAll(WireReader* reader, const google::protobuf::RepeatedPtrField<NamedTensorMeta>& metas) {
  for (const NamedTensorMeta& m : metas) {
    Tensor t;
    FLOWVM_RETURN_IF_ERROR(reader->ReadTensor(m.meta(), m.name(), &t));
  }
  return Status::OK();
}

// A RecvTensor response: a whole tensor, or a first chunk (read into a
// ChunkedTensor when its claimed size is small).
Status ReadRecvResponse(const grpc::ByteBuffer& b) {
  WireReader reader;
  RecvTensorResponse response;
  FLOWVM_RETURN_IF_ERROR(reader.Open(b, &response));
  const TensorMeta& meta = response.meta();
  Tensor t;
  if (meta.total_byte_size() <= meta.byte_size()) return reader.ReadTensor(meta, "recv", &t);
  if (meta.total_byte_size() > kMaxChunkedBytes) return Status::OK();
  ChunkedTensor chunked;
  FLOWVM_RETURN_IF_ERROR(chunked.Start(meta, "recv"));
  FLOWVM_RETURN_IF_ERROR(chunked.Add(meta, response.offset(), &reader, "recv"));
  return chunked.complete() ? chunked.Finish(&t) : Status::OK();
}

// Checks that a successful reply of `method` is a well-formed envelope.
Status CheckResponse(const std::string& method, const grpc::ByteBuffer& b) {
  WireReader reader;
  auto header_only = [&](google::protobuf::Message* m) -> Status {
    FLOWVM_RETURN_IF_ERROR(reader.Open(b, m));
    if (reader.remaining() != 0) return errors::Internal(reader.remaining(), " bytes after the header");
    return Status::OK();
  };
  if (method == method::kRunGraph) {
    RunGraphResponse r;
    FLOWVM_RETURN_IF_ERROR(reader.Open(b, &r));
    return ReadAll(&reader, r.recv());
  }
  if (method == method::kRunStep) {
    RunStepResponse r;
    FLOWVM_RETURN_IF_ERROR(reader.Open(b, &r));
    return ReadAll(&reader, r.fetch());
  }
  if (method == method::kRecvTensor) return ReadRecvResponse(b);
  if (method == method::kGetStatus) {
    GetStatusResponse r;
    FLOWVM_RETURN_IF_ERROR(header_only(&r));
    if (r.task() != kTask) return errors::Internal("GetStatus answers as '", r.task(), "'");
    return Status::OK();
  }
  if (method == method::kRegisterGraph) {
    RegisterGraphResponse r;
    FLOWVM_RETURN_IF_ERROR(header_only(&r));
    if (r.graph_handle().empty()) return errors::Internal("RegisterGraph gave no handle");
    return Status::OK();
  }
  if (method == method::kCreateSession) {
    CreateSessionResponse r;
    FLOWVM_RETURN_IF_ERROR(header_only(&r));
    if (r.session_handle().empty()) return errors::Internal("CreateSession gave no handle");
    return Status::OK();
  }
  if (method == method::kListDevices) {
    ListDevicesResponse r;
    return header_only(&r);
  }
  if (method == method::kShutdownCluster) {
    ShutdownClusterResponse r;
    return header_only(&r);
  }
  // The rest answer with empty messages.
  GetStatusRequest empty;
  return header_only(&empty);
}

// Where fuzzed graphs may touch files (WriteFile, SaveV2, ...), as a
// server's --allow-dir: one scratch directory for the whole run, so that
// an input never writes elsewhere.
// Removed when the fuzzer exits.
std::string g_scratch_dir;

std::shared_ptr<const PathPolicy> ScratchPolicy() {
  static const std::shared_ptr<const PathPolicy> policy = [] {
    char dir[] = "/tmp/flowvm_service_fuzzer_XXXXXX";
    if (::mkdtemp(dir) == nullptr) Fail("cannot make a scratch directory in /tmp");
    g_scratch_dir = dir;
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(g_scratch_dir, ec);
    });
    auto p = PathPolicy::Create({dir});
    if (!p.ok()) Fail("scratch directory: " + p.status().ToString());
    return *p;
  }();
  return policy;
}

// One task of a one-task cluster, as server.cc builds it (never listening).
class Task {
 public:
  Task() {
    auto cluster = ClusterSpec::FromJson(R"({"worker": ["localhost:1"]})");
    if (!cluster.ok()) Fail("cluster: " + cluster.status().ToString());
    pool_ = std::make_unique<ThreadPool>("fuzz", 2);
    auto devices = DeviceMgr::NewCpuDevices(1, pool_.get(), "worker", 0, ScratchPolicy());
    if (!devices.ok()) Fail("devices: " + devices.status().ToString());
    devices_ = std::move(*devices);
    WorkerEnv env;
    env.task = kTask;
    env.devices = devices_.get();
    env.pool = pool_.get();
    env.worker_for = [this](const std::string& task) { return cache_->Get(task); };
    env.on_shutdown = [](const std::string&) {};  // a server would stop; this task is gone after the input anyway
    worker_ = std::make_unique<Worker>(std::move(env));
    cache_ = std::make_unique<WorkerCache>(*cluster, kTask, worker_.get(), TransportSecurity::Insecure());
    master_ = std::make_unique<Master>(cache_.get(), GraphLimits());
    threads_ = std::make_unique<CallThreads>();
    RegisterWorkerMethods(worker_.get(), kChunkBytes, &dispatcher_);
    RegisterMasterMethods(master_.get(), worker_.get(), kChunkBytes, threads_.get(), [] {}, &dispatcher_);
  }

  // As GrpcServer::Stop, then destruction in server.cc's member order.
  ~Task() {
    const Status why = errors::Unavailable("task ", kTask, " is shutting down (end of the fuzz input)");
    master_->CloseAll();
    worker_->AbortAll(why);
    worker_->StopAndWait(why);
    threads_.reset();  // waits for the master calls still running
    master_.reset();
    cache_.reset();
    worker_.reset();
    devices_.reset();
    pool_.reset();
  }

  uint64_t incarnation() const { return devices_->devices()[0]->incarnation(); }

  // Calls `method` with `request`; the reply's status (and the response in
  // *response). Aborts the worker's steps if the reply is slow, and fails
  // if it never comes or comes twice.
  grpc::Status Call(const std::string& method, const grpc::ByteBuffer& request, grpc::ByteBuffer* response) {
    const GrpcDispatcher::Handler* handler = dispatcher_.Find(method);
    if (handler == nullptr) Fail("no handler for " + method);
    struct Reply {
      std::mutex mu;
      std::condition_variable cv;
      int calls = 0;
      grpc::Status status;
      grpc::ByteBuffer response;
    };
    // Shared with the handler, which may still hold it after a reply.
    auto reply = std::make_shared<Reply>();
    (*handler)(request, &reply->response, [reply, method](const grpc::Status& s) {
      std::lock_guard<std::mutex> lock(reply->mu);
      if (++reply->calls > 1) Fail(method + " replied twice");
      reply->status = s;
      reply->cv.notify_all();
    });
    std::unique_lock<std::mutex> lock(reply->mu);
    if (!reply->cv.wait_for(lock, kAbortAfter, [&] { return reply->calls > 0; })) {
      lock.unlock();
      worker_->AbortAll(errors::Cancelled("the fuzz harness aborted a waiting call"));
      lock.lock();
      if (!reply->cv.wait_for(lock, kHangAfter, [&] { return reply->calls > 0; }))
        Fail(method + " never replied, even after every step was aborted");
    }
    *response = reply->response;
    return reply->status;
  }

  // Calls a method the harness needs to succeed.
  template <class Resp>
  Resp MustCall(const std::string& method, const google::protobuf::Message& request) {
    grpc::ByteBuffer out;
    grpc::Status s = Call(method, Sliced(Envelope(request), 0), &out);
    if (!s.ok()) Fail("setting up: " + method + ": " + s.error_message());
    Resp response;
    WireReader reader;
    if (!reader.Open(out, &response).ok()) Fail("setting up: " + method + ": bad response");
    return response;
  }

  std::string NewSession() {
    CreateSessionRequest request;
    *request.mutable_graph_def() = ParseText(kSessionGraph, "");
    request.mutable_options()->set_connect_timeout_ms(5000);
    return MustCall<CreateSessionResponse>(method::kCreateSession, request).session_handle();
  }

  std::string RegisterPartition() {
    RegisterGraphRequest request;
    request.set_session_handle("fuzz");
    *request.mutable_graph_def() = ParseText(kPartition, kDevice);
    ClientKeys keys;
    Status s = MakeClientTerminated(kDevice, incarnation(), {"x:0"}, {"y:0"}, request.mutable_graph_def(), &keys);
    if (!s.ok()) Fail("setting up: " + s.ToString());
    return MustCall<RegisterGraphResponse>(method::kRegisterGraph, request).graph_handle();
  }

 private:
  std::unique_ptr<ThreadPool> pool_;
  std::unique_ptr<DeviceMgr> devices_;
  std::unique_ptr<Worker> worker_;
  std::unique_ptr<WorkerCache> cache_;
  std::unique_ptr<Master> master_;
  std::unique_ptr<CallThreads> threads_;
  GrpcDispatcher dispatcher_;
};

// The input's request for `call`, with what it cannot guess filled in.
std::string Prepare(int call, const std::string& bytes, Task* task, std::string* method) {
  switch (call) {
    case kRunStepInSession: {
      *method = method::kRunStep;
      const std::string handle = task->NewSession();
      return Patched<RunStepRequest>(bytes, [&](RunStepRequest* r) { r->set_session_handle(handle); });
    }
    case kExtendInSession: {
      *method = method::kExtendSession;
      const std::string handle = task->NewSession();
      return Patched<ExtendSessionRequest>(bytes, [&](ExtendSessionRequest* r) { r->set_session_handle(handle); });
    }
    case kRunGraphOfPartition: {
      *method = method::kRunGraph;
      const std::string handle = task->RegisterPartition();
      const uint64_t incarnation = task->incarnation();
      return Patched<RunGraphRequest>(bytes, [&](RunGraphRequest* r) {
        r->set_graph_handle(handle);
        for (NamedTensorMeta& m : *r->mutable_send()) m.set_name(WithIncarnation(m.name(), incarnation));
        for (std::string& key : *r->mutable_recv_key()) key = WithIncarnation(key, incarnation);
      });
    }
    case kRecvTensorOfTask: {
      *method = method::kRecvTensor;
      const uint64_t incarnation = task->incarnation();
      return Patched<RecvTensorRequest>(bytes, [&](RecvTensorRequest* r) {
        r->set_rendezvous_key(WithIncarnation(r->rendezvous_key(), incarnation));
      });
    }
    case kPutTensorCall:
      *method = method::kPutTensor;
      return bytes;
    default:
      *method = kMethods[call];
      return bytes;
  }
}

// The bytes read as envelopes directly, whatever method they went to.
void ReadDirectly(const grpc::ByteBuffer& message) {
  {
    WireReader reader;
    RunGraphRequest r;
    if (reader.Open(message, &r).ok()) ReadAll(&reader, r.send()).IgnoreError();
  }
  {
    WireReader reader;
    RunStepRequest r;
    if (reader.Open(message, &r).ok()) ReadAll(&reader, r.feed()).IgnoreError();
  }
  ReadRecvResponse(message).IgnoreError();
}

// A known problem, not this fuzzer's to find again: a Const's kernel, made
// at RegisterGraph, expands its value's last float_val (string_val, ...) to
// the whole shape, so a request of a few dozen bytes makes the worker
// allocate gigabytes (libFuzzer reports the malloc). Such requests are not
// sent.
constexpr int64_t kMaxTensorAttrElements = int64_t{1} << 20;

bool HasHugeTensorAttr(const google::protobuf::Map<std::string, AttrValue>& attrs) {
  auto huge = [](const TensorProto& t) {
    auto shape = TensorShape::FromProto(t.tensor_shape());
    return shape.ok() && shape->num_elements() > kMaxTensorAttrElements;
  };
  for (const auto& [name, v] : attrs) {
    if (v.has_tensor() && huge(v.tensor())) return true;
    for (const TensorProto& t : v.list().tensor())
      if (huge(t)) return true;
  }
  return false;
}

bool WouldExhaustMemory(const std::string& method, const grpc::ByteBuffer& request) {
  if (method == method::kPutTensor) {
    // The claimed size is allocated on the first chunk (up to the memory
    // the machine has left): under ASan, whose shadow is written for it.
    WireReader reader;
    PutTensorRequest r;
    return reader.Open(request, &r).ok() && r.meta().total_byte_size() > kMaxChunkedBytes;
  }
  if (method != method::kRegisterGraph) return false;
  WireReader reader;
  RegisterGraphRequest r;
  if (!reader.Open(request, &r).ok()) return false;
  for (const NodeDef& n : r.graph_def().node())
    if (HasHugeTensorAttr(n.attr())) return true;
  for (const FunctionDef& f : r.graph_def().library().function())
    for (const NodeDef& n : f.node_def())
      if (HasHugeTensorAttr(n.attr())) return true;
  return false;
}

// ---- seeds ----------------------------------------------------------------

Tensor Floats(std::vector<float> v) { return Tensor::FromVector<float>(v); }

NamedTensorMeta* Feed(google::protobuf::RepeatedPtrField<NamedTensorMeta>* metas, WirePayload* payload,
                      const std::string& name, const Tensor& t) {
  NamedTensorMeta* m = metas->Add();
  m->set_name(name);
  payload->AddTensor(t, false, false, m->mutable_meta());
  return m;
}

// One valid-looking request per call, for the corpus.
void WriteSeeds(const std::string& dir) {
  std::vector<std::pair<int, std::string>> seeds;
  const std::string key_x = Rendezvous::Key(Rendezvous::KeyPrefix(kDevice, 1, kDevice, "_feed:0:x:0"), 0, 0);
  const std::string key_y = Rendezvous::Key(Rendezvous::KeyPrefix(kDevice, 1, kDevice, "_fetch:0:y:0"), 0, 0);
  auto add = [&](int call, const google::protobuf::Message& m) { seeds.emplace_back(call, Envelope(m)); };
  add(0, GetStatusRequest());
  {
    RegisterGraphRequest r;
    *r.mutable_graph_def() = ParseText(kSessionGraph, kDevice);
    add(1, r);
  }
  {
    DeregisterGraphRequest r;
    r.set_graph_handle("0123456789abcdef/1");
    add(2, r);
  }
  {
    auto run_graph = [&](int64_t timeout_ms) {
      RunGraphRequest r;
      WirePayload p;
      r.set_graph_handle("0123456789abcdef/1");
      r.set_step_id(7);
      r.set_timeout_in_ms(timeout_ms);
      Feed(r.mutable_send(), &p, key_x, Floats({1, 2}));
      r.add_recv_key(key_y);
      return Flatten(p.Seal(r));
    };
    seeds.emplace_back(3, run_graph(0));
    seeds.emplace_back(kRunGraphOfPartition, run_graph(0));
    // Timeouts of centuries once overflowed the deadlines.
    seeds.emplace_back(kRunGraphOfPartition, run_graph(int64_t{1} << 62));
    RunGraphRequest no_feed;
    no_feed.set_step_id(8);
    no_feed.add_recv_key(key_y);
    add(kRunGraphOfPartition, no_feed);
  }
  {
    RecvTensorRequest r;
    r.set_step_id(7);
    r.set_rendezvous_key(key_y);
    add(4, r);
    add(kRecvTensorOfTask, r);
    r.set_offset(64);
    add(kRecvTensorOfTask, r);
  }
  {
    // The first and the last chunk of a 4-float upload.
    const Tensor t = Floats({1, 2, 3, 4});
    for (uint64_t offset : {0, 8}) {
      PutTensorRequest r;
      r.set_step_id(9);
      r.set_key("feed:0");
      r.set_offset(offset);
      WirePayload p;
      p.AddTensorChunk(t, false, false, offset, 8, r.mutable_meta());
      seeds.emplace_back(kPutTensorCall, Flatten(p.Seal(r)));
    }
  }
  {
    CleanupGraphRequest r;
    r.add_step_id(7);
    r.add_step_id(-1);
    add(5, r);
  }
  {
    AbortStepRequest r;
    r.set_step_id(7);
    r.set_status_code(10);
    r.set_status_message("aborted");
    add(6, r);
  }
  {
    ShutdownRequest r;
    r.set_reason("fuzz");
    add(7, r);
  }
  {
    ResetContainersRequest r;
    r.add_container("");
    r.add_container("c");
    add(8, r);
  }
  {
    CreateSessionRequest r;
    *r.mutable_graph_def() = ParseText(kSessionGraph, "");
    r.mutable_options()->set_connect_timeout_ms(100);
    add(9, r);
    r.mutable_options()->add_device_filters("/job:worker");
    r.mutable_options()->set_compress_float_transfers(true);
    add(9, r);
    r.mutable_options()->set_connect_timeout_ms(std::numeric_limits<int64_t>::max());
    add(9, r);
  }
  {
    ExtendSessionRequest r;
    r.set_session_handle("0123456789abcdef");
    *r.mutable_graph_def() = ParseText(R"pb(node { name: "w" op: "Identity" input: "y" attr { key: "T" value { type: DT_FLOAT } } })pb", "");
    add(10, r);
    add(kExtendInSession, r);
  }
  {
    RunStepRequest r;
    WirePayload p;
    r.set_session_handle("0123456789abcdef");
    Feed(r.mutable_feed(), &p, "x", Floats({1, 2}));
    Feed(r.mutable_feed(), &p, "s:0", Tensor::FromVector<std::string>({"a", std::string("\0b", 2)}));
    r.add_fetch("y");
    r.add_fetch("z:0");
    r.add_target("init");
    seeds.emplace_back(11, Flatten(p.Seal(r)));
    seeds.emplace_back(kRunStepInSession, seeds.back().second);
    RunStepRequest read;
    read.add_fetch("r");
    read.mutable_options()->set_timeout_in_ms(1000);
    read.mutable_options()->set_trace_level(RunOptions::FULL_TRACE);
    add(kRunStepInSession, read);
    read.mutable_options()->set_timeout_in_ms(std::numeric_limits<int64_t>::max());
    add(kRunStepInSession, read);
  }
  {
    CloseSessionRequest r;
    r.set_session_handle("0123456789abcdef");
    add(12, r);
  }
  add(13, ListDevicesRequest());
  {
    ResetRequest r;
    r.add_container("");
    add(14, r);
  }
  add(15, ShutdownClusterRequest());

  int n = 0;
  for (const auto& [call, bytes] : seeds) {
    for (int cut : {0, 3}) {
      const std::string path = dir + "/seed_" + std::to_string(n++);
      std::ofstream(path, std::ios::binary) << static_cast<char>(call | (cut << 5)) << bytes;
    }
  }
  std::fprintf(stderr, "service_fuzzer: wrote %d seeds to %s\n", n, dir.c_str());
}

}  // namespace
}  // namespace flowvm

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  // Binary parsing logs every invalid UTF-8 string field: noise.
  google::protobuf::SetLogHandler(nullptr);
  if (const char* dir = std::getenv("SERVICE_FUZZER_WRITE_SEEDS")) {
    flowvm::WriteSeeds(dir);
    std::exit(0);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace flowvm;  // NOLINT
  if (size == 0) return 0;
  const int call = (data[0] & 0x1f) % kNumCalls;
  const int cut = data[0] >> 5;
  const std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  ReadDirectly(Sliced(bytes, cut));

  Task task;
  std::string method;
  const std::string request = Prepare(call, bytes, &task, &method);
  const grpc::ByteBuffer message = Sliced(request, cut);
  if (WouldExhaustMemory(method, message)) return 0;
  // The token check every call of a server with a token passes first: the
  // right token, none, or bytes of the input. Only the right one gets in,
  // and a refusal never quotes the token.
  static const std::shared_ptr<const TransportSecurity> security = [] {
    ClusterCredentials c;
    c.token = "fuzz-cluster-token-0123456789";
    auto s = TransportSecurity::Create(c);
    if (!s.ok()) Fail("security: " + s.status().ToString());
    return *s;
  }();
  const int token_kind = data[size - 1] % 4;
  const std::string right = "fuzz-cluster-token-0123456789";
  const std::string guess = bytes.substr(0, std::min<size_t>(bytes.size(), right.size()));
  const std::string* presented = token_kind == 0 ? nullptr : token_kind == 1 ? &guess : &right;
  const grpc::Status allowed = security->CheckToken(presented, method, "fuzzer", kTask);
  if (allowed.ok() != (presented != nullptr && *presented == right)) Fail("the token check let the wrong call in");
  if (!allowed.ok()) {
    if (allowed.error_code() != grpc::StatusCode::PERMISSION_DENIED ||
        allowed.error_message().find(right) != std::string::npos)
      Fail("a refused call was not PermissionDenied, or quoted the token");
    return 0;
  }
  grpc::ByteBuffer response;
  const grpc::Status status = task.Call(method, message, &response);
  static const bool verbose = std::getenv("SERVICE_FUZZER_VERBOSE") != nullptr;
  if (verbose)
    std::fprintf(stderr, "service_fuzzer: call %d %s: %d %s\n", call, method.c_str(),
                 static_cast<int>(status.error_code()), status.error_message().c_str());
  if (status.ok()) {
    Status s = CheckResponse(method, response);
    if (!s.ok()) Fail(method + " answered OK with a malformed response: " + s.ToString());
  }
  return 0;
}

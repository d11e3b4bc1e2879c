// The "grpc://host:port" session target: a Session whose graph lives in the
// master of the task at host:port, which runs it over the whole cluster.
// Feeds and fetches travel as raw tensor bytes (distributed/wire.h); those
// beyond one message's worth beside the RunStep call, in chunks, through
// the worker service of the master's server (grpc_master_service.h).
#include <grpcpp/generic/generic_stub.h>

#include <mutex>
#include <random>

#include "distributed/grpc_remote_worker.h"
#include "distributed/grpc_util.h"
#include "distributed/wire.h"
#include "distributed/worker_interface.h"
#include "graph/function_library.h"
#include "flowvm/master.pb.h"
#include "flowvm/session.h"
#include "runtime/session_factory.h"

namespace flowvm {

namespace {

constexpr char kScheme[] = "grpc://";
// protobuf's limit on one message, less room for the request around it.
constexpr size_t kMaxGraphBytes = (size_t{1} << 31) - (size_t{1} << 20);
constexpr auto kControlTimeout = std::chrono::seconds(60);
// A step without a deadline still has one on its RPC; a master that dies
// is found much sooner by keepalive pings.
constexpr auto kStepTimeout = std::chrono::hours(24 * 7);

class GrpcSession : public Session {
 public:
  GrpcSession(const SessionOptions& options, std::string address, std::shared_ptr<const TransportSecurity> security,
              GraphDef graph)
      : options_(options),
        address_(std::move(address)),
        peer_("the master at grpc://" + address_),
        security_(std::move(security)),
        channel_(NewChannel(address_, *security_)),
        stub_(channel_),
        graph_(std::move(graph)) {}

  ~GrpcSession() override { Close().IgnoreError(); }

  Status Connect() {
    FLOWVM_RETURN_IF_ERROR(CheckGraphSize(graph_, "the session's graph"));
    CreateSessionRequest request;
    *request.mutable_graph_def() = graph_;
    MasterSessionOptions* o = request.mutable_options();
    o->set_allow_soft_placement(options_.allow_soft_placement);
    for (const std::string& f : options_.device_filters) o->add_device_filters(f);
    o->set_connect_timeout_ms(options_.connect_timeout_ms);
    o->set_health_check_interval_ms(options_.health_check_interval_ms);
    o->set_health_check_timeout_ms(options_.health_check_timeout_ms);
    o->set_schedule_recvs(options_.schedule_recvs);
    o->set_disable_common_subexpression_elimination(!options_.optimizer.common_subexpression_elimination);
    o->set_disable_constant_folding(!options_.optimizer.constant_folding);
    o->set_disable_identity_removal(!options_.optimizer.remove_identity_chains);
    o->set_compress_float_transfers(options_.compress_float_transfers);
    o->set_max_step_memory_bytes(options_.max_step_memory_bytes);
    for (const std::string& t : options_.compressed_tensors)
      o->add_compressed_tensors(t.find(':') == std::string::npos ? t + ":0" : t);
    CreateSessionResponse response;
    WirePayload payload;
    WireReader reader;
    // The master may be starting: wait for it up to the connect timeout;
    // then it waits as long for the rest of the cluster, and we a little
    // longer than that.
    const auto connect = std::chrono::milliseconds(ClampTimeoutMs(std::max<int64_t>(options_.connect_timeout_ms, 1)));
    if (!channel_->WaitForConnected(std::chrono::system_clock::now() + connect))
      return errors::Unavailable(peer_, " did not answer within ", connect.count(),
                                 " ms (is a flowvm server running there? If it uses TLS, give its CA and your "
                                 "certificate: --tls-ca/--tls-cert/--tls-key or FLOWVM_TLS_CA/_CERT/_KEY)");
    FLOWVM_RETURN_IF_ERROR(
        Call(method::kCreateSession, request, &payload, &response, &reader, connect + std::chrono::seconds(10)));
    handle_ = response.session_handle();
    if (response.max_message_tensor_bytes() > 0) max_message_bytes_ = response.max_message_tensor_bytes();
    return Status::OK();
  }

  Status Extend(const GraphDef& graph) override {
    FLOWVM_RETURN_IF_ERROR(CheckOpen("Extend"));
    FLOWVM_RETURN_IF_ERROR(CheckGraphSize(graph, "the graph given to Extend"));
    ExtendSessionRequest request;
    request.set_session_handle(handle_);
    *request.mutable_graph_def() = graph;
    ExtendSessionResponse response;
    WirePayload payload;
    WireReader reader;
    FLOWVM_RETURN_IF_ERROR(Call(method::kExtendSession, request, &payload, &response, &reader, kControlTimeout));
    std::lock_guard<std::mutex> lock(mu_);
    return ExtendGraphDef(graph, &graph_);
  }

  using Session::Run;
  Status Run(const RunOptions& run_options, const std::vector<std::pair<std::string, Tensor>>& feeds,
             const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
             std::vector<Tensor>* outputs, RunMetadata* metadata, RunStats* stats) override {
    FLOWVM_RETURN_IF_ERROR(CheckOpen("Run"));
    std::vector<Tensor> unused;
    if (outputs == nullptr) {
      if (!fetches.empty()) return errors::InvalidArgument("Run: ", fetches.size(), " fetches but no output vector");
      outputs = &unused;
    }
    RunStepRequest request;
    request.set_session_handle(handle_);
    *request.mutable_options() = run_options;
    const int64_t timeout_ms = ClampTimeoutMs(run_options.timeout_in_ms());
    const auto timeout = timeout_ms > 0
                             ? std::chrono::duration_cast<std::chrono::milliseconds>(
                                   std::chrono::milliseconds(timeout_ms) + std::chrono::seconds(15))
                             : std::chrono::duration_cast<std::chrono::milliseconds>(kStepTimeout);
    std::vector<Tensor> feed_tensors;
    for (const auto& [name, t] : feeds) {
      if (!t.IsInitialized()) return errors::InvalidArgument("feed '", name, "' was given an uninitialized tensor");
      feed_tensors.push_back(t);
    }
    // Feeds beyond one message's worth go first, in chunks.
    const std::vector<bool> fits = FitInMessage(feed_tensors, max_message_bytes_);
    int64_t out_of_band_bytes = 0;
    WirePayload payload;
    for (size_t i = 0; i < feeds.size(); ++i) {
      NamedTensorMeta* m = request.add_feed();
      m->set_name(feeds[i].first);
      if (fits[i]) {
        payload.AddTensor(feed_tensors[i], false, false, m->mutable_meta());
        continue;
      }
      if (request.upload_id() == 0) request.set_upload_id(NewUploadId());
      CallOptions opts(timeout);
      CallWaiter waiter;
      Transfers()->PutTensorAsync(&opts, request.upload_id(), ClientTensorKey("feed", static_cast<int>(i)),
                                  feed_tensors[i], waiter.Callback());
      Status s = waiter.Wait();
      if (!s.ok()) return s.WithContext("sending feed '" + feeds[i].first + "'");
      m->mutable_meta()->set_out_of_band(true);
      out_of_band_bytes += static_cast<int64_t>(EncodedSize(feed_tensors[i], false));
    }
    for (const std::string& f : fetches) request.add_fetch(f);
    for (const std::string& t : targets) request.add_target(t);
    RunStepResponse response;
    WireReader reader;
    FLOWVM_RETURN_IF_ERROR(Call(method::kRunStep, request, &payload, &response, &reader, timeout));
    if (response.fetch_size() != static_cast<int>(fetches.size()))
      return errors::Internal(peer_, " returned ", response.fetch_size(), " fetches for ", fetches.size());
    outputs->clear();
    for (int i = 0; i < response.fetch_size(); ++i) {
      const NamedTensorMeta& m = response.fetch(i);
      Tensor t;
      if (m.meta().out_of_band()) {
        // Beyond one message's worth: it waits on the master's server.
        RecvTensorCall call;
        call.request.set_step_id(response.stats().step_id());
        call.request.set_rendezvous_key(ClientTensorKey("fetch", i));
        CallOptions opts(timeout);
        CallWaiter waiter;
        Transfers()->RecvTensorAsync(&opts, &call, waiter.Callback());
        Status s = waiter.Wait();
        if (!s.ok()) return s.WithContext("receiving fetch '" + m.name() + "'");
        t = std::move(call.tensor);
        out_of_band_bytes += static_cast<int64_t>(EncodedSize(t, false));
      } else {
        FLOWVM_RETURN_IF_ERROR(reader.ReadTensor(m.meta(), "fetch '" + m.name() + "'", &t));
      }
      outputs->push_back(std::move(t));
    }
    if (metadata != nullptr) *metadata = response.metadata();
    if (stats != nullptr) {
      const RunStepStats& s = response.stats();
      stats->step_id = s.step_id();
      stats->cache_hit = s.cache_hit();
      stats->graph_nodes = s.graph_nodes();
      stats->executed_nodes = s.executed_nodes();
      stats->pruned.assign(s.pruned().begin(), s.pruned().end());
      stats->partitions = s.partitions();
      stats->prepare_ms = s.prepare_ms();
      stats->run_ms = s.run_ms();
      stats->out_of_band_bytes = s.out_of_band_bytes() + out_of_band_bytes;
      stats->optimizations.assign(s.optimizations().begin(), s.optimizations().end());
      stats->placement.assign(s.placement().begin(), s.placement().end());
      stats->transfers.assign(s.transfers().begin(), s.transfers().end());
      stats->scheduled_recvs.assign(s.scheduled_recvs().begin(), s.scheduled_recvs().end());
    }
    return Status::OK();
  }

  Status ListDevices(std::vector<DeviceInfo>* devices) override {
    FLOWVM_RETURN_IF_ERROR(CheckOpen("ListDevices"));
    ListDevicesRequest request;
    request.set_session_handle(handle_);
    ListDevicesResponse response;
    WirePayload payload;
    WireReader reader;
    FLOWVM_RETURN_IF_ERROR(Call(method::kListDevices, request, &payload, &response, &reader, kControlTimeout));
    devices->clear();
    for (const DeviceAttributes& d : response.device()) {
      DeviceInfo info;
      info.name = d.name();
      info.type = d.device_type();
      info.incarnation = d.incarnation();
      info.memory.bytes_in_use = d.bytes_in_use();
      info.memory.peak_bytes_in_use = d.peak_bytes_in_use();
      devices->push_back(std::move(info));
    }
    return Status::OK();
  }

  Status ResetContainers(const std::vector<std::string>& containers) override {
    FLOWVM_RETURN_IF_ERROR(CheckOpen("ResetContainers"));
    ResetRequest request;
    request.set_session_handle(handle_);
    for (const std::string& c : containers) request.add_container(c);
    ResetResponse response;
    WirePayload payload;
    WireReader reader;
    return Call(method::kReset, request, &payload, &response, &reader, kControlTimeout);
  }

  Status Close() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (closed_ || handle_.empty()) {
        closed_ = true;
        return Status::OK();
      }
      closed_ = true;
    }
    CloseSessionRequest request;
    request.set_session_handle(handle_);
    CloseSessionResponse response;
    WirePayload payload;
    WireReader reader;
    return Call(method::kCloseSession, request, &payload, &response, &reader, std::chrono::seconds(30));
  }

  GraphDef graph_def() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return graph_;
  }

 private:
  // A graph travels as one protobuf, which cannot exceed 2 GiB.
  static Status CheckGraphSize(const GraphDef& graph, const char* what) {
    const size_t bytes = graph.ByteSizeLong();
    if (bytes <= kMaxGraphBytes) return Status::OK();
    return errors::InvalidArgument(what, " is ", bytes, " bytes as a GraphDef, more than the ", kMaxGraphBytes,
                                   " a protobuf can hold: keep large constants in variables and feed or restore "
                                   "their values (feeds have no size limit)");
  }

  Status CheckOpen(const char* what) {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return errors::FailedPrecondition(what, " on a closed session");
    return Status::OK();
  }

  // One blocking call to the master, with a deadline. The calling thread
  // polls a completion queue of its own for the response, as gRPC's
  // synchronous stubs do: the response wakes this thread directly, not a
  // gRPC thread that would then have to wake it.
  Status Call(const char* method, const google::protobuf::Message& request, WirePayload* payload,
              google::protobuf::Message* response, WireReader* reader, std::chrono::milliseconds timeout) {
    grpc::ByteBuffer response_bytes;
    const grpc::Status result =
        BlockingCall(&stub_, method, payload->Seal(request), &response_bytes, timeout, *security_);
    FLOWVM_RETURN_IF_ERROR(FromGrpcStatus(result, peer_));
    return reader->Open(response_bytes, response);
  }

  // The worker service of the master's server, for tensors that travel
  // beside a step's messages.
  GrpcRemoteWorker* Transfers() {
    std::lock_guard<std::mutex> lock(mu_);
    if (transfers_ == nullptr)
      transfers_ = std::make_unique<GrpcRemoteWorker>(channel_, peer_, security_, max_message_bytes_);
    return transfers_.get();
  }

  static int64_t NewUploadId() {
    thread_local std::mt19937_64 rng(std::random_device{}());
    int64_t id = 0;
    while (id == 0) id = static_cast<int64_t>(rng() >> 1);
    return id;
  }

  const SessionOptions options_;
  const std::string address_;
  const std::string peer_;
  const std::shared_ptr<const TransportSecurity> security_;
  std::shared_ptr<grpc::Channel> channel_;
  grpc::GenericStub stub_;
  std::string handle_;
  mutable std::mutex mu_;
  GraphDef graph_;
  bool closed_ = false;
  uint64_t max_message_bytes_ = kDefaultChunkBytes;
  std::unique_ptr<GrpcRemoteWorker> transfers_;
};

class GrpcSessionFactory : public SessionFactory {
 public:
  bool AcceptsTarget(const std::string& target) const override { return target.rfind(kScheme, 0) == 0; }

  StatusOr<std::unique_ptr<Session>> NewSession(const SessionOptions& options, const GraphDef& graph) override {
    const std::string address = options.target.substr(sizeof(kScheme) - 1);
    if (address.empty() || address.find(':') == std::string::npos)
      return errors::InvalidArgument("session target '", options.target, "' is not grpc://host:port");
    // Credentials the options leave empty come from the environment
    // (FLOWVM_CLUSTER_TOKEN, FLOWVM_TLS_*), so every client of a secured
    // cluster works without code of its own.
    FLOWVM_ASSIGN_OR_RETURN(std::shared_ptr<const TransportSecurity> security,
                            TransportSecurity::Create(options.credentials));
    auto session = std::make_unique<GrpcSession>(options, address, std::move(security), graph);
    FLOWVM_RETURN_IF_ERROR(session->Connect());
    return std::unique_ptr<Session>(std::move(session));
  }
};

struct RegisterGrpcSession {
  RegisterGrpcSession() { SessionFactory::Register("grpc (grpc://host:port)", std::make_unique<GrpcSessionFactory>()); }
} register_grpc_session;

}  // namespace
}  // namespace flowvm

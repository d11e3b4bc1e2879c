#include "distributed/grpc_remote_worker.h"

#include <algorithm>

#include "distributed/grpc_util.h"
#include "distributed/wire.h"

namespace flowvm {

struct ChunkState {
  ChunkedTensor tensor;
  uint64_t next_offset = 0;
};

GrpcRemoteWorker::GrpcRemoteWorker(std::shared_ptr<grpc::Channel> channel, std::string peer,
                                   std::shared_ptr<const TransportSecurity> security, uint64_t max_message_bytes)
    : channel_(channel),
      stub_(channel),
      peer_(std::move(peer)),
      security_(std::move(security)),
      max_message_bytes_(std::max<uint64_t>(max_message_bytes, 2)) {}  // a chunk holds a bfloat16

GrpcRemoteWorker::~GrpcRemoteWorker() {
  std::unique_lock<std::mutex> lock(mu_);
  closing_ = true;
  for (grpc::ClientContext* c : in_flight_) c->TryCancel();
  idle_cv_.wait(lock, [this] { return in_flight_.empty(); });
}

void GrpcRemoteWorker::Call(CallOptions* opts, const char* method, grpc::ByteBuffer request,
                            std::function<void(const Status&, bool, const grpc::ByteBuffer&)> on_response) {
  struct State {
    grpc::ClientContext context;
    grpc::ByteBuffer request;
    grpc::ByteBuffer response;
  };
  auto* state = new State;
  state->request = std::move(request);
  state->context.set_deadline(std::chrono::system_clock::now() + kDefaultRpcTimeout);
  security_->Authorize(&state->context);
  if (opts != nullptr) {
    // CallOptions deadlines are steady-clock; gRPC takes system time.
    const auto left = opts->deadline() - CallOptions::Clock::now();
    state->context.set_deadline(std::chrono::system_clock::now() +
                                std::chrono::duration_cast<std::chrono::system_clock::duration>(left));
    grpc::ClientContext* context = &state->context;
    opts->SetCanceller([context] { context->TryCancel(); });
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    in_flight_.insert(&state->context);
  }
  stub_.UnaryCall(&state->context, method, grpc::StubOptions(), &state->request, &state->response,
                  [this, state, opts, on_response = std::move(on_response)](const grpc::Status& gs) {
                    if (opts != nullptr) opts->ClearCanceller();
                    bool peer_abort = false;
                    Status s = FromGrpcStatus(gs, peer_, &peer_abort,
                                              closing_ || (opts != nullptr && opts->cancelled()));
                    on_response(s, peer_abort, state->response);
                    std::lock_guard<std::mutex> lock(mu_);
                    in_flight_.erase(&state->context);
                    delete state;
                    if (in_flight_.empty()) idle_cv_.notify_all();
                  });
}

template <class Req, class Resp>
void GrpcRemoteWorker::Unary(CallOptions* opts, const char* method, const Req* request, Resp* response, Done done) {
  WirePayload payload;
  Call(opts, method, payload.Seal(*request),
       [response, done = std::move(done)](const Status& s, bool, const grpc::ByteBuffer& bytes) {
         if (!s.ok()) return done(s);
         WireReader reader;
         done(reader.Open(bytes, response));
       });
}

void GrpcRemoteWorker::GetStatusAsync(CallOptions* opts, const GetStatusRequest* request,
                                      GetStatusResponse* response, Done done) {
  Unary(opts, method::kGetStatus, request, response, std::move(done));
}
void GrpcRemoteWorker::RegisterGraphAsync(CallOptions* opts, const RegisterGraphRequest* request,
                                          RegisterGraphResponse* response, Done done) {
  Unary(opts, method::kRegisterGraph, request, response, std::move(done));
}
void GrpcRemoteWorker::DeregisterGraphAsync(CallOptions* opts, const DeregisterGraphRequest* request,
                                            DeregisterGraphResponse* response, Done done) {
  Unary(opts, method::kDeregisterGraph, request, response, std::move(done));
}
void GrpcRemoteWorker::CleanupGraphAsync(CallOptions* opts, const CleanupGraphRequest* request,
                                         CleanupGraphResponse* response, Done done) {
  Unary(opts, method::kCleanupGraph, request, response, std::move(done));
}
void GrpcRemoteWorker::AbortStepAsync(CallOptions* opts, const AbortStepRequest* request,
                                      AbortStepResponse* response, Done done) {
  Unary(opts, method::kAbortStep, request, response, std::move(done));
}
void GrpcRemoteWorker::ShutdownAsync(CallOptions* opts, const ShutdownRequest* request, ShutdownResponse* response,
                                     Done done) {
  Unary(opts, method::kShutdown, request, response, std::move(done));
}

void GrpcRemoteWorker::ResetContainersAsync(CallOptions* opts, const ResetContainersRequest* request,
                                            ResetContainersResponse* response, Done done) {
  Unary(opts, method::kResetContainers, request, response, std::move(done));
}

void GrpcRemoteWorker::Sequence(size_t n, std::function<void(size_t, Done)> fn, Done done) {
  struct Loop {
    size_t n;
    std::function<void(size_t, Done)> fn;
    Done done;
    void Next(std::shared_ptr<Loop> self, size_t i) {
      if (i == n) return done(Status::OK());
      fn(i, [self, i](const Status& s) {
        if (!s.ok()) return self->done(s);
        self->Next(self, i + 1);
      });
    }
  };
  auto loop = std::make_shared<Loop>(Loop{n, std::move(fn), std::move(done)});
  loop->Next(loop, 0);
}

void GrpcRemoteWorker::RunGraphAsync(CallOptions* opts, RunGraphCall* call, Done done) {
  // Sends beyond one message's worth go first, in chunks (PutTensor).
  RunGraphRequest& request = call->request;
  const size_t n = std::min<size_t>(request.send_size(), call->send_tensors.size());
  const std::vector<bool> fits = FitInMessage(call->send_tensors, max_message_bytes_);
  std::vector<size_t> out_of_band;
  for (size_t i = 0; i < n; ++i)
    if (!fits[i]) out_of_band.push_back(i);
  auto run = [this, opts, call, n, fits, done](const Status& put) {
    if (!put.ok()) return done(put.WithContext("putting a large feed of step " +
                                               std::to_string(call->request.step_id())));
    WirePayload payload;
    for (size_t i = 0; i < n; ++i) {
      NamedTensorMeta* m = call->request.mutable_send(static_cast<int>(i));
      if (fits[i]) {
        payload.AddTensor(call->send_tensors[i], m->meta().is_dead(), /*bfloat16=*/false, m->mutable_meta());
      } else {
        m->mutable_meta()->set_out_of_band(true);
      }
    }
    Call(opts, method::kRunGraph, payload.Seal(call->request),
         [this, opts, call, done](const Status& s, bool, const grpc::ByteBuffer& bytes) {
           if (!s.ok()) return done(s);
           WireReader reader;
           Status r = reader.Open(bytes, &call->response);
           call->recv_tensors.clear();
           std::vector<size_t> pull;
           for (int i = 0; r.ok() && i < call->response.recv_size(); ++i) {
             const NamedTensorMeta& m = call->response.recv(i);
             Tensor t;
             if (m.meta().out_of_band()) {
               pull.push_back(static_cast<size_t>(i));
             } else {
               r = reader.ReadTensor(m.meta(), "fetch '" + m.name() + "'", &t);
             }
             call->recv_tensors.push_back(std::move(t));
           }
           if (!r.ok() || pull.empty()) return done(r);
           // Fetches beyond one message's worth wait on the worker: pull them.
           Sequence(
               pull.size(),
               [this, opts, call, pull](size_t k, Done next) {
                 auto recv = std::make_shared<RecvTensorCall>();
                 recv->request.set_step_id(call->request.step_id());
                 recv->request.set_rendezvous_key(call->response.recv(static_cast<int>(pull[k])).name());
                 RecvTensorAsync(opts, recv.get(), [call, recv, index = pull[k], next](const Status& s) {
                   if (s.ok()) {
                     call->out_of_band_bytes += EncodedSize(recv->tensor, false);
                     call->recv_tensors[index] = std::move(recv->tensor);
                   }
                   next(s);
                 });
               },
               done);
         });
  };
  if (out_of_band.empty()) return run(Status::OK());
  Sequence(
      out_of_band.size(),
      [this, opts, call, out_of_band](size_t k, Done next) {
        const size_t i = out_of_band[k];
        call->out_of_band_bytes += EncodedSize(call->send_tensors[i], false);
        PutTensorAsync(opts, call->request.step_id(), call->request.send(static_cast<int>(i)).name(),
                       call->send_tensors[i], std::move(next));
      },
      run);
}

void GrpcRemoteWorker::PutTensorAsync(CallOptions* opts, int64_t step_id, const std::string& key, const Tensor& t,
                                      Done done) {
  PutChunk(opts, step_id, key, t, 0, std::move(done));
}

void GrpcRemoteWorker::PutChunk(CallOptions* opts, int64_t step_id, const std::string& key, const Tensor& t,
                                uint64_t offset, Done done) {
  PutTensorRequest request;
  request.set_step_id(step_id);
  request.set_key(key);
  request.set_offset(offset);
  WirePayload payload;
  payload.AddTensorChunk(t, false, false, offset, max_message_bytes_, request.mutable_meta());
  const uint64_t next = offset + request.meta().byte_size();
  const uint64_t total = request.meta().total_byte_size();
  Call(opts, method::kPutTensor, payload.Seal(request),
       [this, opts, step_id, key, t, next, total, done = std::move(done)](const Status& s, bool,
                                                                           const grpc::ByteBuffer&) {
         if (!s.ok() || next >= total) return done(s);
         PutChunk(opts, step_id, key, t, next, std::move(done));
       });
}

void GrpcRemoteWorker::RecvTensorAsync(CallOptions* opts, RecvTensorCall* call, Done done) {
  RecvChunk(opts, call, std::make_shared<ChunkState>(), std::move(done));
}

void GrpcRemoteWorker::RecvChunk(CallOptions* opts, RecvTensorCall* call, std::shared_ptr<ChunkState> state,
                                 Done done) {
  RecvTensorRequest request = call->request;
  request.set_offset(state->next_offset);
  WirePayload payload;
  Call(opts, method::kRecvTensor, payload.Seal(request),
       [this, opts, call, state, done = std::move(done)](const Status& s, bool peer_abort,
                                                         const grpc::ByteBuffer& bytes) {
         call->peer_aborted = peer_abort;
         if (!s.ok()) return done(s);
         WireReader reader;
         RecvTensorResponse response;
         const std::string what = "tensor '" + call->request.rendezvous_key() + "' from " + peer_;
         Status r = reader.Open(bytes, &response);
         if (!r.ok()) return done(r.WithContext(what));
         const TensorMeta& meta = response.meta();
         if (state->next_offset == 0 && meta.total_byte_size() <= meta.byte_size()) {
           call->is_dead = meta.is_dead();
           return done(reader.ReadTensor(meta, what, &call->tensor));
         }
         if (state->next_offset == 0) {
           r = state->tensor.Start(meta, what);
           if (!r.ok()) return done(r);
         }
         if (response.offset() != state->next_offset)
           return done(errors::Internal(what, ": asked for bytes from ", state->next_offset, " but got them from ",
                                        response.offset()));
         r = state->tensor.Add(meta, response.offset(), &reader, what);
         if (!r.ok()) return done(r);
         state->next_offset = state->tensor.received();
         if (!state->tensor.complete()) {
           RecvChunk(opts, call, state, std::move(done));
           return;
         }
         call->is_dead = false;
         done(state->tensor.Finish(&call->tensor));
       });
}

}  // namespace flowvm

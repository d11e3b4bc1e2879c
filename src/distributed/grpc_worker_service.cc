#include "distributed/grpc_worker_service.h"

#include "distributed/grpc_util.h"
#include "distributed/wire.h"

namespace flowvm {

namespace {

using Reply = GrpcDispatcher::Reply;

// Server-side calls have no deadline of their own: the caller's applies.
constexpr auto kServerCallTimeout = std::chrono::hours(24);

template <class Req, class Resp>
GrpcDispatcher::Handler Unary(Worker* worker,
                              void (Worker::*method)(CallOptions*, const Req*, Resp*, WorkerInterface::Done)) {
  return [worker, method](const grpc::ByteBuffer& in, grpc::ByteBuffer* out, Reply reply) {
    struct State {
      Req request;
      Resp response;
      CallOptions opts{kServerCallTimeout};
    };
    auto state = std::make_shared<State>();
    WireReader reader;
    Status s = reader.Open(in, &state->request);
    if (!s.ok()) return reply(ToGrpcStatus(s));
    (worker->*method)(&state->opts, &state->request, &state->response, [state, out, reply](const Status& s) {
      if (s.ok()) {
        WirePayload payload;
        *out = payload.Seal(state->response);
      }
      reply(ToGrpcStatus(s));
    });
  };
}

void RunGraph(Worker* worker, uint64_t chunk_bytes, const grpc::ByteBuffer& in, grpc::ByteBuffer* out, Reply reply) {
  struct State {
    RunGraphCall call;
    CallOptions opts{kServerCallTimeout};
  };
  auto state = std::make_shared<State>();
  WireReader reader;
  const RunGraphRequest& request = state->call.request;
  Status s = reader.Open(in, &state->call.request);
  for (int i = 0; s.ok() && i < request.send_size(); ++i) {
    const NamedTensorMeta& m = request.send(i);
    Tensor t;
    if (m.meta().out_of_band()) {
      s = worker->TakeParkedTensor(request.step_id(), m.name(), &t);
    } else {
      s = reader.ReadTensor(m.meta(), "feed '" + m.name() + "'", &t);
    }
    state->call.send_tensors.push_back(std::move(t));
  }
  if (!s.ok()) return reply(ToGrpcStatus(s.WithContext("RunGraph")));
  worker->RunGraphAsync(&state->opts, &state->call, [worker, chunk_bytes, state, out, reply](const Status& s) {
    if (!s.ok()) return reply(ToGrpcStatus(s));
    RunGraphCall& call = state->call;
    RunGraphResponse& response = call.response;
    // Fetches beyond one message's worth wait here for the master's
    // RecvTensor, under their keys.
    const std::vector<bool> fits = FitInMessage(call.recv_tensors, chunk_bytes);
    WirePayload payload;
    for (int i = 0; i < response.recv_size() && i < static_cast<int>(call.recv_tensors.size()); ++i) {
      NamedTensorMeta* m = response.mutable_recv(i);
      if (fits[i]) {
        payload.AddTensor(call.recv_tensors[i], m->meta().is_dead(), /*bfloat16=*/false, m->mutable_meta());
      } else {
        worker->ParkTensor(call.request.step_id(), m->name(), call.recv_tensors[i]);
        m->mutable_meta()->set_out_of_band(true);
      }
    }
    *out = payload.Seal(response);
    reply(grpc::Status::OK);
  });
}

void PutTensor(Worker* worker, const grpc::ByteBuffer& in, grpc::ByteBuffer* out, Reply reply) {
  PutTensorRequest request;
  WireReader reader;
  Status s = reader.Open(in, &request);
  if (s.ok()) s = worker->PutTensorChunk(request.step_id(), request.key(), request.meta(), request.offset(), &reader);
  if (!s.ok()) return reply(ToGrpcStatus(s));
  WirePayload payload;
  *out = payload.Seal(PutTensorResponse());
  reply(grpc::Status::OK);
}

void RecvTensor(Worker* worker, uint64_t chunk_bytes, const grpc::ByteBuffer& in, grpc::ByteBuffer* out,
                Reply reply) {
  struct State {
    RecvTensorCall call;
    CallOptions opts{kServerCallTimeout};
  };
  auto state = std::make_shared<State>();
  WireReader reader;
  Status s = reader.Open(in, &state->call.request);
  if (!s.ok()) return reply(ToGrpcStatus(s));
  const RecvTensorRequest& request = state->call.request;
  const bool bf16 = request.accept_bfloat16();
  // Encodes [offset, offset + chunk) of `t` as the response.
  auto respond = [out, chunk_bytes, bf16](const Tensor& t, bool dead, uint64_t offset) {
    RecvTensorResponse response;
    response.set_offset(offset);
    WirePayload payload;
    if (offset == 0 && EncodedSize(t, bf16) <= chunk_bytes) {
      payload.AddTensor(t, dead, bf16, response.mutable_meta());
    } else {
      payload.AddTensorChunk(t, dead, bf16, offset, chunk_bytes, response.mutable_meta());
    }
    const bool last = offset + response.meta().byte_size() >= response.meta().total_byte_size();
    *out = payload.Seal(response);
    return last;
  };
  // A parked tensor: the rest of one sent in chunks, or a fetch that a
  // RunGraph response named out of band.
  Tensor parked;
  if (request.offset() > 0 || worker->FindParkedTensor(request.step_id(), request.rendezvous_key(), &parked)) {
    s = worker->ParkedTensor(request.step_id(), request.rendezvous_key(), &parked);
    if (!s.ok()) return reply(ToGrpcStatus(s));
    if (respond(parked, false, request.offset())) worker->UnparkTensor(request.step_id(), request.rendezvous_key());
    return reply(grpc::Status::OK);
  }
  worker->RecvTensorAsync(&state->opts, &state->call, [worker, state, respond, reply](const Status& s) {
    if (!s.ok()) return reply(ToGrpcStatus(s, state->call.peer_aborted));
    const RecvTensorRequest& request = state->call.request;
    if (!respond(state->call.tensor, state->call.is_dead, 0))
      worker->ParkTensor(request.step_id(), request.rendezvous_key(), state->call.tensor);
    reply(grpc::Status::OK);
  });
}

}  // namespace

void RegisterWorkerMethods(Worker* worker, uint64_t chunk_bytes, GrpcDispatcher* d) {
  if (chunk_bytes < 2) chunk_bytes = 2;
  d->Register(method::kGetStatus, Unary(worker, &Worker::GetStatusAsync));
  d->Register(method::kRegisterGraph, Unary(worker, &Worker::RegisterGraphAsync));
  d->Register(method::kDeregisterGraph, Unary(worker, &Worker::DeregisterGraphAsync));
  d->Register(method::kCleanupGraph, Unary(worker, &Worker::CleanupGraphAsync));
  d->Register(method::kAbortStep, Unary(worker, &Worker::AbortStepAsync));
  d->Register(method::kShutdown, Unary(worker, &Worker::ShutdownAsync));
  d->Register(method::kResetContainers, Unary(worker, &Worker::ResetContainersAsync));
  d->Register(method::kRunGraph, [worker, chunk_bytes](const grpc::ByteBuffer& in, grpc::ByteBuffer* out,
                                                        Reply reply) {
    RunGraph(worker, chunk_bytes, in, out, std::move(reply));
  });
  d->Register(method::kPutTensor, [worker](const grpc::ByteBuffer& in, grpc::ByteBuffer* out, Reply reply) {
    PutTensor(worker, in, out, std::move(reply));
  });
  d->Register(method::kRecvTensor,
              [worker, chunk_bytes](const grpc::ByteBuffer& in, grpc::ByteBuffer* out, Reply reply) {
                RecvTensor(worker, chunk_bytes, in, out, std::move(reply));
              });
}

}  // namespace flowvm

#include "distributed/grpc_master_service.h"

#include "distributed/grpc_util.h"
#include "distributed/wire.h"

namespace flowvm {

namespace {

using Reply = GrpcDispatcher::Reply;

// A master method: parse the request, run `fn` on a call thread, seal the
// response.
template <class Req, class Resp>
GrpcDispatcher::Handler Blocking(CallThreads* threads, std::function<Status(const Req&, Resp*)> fn) {
  return [threads, fn](const grpc::ByteBuffer& in, grpc::ByteBuffer* out, Reply reply) {
    auto request = std::make_shared<Req>();
    WireReader reader;
    Status s = reader.Open(in, request.get());
    if (!s.ok()) return reply(ToGrpcStatus(s));
    threads->Run([fn, request, out, reply] {
      Resp response;
      Status s = fn(*request, &response);
      if (s.ok()) {
        WirePayload payload;
        *out = payload.Seal(response);
      }
      reply(ToGrpcStatus(s));
    });
  };
}

}  // namespace

void RegisterMasterMethods(Master* master, Worker* local_worker, uint64_t max_message_bytes, CallThreads* threads,
                           std::function<void()> on_shutdown_cluster, GrpcDispatcher* d) {
  d->Register(method::kCreateSession, Blocking<CreateSessionRequest, CreateSessionResponse>(
                                          threads, [master, max_message_bytes](const auto& req, auto* resp) {
                                            resp->set_max_message_tensor_bytes(max_message_bytes);
                                            return master->CreateSession(req, resp);
                                          }));
  d->Register(method::kExtendSession,
              Blocking<ExtendSessionRequest, ExtendSessionResponse>(
                  threads, [master](const auto& req, auto*) { return master->ExtendSession(req); }));
  d->Register(method::kCloseSession,
              Blocking<CloseSessionRequest, CloseSessionResponse>(
                  threads, [master](const auto& req, auto*) { return master->CloseSession(req); }));
  d->Register(method::kListDevices,
              Blocking<ListDevicesRequest, ListDevicesResponse>(
                  threads, [master](const auto& req, auto* resp) { return master->ListDevices(req, resp); }));
  d->Register(method::kReset, Blocking<ResetRequest, ResetResponse>(
                                  threads, [master](const auto& req, auto*) { return master->Reset(req); }));
  d->Register(method::kShutdownCluster,
              [master, threads, on_shutdown_cluster](const grpc::ByteBuffer& in, grpc::ByteBuffer* out, Reply reply) {
                ShutdownClusterRequest request;
                WireReader reader;
                Status s = reader.Open(in, &request);
                if (!s.ok()) return reply(ToGrpcStatus(s));
                threads->Run([master, out, reply, on_shutdown_cluster] {
                  ShutdownClusterResponse response;
                  Status s = master->ShutdownCluster(&response);
                  if (s.ok()) {
                    WirePayload payload;
                    *out = payload.Seal(response);
                  }
                  reply(ToGrpcStatus(s));
                  if (s.ok() && on_shutdown_cluster) on_shutdown_cluster();
                });
              });
  // A step runs on the transport's thread until it waits for its workers,
  // and ends on the thread of the last to answer: no thread switch of its
  // own. What may block goes to a call thread.
  d->Register(method::kRunStep, [master, local_worker, max_message_bytes, threads](
                                    const grpc::ByteBuffer& in, grpc::ByteBuffer* out, Reply reply) {
    struct Call {
      RunStepRequest request;
      std::vector<Tensor> feeds;
      RunStepResponse response;
      std::vector<Tensor> fetches;
    };
    auto call = std::make_shared<Call>();
    WireReader reader;
    Status s = reader.Open(in, &call->request);
    for (int i = 0; s.ok() && i < call->request.feed_size(); ++i) {
      const NamedTensorMeta& m = call->request.feed(i);
      Tensor t;
      if (m.meta().out_of_band()) {
        s = local_worker->TakeParkedTensor(call->request.upload_id(), ClientTensorKey("feed", i), &t);
        if (!s.ok()) s = s.WithContext("feed '" + m.name() + "'");
      } else {
        s = reader.ReadTensor(m.meta(), "feed '" + m.name() + "'", &t);
      }
      call->feeds.push_back(std::move(t));
    }
    if (!s.ok()) return reply(ToGrpcStatus(s));
    master->RunStepAsync(
        call->request, call->feeds, &call->response, &call->fetches,
        [threads](std::function<void()> fn) { threads->Run(std::move(fn)); },
        [call, out, reply, local_worker, max_message_bytes](const Status& s) {
          if (s.ok()) {
            // Fetches beyond one message's worth wait in this server's
            // worker for the client's RecvTensor.
            const std::vector<bool> fits = FitInMessage(call->fetches, max_message_bytes);
            WirePayload payload;
            for (int i = 0; i < call->request.fetch_size(); ++i) {
              NamedTensorMeta* m = call->response.add_fetch();
              m->set_name(call->request.fetch(i));
              if (fits[i]) {
                payload.AddTensor(call->fetches[i], false, false, m->mutable_meta());
              } else {
                local_worker->ParkTensor(call->response.stats().step_id(), ClientTensorKey("fetch", i),
                                         call->fetches[i]);
                m->mutable_meta()->set_out_of_band(true);
              }
            }
            *out = payload.Seal(call->response);
          }
          reply(ToGrpcStatus(s));
        });
  });
}

}  // namespace flowvm

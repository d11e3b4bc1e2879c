// The peers of bench/distributed/distributed_bench.cc, in a process of their
// own:
//
//   dist_bench_peer TCP_PORT GRPC_PORT [RELAY_TO_GRPC_PORT]
//
// - a plain TCP server on 127.0.0.1:TCP_PORT: for each 8-byte request
//   (a little-endian byte count) it writes that many bytes from one buffer
//   with send(2), nothing else (TCP_NODELAY);
// - a gRPC server on 127.0.0.1:GRPC_PORT (the synchronous API, default
//   settings but for the message size limits): Ping answers an empty-ish
//   message, Fetch answers a `bytes` field of the requested size, set from
//   one cached string (one copy per call: the naive way);
//   BenchPeerCallback.Ping is the same round trip on the callback API;
//   Relay calls Ping of the peer at RELAY_TO_GRPC_PORT from its handler.
//
// Prints "ready" once both listen; serves until killed.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "bench_peer.grpc.pb.h"

namespace {

bool ReadFull(int fd, void* dst, size_t n) {
  char* p = static_cast<char*>(dst);
  while (n > 0) {
    const ssize_t r = recv(fd, p, n, 0);
    if (r <= 0) return false;
    p += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

bool WriteFull(int fd, const void* src, size_t n) {
  const char* p = static_cast<const char*>(src);
  while (n > 0) {
    const ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

void ServeTcpConnection(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  std::vector<char> buffer;
  while (true) {
    uint64_t n = 0;
    if (!ReadFull(fd, &n, sizeof(n))) break;
    if (n > (uint64_t{1} << 32)) break;
    if (buffer.size() < n) buffer.assign(n, '\x5a');
    if (!WriteFull(fd, buffer.data(), n)) break;
  }
  close(fd);
}

int ListenTcp(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 || listen(fd, 16) != 0) {
    std::perror("dist_bench_peer: tcp listen");
    std::exit(1);
  }
  return fd;
}

class Peer final : public flowvm_bench::BenchPeer::Service {
 public:
  explicit Peer(std::unique_ptr<flowvm_bench::BenchPeer::Stub> relay_to) : relay_to_(std::move(relay_to)) {}
  grpc::Status Relay(grpc::ServerContext*, const flowvm_bench::PingRequest* request,
                     flowvm_bench::PingResponse* response) override {
    if (relay_to_ == nullptr) return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, "no peer to relay to");
    grpc::ClientContext context;
    return relay_to_->Ping(&context, *request, response);
  }
  grpc::Status Ping(grpc::ServerContext*, const flowvm_bench::PingRequest* request,
                    flowvm_bench::PingResponse* response) override {
    response->set_seq(request->seq());
    return grpc::Status::OK;
  }
  grpc::Status Fetch(grpc::ServerContext*, const flowvm_bench::BlobRequest* request,
                     flowvm_bench::BlobResponse* response) override {
    if (request->bytes() < 0 || request->bytes() > INT_MAX / 2)
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "bad size");
    std::lock_guard<std::mutex> lock(mu_);
    if (blob_.size() != static_cast<size_t>(request->bytes())) blob_.assign(request->bytes(), '\x5a');
    response->set_data(blob_);
    return grpc::Status::OK;
  }

 private:
  std::unique_ptr<flowvm_bench::BenchPeer::Stub> relay_to_;
  std::mutex mu_;
  std::string blob_;
};

class CallbackPeer final : public flowvm_bench::BenchPeerCallback::CallbackService {
 public:
  grpc::ServerUnaryReactor* Ping(grpc::CallbackServerContext* context, const flowvm_bench::PingRequest* request,
                                 flowvm_bench::PingResponse* response) override {
    response->set_seq(request->seq());
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s TCP_PORT GRPC_PORT\n", argv[0]);
    return 2;
  }
  const int listen_fd = ListenTcp(std::atoi(argv[1]));
  std::thread([listen_fd] {
    while (true) {
      const int fd = accept(listen_fd, nullptr, nullptr);
      if (fd < 0) continue;
      std::thread(ServeTcpConnection, fd).detach();
    }
  }).detach();

  std::unique_ptr<flowvm_bench::BenchPeer::Stub> relay_to;
  if (argc > 3)
    relay_to = flowvm_bench::BenchPeer::NewStub(
        grpc::CreateChannel(std::string("127.0.0.1:") + argv[3], grpc::InsecureChannelCredentials()));
  Peer peer(std::move(relay_to));
  CallbackPeer callback_peer;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(std::string("127.0.0.1:") + argv[2], grpc::InsecureServerCredentials(), &port);
  builder.SetMaxReceiveMessageSize(INT_MAX);
  builder.SetMaxSendMessageSize(INT_MAX);
  builder.RegisterService(&peer);
  builder.RegisterService(&callback_peer);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || port == 0) {
    std::fprintf(stderr, "dist_bench_peer: cannot listen on gRPC port %s\n", argv[2]);
    return 1;
  }
  std::printf("ready\n");
  std::fflush(stdout);
  server->Wait();
  return 0;
}

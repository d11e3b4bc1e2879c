// BoardServer: the HTTP side of `flowvm board` (tools/board/API.md): JSON
// endpoints over a RunStore, and the embedded front end (board_assets.h).
//
// Create() reads and checks every --graph and --trace file (an error names
// the file), binds the port and starts the RunStore's tailer; Start() then
// serves on a thread of its own (httplib's pool answers requests
// concurrently). Stop() (also the destructor) stops serving and tailing and
// joins the threads. Thread-safe.
#ifndef FLOWVM_TOOLS_BOARD_BOARD_SERVER_H_
#define FLOWVM_TOOLS_BOARD_BOARD_SERVER_H_

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "board/run_store.h"
#include "flowvm/status.h"

namespace httplib {
class Server;
struct Request;
struct Response;
}  // namespace httplib

namespace flowvm::board {

struct BoardOptions {
  std::string logdir;
  std::string host = "127.0.0.1";
  int port = 6006;  // 0: a free one
  std::vector<std::string> graph_files;  // .pb / .pbtxt
  std::vector<std::string> trace_files;  // Chrome trace JSON
  int reload_ms = 1000;
  // Passed to the RunStore (damaged records); default: stderr.
  std::function<void(const Status&)> on_error;
};

// True for 127.0.0.0/8, ::1 and "localhost": the addresses only this
// machine reaches. The board has no authentication.
bool IsLoopbackHost(const std::string& host);

class BoardServer {
 public:
  // InvalidArgument naming a --graph/--trace file that does not parse, or
  // the bad flag; Unavailable if the address cannot be bound.
  static StatusOr<std::unique_ptr<BoardServer>> Create(BoardOptions options);
  ~BoardServer();
  BoardServer(const BoardServer&) = delete;
  BoardServer& operator=(const BoardServer&) = delete;

  // Serves on a background thread until Stop().
  void Start();
  void Stop();

  int port() const { return port_; }
  // "http://HOST:PORT/" (IPv6 hosts in brackets).
  std::string url() const;
  RunStore& store() { return *store_; }

 private:
  explicit BoardServer(BoardOptions options);
  void Route();

  // One method per endpoint of API.md; each fills `res` (an error as JSON).
  void HandleRuns(const httplib::Request& req, httplib::Response& res);
  void HandleScalars(const httplib::Request& req, httplib::Response& res);
  void HandleHistograms(const httplib::Request& req, httplib::Response& res);
  void HandleImages(const httplib::Request& req, httplib::Response& res);
  void HandleImage(const httplib::Request& req, httplib::Response& res);
  void HandleGraph(const httplib::Request& req, httplib::Response& res);
  void HandleTrace(const httplib::Request& req, httplib::Response& res);
  void HandleStatic(const httplib::Request& req, httplib::Response& res);

  // The /api/graph JSON of a run's graph, cached per graph version (layout
  // of a 10,000-node graph is worth doing once).
  StatusOr<std::string> RunGraphJson(const std::string& run);

  BoardOptions options_;
  int port_ = 0;
  std::unique_ptr<RunStore> store_;
  std::unique_ptr<httplib::Server> http_;
  std::thread thread_;
  std::mutex thread_mu_;

  // --graph and --trace files by base name, read at start: the graph's
  // /api/graph JSON, the trace's JSON text as it is.
  std::map<std::string, std::string> graph_files_;
  std::map<std::string, std::string> trace_files_;

  std::mutex cache_mu_;
  std::map<std::string, std::pair<uint64_t, std::string>> graph_cache_;  // run -> (version, JSON)
};

}  // namespace flowvm::board

#endif  // FLOWVM_TOOLS_BOARD_BOARD_SERVER_H_

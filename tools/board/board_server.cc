#include "board/board_server.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "board/board_assets.h"
#include "board/board_graph.h"
#include "board/json_text.h"
#include "flowvm/config.pb.h"
#include "flowvm/graph_io.h"
#include "flowvm/trace.h"

namespace flowvm::board {

namespace {

constexpr char kJson[] = "application/json; charset=utf-8";
constexpr size_t kDefaultMaxPoints = 1000;
constexpr size_t kMostMaxPoints = 100000;
constexpr size_t kHttpThreads = 32;

// "NotFound" -> "NOT_FOUND": the API's spelling of a Status code.
std::string ApiCodeName(Code code) {
  std::string out;
  for (const char* p = CodeName(code); *p; ++p) {
    if (std::isupper(static_cast<unsigned char>(*p)) && !out.empty()) out.push_back('_');
    out.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(*p))));
  }
  return out;
}

int HttpStatusOf(Code code) {
  switch (code) {
    case Code::kInvalidArgument:
    case Code::kOutOfRange:
    case Code::kFailedPrecondition: return 400;
    case Code::kNotFound: return 404;
    case Code::kUnimplemented: return 501;
    case Code::kUnavailable: return 503;
    default: return 500;
  }
}

void SendError(httplib::Response& res, const Status& s) {
  res.status = HttpStatusOf(s.code());
  res.set_content(JsonError(ApiCodeName(s.code()), s.message()), kJson);
}

void SendJson(httplib::Response& res, std::string body) {
  res.set_header("Cache-Control", "no-store");
  res.set_content(std::move(body), kJson);
}

StatusOr<std::string> RequiredParam(const httplib::Request& req, const char* name) {
  if (!req.has_param(name) || req.get_param_value(name).empty())
    return errors::InvalidArgument(req.path, " needs the query parameter '", name, "'");
  return req.get_param_value(name);
}

// An integer query parameter, or `fallback` if absent.
StatusOr<int64_t> IntParam(const httplib::Request& req, const char* name, int64_t fallback) {
  if (!req.has_param(name)) return fallback;
  const std::string v = req.get_param_value(name);
  int64_t out = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || end != v.data() + v.size())
    return errors::InvalidArgument("query parameter ", name, "='", v, "' is not an integer");
  return out;
}

// Every value of a repeated query parameter (run=a&run=b): run names may
// hold commas, so a list is never one comma-joined value.
std::vector<std::string> ParamValues(const httplib::Request& req, const char* name) {
  std::vector<std::string> out;
  const size_t n = req.get_param_value_count(name);
  for (size_t i = 0; i < n; ++i) out.push_back(req.get_param_value(name, i));
  return out;
}

// The host name of a Host header ("127.0.0.1:6006", "[::1]:80", "x").
std::string HostName(const std::string& header) {
  if (!header.empty() && header.front() == '[') {
    const size_t close = header.find(']');
    return close == std::string::npos ? header : header.substr(0, close + 1);
  }
  const size_t colon = header.rfind(':');
  return colon == std::string::npos ? header : header.substr(0, colon);
}

std::string BaseName(const std::string& path) { return std::filesystem::path(path).filename().string(); }

std::string HistogramsJson(const std::string& run, const std::string& tag, const std::vector<HistogramPoint>& points) {
  std::string out = "{\"run\": ";
  AppendJsonString(&out, run);
  out += ", \"tag\": ";
  AppendJsonString(&out, tag);
  out += ", \"histograms\": [";
  for (size_t i = 0; i < points.size(); ++i) {
    const HistogramPoint& p = points[i];
    const HistogramProto& h = p.histo;
    out += i ? ", {\"step\": " : "{\"step\": ";
    AppendJsonNumber(&out, p.step);
    const std::pair<const char*, double> fields[] = {{"wall_time", p.wall_time}, {"min", h.min()}, {"max", h.max()},
                                                     {"num", h.num()},           {"sum", h.sum()}, {"sum_squares", h.sum_squares()}};
    for (const auto& [name, value] : fields) {
      out += ", \"";
      out += name;
      out += "\": ";
      AppendJsonNumber(&out, value);
    }
    out += ", \"bucket_limit\": [";
    for (int k = 0; k < h.bucket_limit_size(); ++k) {
      if (k) out += ", ";
      AppendJsonNumber(&out, h.bucket_limit(k));
    }
    out += "], \"bucket\": [";
    for (int k = 0; k < h.bucket_size(); ++k) {
      if (k) out += ", ";
      AppendJsonNumber(&out, h.bucket(k));
    }
    out += "]}";
  }
  out += "]}";
  return out;
}

std::string_view ImageContentType(const std::string& bytes) {
  if (bytes.rfind("\x89PNG", 0) == 0) return "image/png";
  if (bytes.rfind("\xff\xd8\xff", 0) == 0) return "image/jpeg";
  if (bytes.rfind("GIF8", 0) == 0) return "image/gif";
  return "application/octet-stream";
}

}  // namespace

bool IsLoopbackHost(const std::string& host) {
  if (host == "localhost" || host == "::1" || host == "[::1]") return true;
  in_addr addr{};
  if (inet_pton(AF_INET, host.c_str(), &addr) == 1) return (ntohl(addr.s_addr) >> 24) == 127;
  return false;
}

BoardServer::BoardServer(BoardOptions options) : options_(std::move(options)) {}

StatusOr<std::unique_ptr<BoardServer>> BoardServer::Create(BoardOptions options) {
  if (options.port < 0 || options.port > 65535)
    return errors::InvalidArgument("--port ", options.port, " is not a TCP port (0 to 65535)");
  std::unique_ptr<BoardServer> board(new BoardServer(std::move(options)));
  const BoardOptions& o = board->options_;
  // Files are served by base name: two with one name would hide one.
  std::map<std::string, std::string> served;
  for (const std::vector<std::string>* files : {&o.graph_files, &o.trace_files}) {
    for (const std::string& path : *files) {
      auto [it, added] = served.emplace(BaseName(path), path);
      if (!added)
        return errors::InvalidArgument("--graph/--trace ", it->second, " and ", path, " have the same name '",
                                       it->first, "', which the board serves them by: rename one");
    }
  }
  for (const std::string& path : o.graph_files) {
    StatusOr<GraphDef> graph = ReadGraphDefFile(path);
    if (!graph.ok()) return Status(graph.status().code(), "--graph " + path + ": " + graph.status().message());
    // Laid out once, now: a 10,000-node graph takes a few hundred ms.
    board->graph_files_[BaseName(path)] = GraphToJson(BaseName(path), *graph, {});
  }
  for (const std::string& path : o.trace_files) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return errors::NotFound("--trace ", path, ": cannot open the file");
    std::stringstream text;
    text << in.rdbuf();
    if (!nlohmann::json::accept(text.str()))
      return errors::InvalidArgument("--trace ", path, " is not JSON (a Chrome trace is expected)");
    board->trace_files_[BaseName(path)] = text.str();
  }

  RunStoreOptions store_options;
  store_options.logdir = o.logdir;
  store_options.reload_ms = o.reload_ms;
  store_options.on_error = o.on_error;
  board->store_ = std::make_unique<RunStore>(std::move(store_options));

  board->http_ = std::make_unique<httplib::Server>();
  // A browser keeps up to 6 keep-alive connections per tab, each holding a
  // thread of the pool while idle (up to 5 s): httplib's default of 8
  // threads would stall a second tab.
  board->http_->new_task_queue = [] { return new httplib::ThreadPool(kHttpThreads); };
  // An idle keep-alive connection holds its thread until this times out,
  // and stopping waits for it: short, so that Ctrl-C is prompt.
  board->http_->set_keep_alive_timeout(1);
  board->Route();
  if (o.port == 0) {
    board->port_ = board->http_->bind_to_any_port(o.host);
    if (board->port_ <= 0) return errors::Unavailable("cannot listen on ", o.host, " (any port)");
  } else {
    if (!board->http_->bind_to_port(o.host, o.port))
      return errors::Unavailable("cannot listen on ", o.host, ":", o.port, " (in use, or not this machine's address?)");
    board->port_ = o.port;
  }
  board->store_->Start();
  return board;
}

BoardServer::~BoardServer() { Stop(); }

void BoardServer::Start() {
  std::lock_guard<std::mutex> lock(thread_mu_);
  if (thread_.joinable()) return;
  httplib::Server* http = http_.get();
  thread_ = std::thread([http] { http->listen_after_bind(); });
  // httplib's stop() does nothing until the accept loop runs: wait for it,
  // so that a Stop() right after Start() cannot leave the loop running.
  for (int i = 0; i < 5000 && !http->is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

void BoardServer::Stop() {
  std::lock_guard<std::mutex> lock(thread_mu_);
  if (http_) http_->stop();
  if (thread_.joinable()) thread_.join();
  if (store_) store_->Stop();
}

std::string BoardServer::url() const {
  const std::string& h = options_.host;
  const bool v6 = h.find(':') != std::string::npos && h.front() != '[';
  return "http://" + (v6 ? "[" + h + "]" : h) + ":" + std::to_string(port_) + "/";
}

void BoardServer::Route() {
  using httplib::Request;
  using httplib::Response;
  auto bind = [this](void (BoardServer::*m)(const Request&, Response&)) {
    return [this, m](const Request& req, Response& res) { (this->*m)(req, res); };
  };
  // A board on loopback has no authentication: only pages of the same
  // machine may read it. A page elsewhere could still reach it through DNS
  // rebinding (its own name, resolved to 127.0.0.1), so a request must name
  // a loopback host too.
  if (IsLoopbackHost(options_.host)) {
    http_->set_pre_routing_handler([](const Request& req, Response& res) {
      const std::string host = HostName(req.get_header_value("Host"));
      if (host.empty() || IsLoopbackHost(host)) return httplib::Server::HandlerResponse::Unhandled;
      SendError(res, errors::PermissionDenied("this board serves only pages of this machine (Host '", host,
                                              "' is not a loopback name); use http://127.0.0.1:PORT/"));
      res.status = 403;
      return httplib::Server::HandlerResponse::Handled;
    });
  }
  http_->Get("/api/runs", bind(&BoardServer::HandleRuns));
  http_->Get("/api/scalars", bind(&BoardServer::HandleScalars));
  http_->Get("/api/histograms", bind(&BoardServer::HandleHistograms));
  http_->Get("/api/images", bind(&BoardServer::HandleImages));
  http_->Get("/api/image", bind(&BoardServer::HandleImage));
  http_->Get("/api/graph", bind(&BoardServer::HandleGraph));
  http_->Get("/api/trace", bind(&BoardServer::HandleTrace));
  http_->Get("/api/.*", [](const Request& req, Response& res) {
    SendError(res, errors::NotFound("no endpoint ", req.path, " (see tools/board/API.md)"));
  });
  http_->Get(".*", bind(&BoardServer::HandleStatic));
  // A handler that throws (a bug) answers 500 instead of ending the process.
  http_->set_exception_handler([](const Request& req, Response& res, std::exception_ptr ep) {
    std::string what = "unknown exception";
    try {
      std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    SendError(res, errors::Internal("while answering ", req.path, ": ", what));
  });
}

void BoardServer::HandleRuns(const httplib::Request&, httplib::Response& res) {
  using Json = nlohmann::ordered_json;
  // Read the generation first: a client that sees it and then asks again
  // never misses what came in between.
  const uint64_t generation = store_->generation();
  Json runs = Json::array();
  for (const RunSummary& r : store_->ListRuns()) {
    runs.push_back({{"name", r.name},
                    {"generation", r.generation},
                    {"scalar_tags", r.scalar_tags},
                    {"histogram_tags", r.histogram_tags},
                    {"image_tags", r.image_tags},
                    {"run_metadata_tags", r.run_metadata_tags},
                    {"has_graph", r.has_graph},
                    {"first_wall_time", r.first_wall_time},
                    {"last_step", r.last_step}});
  }
  Json graphs = Json::array(), traces = Json::array();
  for (const auto& [name, g] : graph_files_) graphs.push_back(name);
  for (const auto& [name, t] : trace_files_) traces.push_back(name);
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(options_.logdir, ec);
  Json out = {{"logdir", ec ? options_.logdir : abs.lexically_normal().string()},
              {"generation", generation},
              {"runs", std::move(runs)},
              {"graph_files", std::move(graphs)},
              {"trace_files", std::move(traces)}};
  SendJson(res, out.dump(-1, ' ', false, Json::error_handler_t::replace));
}

void BoardServer::HandleScalars(const httplib::Request& req, httplib::Response& res) {
  StatusOr<std::string> tag = RequiredParam(req, "tag");
  StatusOr<int64_t> max_points = IntParam(req, "max_points", kDefaultMaxPoints);
  StatusOr<int64_t> min_step = IntParam(req, "min_step", std::numeric_limits<int64_t>::min());
  StatusOr<int64_t> max_step = IntParam(req, "max_step", std::numeric_limits<int64_t>::max());
  for (const Status& s : {tag.status(), max_points.status(), min_step.status(), max_step.status()})
    if (!s.ok()) return SendError(res, s);
  if (*max_points < 1)
    return SendError(res, errors::InvalidArgument("max_points=", *max_points, " must be at least 1"));
  const size_t points = static_cast<size_t>(std::min<int64_t>(*max_points, kMostMaxPoints));

  // The runs asked for (a run deleted since the page listed it is left
  // out like one without the tag), or all.
  std::vector<std::string> runs = ParamValues(req, "run");
  if (runs.empty()) runs = store_->RunNames();
  std::string out = "{\"tag\": ";
  AppendJsonString(&out, *tag);
  out += ", \"runs\": {";
  bool any = false;
  ScalarSeries series;
  for (const std::string& run : runs) {
    // Runs without the tag are left out: the front end asks for the runs
    // it shows, and not every run logs every tag.
    if (!store_->GetScalars(run, *tag, *min_step, *max_step, points, &series).ok()) continue;
    if (any) out += ", ";
    any = true;
    AppendJsonString(&out, run);
    out += ": {\"step\": [";
    for (size_t i = 0; i < series.step.size(); ++i) {
      if (i) out += ',';
      AppendJsonNumber(&out, series.step[i]);
    }
    out += "], \"wall_time\": [";
    for (size_t i = 0; i < series.wall_time.size(); ++i) {
      if (i) out += ',';
      AppendJsonNumber(&out, series.wall_time[i]);
    }
    out += "], \"value\": [";
    for (size_t i = 0; i < series.value.size(); ++i) {
      if (i) out += ',';
      AppendJsonNumber(&out, series.value[i]);
    }
    out += "], \"kept\": ";
    AppendJsonNumber(&out, static_cast<int64_t>(series.kept));
    out += ", \"seen\": ";
    AppendJsonNumber(&out, static_cast<int64_t>(series.seen));
    out += "}";
  }
  out += "}}";
  if (!any)
    return SendError(res, errors::NotFound("no run", req.has_param("run") ? " of those asked for" : "",
                                           " has scalar tag '", *tag, "'"));
  SendJson(res, std::move(out));
}

void BoardServer::HandleHistograms(const httplib::Request& req, httplib::Response& res) {
  StatusOr<std::string> run = RequiredParam(req, "run");
  StatusOr<std::string> tag = RequiredParam(req, "tag");
  if (!run.ok()) return SendError(res, run.status());
  if (!tag.ok()) return SendError(res, tag.status());
  StatusOr<std::vector<HistogramPoint>> points = store_->GetHistograms(*run, *tag);
  if (!points.ok()) return SendError(res, points.status());
  SendJson(res, HistogramsJson(*run, *tag, *points));
}

void BoardServer::HandleImages(const httplib::Request& req, httplib::Response& res) {
  StatusOr<std::string> run = RequiredParam(req, "run");
  StatusOr<std::string> tag = RequiredParam(req, "tag");
  if (!run.ok()) return SendError(res, run.status());
  if (!tag.ok()) return SendError(res, tag.status());
  StatusOr<std::vector<ImageInfo>> images = store_->GetImages(*run, *tag);
  if (!images.ok()) return SendError(res, images.status());
  using Json = nlohmann::ordered_json;
  Json list = Json::array();
  for (const ImageInfo& i : *images)
    list.push_back({{"step", i.step},
                    {"wall_time", i.wall_time},
                    {"width", i.width},
                    {"height", i.height},
                    {"index", i.index}});
  Json out = {{"run", *run}, {"tag", *tag}, {"images", std::move(list)}};
  SendJson(res, out.dump(-1, ' ', false, Json::error_handler_t::replace));
}

void BoardServer::HandleImage(const httplib::Request& req, httplib::Response& res) {
  StatusOr<std::string> run = RequiredParam(req, "run");
  StatusOr<std::string> tag = RequiredParam(req, "tag");
  StatusOr<int64_t> index = IntParam(req, "index", -1);
  for (const Status& s : {run.status(), tag.status(), index.status()})
    if (!s.ok()) return SendError(res, s);
  if (!req.has_param("index")) return SendError(res, errors::InvalidArgument("/api/image needs 'index'"));
  StatusOr<std::string> bytes = store_->GetImage(*run, *tag, *index);
  if (!bytes.ok()) return SendError(res, bytes.status());
  const std::string_view type = ImageContentType(*bytes);
  res.set_header("Cache-Control", "no-store");
  res.set_content(std::move(bytes).value(), std::string(type));
}

StatusOr<std::string> BoardServer::RunGraphJson(const std::string& run) {
  FLOWVM_ASSIGN_OR_RETURN(GraphSnapshot snap, store_->GetGraph(run));
  {
    std::lock_guard<std::mutex> lock(cache_mu_);
    auto it = graph_cache_.find(run);
    if (it != graph_cache_.end() && it->second.first == snap.version) return it->second.second;
  }
  GraphDef graph;
  if (!graph.ParseFromString(snap.graph_def))
    return errors::DataLoss("the graph_def of run '", run, "' does not parse as a GraphDef");
  std::string json = GraphToJson(run, graph, snap.placement);
  std::lock_guard<std::mutex> lock(cache_mu_);
  graph_cache_[run] = {snap.version, json};
  return json;
}

void BoardServer::HandleGraph(const httplib::Request& req, httplib::Response& res) {
  if (req.has_param("file")) {
    const std::string file = req.get_param_value("file");
    auto it = graph_files_.find(file);
    if (it == graph_files_.end())
      return SendError(res, errors::NotFound("no --graph file '", file, "' (the board was started with ",
                                             graph_files_.size(), ")"));
    return SendJson(res, it->second);
  }
  StatusOr<std::string> run = RequiredParam(req, "run");
  if (!run.ok()) return SendError(res, errors::InvalidArgument("/api/graph needs 'run' or 'file'"));
  if (!store_->HasRun(*run)) return SendError(res, errors::NotFound("no run '", *run, "' in ", store_->logdir()));
  StatusOr<std::string> json = RunGraphJson(*run);
  if (!json.ok()) return SendError(res, json.status());
  SendJson(res, std::move(json).value());
}

void BoardServer::HandleTrace(const httplib::Request& req, httplib::Response& res) {
  if (req.has_param("file")) {
    const std::string file = req.get_param_value("file");
    auto it = trace_files_.find(file);
    if (it == trace_files_.end())
      return SendError(res, errors::NotFound("no --trace file '", file, "' (the board was started with ",
                                             trace_files_.size(), ")"));
    return SendJson(res, it->second);
  }
  StatusOr<std::string> run = RequiredParam(req, "run");
  StatusOr<std::string> tag = RequiredParam(req, "tag");
  if (!run.ok()) return SendError(res, errors::InvalidArgument("/api/trace needs 'run' and 'tag', or 'file'"));
  if (!tag.ok()) return SendError(res, tag.status());
  StatusOr<std::string> bytes = store_->GetRunMetadata(*run, *tag);
  if (!bytes.ok()) return SendError(res, bytes.status());
  RunMetadata md;
  if (!md.ParseFromString(*bytes))
    return SendError(res, errors::DataLoss("run metadata '", *tag, "' of run '", *run, "' does not parse"));
  StatusOr<std::string> trace = StepStatsToChromeTrace(md.step_stats());
  if (!trace.ok())
    return SendError(res, trace.status().WithContext("run metadata '" + *tag + "' of run '" + *run + "'"));
  SendJson(res, std::move(trace).value());
}

void BoardServer::HandleStatic(const httplib::Request& req, httplib::Response& res) {
  const BoardAsset* asset = FindBoardAsset(req.path == "/" ? "/index.html" : req.path);
  if (asset == nullptr) {
    res.status = 404;
    res.set_content("not found: " + req.path + "\n", "text/plain; charset=utf-8");
    return;
  }
  // Served from the embedded bytes through a provider of known length:
  // no copy, and httplib does not compress it on every request (brotli
  // took ~170 ms for a 150 KB board.js; loopback needs no compression).
  const std::string_view data = asset->data;
  res.set_content_provider(data.size(), std::string(asset->content_type),
                           [data](size_t offset, size_t length, httplib::DataSink& sink) {
                             const size_t n = std::min(length, data.size() - std::min(offset, data.size()));
                             return sink.write(data.data() + offset, n);
                           });
}

}  // namespace flowvm::board

#include "flowvm/graph_io.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

namespace flowvm {

namespace {

class CollectErrors : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column, const std::string& message) override {
    if (first.empty()) first = "line " + std::to_string(line + 1) + ":" + std::to_string(column + 1) + ": " + message;
  }
  std::string first;
};

bool LooksLikeText(std::string_view bytes) {
  size_t n = std::min<size_t>(bytes.size(), 4096);
  if (n == 0) return false;
  for (size_t i = 0; i < n; ++i) {
    unsigned char c = bytes[i];
    if (c < 9 || (c > 13 && c < 32) || c == 127) return false;
  }
  return true;
}

bool HasSuffix(const std::string& s, const char* suffix) {
  size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

}  // namespace

StatusOr<GraphDef> ParseGraphDef(std::string_view bytes, GraphFormat format) {
  if (format == GraphFormat::kAuto) format = LooksLikeText(bytes) ? GraphFormat::kText : GraphFormat::kBinary;
  GraphDef graph;
  if (format == GraphFormat::kText) {
    google::protobuf::TextFormat::Parser parser;
    CollectErrors errors_seen;
    parser.RecordErrorsTo(&errors_seen);
    google::protobuf::io::ArrayInputStream input(bytes.data(), static_cast<int>(bytes.size()));
    if (!parser.Parse(&input, &graph))
      return errors::InvalidArgument("not a valid text GraphDef: ",
                                     errors_seen.first.empty() ? "parse error" : errors_seen.first);
    return graph;
  }
  if (bytes.size() > static_cast<size_t>(INT32_MAX))
    return errors::InvalidArgument("binary GraphDef is larger than 2 GiB, protobuf's limit");
  if (!graph.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    return errors::InvalidArgument("not a valid binary GraphDef (truncated, corrupted, or another kind of file)");
  return graph;
}

StatusOr<GraphDef> ReadGraphDefFile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return errors::InvalidArgument("graph file '", path, "' is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (errno == ENOENT) return errors::NotFound("graph file '", path, "' does not exist");
    return errors::PermissionDenied("cannot open graph file '", path, "': ", std::strerror(errno));
  }
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) return errors::DataLoss("error reading graph file '", path, "'");
  std::string bytes = buf.str();
  GraphFormat format = GraphFormat::kAuto;
  if (HasSuffix(path, ".pbtxt") || HasSuffix(path, ".pbtext") || HasSuffix(path, ".txt") ||
      HasSuffix(path, ".prototxt"))
    format = GraphFormat::kText;
  else if (HasSuffix(path, ".pb") || HasSuffix(path, ".graphdef"))
    format = GraphFormat::kBinary;
  auto graph = ParseGraphDef(bytes, format);
  if (!graph.ok()) return graph.status().WithContext("graph file '" + path + "'");
  return graph;
}

Status WriteGraphDefFile(const std::string& path, const GraphDef& graph) {
  std::string bytes;
  bool text = HasSuffix(path, ".pbtxt") || HasSuffix(path, ".pbtext") || HasSuffix(path, ".txt") ||
              HasSuffix(path, ".prototxt");
  if (text) {
    if (!google::protobuf::TextFormat::PrintToString(graph, &bytes))
      return errors::Internal("could not render the graph as text");
  } else if (!graph.SerializeToString(&bytes)) {
    return errors::InvalidArgument("could not serialise the graph (larger than 2 GiB?)");
  }
  std::string tmp = path + ".tmp";
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) return errors::PermissionDenied("cannot write graph file '", path, "': ", std::strerror(errno));
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  ok = (std::fclose(f) == 0) && ok;
  if (!ok) {
    std::remove(tmp.c_str());
    return errors::ResourceExhausted("error writing graph file '", path, "' (disk full?)");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return errors::PermissionDenied("cannot rename into graph file '", path, "': ", std::strerror(errno));
  }
  return Status::OK();
}

}  // namespace flowvm

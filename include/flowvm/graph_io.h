// Reading and writing GraphDefs: binary (.pb) and text (.pbtxt) protobuf,
// compatible with files written by TensorFlow.
#ifndef FLOWVM_GRAPH_IO_H_
#define FLOWVM_GRAPH_IO_H_

#include <string>
#include <string_view>

#include "flowvm/graph.pb.h"
#include "flowvm/status.h"

namespace flowvm {

enum class GraphFormat { kAuto, kBinary, kText };

// kAuto: text if the bytes look like text, binary otherwise. Errors say
// where parsing failed (line:column for text).
StatusOr<GraphDef> ParseGraphDef(std::string_view bytes, GraphFormat format = GraphFormat::kAuto);

// The format follows the extension: .pbtxt/.pbtext/.txt/.prototxt are text,
// .pb/.graphdef binary, anything else is detected from the content.
// Errors name the file.
StatusOr<GraphDef> ReadGraphDefFile(const std::string& path);

// Writes atomically (temporary file, then rename); text for text extensions.
Status WriteGraphDefFile(const std::string& path, const GraphDef& graph);

}  // namespace flowvm

#endif  // FLOWVM_GRAPH_IO_H_

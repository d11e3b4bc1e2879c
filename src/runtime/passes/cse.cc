#include "runtime/passes/cse.h"

#include <algorithm>
#include <functional>
#include <map>
#include <unordered_map>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include "runtime/passes/edit_util.h"

namespace flowvm {

namespace {

// A large Const is hashed from its size and a sample of its bytes; equal
// hashes are then compared in full.
constexpr size_t kFullHashBytes = 1024;
constexpr size_t kSampleBytes = 256;

void Combine(size_t* h, size_t v) { *h ^= v + 0x9e3779b97f4a7c15ULL + (*h << 6) + (*h >> 2); }

std::string Serialize(const google::protobuf::MessageLite& m) {
  std::string out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    m.SerializeToCodedStream(&coded);
  }
  return out;
}

size_t HashAttr(const AttrValue& v) {
  std::hash<std::string_view> h;
  if (v.has_tensor() && v.tensor().tensor_content().size() > kFullHashBytes) {
    const TensorProto& t = v.tensor();
    std::string_view content = t.tensor_content();
    size_t out = static_cast<size_t>(t.dtype());
    Combine(&out, h(Serialize(t.tensor_shape())));
    Combine(&out, content.size());
    Combine(&out, h(content.substr(0, kSampleBytes)));
    Combine(&out, h(content.substr(content.size() / 2, kSampleBytes)));
    Combine(&out, h(content.substr(content.size() - kSampleBytes)));
    return out;
  }
  return h(Serialize(v));
}

bool AttrsEqual(const NodeDef& a, const NodeDef& b) {
  if (a.attr_size() != b.attr_size()) return false;
  for (const auto& [name, value] : a.attr()) {
    auto it = b.attr().find(name);
    if (it == b.attr().end()) return false;
    const AttrValue& other = it->second;
    // Cheap rejections before serializing (large) tensors.
    if (value.value_case() != other.value_case()) return false;
    if (value.has_tensor() && value.tensor().tensor_content() != other.tensor().tensor_content()) return false;
    if (Serialize(value) != Serialize(other)) return false;
  }
  return true;
}

bool IsMergeable(const Node* n) {
  if (n->is_stateful() || n->IsControlFlow()) return false;
  const std::string& op = n->op();
  if (op == "Placeholder" || op == "PlaceholderWithDefault" || op == "_Send" || op == "_Recv" || op == "_Arg" ||
      op == "_Retval")
    return false;
  for (DataType t : n->input_types())
    if (IsRefType(t)) return false;
  for (DataType t : n->output_types())
    if (IsRefType(t)) return false;
  return true;
}

// What a node computes from: its data inputs by slot and its control inputs.
struct Inputs {
  std::vector<std::pair<int, int>> data;  // (src id, port) by slot
  std::vector<int> control;               // src ids, sorted
};

Inputs InputsOf(const Node* n) {
  Inputs in;
  in.data.assign(n->num_inputs(), {-1, -1});
  for (const Edge* e : n->in_edges()) {
    if (e->IsControlEdge())
      in.control.push_back(e->src()->id());
    else
      in.data[e->dst_input()] = {e->src()->id(), e->src_output()};
  }
  std::sort(in.control.begin(), in.control.end());
  return in;
}

size_t HashNode(const Node* n, const Inputs& in) {
  std::hash<std::string> h;
  size_t out = h(n->op());
  Combine(&out, h(n->requested_device()));
  // Map order is unspecified: combine the attrs in name order.
  std::map<std::string, const AttrValue*> attrs;
  for (const auto& [name, value] : n->def().attr()) attrs[name] = &value;
  for (const auto& [name, value] : attrs) {
    Combine(&out, h(name));
    Combine(&out, HashAttr(*value));
  }
  for (const auto& [src, port] : in.data) {
    Combine(&out, static_cast<size_t>(src));
    Combine(&out, static_cast<size_t>(port));
  }
  Combine(&out, 0x5bd1e995);  // separates data from control inputs
  for (int src : in.control) Combine(&out, static_cast<size_t>(src));
  return out;
}

bool SameComputation(const Node* a, const Inputs& ain, const Node* b, const Inputs& bin) {
  return a->op() == b->op() && a->requested_device() == b->requested_device() && ain.data == bin.data &&
         ain.control == bin.control && AttrsEqual(a->def(), b->def());
}

// Moves every out-edge of `from` to `to` (same ports and slots).
Status TakeOverOutEdges(Graph* graph, Node* from, Node* to) {
  // Data edges first, so a control edge is added only where no data edge
  // already orders the consumer after `to`.
  std::vector<const Edge*> outs = from->out_edges();
  std::stable_partition(outs.begin(), outs.end(), [](const Edge* e) { return !e->IsControlEdge(); });
  for (const Edge* e : outs) {
    Node* dst = e->dst();
    if (e->IsControlEdge()) {
      AddControlEdgeIfMissing(graph, to, dst);
      graph->RemoveEdge(e);
      continue;
    }
    int port = e->src_output(), slot = e->dst_input();
    graph->RemoveEdge(e);
    auto added = graph->AddEdge(to, port, dst, slot);
    if (!added.ok())
      return errors::Internal("common subexpression elimination: cannot move the input of ", dst->label(), " from '",
                              from->name(), "' to '", to->name(), "': ", added.status().message());
  }
  return Status::OK();
}

}  // namespace

Status EliminateCommonSubexpressions(Graph* graph, const std::unordered_set<std::string>& keep, CseResult* result) {
  result->merged.clear();
  std::vector<Node*> order;
  FLOWVM_RETURN_IF_ERROR(StableTopologicalOrder(*graph, &order));
  struct Seen {
    Node* node;
    Inputs inputs;
  };
  std::unordered_map<size_t, std::vector<Seen>> table;
  for (Node* n : order) {
    if (!IsMergeable(n)) continue;
    Inputs in = InputsOf(n);
    std::vector<Seen>& bucket = table[HashNode(n, in)];
    Seen* match = nullptr;
    for (Seen& s : bucket) {
      if (SameComputation(s.node, s.inputs, n, in)) {
        match = &s;
        break;
      }
    }
    if (match == nullptr) {
      bucket.push_back({n, std::move(in)});
      continue;
    }
    bool n_kept = keep.count(n->name()) > 0, match_kept = keep.count(match->node->name()) > 0;
    if (n_kept && match_kept) continue;  // both must survive
    // The kept node survives, else the one defined first (the lower id).
    // Both have the same inputs, so either may take over the other's
    // consumers without creating a cycle.
    Node* survivor = match->node;
    Node* duplicate = n;
    if (n_kept || (!match_kept && n->id() < match->node->id())) {
      std::swap(survivor, duplicate);
      match->node = survivor;
    }
    FLOWVM_RETURN_IF_ERROR(TakeOverOutEdges(graph, duplicate, survivor));
    result->merged.emplace_back(duplicate->name(), survivor->name());
    graph->RemoveNode(duplicate);
  }
  return Status::OK();
}

}  // namespace flowvm

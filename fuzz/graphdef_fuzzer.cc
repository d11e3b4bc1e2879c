// libFuzzer target: random bytes -> GraphDef (binary, and text when the bytes
// look like text) -> ValidateGraphDef + InspectGraph -> for a valid, small
// graph, AddSymbolicGradients on a copy, then Sessions (one device, and
// two devices with soft placement: the graphs carry device strings) and a
// few bounded Runs, one of them traced with a deadline.
//
// The aim is crashes, sanitizer reports, hangs and huge allocations caused by
// a small input, not out-of-memory from legitimately large computations: a
// graph is only run when a static bound on every tensor it can produce (and
// on the MatMul work) is small. Nothing is fed, so Placeholders fail cleanly.
//
// Half of the mutations are structure-aware (LLVMFuzzerCustomMutator below):
// they parse the input, change the graph and write it back, so that far more
// inputs are valid graphs that reach the runtime.
//
// Checked invariants (a violation aborts, so libFuzzer reports it):
//   - ValidateGraphDef and InspectGraph agree on whether the graph is valid;
//   - a graph ValidateGraphDef accepts, Session::Create accepts too, and a
//     two-device session with soft placement accepts it as well;
//   - AddSymbolicGradients returns one gradient per x and leaves a graph that
//     converts back from its GraphDef;
//   - a successful Run returns one tensor per fetch, of the fetched output's
//     dtype and of a shape compatible with the statically inferred one.
//
// Build: cmake -DFLOWVM_BUILD_FUZZ=ON with clang (see fuzz/CMakeLists.txt).
// Run:   graphdef_fuzzer -dict=fuzz/graphdef.dict CORPUS_COPY_DIR
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/text_format.h>

#include "flowvm/graph_io.h"
#include "flowvm/inspect.h"
#include "flowvm/session.h"
#include "flowvm/tensor.h"
#include "graph/gradients.h"
#include "graph/graph.h"
#include "graph/graph_scope.h"
#include "graph/shape_inference.h"

namespace flowvm {
namespace {

constexpr int kMaxNodes = 64;
constexpr int kMaxFetches = 4;
constexpr int64_t kMaxElements = 1000000;          // per tensor
constexpr int64_t kMaxTotalBytes = int64_t{256} << 20;  // all outputs of one step, roughly
constexpr int64_t kMaxMatMulWork = 50000000;        // multiply-adds per MatMul
constexpr int64_t kInf = int64_t{1} << 62;

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "graphdef_fuzzer: invariant violated: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

int64_t SatMul(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  if (a >= kInf / b) return kInf;
  return a * b;
}
int64_t SatAdd(int64_t a, int64_t b) { return a >= kInf - b ? kInf : a + b; }

bool LooksLikeText(std::string_view bytes) {
  if (bytes.empty()) return false;
  for (unsigned char c : bytes)
    if (c < 9 || (c > 13 && c < 32) || c == 127) return false;
  return true;
}

// Upper bounds for one output of a node: how many elements it may have and,
// for strings, how many bytes each element may hold.
struct Bound {
  int64_t elems = 0;
  int64_t str_bytes = 0;
};

// Static bound on what running `graph` can allocate. Inferred shapes are
// trusted when fully defined, except downstream of variables when an
// Assign(validate_shape=false) may change a variable's shape at run time.
// Variables share one bound (what any Assign* may store), found by iterating
// to a fixed point; a bound that keeps growing (x = x + x through a
// variable) means "too big". Returns false if the graph should not be run;
// graphs with file I/O ops are never run.
bool BoundedEnough(const Graph& graph, const ShapeRefiner& refiner) {
  std::vector<Node*> order;
  if (!graph.TopologicalOrder(&order).ok()) return false;
  bool reshaping_assign = false;
  for (Node* n : order) {
    // Checkpoint ops and ReadFile read and write files at paths the input
    // chooses (a FIFO would block, a device never end).
    if (n->op() == "SaveV2" || n->op() == "RestoreV2" || n->op() == "ReadFile") return false;
    // Shape attrs (Placeholder, VariableV2, ...) that describe huge tensors.
    for (const auto& [name, v] : n->def().attr()) {
      if (v.value_case() == AttrValue::kShape) {
        auto s = PartialTensorShape::FromProto(v.shape());
        if (s.ok() && s->num_elements() > kMaxElements) return false;
        if (s.ok() && !s->unknown_rank())
          for (int i = 0; i < s->dims(); ++i)
            if (s->dim_size(i) > kMaxElements) return false;
      }
    }
    if (n->op() == "Assign") {
      bool validate = true;
      if (!GetNodeAttr(n->def(), "validate_shape", &validate).ok() || !validate) reshaping_assign = true;
    }
  }

  std::vector<std::vector<Bound>> bounds(graph.num_node_ids());
  std::vector<char> var_derived(graph.num_node_ids(), 0);
  Bound var_bound;  // what a variable may hold
  for (int pass = 0; pass < 6; ++pass) {
    Bound assigned = var_bound;
    int64_t total_bytes = 0;
    for (Node* n : order) {
      const auto& shapes = refiner.OutputShapes(n->id());
      std::vector<Bound> in(n->num_inputs());
      bool from_var = false;
      for (const Edge* e : n->in_edges()) {
        if (e->IsControlEdge()) continue;
        const auto& src = bounds[e->src()->id()];
        if (e->src_output() < static_cast<int>(src.size())) in[e->dst_input()] = src[e->src_output()];
        from_var = from_var || var_derived[e->src()->id()];
      }
      const std::string& op = n->op();
      bool is_var = op == "VariableV2" || op == "Variable";
      var_derived[n->id()] = is_var || from_var;
      bool trust_shapes = !(reshaping_assign && var_derived[n->id()]);
      std::vector<Bound> out(n->num_outputs());
      for (int i = 0; i < n->num_outputs(); ++i) {
        Bound b;
        int64_t known = -1;
        if (trust_shapes && i < static_cast<int>(shapes.size())) known = shapes[i].num_elements();
        if (op == "Const") {
          const AttrValue* v = FindNodeAttr(n->def(), "value");
          if (v == nullptr || v->value_case() != AttrValue::kTensor) return false;
          auto s = TensorShape::FromProto(v->tensor().tensor_shape());
          if (!s.ok()) return false;
          b.elems = s->num_elements();
          for (const auto& str : v->tensor().string_val())
            b.str_bytes = std::max<int64_t>(b.str_bytes, static_cast<int64_t>(str.size()));
        } else if (op == "Placeholder" || op == "_Arg") {
          b.elems = 0;  // nothing is fed: these fail (or have nothing to give)
        } else if (is_var) {
          b = var_bound;
          if (known >= 0) b.elems = known;  // Assign(validate_shape=true) keeps it
        } else {
          // Broadcasting ops and MatMul produce at most the product of their
          // input sizes; the others pass an input through.
          int64_t prod = 1, max_in = 0, sum_bytes = 0, max_bytes = 0;
          for (const Bound& x : in) {
            prod = SatMul(prod, std::max<int64_t>(x.elems, 1));
            max_in = std::max(max_in, x.elems);
            sum_bytes = SatAdd(sum_bytes, x.str_bytes);
            max_bytes = std::max(max_bytes, x.str_bytes);
          }
          if (in.empty()) prod = 1;
          b.elems = known >= 0 ? known : (in.size() <= 1 ? max_in : prod);
          if (op == "IsVariableInitialized") b.elems = 1;
          b.str_bytes = (op == "Add") ? sum_bytes : max_bytes;
          if (op == "StringSplitV2" && !in.empty()) {
            // At most one token per byte of an element, plus one.
            const int64_t tokens = SatMul(in[0].elems, SatAdd(in[0].str_bytes, 1));
            b.elems = i == 0 ? SatMul(tokens, 2) : i == 1 ? tokens : 2;
          }
          if (op == "MatMul" && in.size() == 2) {
            // m*k*n <= |a| * |b| (and exactly that when shapes are known).
            int64_t work = SatMul(in[0].elems, in[1].elems);
            if (work > kMaxMatMulWork) {
              // Allow it when the static k makes it small: m*n*k.
              int64_t k = -1;
              for (const Edge* e : n->in_edges()) {
                if (e->IsControlEdge() || e->dst_input() != 1 || !trust_shapes) continue;
                const auto& bs = refiner.OutputShapes(e->src()->id());
                if (e->src_output() < static_cast<int>(bs.size()) && bs[e->src_output()].IsFullyDefined() &&
                    bs[e->src_output()].dims() == 2) {
                  bool tb = false;
                  GetNodeAttr(n->def(), "transpose_b", &tb).IgnoreError();
                  k = bs[e->src_output()].dim_size(tb ? 1 : 0);
                }
              }
              if (k < 0 || known < 0 || SatMul(known, k) > kMaxMatMulWork) return false;
            }
          }
        }
        if (b.elems > kMaxElements) return false;
        if (SatMul(b.elems, b.str_bytes) > kMaxTotalBytes) return false;
        total_bytes = SatAdd(total_bytes, SatMul(b.elems, 16 + b.str_bytes));
        out[i] = b;
      }
      if (op == "Assign" || op == "AssignAdd" || op == "AssignSub") {
        if (in.size() == 2) {
          assigned.elems = std::max(assigned.elems, in[1].elems);
          assigned.str_bytes = std::max(assigned.str_bytes, in[1].str_bytes);
        }
      }
      bounds[n->id()] = std::move(out);
    }
    if (total_bytes > kMaxTotalBytes) return false;
    if (assigned.elems == var_bound.elems && assigned.str_bytes == var_bound.str_bytes) return true;
    var_bound = assigned;
  }
  return false;  // still growing: values can double through a variable
}

// `must_accept`: ValidateGraphDef accepted the graph, so a session must.
void RunGraph(const GraphDef& def, const SessionOptions& options, bool must_accept) {
  auto session = Session::Create(options, def);
  if (!session.ok()) {
    if (must_accept)
      Fail("ValidateGraphDef accepted a graph Session::Create rejects: " + session.status().ToString());
    return;
  }
  // A graph a session accepted converts and has inferable shapes.
  Graph graph;
  if (!ConvertGraphDefToGraph(def, &graph).ok()) Fail("a session accepted a graph that does not convert");
  ShapeRefiner refiner;
  if (!refiner.InferAll(graph).ok()) Fail("a session accepted a graph whose shapes do not infer");
  if (!BoundedEnough(graph, refiner)) return;

  // Fetch the first output of the last few nodes that have outputs; the
  // other nodes are targets in the second run.
  std::vector<std::string> fetches;
  std::vector<Node*> fetched;
  std::set<std::string> fetched_names;
  for (int i = def.node_size() - 1; i >= 0 && static_cast<int>(fetches.size()) < kMaxFetches; --i) {
    Node* n = graph.FindNode(def.node(i).name());
    if (n == nullptr || n->num_outputs() == 0) continue;
    fetches.push_back(n->name() + ":0");
    fetched.push_back(n);
    fetched_names.insert(n->name());
  }
  std::vector<std::string> targets;
  for (const NodeDef& nd : def.node())
    if (!fetched_names.count(nd.name())) targets.push_back(nd.name());

  // Assign(validate_shape=false) may change a variable's shape at run time,
  // and a _Retval of the graph itself may write a fetch slot (both are the
  // graph's doing): only check fetched values where neither can happen.
  bool check_shapes = true, check_types = true;
  for (Node* n : graph.nodes()) {
    bool validate = true;
    if (n->op() == "Assign" && (!GetNodeAttr(n->def(), "validate_shape", &validate).ok() || !validate))
      check_shapes = false;
    if (n->op() == "_Retval") check_shapes = check_types = false;
  }

  auto check = [&](const std::vector<Tensor>& out, size_t n_fetches) {
    if (out.size() != n_fetches)
      Fail("Run returned " + std::to_string(out.size()) + " tensors for " + std::to_string(n_fetches) + " fetches");
    for (size_t i = 0; i < n_fetches; ++i) {
      Node* n = fetched[i];
      DataType want = BaseType(n->output_type(0));
      if (check_types && out[i].dtype() != want)
        Fail("fetch " + fetches[i] + " has dtype " + DataTypeName(out[i].dtype()) + ", expected " +
             DataTypeName(want));
      const auto& shapes = refiner.OutputShapes(n->id());
      if (check_shapes && !shapes.empty() && !shapes[0].IsCompatibleWith(out[i].shape()))
        Fail("fetch " + fetches[i] + " has shape " + out[i].shape().DebugString() + ", inferred " +
             shapes[0].DebugString());
      (void)out[i].DebugString(4);
    }
  };

  std::vector<Tensor> out;
  // 1: fetches only (pruned step); 2: everything; 3: step 1 again (cache
  // hit), traced, with a deadline, returning the partition graphs.
  if ((*session)->Run({}, fetches, {}, &out).ok()) check(out, fetches.size());
  out.clear();
  if ((*session)->Run({}, fetches, targets, &out).ok()) check(out, fetches.size());
  out.clear();
  RunStats stats;
  RunOptions run_options;
  run_options.set_trace_level(RunOptions::FULL_TRACE);
  run_options.set_timeout_in_ms(60000);
  run_options.set_output_partition_graphs(true);
  RunMetadata metadata;
  if ((*session)->Run(run_options, {}, fetches, {}, &out, &metadata, &stats).ok()) check(out, fetches.size());
  if (metadata.partition_graphs_size() != stats.partitions && stats.partitions > 0)
    Fail("RunMetadata has " + std::to_string(metadata.partition_graphs_size()) + " partition graphs for " +
         std::to_string(stats.partitions) + " partitions");
  (void)(*session)->graph_def();
  (*session)->Close().IgnoreError();
  // Closed sessions refuse to run.
  if ((*session)->Run({}, fetches, {}, &out).ok()) Fail("Run on a closed session succeeded");
}

// Differentiates the graph: the floating outputs of its last nodes with
// respect to the floating outputs of its source nodes. Whatever the graph,
// AddSymbolicGradients returns a status; when it succeeds, the extended
// graph is a graph the runtime accepts (every node was validated as it was
// added, and new nodes only consume existing ones).
void ExerciseGradients(const GraphDef& def) {
  Graph graph;
  if (!ConvertGraphDefToGraph(def, &graph).ok()) return;
  std::vector<NodeOut> ys, xs;
  std::vector<Node*> nodes = graph.nodes();
  for (auto it = nodes.rbegin(); it != nodes.rend() && ys.size() < 3; ++it)
    for (int k = 0; k < (*it)->num_outputs(); ++k)
      if (IsDifferentiableType((*it)->output_type(k))) ys.emplace_back(*it, k);
  for (Node* n : nodes)
    if (n->in_edges().empty())
      for (int k = 0; k < n->num_outputs(); ++k)
        if (IsDifferentiableType(n->output_type(k))) xs.emplace_back(n, k);
  if (ys.empty() || xs.empty()) return;
  GraphScope root(&graph);
  std::vector<NodeOut> grads;
  if (!AddSymbolicGradients(root, ys, xs, {}, &grads).ok()) return;
  if (grads.size() != xs.size()) Fail("AddSymbolicGradients returned " + std::to_string(grads.size()) +
                                      " gradients for " + std::to_string(xs.size()) + " xs");
  GraphDef extended;
  graph.ToGraphDef(&extended);
  Graph check;
  Status s = ConvertGraphDefToGraph(extended, &check);
  if (!s.ok()) Fail("the gradient graph does not convert back: " + s.ToString());
}

void Exercise(const GraphDef& def) {
  Status valid = ValidateGraphDef(def);
  GraphReport report = InspectGraph(def);
  if (static_cast<int>(report.nodes.size()) != def.node_size())
    Fail("InspectGraph reported " + std::to_string(report.nodes.size()) + " nodes of " +
         std::to_string(def.node_size()));
  if (valid.ok() != report.errors.empty())
    Fail("ValidateGraphDef says " + valid.ToString() + " but InspectGraph found " +
         std::to_string(report.errors.size()) + " errors" +
         (report.errors.empty() ? std::string() : ", first: " + report.errors[0].ToString()));
  if (def.node_size() > kMaxNodes) return;
  // Two devices, soft placement: device strings that name no device of a
  // one-device session still run here.
  SessionOptions two;
  two.num_threads = 1;
  two.cpu_devices = 2;
  two.allow_soft_placement = true;
  if (!valid.ok()) {
    RunGraph(def, two, /*must_accept=*/false);
    return;
  }
  ExerciseGradients(def);
  SessionOptions one;
  one.num_threads = 1;
  RunGraph(def, one, /*must_accept=*/true);
  RunGraph(def, two, /*must_accept=*/true);
}

// ---- structure-aware mutation -----------------------------------------------
//
// Byte-level mutation rarely keeps a GraphDef valid, and only valid graphs
// reach the runtime. Half of the mutations therefore parse the input (in its
// own format), change the graph the way a graph author could (retype it,
// reshape a constant, swap an op, rewire an input, add or drop a node, flip a
// bool attr) and serialize it back.

using Rng = std::mt19937;

size_t Pick(Rng& rng, size_t n) { return n == 0 ? 0 : static_cast<size_t>(rng() % n); }

const DataType kTypes[] = {DT_FLOAT,  DT_DOUBLE, DT_INT32,  DT_INT64,     DT_UINT8,      DT_INT8,
                           DT_INT16,  DT_UINT16, DT_UINT32, DT_UINT64,    DT_HALF,       DT_BFLOAT16,
                           DT_BOOL,   DT_STRING, DT_COMPLEX64, DT_COMPLEX128, DT_QINT8, DT_QUINT8,
                           DT_QINT32, DT_QINT16, DT_QUINT16};

const int64_t kInts[] = {0, 1, -1, 2, 3, 7, 127, -128, 255, 32767, -32768, 65535, INT32_MAX, INT32_MIN};

// Fills `t` (dtype and shape already set) with a few values in the field
// its dtype uses, or with exact tensor_content now and then.
void FillTensor(TensorProto* t, Rng& rng) {
  DataType dtype = t->dtype();
  TensorProto fresh;
  fresh.set_dtype(dtype);
  *fresh.mutable_tensor_shape() = t->tensor_shape();
  *t = fresh;
  auto shape = TensorShape::FromProto(t->tensor_shape());
  int64_t n = shape.ok() ? shape->num_elements() : 0;
  if (dtype != DT_STRING && n > 0 && n <= 64 && rng() % 4 == 0) {
    std::string bytes(n * DataTypeSize(dtype), '\0');
    for (char& c : bytes) c = static_cast<char>(rng() % 4 == 0 ? rng() : 0);
    t->set_tensor_content(bytes);
    return;
  }
  int count = static_cast<int>(Pick(rng, 4));
  for (int i = 0; i < count; ++i) {
    int64_t v = kInts[Pick(rng, std::size(kInts))];
    switch (dtype) {
      case DT_FLOAT: {
        const float f[] = {0.f, 1.f, -1.f, 0.5f, 3e38f, -0.f, 1e-45f, INFINITY, NAN};
        t->add_float_val(f[Pick(rng, std::size(f))]);
        break;
      }
      case DT_DOUBLE: t->add_double_val(rng() % 5 == 0 ? NAN : static_cast<double>(v) * 1.5); break;
      case DT_INT64: t->add_int64_val(rng() % 5 == 0 ? INT64_MIN : v); break;
      case DT_UINT32: t->add_uint32_val(static_cast<uint32_t>(v)); break;
      case DT_UINT64: t->add_uint64_val(static_cast<uint64_t>(v)); break;
      case DT_BOOL: t->add_bool_val(v & 1); break;
      case DT_HALF:
      case DT_BFLOAT16: t->add_half_val(static_cast<int>(rng() & 0xffff)); break;
      case DT_COMPLEX64: t->add_scomplex_val(static_cast<float>(v)); t->add_scomplex_val(-1.f); break;
      case DT_COMPLEX128: t->add_dcomplex_val(static_cast<double>(v)); t->add_dcomplex_val(0.25); break;
      case DT_STRING: t->add_string_val(std::string(Pick(rng, 5), static_cast<char>('a' + Pick(rng, 26)))); break;
      default: t->add_int_val(static_cast<int32_t>(v)); break;
    }
  }
}

void RandomShape(TensorShapeProto* shape, Rng& rng, bool allow_unknown) {
  shape->Clear();
  if (allow_unknown && rng() % 8 == 0) {
    shape->set_unknown_rank(true);
    return;
  }
  int rank = static_cast<int>(Pick(rng, 4));
  for (int i = 0; i < rank; ++i) {
    const int64_t sizes[] = {0, 1, 1, 2, 2, 3, 4, 5, 16};
    int64_t d = sizes[Pick(rng, std::size(sizes))];
    if (allow_unknown && rng() % 6 == 0) d = -1;
    shape->add_dim()->set_size(d);
  }
}

// All type-valued attrs (and Const values) of type `from` become `to`.
void Retype(GraphDef* g, DataType from, DataType to, Rng& rng) {
  for (NodeDef& n : *g->mutable_node()) {
    for (auto& [name, v] : *n.mutable_attr()) {
      if (v.value_case() == AttrValue::kType && v.type() == from) v.set_type(to);
      if (v.value_case() == AttrValue::kTensor && v.tensor().dtype() == from) {
        v.mutable_tensor()->set_dtype(to);
        FillTensor(v.mutable_tensor(), rng);
      }
    }
  }
}

std::string FreshName(const GraphDef& g, Rng& rng) {
  for (int attempt = 0;; ++attempt) {
    std::string name = "n" + std::to_string(rng() % 1000) + (attempt > 20 ? "_" + std::to_string(attempt) : "");
    bool taken = false;
    for (const NodeDef& n : g.node()) taken = taken || n.name() == name;
    if (!taken) return name;
  }
}

// A type some node of the graph uses, else float.
DataType SomeType(const GraphDef& g, Rng& rng) {
  std::vector<DataType> seen;
  for (const NodeDef& n : g.node())
    for (const auto& [name, v] : n.attr())
      if (v.value_case() == AttrValue::kType) seen.push_back(v.type());
  return seen.empty() ? DT_FLOAT : seen[Pick(rng, seen.size())];
}

void MutateGraph(GraphDef* g, Rng& rng) {
  const int nodes = g->node_size();
  const int index = static_cast<int>(Pick(rng, nodes));
  NodeDef* node = nodes > 0 ? g->mutable_node(index) : nullptr;
  switch (rng() % 11) {
    case 10: {  // ask for a device (well-formed or not, existing or not)
      if (node == nullptr) break;
      const char* devices[] = {"", "/device:CPU:0", "/device:CPU:1", "/cpu:1", "CPU:0",
                               "/job:localhost/replica:0/task:0/device:CPU:1", "/device:CPU:*", "/device:GPU:0",
                               "/job:ps", "/job:", "/device:CPU:7", "/job:localhost/task:0"};
      node->set_device(devices[Pick(rng, std::size(devices))]);
      break;
    }
    case 0: {  // retype the graph
      DataType from = SomeType(*g, rng);
      Retype(g, from, kTypes[Pick(rng, std::size(kTypes))], rng);
      break;
    }
    case 1: {  // reshape (and refill) a constant, or a shape attr
      if (node == nullptr) break;
      for (auto& [name, v] : *node->mutable_attr()) {
        if (v.value_case() == AttrValue::kTensor) {
          RandomShape(v.mutable_tensor()->mutable_tensor_shape(), rng, false);
          FillTensor(v.mutable_tensor(), rng);
        } else if (v.value_case() == AttrValue::kShape) {
          RandomShape(v.mutable_shape(), rng, true);
        }
      }
      break;
    }
    case 2: {  // refill a constant
      if (node == nullptr) break;
      for (auto& [name, v] : *node->mutable_attr())
        if (v.value_case() == AttrValue::kTensor) FillTensor(v.mutable_tensor(), rng);
      break;
    }
    case 3: {  // swap an op for another with the same arity
      if (node == nullptr) break;
      const char* binary[] = {"Add", "AddV2", "Sub", "Mul", "MatMul", "Assign", "AssignAdd", "AssignSub"};
      const char* unary[] = {"Identity", "PlaceholderWithDefault", "IsVariableInitialized", "_Retval"};
      const char* nullary[] = {"Const", "Placeholder", "VariableV2", "Variable", "NoOp", "_Arg"};
      int data_inputs = 0;
      for (const auto& in : node->input()) data_inputs += !in.empty() && in[0] != '^';
      if (data_inputs == 2) node->set_op(binary[Pick(rng, std::size(binary))]);
      else if (data_inputs == 1) node->set_op(unary[Pick(rng, std::size(unary))]);
      else if (data_inputs == 0) node->set_op(nullary[Pick(rng, std::size(nullary))]);
      break;
    }
    case 4: {  // rewire one input
      if (node == nullptr || node->input_size() == 0) break;
      const NodeDef& src = g->node(static_cast<int>(Pick(rng, nodes)));
      std::string in = src.name();
      if (rng() % 4 == 0) in += ":" + std::to_string(Pick(rng, 2));
      node->set_input(static_cast<int>(Pick(rng, node->input_size())), in);
      break;
    }
    case 5: {  // add a control input
      if (node == nullptr) break;
      node->add_input("^" + g->node(static_cast<int>(Pick(rng, nodes))).name());
      break;
    }
    case 6: {  // add a node that consumes existing ones
      if (nodes == 0) break;
      NodeDef n;
      n.set_name(FreshName(*g, rng));
      DataType t = SomeType(*g, rng);
      const std::string a = g->node(static_cast<int>(Pick(rng, nodes))).name();
      const std::string b = g->node(static_cast<int>(Pick(rng, nodes))).name();
      switch (rng() % 6) {
        case 0: n.set_op("Identity"); n.add_input(a); break;
        case 1: n.set_op("NoOp"); n.add_input("^" + a); break;
        case 2: n.set_op("MatMul"); n.add_input(a); n.add_input(b); break;
        case 3: n.set_op("Assign"); n.add_input(a); n.add_input(b); break;
        default: n.set_op(rng() % 2 ? "Mul" : "Add"); n.add_input(a); n.add_input(b); break;
      }
      if (n.op() != "NoOp") (*n.mutable_attr())["T"].set_type(t);
      *g->add_node() = std::move(n);
      break;
    }
    case 7: {  // duplicate a node under a new name
      if (node == nullptr) break;
      NodeDef copy = *node;
      copy.set_name(FreshName(*g, rng));
      *g->add_node() = std::move(copy);
      break;
    }
    case 8: {  // drop a node (or one input)
      if (node == nullptr) break;
      if (node->input_size() > 0 && rng() % 2) {
        node->mutable_input()->erase(node->mutable_input()->begin() + Pick(rng, node->input_size()));
      } else {
        g->mutable_node()->erase(g->mutable_node()->begin() + index);
      }
      break;
    }
    case 9: {  // flip a bool attr, or set a variable's container / shared_name
      if (node == nullptr) break;
      for (auto& [name, v] : *node->mutable_attr())
        if (v.value_case() == AttrValue::kB) v.set_b(!v.b());
      if (node->op() == "VariableV2" || node->op() == "Variable") {
        const char* names[] = {"", "v", "c", "shared"};
        (*node->mutable_attr())[rng() % 2 ? "container" : "shared_name"].set_s(names[Pick(rng, std::size(names))]);
      }
      break;
    }
  }
}

}  // namespace
}  // namespace flowvm

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  flowvm::Rng rng(seed);
  if (rng() % 2 == 0) return LLVMFuzzerMutate(data, size, max_size);
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  bool text = flowvm::LooksLikeText(bytes);
  auto graph = flowvm::ParseGraphDef(bytes, text ? flowvm::GraphFormat::kText : flowvm::GraphFormat::kBinary);
  if (!graph.ok()) return LLVMFuzzerMutate(data, size, max_size);
  int rounds = 1 + static_cast<int>(rng() % 3);
  for (int i = 0; i < rounds; ++i) flowvm::MutateGraph(&*graph, rng);
  std::string out;
  if (text) {
    google::protobuf::TextFormat::Printer printer;
    printer.SetSingleLineMode(true);
    if (!printer.PrintToString(*graph, &out)) return LLVMFuzzerMutate(data, size, max_size);
  } else if (!graph->SerializeToString(&out)) {
    return LLVMFuzzerMutate(data, size, max_size);
  }
  if (out.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, out.data(), out.size());
  return out.size();
}

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  // Binary parsing logs every invalid UTF-8 string field; that noise only
  // slows the fuzzer down (parse errors are returned as Status anyway).
  google::protobuf::SetLogHandler(nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto binary = flowvm::ParseGraphDef(bytes, flowvm::GraphFormat::kBinary);
  if (binary.ok()) flowvm::Exercise(*binary);
  if (flowvm::LooksLikeText(bytes)) {
    auto text = flowvm::ParseGraphDef(bytes, flowvm::GraphFormat::kText);
    if (text.ok()) flowvm::Exercise(*text);
  }
  // Sessions own their variables: nothing outlives an input.
  return 0;
}

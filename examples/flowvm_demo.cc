// The demo behind the README's first command: builds a small model graph
// with plain GraphDef protos (TensorFlow's format), saves it, and writes an
// input batch as .npy so that `flowvm run` can execute it:
//
//   y = MatMul(x, W) + b          x: Placeholder [?, 3], W, b: variables
//   steps = AssignAdd(counter, 1) run with y, so it counts steps
//   init = NoOp with control inputs on every variable's Assign
//
// Usage: flowvm_demo OUT_GRAPH.(pb|pbtxt)   (x.npy goes beside the graph)
#include <cstdio>
#include <filesystem>
#include <string>

#include "flowvm/graph_io.h"
#include "flowvm/npy.h"
#include "flowvm/tensor.h"

namespace {

using flowvm::GraphDef;
using flowvm::NodeDef;

NodeDef* AddNode(GraphDef* g, const std::string& name, const std::string& op, std::initializer_list<std::string> inputs) {
  NodeDef* n = g->add_node();
  n->set_name(name);
  n->set_op(op);
  for (const auto& in : inputs) n->add_input(in);
  return n;
}

void SetType(NodeDef* n, const std::string& attr, flowvm::DataType t) { (*n->mutable_attr())[attr].set_type(t); }

void SetShape(NodeDef* n, std::initializer_list<int64_t> dims) {
  auto* shape = (*n->mutable_attr())["shape"].mutable_shape();
  for (int64_t d : dims) shape->add_dim()->set_size(d);
}

void AddConst(GraphDef* g, const std::string& name, const flowvm::Tensor& value) {
  NodeDef* n = AddNode(g, name, "Const", {});
  SetType(n, "dtype", value.dtype());
  value.AsProtoTensorContent((*n->mutable_attr())["value"].mutable_tensor());
}

// A VariableV2 `name` with an initializer `name/Assign` from a constant.
void AddVariable(GraphDef* g, const std::string& name, const flowvm::Tensor& initial) {
  NodeDef* v = AddNode(g, name, "VariableV2", {});
  SetType(v, "dtype", initial.dtype());
  auto* shape = (*v->mutable_attr())["shape"].mutable_shape();
  for (int64_t d : initial.shape().dim_sizes()) shape->add_dim()->set_size(d);
  AddConst(g, name + "/initial_value", initial);
  NodeDef* assign = AddNode(g, name + "/Assign", "Assign", {name, name + "/initial_value"});
  SetType(assign, "T", initial.dtype());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: flowvm_demo OUT_GRAPH.(pb|pbtxt)\n");
    return 2;
  }
  std::string graph_path = argv[1];
  GraphDef g;
  g.mutable_versions()->set_producer(27);

  NodeDef* x = AddNode(&g, "x", "Placeholder", {});
  SetType(x, "dtype", flowvm::DT_FLOAT);
  SetShape(x, {-1, 3});
  AddVariable(&g, "W", flowvm::Tensor::FromVector<float>({1, 0, 0, 1, 1, 1}, flowvm::TensorShape({3, 2})));
  AddVariable(&g, "b", flowvm::Tensor::FromVector<float>({0.5f, -0.5f}));
  AddVariable(&g, "counter", flowvm::Tensor::Scalar<int32_t>(0));
  AddConst(&g, "one", flowvm::Tensor::Scalar<int32_t>(1));

  SetType(AddNode(&g, "xW", "MatMul", {"x", "W"}), "T", flowvm::DT_FLOAT);
  SetType(AddNode(&g, "y", "AddV2", {"xW", "b"}), "T", flowvm::DT_FLOAT);
  SetType(AddNode(&g, "steps", "AssignAdd", {"counter", "one"}), "T", flowvm::DT_INT32);
  AddNode(&g, "init", "NoOp", {"^W/Assign", "^b/Assign", "^counter/Assign"});

  flowvm::Status s = flowvm::WriteGraphDefFile(graph_path, g);
  if (s.ok()) {
    auto x_path = std::filesystem::path(graph_path).parent_path() / "x.npy";
    auto batch = flowvm::Tensor::FromVector<float>({1, 2, 3, 4, 5, 6, -1, 0, 1, 0.5f, 0.25f, 0}, flowvm::TensorShape({4, 3}));
    s = flowvm::WriteNpyFile(x_path.string(), batch);
    if (s.ok()) std::printf("wrote %s (%d nodes) and %s\n", graph_path.c_str(), g.node_size(), x_path.c_str());
  }
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}

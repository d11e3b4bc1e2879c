#include "kernels/framework/kernel_registry.h"

#include <map>
#include <mutex>

namespace flowvm {

namespace {

struct Registration {
  KernelDef def;
  KernelFactory factory;
};

struct Registry {
  std::mutex mu;
  std::multimap<std::string, Registration> by_op;
};

Registry* GlobalRegistry() {
  static Registry* r = new Registry();
  return r;
}

bool Matches(const KernelDef& def, const std::string& device_type, const NodeDef& node) {
  if (def.device_type != device_type) return false;
  for (const auto& constraint : def.type_constraints) {
    const std::vector<DataType>& types = constraint.second;
    const AttrValue* v = FindNodeAttr(node, constraint.first);
    if (v == nullptr) return false;
    auto allowed = [&types](int t) {
      for (DataType a : types)
        if (a == t) return true;
      return false;
    };
    if (v->value_case() == AttrValue::kType) {
      if (!allowed(v->type())) return false;
    } else if (v->value_case() == AttrValue::kList) {
      for (int t : v->list().type())
        if (!allowed(t)) return false;
    } else {
      return false;
    }
  }
  return true;
}

const Registration* Find(const std::string& device_type, const NodeDef& node) {
  Registry* r = GlobalRegistry();
  std::lock_guard<std::mutex> lock(r->mu);
  auto [begin, end] = r->by_op.equal_range(node.op());
  for (auto it = begin; it != end; ++it)
    if (Matches(it->second.def, device_type, node)) return &it->second;
  return nullptr;
}

std::string DescribeRegistered(const std::string& op) {
  std::string out;
  for (const std::string& k : DescribeKernels(op)) out += (out.empty() ? "" : "; ") + k;
  return out.empty() ? "none" : out;
}

}  // namespace

std::vector<std::string> DescribeKernels(const std::string& op) {
  Registry* r = GlobalRegistry();
  std::lock_guard<std::mutex> lock(r->mu);
  auto [begin, end] = r->by_op.equal_range(op);
  std::vector<std::string> out;
  for (auto it = begin; it != end; ++it) {
    std::string one = it->second.def.device_type;
    for (const auto& [attr, types] : it->second.def.type_constraints) {
      one += " " + attr + "=";
      for (size_t i = 0; i < types.size(); ++i) one += (i ? "|" : "") + DataTypeName(types[i]);
    }
    out.push_back(std::move(one));
  }
  return out;
}

KernelDefBuilder& KernelDefBuilder::TypeConstraint(const std::string& attr, std::vector<DataType> types) {
  def_.type_constraints.emplace_back(attr, std::move(types));
  return *this;
}

void internal::RegisterKernel(const KernelDef& def, KernelFactory factory) {
  Registry* r = GlobalRegistry();
  std::lock_guard<std::mutex> lock(r->mu);
  r->by_op.emplace(def.op, Registration{def, std::move(factory)});
}

bool HasKernel(const std::string& device_type, const NodeDef& node) { return Find(device_type, node) != nullptr; }

Status CheckKernelExists(const std::string& device_type, const NodeDef& node) {
  if (Find(device_type, node) != nullptr) return Status::OK();
  std::string types;
  for (const auto& [name, v] : node.attr()) {
    if (v.value_case() == AttrValue::kType) {
      types += (types.empty() ? "" : ", ") + name + "=" + DataTypeName(v.type());
    } else if (v.value_case() == AttrValue::kList && v.list().type_size() > 0) {
      types += (types.empty() ? "" : ", ") + name + "=[";
      for (int i = 0; i < v.list().type_size(); ++i)
        types += (i ? "," : "") + DataTypeName(static_cast<DataType>(v.list().type(i)));
      types += "]";
    }
  }
  return errors::NotFound(NodeLabel(node), ": no ", device_type, " kernel for op ", node.op(),
                          types.empty() ? "" : " with " + types, " (registered kernels: ", DescribeRegistered(node.op()),
                          ")");
}

StatusOr<std::unique_ptr<OpKernel>> CreateOpKernel(const std::string& device_type, const NodeDef& node,
                                                   const OpDef& op_def, const DataTypeVector& input_types,
                                                   const DataTypeVector& output_types, DeviceBase* device,
                                                   FunctionLibraryRuntime* flr) {
  const Registration* reg = Find(device_type, node);
  if (reg == nullptr) return CheckKernelExists(device_type, node);
  OpKernelConstruction ctx(device_type, &node, &op_def, &input_types, &output_types, device);
  ctx.set_function_library(flr);
  std::unique_ptr<OpKernel> kernel(reg->factory(&ctx));
  if (!ctx.status().ok()) return AttachNode(ctx.status(), node);
  return kernel;
}

}  // namespace flowvm

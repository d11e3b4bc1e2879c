// The op registry: every op's signature (an OpDef: typed inputs and outputs,
// attrs with types, defaults and constraints, statefulness) and its shape
// function, registered once at static-initialisation time:
//
//   REGISTER_OP("MatMul")
//       .Input("a: T").Input("b: T").Output("product: T")
//       .Attr("transpose_a: bool = false").Attr("transpose_b: bool = false")
//       .Attr("T: {float, double, int32, int64}")
//       .SetShapeFn(MatMulShape);
//
// Spec strings follow TensorFlow's REGISTER_OP syntax. A malformed spec is a
// programming error caught when the registry is first used (the process
// reports it and aborts); it never depends on user input.
// Thread safety: registration happens before main(); lookups are lock-free
// reads of an immutable map afterwards, and Register is mutex-protected for
// late (plugin) registration.
#ifndef FLOWVM_GRAPH_OP_REGISTRY_H_
#define FLOWVM_GRAPH_OP_REGISTRY_H_

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "flowvm/op_def.pb.h"
#include "flowvm/status.h"

namespace flowvm {

class InferenceContext;
using ShapeFn = std::function<Status(InferenceContext*)>;

struct OpRegistrationData {
  OpDef op_def;
  ShapeFn shape_fn;  // may be empty: outputs get unknown shapes
};

class OpRegistry {
 public:
  static OpRegistry* Global();

  // Returns NotFound naming the op (with a hint if a similar name exists).
  StatusOr<const OpRegistrationData*> LookUp(const std::string& op) const;
  const OpRegistrationData* LookUpOrNull(const std::string& op) const;
  std::vector<std::string> ListOps() const;

  // Aborts on a duplicate name or a malformed definition (programming error).
  void Register(std::unique_ptr<OpRegistrationData> data);

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<OpRegistrationData>> ops_;
};

// Builds one op's definition from TensorFlow-style spec strings.
class OpDefBuilder {
 public:
  explicit OpDefBuilder(std::string name);
  OpDefBuilder& Input(std::string spec);   // "x: T", "xs: N * T", "ref: Ref(T)", "v: float"
  OpDefBuilder& Output(std::string spec);
  OpDefBuilder& Attr(std::string spec);    // "T: {float, int32}", "N: int >= 1", "p: string = 'SAME'"
  OpDefBuilder& SetIsStateful();
  OpDefBuilder& SetIsCommutative();
  OpDefBuilder& SetIsAggregate();
  OpDefBuilder& SetAllowsUninitializedInput();
  OpDefBuilder& SetShapeFn(ShapeFn fn);
  OpDefBuilder& Doc(std::string summary);

  // Parses the specs; returns an error naming the op and the bad spec.
  Status Finalize(OpRegistrationData* out) const;

 private:
  std::string name_;
  std::vector<std::string> inputs_, outputs_, attrs_;
  bool stateful_ = false, commutative_ = false, aggregate_ = false, allows_uninit_ = false;
  std::string summary_;
  ShapeFn shape_fn_;
};

namespace internal {
struct OpRegistrar {
  OpRegistrar(const OpDefBuilder& builder);  // NOLINT: implicit for the macro
};
}  // namespace internal

#define FLOWVM_OP_CONCAT_INNER_(a, b) a##b
#define FLOWVM_OP_CONCAT_(a, b) FLOWVM_OP_CONCAT_INNER_(a, b)
#define REGISTER_OP(name)                                                              \
  static ::flowvm::internal::OpRegistrar FLOWVM_OP_CONCAT_(flowvm_op_registrar_, __COUNTER__) \
      [[maybe_unused]] = ::flowvm::OpDefBuilder(name)

}  // namespace flowvm

#endif  // FLOWVM_GRAPH_OP_REGISTRY_H_

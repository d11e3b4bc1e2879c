// The kernel interface. An OpKernel is created once per node of a prepared
// graph (it may precompute from attrs) and then computed once per step, from
// any number of concurrent steps: Compute must be thread-safe and keep
// per-step data in the OpKernelContext.
//
// Synchronous kernels implement Compute. Asynchronous kernels (Recv, queue
// ops) derive from AsyncOpKernel and implement ComputeAsync, calling `done`
// when finished: they hold no thread while they wait.
//
// Errors: a kernel reports failure with ctx->SetStatus (or the OP_REQUIRES
// macros) and returns; the executor names the node and cancels the step.
#ifndef FLOWVM_KERNELS_FRAMEWORK_OP_KERNEL_H_
#define FLOWVM_KERNELS_FRAMEWORK_OP_KERNEL_H_

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/thread_pool.h"
#include "flowvm/dtype.h"
#include "flowvm/status.h"
#include "flowvm/tensor.h"
#include "graph/node_def_util.h"
#include "kernels/framework/device_base.h"

namespace flowvm {

class CancellationManager;
class Rendezvous;
class ResourceMgr;
class CallFrame;
class AsyncOpKernel;
class FunctionLibraryRuntime;

// What the kernel sees of its node at construction time.
class OpKernelConstruction {
 public:
  // `device` may be null (a kernel built outside any device, in tests).
  OpKernelConstruction(std::string device_type, const NodeDef* def, const OpDef* op_def,
                       const DataTypeVector* input_types, const DataTypeVector* output_types, DeviceBase* device)
      : device_type_(std::move(device_type)), def_(def), op_def_(op_def), input_types_(input_types),
        output_types_(output_types), device_(device) {}

  const NodeDef& def() const { return *def_; }
  const OpDef& op_def() const { return *op_def_; }
  const std::string& device_type() const { return device_type_; }
  const DataTypeVector& input_types() const { return *input_types_; }
  const DataTypeVector& output_types() const { return *output_types_; }
  DeviceBase* device() const { return device_; }
  ResourceMgr* resource_manager() const { return device_ == nullptr ? nullptr : device_->resource_manager(); }
  // The functions of the graph this kernel is part of, instantiated on its
  // device (kernels/framework/function_runtime.h); null when the graph is
  // run without one (kernels built in tests).
  FunctionLibraryRuntime* function_library() const { return flr_; }
  void set_function_library(FunctionLibraryRuntime* flr) { flr_ = flr; }

  template <typename T>
  Status GetAttr(const std::string& name, T* out) const {
    return GetNodeAttr(*def_, name, out);
  }
  void SetStatus(const Status& s) { status_.Update(s); }
  const Status& status() const { return status_; }

 private:
  std::string device_type_;
  const NodeDef* def_;
  const OpDef* op_def_;
  const DataTypeVector* input_types_;
  const DataTypeVector* output_types_;
  DeviceBase* device_;
  FunctionLibraryRuntime* flr_ = nullptr;
  Status status_;
};

class OpKernelContext;

class OpKernel {
 public:
  explicit OpKernel(OpKernelConstruction* ctx);
  virtual ~OpKernel();
  OpKernel(const OpKernel&) = delete;
  OpKernel& operator=(const OpKernel&) = delete;

  virtual void Compute(OpKernelContext* ctx) = 0;
  virtual AsyncOpKernel* AsAsync() { return nullptr; }
  // Cheap kernels run inline on the thread that made them ready; expensive
  // ones may be handed to another thread when more than one node is ready.
  virtual bool IsExpensive() const { return true; }

  const NodeDef& def() const { return def_; }
  const std::string& name() const { return def_.name(); }
  const std::string& type_string() const { return def_.op(); }
  int num_inputs() const { return static_cast<int>(input_types_.size()); }
  int num_outputs() const { return static_cast<int>(output_types_.size()); }
  DataType input_type(int i) const { return input_types_[i]; }
  DataType output_type(int i) const { return output_types_[i]; }

 private:
  NodeDef def_;
  DataTypeVector input_types_, output_types_;
};

class AsyncOpKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  using DoneCallback = std::function<void()>;
  // Must call `done` exactly once, on any thread, after setting outputs or
  // an error on ctx. ctx stays valid until then.
  virtual void ComputeAsync(OpKernelContext* ctx, DoneCallback done) = 0;
  AsyncOpKernel* AsAsync() final { return this; }
  // Runs ComputeAsync and blocks until done (for callers that need a result
  // now, e.g. constant folding).
  void Compute(OpKernelContext* ctx) final;
};

// One input as the executor hands it over: a value, or (for ref inputs) a
// pointer to the variable's tensor and the mutex that guards it, and the
// shape the variable was declared with (null if unknown): an uninitialized
// variable has no tensor shape of its own to check an Assign against.
struct TensorValue {
  Tensor* tensor = nullptr;
  std::mutex* mutex_if_ref = nullptr;
  const PartialTensorShape* declared_shape = nullptr;
  bool is_ref() const { return mutex_if_ref != nullptr; }
};

// One output slot, filled by the kernel.
struct OutputSlot {
  Tensor value;
  Tensor* ref = nullptr;  // set for ref outputs
  std::mutex* ref_mu = nullptr;
  const PartialTensorShape* ref_declared_shape = nullptr;
  bool has_value = false;
};

// Resources (variables, queues) a step has used: held until the step is
// done, so that a concurrent ResetContainers cannot free one under a kernel
// that still points into it. Thread-safe.
class StepResources {
 public:
  void Keep(std::shared_ptr<ResourceBase> resource) {
    std::lock_guard<std::mutex> lock(mu_);
    held_.push_back(std::move(resource));
  }

 private:
  std::mutex mu_;
  std::vector<std::shared_ptr<ResourceBase>> held_;
};

// Which frame and iteration of a loop a node runs in (0:0 outside loops);
// part of every rendezvous key.
struct FrameAndIter {
  int64_t frame_id = 0;
  int64_t iter_id = 0;
};

// Per-step state every kernel of one partition of the step may use.
struct StepState {
  int64_t step_id = 0;
  DeviceBase* device = nullptr;          // the partition's device; may be null in tests
  CancellationManager* cancellation = nullptr;
  Rendezvous* rendezvous = nullptr;
  StepResources* resources = nullptr;    // may be null: nothing is held
  CallFrame* call_frame = nullptr;       // feeds and fetches of a Session::Run
  ThreadPool* pool = nullptr;            // the device's threads; null: run inline
  Allocator* allocator = nullptr;        // the step's (within its memory budget); null: the device's
  FunctionLibraryRuntime* function_library = nullptr;  // the partition's functions; may be null
  int call_depth = 0;                    // > 0 inside a function body run by a kernel
};

class OpKernelContext {
 public:
  OpKernelContext(const StepState* step, OpKernel* kernel, TensorValue* inputs, OutputSlot* outputs)
      : step_(step), kernel_(kernel), inputs_(inputs), outputs_(outputs) {}

  OpKernel& op_kernel() const { return *kernel_; }
  const StepState& step() const { return *step_; }
  int64_t step_id() const { return step_->step_id; }
  DeviceBase* device() const { return step_->device; }
  ResourceMgr* resource_manager() const {
    return step_->device == nullptr ? nullptr : step_->device->resource_manager();
  }
  // Where outputs and temporaries come from: the device's allocator, within
  // the step's memory budget if it has one (core/step_memory.h).
  Allocator* allocator() const {
    if (step_->allocator != nullptr) return step_->allocator;
    return step_->device == nullptr ? ProcessCpuAllocator() : step_->device->allocator();
  }
  FrameAndIter frame_iter() const { return frame_iter_; }
  void set_frame_iter(FrameAndIter f) { frame_iter_ = f; }
  // Keeps `resource` alive until the step is done (see StepResources).
  void KeepAliveForStep(std::shared_ptr<ResourceBase> resource) const {
    if (step_->resources != nullptr) step_->resources->Keep(std::move(resource));
  }
  CancellationManager* cancellation_manager() const { return step_->cancellation; }
  Rendezvous* rendezvous() const { return step_->rendezvous; }
  CallFrame* call_frame() const { return step_->call_frame; }
  FunctionLibraryRuntime* function_library() const { return step_->function_library; }

  // Intra-op parallelism on the session's one pool (see core/thread_pool.h):
  // fn(begin, end) over [0, total), cost_per_unit in rough CPU cycles.
  void ParallelFor(int64_t total, int64_t cost_per_unit,
                   const std::function<void(int64_t, int64_t)>& fn) const {
    ::flowvm::ParallelFor(step_->pool, total, cost_per_unit, fn);
  }
  // Threads ParallelFor may use, the caller included.
  int num_threads() const { return step_->pool == nullptr ? 1 : step_->pool->num_threads() + 1; }

  int num_inputs() const { return kernel_->num_inputs(); }
  int num_outputs() const { return kernel_->num_outputs(); }
  // A non-ref input. (The executor has already read ref inputs that the op
  // takes by value.)
  const Tensor& input(int i) const { return *inputs_[i].tensor; }
  // A ref input: the variable's tensor, guarded by *mutex.
  Tensor* mutable_input(int i) const { return inputs_[i].tensor; }
  std::mutex* input_ref_mutex(int i) const { return inputs_[i].mutex_if_ref; }
  // The declared shape of the variable behind ref input i, or null.
  const PartialTensorShape* input_ref_declared_shape(int i) const { return inputs_[i].declared_shape; }
  bool input_is_ref(int i) const { return inputs_[i].is_ref(); }
  // False for a Merge's inputs that have not arrived alive (a Merge sees
  // only its first live input).
  bool has_input(int i) const { return inputs_[i].tensor != nullptr; }
  // A _Send runs even when its input is dead, to pass the deadness on
  // (inside conditionals and loops); it then has no input value.
  bool is_input_dead() const { return input_dead_; }
  void set_input_dead(bool dead) { input_dead_ = dead; }

  // Allocates output i from the device's allocator; errors (out of memory)
  // are also set on the context.
  Status allocate_output(int i, const TensorShape& shape, Tensor** out);
  // A scratch tensor from the device's allocator (not an output).
  Status allocate_temp(DataType dtype, const TensorShape& shape, Tensor* out);
  void set_output(int i, Tensor value) {
    outputs_[i].value = std::move(value);
    outputs_[i].has_value = true;
  }
  void set_output_ref(int i, std::mutex* mu, Tensor* ref, const PartialTensorShape* declared_shape = nullptr) {
    outputs_[i].ref = ref;
    outputs_[i].ref_mu = mu;
    outputs_[i].ref_declared_shape = declared_shape;
    outputs_[i].has_value = true;
  }
  // Hands input i's buffer to output i if nobody else holds it (in-place).
  bool forward_input_to_output(int input, int output, const TensorShape& shape, Tensor** out);

  // False if nothing reads output i in this graph: a kernel may then set
  // it to anything (an empty tensor) instead of computing it.
  bool output_required(int i) const { return i >= 64 || ((outputs_required_ >> i) & 1) != 0; }
  void set_outputs_required(uint64_t mask) { outputs_required_ = mask; }

  void SetStatus(const Status& s) { status_.Update(s); }
  const Status& status() const { return status_; }

 private:
  const StepState* step_;
  OpKernel* kernel_;
  TensorValue* inputs_;
  OutputSlot* outputs_;
  FrameAndIter frame_iter_;
  bool input_dead_ = false;
  uint64_t outputs_required_ = ~uint64_t{0};
  Status status_;
};

// Kernel error handling in the style of TensorFlow's OP_REQUIRES.
#define OP_REQUIRES(CTX, EXP, STATUS)         \
  do {                                        \
    if (!(EXP)) {                             \
      (CTX)->SetStatus(STATUS);               \
      return;                                 \
    }                                         \
  } while (0)

#define OP_REQUIRES_OK(CTX, ...)              \
  do {                                        \
    ::flowvm::Status _s(__VA_ARGS__);         \
    if (!_s.ok()) {                           \
      (CTX)->SetStatus(_s);                   \
      return;                                 \
    }                                         \
  } while (0)

#define OP_REQUIRES_ASYNC(CTX, EXP, STATUS, DONE) \
  do {                                            \
    if (!(EXP)) {                                 \
      (CTX)->SetStatus(STATUS);                   \
      (DONE)();                                   \
      return;                                     \
    }                                             \
  } while (0)

#define OP_REQUIRES_OK_ASYNC(CTX, STATUS, DONE)   \
  do {                                            \
    ::flowvm::Status _s(STATUS);                  \
    if (!_s.ok()) {                               \
      (CTX)->SetStatus(_s);                       \
      (DONE)();                                   \
      return;                                     \
    }                                             \
  } while (0)

}  // namespace flowvm

#endif  // FLOWVM_KERNELS_FRAMEWORK_OP_KERNEL_H_

#include "runtime/function_runtime.h"

#include <atomic>

#include "graph/function_body.h"
#include "kernels/framework/call_frame.h"
#include "kernels/framework/cancellation.h"
#include "runtime/executor.h"
#include "runtime/passes/function_inlining.h"

namespace flowvm {

namespace {

// Calls made outside any step get ids of their own, counting down from -1
// so they never meet a session's step ids (which name per-step containers).
int64_t NextCallStepId() {
  static std::atomic<int64_t> next{-1};
  return next.fetch_sub(1, std::memory_order_relaxed);
}

}  // namespace

class DeviceFunctionRuntime::Instance : public FunctionInstance {
 public:
  Instance(std::string name, DataTypeVector args, DataTypeVector rets, std::vector<std::string> arg_names,
           std::unique_ptr<Executor> executor)
      : name_(std::move(name)),
        arg_types_(std::move(args)),
        ret_types_(std::move(rets)),
        arg_names_(std::move(arg_names)),
        executor_(std::move(executor)) {}

  const std::string& name() const override { return name_; }
  const DataTypeVector& arg_types() const override { return arg_types_; }
  const DataTypeVector& ret_types() const override { return ret_types_; }

  void RunAsync(const FunctionCallOptions& options, std::vector<Tensor> args, std::vector<Tensor>* rets,
                DoneCallback done) const override {
    if (args.size() != arg_types_.size())
      return done(errors::InvalidArgument("function '", name_, "' takes ", arg_types_.size(), " argument",
                                          arg_types_.size() == 1 ? "" : "s", ", not ", args.size()));
    for (size_t i = 0; i < args.size(); ++i)
      if (!args[i].IsInitialized() || args[i].dtype() != arg_types_[i])
        return done(errors::InvalidArgument("argument '", arg_names_[i], "' of function '", name_, "' must be ",
                                            DataTypeName(arg_types_[i]), ", not ",
                                            args[i].IsInitialized() ? DataTypeName(args[i].dtype()) : "missing"));
    struct Call {
      std::vector<Tensor> args;
      std::unique_ptr<CallFrame> frame;
      CancellationManager cancellation;
      StepResources resources;
    };
    auto call = std::make_shared<Call>();
    call->args = std::move(args);
    rets->assign(ret_types_.size(), Tensor());
    call->frame = std::make_unique<CallFrame>(call->args.data(), static_cast<int>(call->args.size()), rets->data(),
                                              static_cast<int>(rets->size()));
    Executor::RunArgs run;
    run.step_id = options.step_id != 0 ? options.step_id : NextCallStepId();
    // The call has a cancellation manager of its own, cancelled with the
    // caller's: an error inside the body cancels the rest of the body but not
    // the caller, for which the error may be an answer (a tf.data map
    // function's OutOfRange ends its dataset; the iterator goes on).
    run.cancellation = &call->cancellation;
    CancellationManager* parent = options.cancellation;
    CancellationManager::Token token = CancellationManager::kInvalidToken;
    if (parent != nullptr) {
      token = parent->Register([call, parent] { call->cancellation.StartCancel(parent->reason()); });
      if (token == CancellationManager::kInvalidToken) call->cancellation.StartCancel(parent->reason());
    }
    run.resources = options.resources != nullptr ? options.resources : &call->resources;
    run.call_frame = call->frame.get();
    run.call_depth = options.depth;
    executor_->RunAsync(run, [this, call, rets, parent, token, done = std::move(done)](const Status& s) {
      if (token != CancellationManager::kInvalidToken) parent->Deregister(token);
      if (s.ok())
        for (size_t i = 0; i < rets->size(); ++i)
          if (!(*rets)[i].IsInitialized())
            return done(errors::Internal("function '", name_, "' finished without result ", i));
      done(s);
    });
  }

 private:
  const std::string name_;
  const DataTypeVector arg_types_, ret_types_;
  const std::vector<std::string> arg_names_;
  const std::unique_ptr<Executor> executor_;
};

DeviceFunctionRuntime::DeviceFunctionRuntime(DeviceBase* device, std::shared_ptr<FunctionLibraryDefinition> library)
    : device_(device), library_(std::move(library)) {}

DeviceFunctionRuntime::~DeviceFunctionRuntime() = default;

std::shared_ptr<DeviceFunctionRuntime> DeviceFunctionRuntime::Create(
    DeviceBase* device, std::shared_ptr<FunctionLibraryDefinition> library) {
  return std::shared_ptr<DeviceFunctionRuntime>(new DeviceFunctionRuntime(device, std::move(library)));
}

StatusOr<std::shared_ptr<const FunctionInstance>> DeviceFunctionRuntime::Instantiate(const NameAttrList& func) {
  const std::string key = CanonicalFunctionKey(func);
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = cache_.find(key);
    if (it != cache_.end()) return std::shared_ptr<const FunctionInstance>(shared_from_this(), it->second.get());
  }
  // Built outside the lock: the body's own kernels may instantiate other
  // functions of this runtime.
  FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<FunctionBody> body, InstantiateFunction(library_, func));
  FunctionInliningReport report;
  Status s = InlineFunctionCalls(body->graph.get(), &report);
  if (!s.ok()) return s.WithContext("instantiating function '" + func.name() + "'");
  for (Node* n : body->graph->nodes()) n->set_assigned_device(device_ != nullptr ? device_->name() : "");
  ExecutorOptions options;
  options.device = device_;
  options.pool = device_ != nullptr ? device_->thread_pool() : nullptr;
  options.function_library = this;
  auto executor = Executor::Create(std::move(body->graph), options);
  if (!executor.ok()) return executor.status().WithContext("instantiating function '" + func.name() + "'");
  auto instance = std::make_unique<Instance>(func.name(), body->arg_types, body->ret_types, body->arg_names,
                                             std::move(executor).value());
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, fresh] = cache_.emplace(key, std::move(instance));
  return std::shared_ptr<const FunctionInstance>(shared_from_this(), it->second.get());
}

}  // namespace flowvm

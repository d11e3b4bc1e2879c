// The iterator ops: Iterator(V2) and OneShotIterator make an iterator
// resource (named by shared_name, else by the node, so that every step of
// a session finds the same one); MakeIterator starts a pass over a
// dataset; IteratorGetNext(Sync) reads the next element, asynchronously
// (iterator_resource.h); IteratorToStringHandle / IteratorFromStringHandle
// (V2) turn a handle into a string and back (feedable iterators), as a
// serialized ResourceHandleProto like TF's.
#include "flowvm/resource_handle.h"
#include "flowvm/tensor.pb.h"
#include "kernels/data/dataset_op_kernel.h"
#include "kernels/data/iterator_resource.h"
#include "kernels/framework/function_runtime.h"
#include "kernels/framework/kernel_registry.h"
#include "kernels/framework/resource_handles.h"

namespace flowvm::data {
namespace {

constexpr const char* kIteratorTypeName = "Iterator";

Status CheckSignature(const IteratorResource& it, const DataTypeVector& types,
                      const std::vector<PartialTensorShape>& shapes, const std::string& who) {
  if (it.output_dtypes() != types)
    return errors::InvalidArgument(who, " expects elements of types ", DataTypesString(types), ", but ",
                                   it.DebugString(), " produces ", DataTypesString(it.output_dtypes()));
  if (shapes.size() != it.output_shapes().size())
    return errors::InvalidArgument(who, " declares ", shapes.size(), " output shapes, but ", it.DebugString(),
                                   " has ", it.output_shapes().size());
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (!shapes[i].IsCompatibleWith(it.output_shapes()[i]))
      return errors::InvalidArgument(who, " expects elements of shapes ", ShapesString(shapes), ", but ",
                                     it.DebugString(), " produces ", ShapesString(it.output_shapes()));
  }
  return Status::OK();
}

// The resource (container, name) on ctx's device, made if missing; an
// existing one must have the same element signature.
Status LookupOrCreateIterator(OpKernelContext* ctx, const std::string& container, const std::string& name,
                              const DataTypeVector& types, const std::vector<PartialTensorShape>& shapes,
                              std::shared_ptr<IteratorResource>* out) {
  ResourceMgr* rm = ctx->resource_manager();
  if (rm == nullptr) return errors::Internal("no resource manager for iterator '", name, "'");
  FLOWVM_RETURN_IF_ERROR(rm->LookupOrCreate<IteratorResource>(
      container, name, out,
      [&]() -> StatusOr<std::shared_ptr<IteratorResource>> {
        return std::make_shared<IteratorResource>(name, types, shapes);
      }));
  FLOWVM_RETURN_IF_ERROR(CheckSignature(**out, types, shapes, "node '" + ctx->op_kernel().name() + "'"));
  ctx->KeepAliveForStep(*out);
  return Status::OK();
}

class IteratorHandleOp : public OpKernel {
 public:
  explicit IteratorHandleOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("container", &container_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shared_name", &shared_name_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("output_types", &types_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("output_shapes", &shapes_));
    if (shared_name_.empty()) shared_name_ = name();
  }
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<IteratorResource> it;
    OP_REQUIRES_OK(ctx, LookupOrCreateIterator(ctx, container_, shared_name_, types_, shapes_, &it));
    ctx->set_output(0, MakeResourceHandleTensor(ctx, container_, shared_name_, kIteratorTypeName));
  }
  bool IsExpensive() const override { return false; }

 private:
  std::string container_, shared_name_;
  DataTypeVector types_;
  std::vector<PartialTensorShape> shapes_;
};

class MakeIteratorOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    StatusOr<DatasetPtr> dataset = DatasetFromTensor(ctx->input(0), "input 'dataset'");
    OP_REQUIRES_OK(ctx, dataset.status());
    std::shared_ptr<IteratorResource> it;
    OP_REQUIRES_OK(ctx, LookupResource(ctx, 1, "iterator", &it));
    OP_REQUIRES_OK(ctx, it->SetIteratorFromDataset(std::move(*dataset)));
  }
  // Making a pass builds the iterator tree (cheap: elements come later).
  bool IsExpensive() const override { return false; }
};

class OneShotIteratorOp : public AsyncOpKernel {
 public:
  explicit OneShotIteratorOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx), flr_(ctx->function_library()) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("container", &container_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shared_name", &shared_name_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("output_types", &types_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("output_shapes", &shapes_));
    auto it = def().attr().find("dataset_factory");
    OP_REQUIRES(ctx, it != def().attr().end() && it->second.has_func(),
                errors::InvalidArgument("OneShotIterator needs a dataset_factory function"));
    factory_ = it->second.func();
    if (shared_name_.empty()) shared_name_ = name();
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    std::shared_ptr<IteratorResource> it;
    OP_REQUIRES_OK_ASYNC(ctx, LookupOrCreateIterator(ctx, container_, shared_name_, types_, shapes_, &it), done);
    FunctionLibraryRuntime* flr = ctx->function_library() != nullptr ? ctx->function_library() : flr_;
    const std::string who = "OneShotIterator '" + name() + "'";
    it->InitializeOnce(
        [flr, it, who, factory = factory_](std::function<void(const Status&)> finish) {
          if (flr == nullptr)
            return finish(errors::FailedPrecondition(who, " calls function '", factory.name(),
                                                     "', but its graph runs without a function library"));
          auto instance = flr->Instantiate(factory);
          if (!instance.ok())
            return finish(instance.status().WithContext(who + ", instantiating dataset_factory '" + factory.name() + "'"));
          std::shared_ptr<const FunctionInstance> f = std::move(*instance);
          auto rets = std::make_shared<std::vector<Tensor>>();
          // The factory runs once, in a call of its own: a cancelled first
          // step must not leave the iterator broken for the next ones.
          f->RunAsync(FunctionCallOptions(), {}, rets.get(), [f, rets, it, who, finish](const Status& s) {
            if (!s.ok()) return finish(s.WithContext(who + ", running dataset_factory '" + f->name() + "'"));
            if (rets->size() != 1)
              return finish(errors::InvalidArgument(who, ": dataset_factory '", f->name(), "' returned ", rets->size(),
                                                    " values instead of one dataset"));
            StatusOr<DatasetPtr> dataset =
                DatasetFromTensor((*rets)[0], "the value dataset_factory '" + f->name() + "' returned");
            if (!dataset.ok()) return finish(dataset.status().WithContext(who));
            finish(it->SetIteratorFromDataset(std::move(*dataset)));
          });
        },
        [this, ctx, done](const Status& s) {
          if (!s.ok()) {
            ctx->SetStatus(s);
          } else {
            ctx->set_output(0, MakeResourceHandleTensor(ctx, container_, shared_name_, kIteratorTypeName));
          }
          done();
        });
  }
  bool IsExpensive() const override { return false; }

 private:
  FunctionLibraryRuntime* const flr_;
  std::string container_, shared_name_;
  DataTypeVector types_;
  std::vector<PartialTensorShape> shapes_;
  NameAttrList factory_;
};

class IteratorGetNextOp : public AsyncOpKernel {
 public:
  explicit IteratorGetNextOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("output_types", &types_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("output_shapes", &shapes_));
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    std::shared_ptr<IteratorResource> it;
    OP_REQUIRES_OK_ASYNC(ctx, LookupResource(ctx, 0, "iterator", &it), done);
    IteratorResource* raw = it.get();  // the step keeps it alive
    raw->GetNextAsync(ctx->cancellation_manager(),
                      [this, ctx, raw, done = std::move(done)](const Status& s, std::vector<Tensor> element, bool end) {
                        if (!s.ok()) {
                          ctx->SetStatus(s);
                        } else if (end) {
                          ctx->SetStatus(errors::OutOfRange("End of sequence"));
                        } else if (!ElementMatches(element, types_, shapes_)) {
                          ctx->SetStatus(CheckElement(element, types_, shapes_,
                                                      raw->DebugString() + " (this node's output_types " +
                                                          DataTypesString(types_) + ", output_shapes " +
                                                          ShapesString(shapes_) + ")"));
                        } else {
                          for (size_t i = 0; i < element.size(); ++i)
                            ctx->set_output(static_cast<int>(i), std::move(element[i]));
                        }
                        done();
                      });
  }
  bool IsExpensive() const override { return false; }

 private:
  DataTypeVector types_;
  std::vector<PartialTensorShape> shapes_;
};

class IteratorToStringHandleOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    StatusOr<ResourceHandle> h = HandleFromInput(ctx, 0);
    OP_REQUIRES_OK(ctx, h.status());
    ResourceHandleProto proto;
    proto.set_device(h->device);
    proto.set_container(h->container);
    proto.set_name(h->name);
    proto.set_hash_code(h->hash_code);
    proto.set_maybe_type_name(h->type_name);
    ctx->set_output(0, Tensor::Scalar<std::string>(proto.SerializeAsString()));
  }
  bool IsExpensive() const override { return false; }
};

class IteratorFromStringHandleOp : public OpKernel {
 public:
  explicit IteratorFromStringHandleOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("output_types", &types_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("output_shapes", &shapes_));
    OP_REQUIRES(ctx, shapes_.empty() || shapes_.size() == types_.size(),
                errors::InvalidArgument("output_types and output_shapes must have the same length, got ",
                                        types_.size(), " and ", shapes_.size()));
  }
  void Compute(OpKernelContext* ctx) override {
    StatusOr<std::string> s = ScalarInput<std::string>(ctx, 0, "string_handle");
    OP_REQUIRES_OK(ctx, s.status());
    ResourceHandleProto proto;
    OP_REQUIRES(ctx, proto.ParseFromString(*s) && !proto.name().empty(),
                errors::InvalidArgument("Could not parse string_handle as a valid ResourceHandle"));
    if (ctx->device() != nullptr && !proto.device().empty() && proto.device() != ctx->device()->name()) {
      ctx->SetStatus(errors::InvalidArgument("the string handle names iterator '", proto.name(), "' on ",
                                             proto.device(), ", but this node runs on ", ctx->device()->name(),
                                             "; place it on the iterator's device"));
      return;
    }
    if (!types_.empty()) {
      ResourceMgr* rm = ctx->resource_manager();
      OP_REQUIRES(ctx, rm != nullptr, errors::Internal("no resource manager to find iterator '", proto.name(), "'"));
      std::shared_ptr<IteratorResource> it;
      OP_REQUIRES(ctx, rm->Lookup<IteratorResource>(proto.container(), proto.name(), &it).ok(),
                  errors::NotFound("iterator '", proto.name(), "' (container '", proto.container(),
                                   "') that the string handle names does not exist on this device"));
      OP_REQUIRES_OK(ctx, CheckSignature(*it, types_, shapes_.empty() ? it->output_shapes() : shapes_,
                                         "node '" + name() + "'"));
    }
    Tensor handle(DT_RESOURCE, TensorShape({}));
    ResourceHandle& h = handle.scalar<ResourceHandle>();
    h.device = proto.device();
    h.container = proto.container();
    h.name = proto.name();
    h.hash_code = proto.hash_code();
    h.type_name = proto.maybe_type_name();
    ctx->set_output(0, std::move(handle));
  }
  bool IsExpensive() const override { return false; }

 private:
  DataTypeVector types_;
  std::vector<PartialTensorShape> shapes_;
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("Iterator").Device(DEVICE_CPU), IteratorHandleOp);
REGISTER_KERNEL_BUILDER(Name("IteratorV2").Device(DEVICE_CPU), IteratorHandleOp);
REGISTER_KERNEL_BUILDER(Name("MakeIterator").Device(DEVICE_CPU), MakeIteratorOp);
REGISTER_KERNEL_BUILDER(Name("OneShotIterator").Device(DEVICE_CPU), OneShotIteratorOp);
REGISTER_KERNEL_BUILDER(Name("IteratorGetNext").Device(DEVICE_CPU), IteratorGetNextOp);
REGISTER_KERNEL_BUILDER(Name("IteratorGetNextSync").Device(DEVICE_CPU), IteratorGetNextOp);
REGISTER_KERNEL_BUILDER(Name("IteratorToStringHandle").Device(DEVICE_CPU), IteratorToStringHandleOp);
REGISTER_KERNEL_BUILDER(Name("IteratorFromStringHandle").Device(DEVICE_CPU), IteratorFromStringHandleOp);
REGISTER_KERNEL_BUILDER(Name("IteratorFromStringHandleV2").Device(DEVICE_CPU), IteratorFromStringHandleOp);

}  // namespace flowvm::data

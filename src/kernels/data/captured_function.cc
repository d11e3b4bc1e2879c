#include "kernels/data/captured_function.h"

namespace flowvm::data {

StatusOr<std::shared_ptr<const CapturedFunction>> CapturedFunction::Create(OpKernelContext* ctx,
                                                                           FunctionLibraryRuntime* flr,
                                                                           const std::string& attr, int first,
                                                                           int count, std::string owner) {
  const auto& attrs = ctx->op_kernel().def().attr();
  auto it = attrs.find(attr);
  if (it == attrs.end() || !it->second.has_func())
    return errors::InvalidArgument(owner, " has no function attr '", attr, "'");
  const NameAttrList& func = it->second.func();
  if (flr == nullptr)
    return errors::FailedPrecondition(owner, " calls function '", func.name(),
                                      "', but its graph runs without a function library");
  auto instance = flr->Instantiate(func);
  if (!instance.ok()) return instance.status().WithContext(owner + ", instantiating function '" + func.name() + "'");
  std::vector<Tensor> captured;
  for (int i = first; i < first + count; ++i) captured.push_back(ctx->input(i));
  const size_t want_args = captured.size();
  const DataTypeVector& arg_types = (*instance)->arg_types();
  if (arg_types.size() < want_args)
    return errors::InvalidArgument(owner, " captures ", want_args, " tensors, but function '", func.name(),
                                   "' takes only ", arg_types.size(), " arguments");
  return std::make_shared<const CapturedFunction>(std::move(*instance), std::move(captured), std::move(owner));
}

std::string CapturedFunction::Describe() const { return "function '" + name() + "' of " + owner_; }

Status CapturedFunction::Run(const IteratorContext* ctx, std::vector<Tensor> args, std::vector<Tensor>* rets) const {
  const size_t want = instance_->arg_types().size();
  if (args.size() + captured_.size() != want)
    return errors::InvalidArgument(Describe(), " takes ", want, " arguments, but it was given an element of ",
                                   args.size(), " components and ", captured_.size(), " captured tensors");
  args.insert(args.end(), captured_.begin(), captured_.end());
  rets->clear();
  Status s = instance_->Run(ctx->call_options(), std::move(args), rets);
  if (!s.ok()) return Status(s.code(), Describe() + ": " + s.message());
  return Status::OK();
}

Status CapturedFunction::RunAndCheck(const IteratorContext* ctx, std::vector<Tensor> args, const DataTypeVector& types,
                                     std::vector<Tensor>* rets) const {
  FLOWVM_RETURN_IF_ERROR(Run(ctx, std::move(args), rets));
  if (rets->size() != types.size())
    return errors::InvalidArgument(Describe(), " returned ", rets->size(), " values, but the dataset declares ",
                                   types.size(), " components ", DataTypesString(types));
  for (size_t i = 0; i < types.size(); ++i) {
    if ((*rets)[i].dtype() != types[i])
      return errors::InvalidArgument(Describe(), " returned a ", DataTypeName((*rets)[i].dtype()),
                                     " as component ", i, ", but the dataset declares ", DataTypeName(types[i]));
  }
  return Status::OK();
}

}  // namespace flowvm::data

#include "kernels/data/dataset_op_kernel.h"

#include "kernels/data/captured_function.h"

namespace flowvm::data {

DatasetOpKernel::DatasetOpKernel(OpKernelConstruction* ctx) : OpKernel(ctx), flr_(ctx->function_library()) {
  const auto& attrs = def().attr();
  if (attrs.count("output_types")) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("output_types", &output_types_));
  } else if (attrs.count("Toutput_types")) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("Toutput_types", &output_types_));
  }
  if (attrs.count("output_shapes")) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("output_shapes", &output_shapes_));
    OP_REQUIRES(ctx, output_shapes_.size() == output_types_.size(),
                errors::InvalidArgument("output_shapes has ", output_shapes_.size(), " shapes but output_types has ",
                                        output_types_.size(), " types"));
  }
  for (const auto& arg : ctx->op_def().input_arg()) {
    int n = 1;
    if (!arg.number_attr().empty()) {
      int64_t count = 0;
      OP_REQUIRES_OK(ctx, ctx->GetAttr(arg.number_attr(), &count));
      n = static_cast<int>(count);
    } else if (!arg.type_list_attr().empty()) {
      DataTypeVector types;
      OP_REQUIRES_OK(ctx, ctx->GetAttr(arg.type_list_attr(), &types));
      n = static_cast<int>(types.size());
    }
    arg_sizes_.emplace_back(arg.name(), n);
  }
}

StatusOr<std::shared_ptr<const CapturedFunction>> DatasetOpKernel::CaptureFunction(OpKernelContext* ctx,
                                                                                   const std::string& attr) const {
  int first = 0, count = 0;
  FLOWVM_RETURN_IF_ERROR(InputRange("other_arguments", &first, &count));
  return CapturedFunction::Create(ctx, function_library(ctx), attr, first, count, Describe());
}

Status DatasetOpKernel::InputRange(const std::string& arg, int* start, int* count) const {
  int at = 0;
  for (const auto& [name, n] : arg_sizes_) {
    if (name == arg) {
      *start = at;
      *count = n;
      return Status::OK();
    }
    at += n;
  }
  return errors::Internal(type_string(), " has no input argument '", arg, "'");
}

void DatasetOpKernel::Compute(OpKernelContext* ctx) {
  StatusOr<DatasetPtr> dataset = MakeDataset(ctx);
  OP_REQUIRES_OK(ctx, dataset.status());
  ctx->set_output(0, DatasetToTensor(std::move(*dataset)));
}

StatusOr<DatasetPtr> InputDataset(OpKernelContext* ctx, int i, const char* arg) {
  return DatasetFromTensor(ctx->input(i), std::string("input '") + arg + "'");
}

StatusOr<std::vector<std::string>> StringsInput(OpKernelContext* ctx, int i, const char* arg) {
  const Tensor& t = ctx->input(i);
  if (t.dtype() != DT_STRING || t.dims() > 1)
    return errors::InvalidArgument(arg, " must be a scalar or a vector of strings, got a ", DataTypeName(t.dtype()),
                                   " tensor of shape ", t.shape().DebugString());
  auto v = t.flat<std::string>();
  return std::vector<std::string>(v.begin(), v.end());
}

}  // namespace flowvm::data

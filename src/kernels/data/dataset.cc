#include "kernels/data/dataset.h"

#include "flowvm/variant.h"

namespace flowvm::data {

namespace {

// What a dataset's DT_VARIANT holds (Variant keeps the exact type it was
// made with, so the pointer is wrapped rather than stored as a subclass).
struct DatasetHolder {
  DatasetPtr dataset;
};

}  // namespace

CancelCallback::CancelCallback(CancellationManager* cm, std::function<void()> fn)
    : cm_(cm), shared_(std::make_shared<Shared>()) {
  shared_->fn = std::move(fn);
  std::shared_ptr<Shared> shared = shared_;
  token_ = cm_->Register([shared] {
    std::lock_guard<std::mutex> lock(shared->mu);
    if (shared->fn) shared->fn();
  });
  if (token_ == CancellationManager::kInvalidToken) shared_->fn();
}

CancelCallback::~CancelCallback() {
  if (token_ != CancellationManager::kInvalidToken) cm_->Deregister(token_);
  std::lock_guard<std::mutex> lock(shared_->mu);
  shared_->fn = nullptr;
}

uint64_t SeedGenerators::Next(const std::string& key, uint64_t seed) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = streams_.find(key);
  if (it == streams_.end()) it = streams_.emplace(key, std::mt19937_64(seed)).first;
  return it->second();
}

Tensor DatasetToTensor(DatasetPtr dataset) {
  Tensor t(DT_VARIANT, TensorShape({}));
  t.scalar<Variant>() = Variant::Of(std::make_shared<DatasetHolder>(DatasetHolder{std::move(dataset)}),
                                    kDatasetVariantTypeName);
  return t;
}

StatusOr<DatasetPtr> DatasetFromTensor(const Tensor& t, const std::string& what) {
  if (t.dtype() != DT_VARIANT || t.dims() != 0)
    return errors::InvalidArgument(what, " must be a dataset (a scalar variant tensor), got a ", DataTypeName(t.dtype()),
                                   " tensor of shape ", t.shape().DebugString());
  const Variant& v = t.scalar<Variant>();
  const DatasetHolder* h = v.get<DatasetHolder>();
  if (h == nullptr || h->dataset == nullptr)
    return errors::InvalidArgument(what, " must be a dataset, got a variant holding ",
                                   v.empty() ? std::string("nothing") : "a " + v.TypeName());
  return h->dataset;
}

std::string DataTypesString(const DataTypeVector& types) {
  std::string s = "[";
  for (size_t i = 0; i < types.size(); ++i) s += (i ? ", " : "") + DataTypeName(types[i]);
  return s + "]";
}

std::string ShapesString(const std::vector<PartialTensorShape>& shapes) {
  std::string s = "[";
  for (size_t i = 0; i < shapes.size(); ++i) s += (i ? ", " : "") + shapes[i].DebugString();
  return s + "]";
}

Status CheckDatasetMatches(const DatasetBase& dataset, const DataTypeVector& dtypes,
                           const std::vector<PartialTensorShape>& shapes, const std::string& what) {
  if (dataset.output_dtypes() != dtypes)
    return errors::InvalidArgument(what, " expects elements of types ", DataTypesString(dtypes), ", but ",
                                   dataset.DebugString(), " produces ", DataTypesString(dataset.output_dtypes()));
  if (shapes.empty()) return Status::OK();
  if (dataset.output_shapes().size() != shapes.size())
    return errors::InvalidArgument(what, " declares ", shapes.size(), " output shapes for ", dtypes.size(),
                                   " components");
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (!shapes[i].IsCompatibleWith(dataset.output_shapes()[i]))
      return errors::InvalidArgument(what, " expects elements of shapes ", ShapesString(shapes), ", but ",
                                     dataset.DebugString(), " produces ", ShapesString(dataset.output_shapes()),
                                     " (component ", i, " differs)");
  }
  return Status::OK();
}

bool ElementMatches(const std::vector<Tensor>& element, const DataTypeVector& dtypes,
                    const std::vector<PartialTensorShape>& shapes) {
  if (element.size() != dtypes.size()) return false;
  for (size_t i = 0; i < element.size(); ++i) {
    if (element[i].dtype() != dtypes[i]) return false;
    if (i < shapes.size() && !shapes[i].IsCompatibleWith(element[i].shape())) return false;
  }
  return true;
}

Status CheckElement(const std::vector<Tensor>& element, const DataTypeVector& dtypes,
                    const std::vector<PartialTensorShape>& shapes, const std::string& source) {
  if (element.size() != dtypes.size())
    return errors::InvalidArgument("an element of ", source, " has ", element.size(), " components, but ",
                                   dtypes.size(), " were expected");
  for (size_t i = 0; i < element.size(); ++i) {
    if (element[i].dtype() != dtypes[i])
      return errors::InvalidArgument("component ", i, " of an element of ", source, " is a ",
                                     DataTypeName(element[i].dtype()), " tensor, but ", DataTypeName(dtypes[i]),
                                     " was expected");
    if (i < shapes.size() && !shapes[i].IsCompatibleWith(element[i].shape()))
      return errors::InvalidArgument("component ", i, " of an element of ", source, " has shape ",
                                     element[i].shape().DebugString(), ", but the declared shape is ",
                                     shapes[i].DebugString(), " (a dataset element of the wrong shape)");
  }
  return Status::OK();
}

}  // namespace flowvm::data

// Datasets and their iterators (tf.data's runtime model).
//
// A dataset is an immutable description of a sequence of elements (each a
// tuple of tensors with known dtypes and, partially, shapes), made by a
// dataset op and passed between ops as a scalar DT_VARIANT tensor that holds
// a shared pointer to it: it may cross devices of one process, never
// processes. A dataset makes any number of independent iterators.
//
// An iterator walks one pass over its dataset. GetNext is called by one
// thread at a time; it may block (reading a file, running a function,
// waiting for a prefetch thread), and returns Cancelled soon after the
// cancellation of its IteratorContext starts. The context outlives every
// iterator made with it; an iterator's destructor stops and joins any
// thread it started (after the context's cancellation, promptly).
#ifndef FLOWVM_KERNELS_DATA_DATASET_H_
#define FLOWVM_KERNELS_DATA_DATASET_H_

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "flowvm/status.h"
#include "flowvm/tensor.h"
#include "graph/node_def_util.h"
#include "kernels/framework/cancellation.h"
#include "kernels/framework/function_runtime.h"

namespace flowvm::data {

// Random seed streams that outlive one pass over a dataset (TF 1.15's
// seed generators): a ShuffleDataset with reshuffle_each_iteration takes
// each new iterator's seed from the stream of its key, so that every epoch
// and every re-initialization of an iterator shuffles anew, in the same
// sequence run after run. Thread-safe.
class SeedGenerators {
 public:
  // The next number of the stream `key`, which starts from `seed`.
  uint64_t Next(const std::string& key, uint64_t seed);

 private:
  std::mutex mu_;
  std::map<std::string, std::mt19937_64> streams_;
};

// What every iterator of one iterator tree shares: owned by the iterator
// resource (or a test), outliving the tree.
struct IteratorContext {
  // Started when the iterator is destroyed or replaced; never null.
  CancellationManager* cancellation = nullptr;
  // The iterator resource's seed streams; null: each dataset keeps its own.
  SeedGenerators* seeds = nullptr;

  bool cancelled() const { return cancellation->IsCancelled(); }
  // Cancelled naming `op` once the cancellation has started: loops
  // that may run long (skipping, filtering, filling a buffer) check it.
  Status CheckCancelled(const char* op) const {
    if (!cancelled()) return Status::OK();
    return errors::Cancelled(op, ": the iterator was cancelled");
  }
  // Options for the functions iterators run: a step of their own, cancelled
  // with the iterator.
  FunctionCallOptions call_options() const {
    FunctionCallOptions o;
    o.cancellation = cancellation;
    return o;
  }
};

// Calls `fn` once when `cm`'s cancellation starts (at once if it already
// has), unless destroyed first. The destructor waits for a call that is
// running, so `fn` may use the object that owns this. Thread-safe.
class CancelCallback {
 public:
  CancelCallback(CancellationManager* cm, std::function<void()> fn);
  ~CancelCallback();
  CancelCallback(const CancelCallback&) = delete;
  CancelCallback& operator=(const CancelCallback&) = delete;

 private:
  struct Shared {
    std::mutex mu;
    std::function<void()> fn;  // cleared by the destructor
  };
  CancellationManager* const cm_;
  const std::shared_ptr<Shared> shared_;
  CancellationManager::Token token_ = CancellationManager::kInvalidToken;
};

class IteratorBase {
 public:
  explicit IteratorBase(IteratorContext* ctx) : ctx_(ctx) {}
  virtual ~IteratorBase() = default;
  IteratorBase(const IteratorBase&) = delete;
  IteratorBase& operator=(const IteratorBase&) = delete;

  // The next element into *out (one tensor per component), or
  // *end_of_sequence = true (then *out is left empty; later calls end too).
  // An error is about one element: a later call may go on.
  virtual Status GetNext(std::vector<Tensor>* out, bool* end_of_sequence) = 0;

  // A ready element without blocking, if the iterator has one at hand (a
  // prefetch buffer that is not empty): true and *out filled, or false with
  // nothing done. Lets IteratorGetNext answer on the executor's thread.
  virtual bool TryGetNextReady(std::vector<Tensor>* /*out*/) { return false; }

 protected:
  IteratorContext* ctx() const { return ctx_; }

 private:
  IteratorContext* const ctx_;
};

class DatasetBase;
using DatasetPtr = std::shared_ptr<const DatasetBase>;

class DatasetBase : public std::enable_shared_from_this<DatasetBase> {
 public:
  // `node`: the name of the node that made it (for errors).
  DatasetBase(std::string node, DataTypeVector dtypes, std::vector<PartialTensorShape> shapes)
      : node_(std::move(node)), dtypes_(std::move(dtypes)), shapes_(std::move(shapes)) {}
  virtual ~DatasetBase() = default;
  DatasetBase(const DatasetBase&) = delete;
  DatasetBase& operator=(const DatasetBase&) = delete;

  const DataTypeVector& output_dtypes() const { return dtypes_; }
  const std::vector<PartialTensorShape>& output_shapes() const { return shapes_; }
  const std::string& node() const { return node_; }
  // The op that made it: "RangeDataset".
  virtual const char* op() const = 0;
  // "RangeDataset 'range'".
  std::string DebugString() const { return std::string(op()) + " '" + node_ + "'"; }

  // A new iterator at the start of the sequence.
  virtual StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(IteratorContext* ctx) const = 0;

  DatasetPtr self() const { return shared_from_this(); }

 private:
  const std::string node_;
  const DataTypeVector dtypes_;
  const std::vector<PartialTensorShape> shapes_;
};

// A dataset over one input (with the input's dtypes, unless given).
class UnaryDataset : public DatasetBase {
 public:
  UnaryDataset(std::string node, DatasetPtr input, std::vector<PartialTensorShape> shapes)
      : DatasetBase(std::move(node), input->output_dtypes(), std::move(shapes)), input_(std::move(input)) {}
  UnaryDataset(std::string node, DatasetPtr input, DataTypeVector types, std::vector<PartialTensorShape> shapes)
      : DatasetBase(std::move(node), std::move(types), std::move(shapes)), input_(std::move(input)) {}
  const DatasetPtr& input() const { return input_; }

 private:
  const DatasetPtr input_;
};

// An iterator of a dataset of type D: keeps the dataset alive.
template <typename D>
class DatasetIterator : public IteratorBase {
 public:
  DatasetIterator(IteratorContext* ctx, const D* dataset)
      : IteratorBase(ctx), keep_(dataset->self()), dataset_(dataset) {}

 protected:
  const D* dataset() const { return dataset_; }

 private:
  const DatasetPtr keep_;
  const D* const dataset_;
};

// ---- datasets as DT_VARIANT tensors ------------------------------------------

inline constexpr const char* kDatasetVariantTypeName = "tensorflow::data::DatasetVariant";

// A scalar DT_VARIANT tensor holding `dataset`.
Tensor DatasetToTensor(DatasetPtr dataset);
// The dataset a scalar DT_VARIANT tensor holds; InvalidArgument naming
// `what` ("input 'input_dataset'") if it holds none.
StatusOr<DatasetPtr> DatasetFromTensor(const Tensor& t, const std::string& what);

// ---- element checks ----------------------------------------------------------

// OK if `dataset`'s declared dtypes equal `dtypes` and its shapes are
// compatible with `shapes` (empty: not checked); InvalidArgument naming
// `what` and the dataset.
Status CheckDatasetMatches(const DatasetBase& dataset, const DataTypeVector& dtypes,
                           const std::vector<PartialTensorShape>& shapes, const std::string& what);
// OK if the element's tensors have `dtypes` and shapes compatible with
// `shapes`; InvalidArgument naming the component, both shapes and `source`.
Status CheckElement(const std::vector<Tensor>& element, const DataTypeVector& dtypes,
                    const std::vector<PartialTensorShape>& shapes, const std::string& source);

// Whether CheckElement would return OK (without building a message).
bool ElementMatches(const std::vector<Tensor>& element, const DataTypeVector& dtypes,
                    const std::vector<PartialTensorShape>& shapes);

// "[int64, float]".
std::string DataTypesString(const DataTypeVector& types);
// "[[], [?,3]]".
std::string ShapesString(const std::vector<PartialTensorShape>& shapes);

}  // namespace flowvm::data

#endif  // FLOWVM_KERNELS_DATA_DATASET_H_

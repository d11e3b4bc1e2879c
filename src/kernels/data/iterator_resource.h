// IteratorResource: the state an iterator op's resource handle names (TF's
// IteratorResource): the element signature it was declared with, and the
// current pass over a dataset, kept across steps. MakeIterator starts a new
// pass (from any thread; a pass in use is cancelled and let go); GetNext
// runs on a thread the resource owns, so no executor thread waits for an
// element. Destroying the resource (its container reset, its device gone)
// cancels the pass, so every thread it started stops and is joined.
//
// A step cancelled while its GetNext waits gets Cancelled at once; the
// element that GetNext was producing is not lost but kept for the next
// call. Thread-safe.
#ifndef FLOWVM_KERNELS_DATA_ITERATOR_RESOURCE_H_
#define FLOWVM_KERNELS_DATA_ITERATOR_RESOURCE_H_

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "kernels/data/dataset.h"
#include "kernels/framework/resource_mgr.h"

namespace flowvm::data {

// TF's message for GetNext before any MakeIterator.
inline constexpr const char* kUninitializedIteratorMessage =
    "GetNext() failed because the iterator has not been initialized. Ensure that you have run the initializer "
    "operation for this iterator before getting the next element.";

class IteratorResource : public ResourceBase {
 public:
  // done(status, element, end_of_sequence): called exactly once.
  using GetNextDone = std::function<void(const Status&, std::vector<Tensor>, bool)>;

  IteratorResource(std::string name, DataTypeVector types, std::vector<PartialTensorShape> shapes);
  ~IteratorResource() override;
  std::string DebugString() const override { return "Iterator '" + name_ + "'"; }
  void OnContainerCleanup() override;

  const DataTypeVector& output_dtypes() const { return types_; }
  const std::vector<PartialTensorShape>& output_shapes() const { return shapes_; }

  // Starts a new pass over `dataset` (MakeIterator). InvalidArgument if its
  // elements do not match the iterator's declared types and shapes.
  Status SetIteratorFromDataset(DatasetPtr dataset);
  bool initialized() const;
  // The dataset of the current pass, for errors ("" if none).
  std::string DatasetDescription() const;

  // Gets the next element: at once when one is ready (a prefetch buffer),
  // else on the resource's thread. `step_cancellation` (may be null):
  // the caller's step; when it is cancelled, done gets Cancelled.
  void GetNextAsync(CancellationManager* step_cancellation, GetNextDone done);

  // Runs `init` (which calls its argument exactly once, with the result of
  // making the first pass) the first time it is called; later calls wait
  // for that result (OneShotIterator).
  void InitializeOnce(const std::function<void(std::function<void(const Status&)>)>& init,
                      std::function<void(const Status&)> done);

 private:
  struct Core;  // what the worker thread shares (it may outlive this object)

  const std::string name_;
  const DataTypeVector types_;
  const std::vector<PartialTensorShape> shapes_;
  const std::shared_ptr<Core> core_;
  std::thread worker_;  // started with the first request that must wait; guarded by core_->mu
};

}  // namespace flowvm::data

#endif  // FLOWVM_KERNELS_DATA_ITERATOR_RESOURCE_H_

#include "kernels/framework/device_base.h"

namespace flowvm {

DeviceBase::DeviceBase(std::string name, std::string type, uint64_t incarnation, ThreadPool* pool)
    : name_(std::move(name)),
      type_(std::move(type)),
      incarnation_(incarnation),
      pool_(pool),
      allocator_(TrackingAllocator::New(name_)),
      resource_mgr_(std::make_unique<ResourceMgr>()) {}

DeviceBase::~DeviceBase() {
  // Resources (variables) may hold tensors of this allocator; they go first.
  resource_mgr_->CleanupAll();
  allocator_->Release();
}

}  // namespace flowvm

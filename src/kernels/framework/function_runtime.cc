#include "kernels/framework/function_runtime.h"

#include <condition_variable>
#include <mutex>

namespace flowvm {

Status FunctionInstance::Run(const FunctionCallOptions& options, std::vector<Tensor> args,
                             std::vector<Tensor>* rets) const {
  std::mutex mu;
  std::condition_variable cv;
  bool finished = false;
  Status result;
  RunAsync(options, std::move(args), rets, [&](const Status& s) {
    std::lock_guard<std::mutex> lock(mu);
    result = s;
    finished = true;
    cv.notify_all();
  });
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return finished; });
  return result;
}

}  // namespace flowvm

// Uses the installed flowvm headers and library: builds a small tensor and
// prints it. run_test.cmake checks the exit code and that "float" appears.
#include <cstdio>

#include "flowvm/status.h"
#include "flowvm/tensor.h"

int main() {
  flowvm::Tensor t = flowvm::Tensor::FromVector<float>({1, 2, 3});
  if (t.NumElements() != 3) {
    std::fprintf(stderr, "expected 3 elements, got %lld\n",
                 static_cast<long long>(t.NumElements()));
    return 1;
  }
  flowvm::Status ok = flowvm::Status::OK();
  if (!ok.ok()) return 1;
  std::printf("%s\n", t.DebugString().c_str());
  return 0;
}

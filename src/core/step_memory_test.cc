#include "core/step_memory.h"

#include <gtest/gtest.h>

#include "flowvm/tensor.h"

namespace flowvm {
namespace {

TEST(StepMemoryTest, LiveBytesStayWithinTheBudget) {
  auto budget = std::make_shared<StepMemoryBudget>(1 << 20, "the test's limit");
  BudgetAllocator* allocator = BudgetAllocator::New(ProcessCpuAllocator(), budget);
  {
    auto a = Tensor::Allocate(allocator, DT_FLOAT, TensorShape({128, 1024}));  // 512 KiB
    ASSERT_TRUE(a.ok()) << a.status();
    EXPECT_GE(budget->in_use(), 512 << 10);
    auto b = Tensor::Allocate(allocator, DT_FLOAT, TensorShape({192, 1024}));  // 768 KiB: over
    ASSERT_FALSE(b.ok());
    EXPECT_EQ(b.status().code(), Code::kResourceExhausted);
    EXPECT_NE(b.status().message().find("the test's limit"), std::string::npos) << b.status();
    EXPECT_NE(b.status().message().find("1048576"), std::string::npos) << b.status();
  }
  // Freed tensors give their bytes back.
  EXPECT_EQ(budget->in_use(), 0);
  auto c = Tensor::Allocate(allocator, DT_FLOAT, TensorShape({192, 1024}));
  EXPECT_TRUE(c.ok()) << c.status();
  // A tensor outlives the step's reference to the allocator.
  allocator->Release();
  EXPECT_GT(budget->in_use(), 0);
  c = Tensor();
  EXPECT_EQ(budget->in_use(), 0);
}

TEST(StepMemoryTest, HugeShapesAreRefusedWithoutOverflow) {
  auto budget = std::make_shared<StepMemoryBudget>(1 << 20, "the test's limit");
  BudgetAllocator* allocator = BudgetAllocator::New(ProcessCpuAllocator(), budget);
  auto t = Tensor::Allocate(allocator, DT_DOUBLE, TensorShape({int64_t{1} << 31, int64_t{1} << 31}));
  EXPECT_EQ(t.status().code(), Code::kResourceExhausted);
  EXPECT_EQ(budget->in_use(), 0);
  allocator->Release();
}

}  // namespace
}  // namespace flowvm

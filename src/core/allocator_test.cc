#include "flowvm/allocator.h"

#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "core/memory_info.h"
#include "flowvm/tensor.h"

namespace flowvm {
namespace {

TEST(AllocatorTest, CountsBytesInUseAndPeak) {
  TrackingAllocator* a = TrackingAllocator::New("test");
  EXPECT_EQ(a->Name(), "test");
  {
    Tensor t1 = Tensor::Allocate(a, DT_FLOAT, TensorShape({1000})).value();  // 4000 bytes + header
    const AllocatorStats s1 = a->GetStats();
    EXPECT_EQ(s1.num_allocs, 1);
    EXPECT_GE(s1.bytes_in_use, 4000);
    EXPECT_EQ(s1.peak_bytes_in_use, s1.bytes_in_use);
    {
      Tensor t2 = Tensor::Allocate(a, DT_DOUBLE, TensorShape({1000})).value();
      EXPECT_GE(a->GetStats().bytes_in_use, s1.bytes_in_use + 8000);
    }
    const AllocatorStats s2 = a->GetStats();
    EXPECT_EQ(s2.bytes_in_use, s1.bytes_in_use);  // t2 went back
    EXPECT_GE(s2.peak_bytes_in_use, s1.bytes_in_use + 8000);
    EXPECT_GE(s2.largest_alloc_size, 8000);
    a->ResetPeak();
    EXPECT_EQ(a->GetStats().peak_bytes_in_use, s1.bytes_in_use);
  }
  EXPECT_EQ(a->GetStats().bytes_in_use, 0);
  a->Release();
}

// A tensor may outlive its device: the allocator stays until the last
// allocation it made is freed (ASan would flag a use after free).
TEST(AllocatorTest, OutlivesItsOwnerWhileTensorsLive) {
  TrackingAllocator* a = TrackingAllocator::New("short-lived device");
  Tensor survivor = Tensor::Allocate(a, DT_INT32, TensorShape({4})).value();
  a->Release();
  survivor.data<int32_t>()[3] = 7;
  Tensor copy = survivor;
  survivor = Tensor();
  EXPECT_EQ(copy.data<int32_t>()[3], 7);
}  // the last reference frees the buffer, then the allocator

TEST(AllocatorTest, DeepCopyAllocatesFromTheGivenAllocator) {
  TrackingAllocator* a = TrackingAllocator::New("copies");
  Tensor src = Tensor::FromVector<float>({1, 2, 3});
  Tensor copy = src.DeepCopy(a).value();
  EXPECT_NE(copy.raw_data(), src.raw_data());
  EXPECT_EQ(copy.data<float>()[2], 3);
  EXPECT_EQ(a->GetStats().num_allocs, 1);
  a->Release();
}

TEST(AllocatorTest, OutOfMemoryIsAnErrorNamingTheAllocator) {
  TrackingAllocator* a = TrackingAllocator::New("tiny device");
  auto t = Tensor::Allocate(a, DT_FLOAT, TensorShape({int64_t{1} << 60}));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), Code::kResourceExhausted);
  EXPECT_NE(t.status().message().find("tiny device"), std::string::npos) << t.status();
  EXPECT_EQ(a->GetStats().bytes_in_use, 0);
  a->Release();
}

// More than the machine has left, though Linux would grant the mapping
// (and kill the process when the tensor is filled): an error, at once.
TEST(AllocatorTest, ATensorLargerThanTheMemoryLeftIsAnError) {
  const int64_t available = AvailableMemoryBytes();
  ASSERT_GT(available, 0);
  if (available > (int64_t{1} << 42)) GTEST_SKIP() << "the machine does not say how much memory it has";
  const int64_t elements = available / 8 + (int64_t{1} << 27);  // available + 1 GiB of doubles
  TrackingAllocator* a = TrackingAllocator::New("cpu");
  auto t = Tensor::Allocate(a, DT_DOUBLE, TensorShape({elements}));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), Code::kResourceExhausted);
  EXPECT_NE(t.status().message().find("bytes available"), std::string::npos) << t.status();
  EXPECT_EQ(a->GetStats().bytes_in_use, 0);
  // Large tensors that fit are still fine.
  auto ok = Tensor::Allocate(a, DT_FLOAT, TensorShape({int64_t{1} << 25}));
  EXPECT_TRUE(ok.ok()) << ok.status();
  a->Release();
}

TEST(AllocatorTest, ConcurrentAllocationsBalance) {
  TrackingAllocator* a = TrackingAllocator::New("shared");
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([a] {
      for (int i = 0; i < 2000; ++i) Tensor x = Tensor::Allocate(a, DT_FLOAT, TensorShape({i % 64})).value();
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(a->GetStats().num_allocs, 8000);
  EXPECT_EQ(a->GetStats().bytes_in_use, 0);
  a->Release();
}

}  // namespace
}  // namespace flowvm

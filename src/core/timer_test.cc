#include "core/timer.h"

#include <atomic>
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

namespace flowvm {
namespace {

using Clock = Timer::Clock;

TEST(TimerTest, RunsCallbacksAtTheirDeadlinesInOrder) {
  std::mutex mu;
  std::vector<int> order;
  std::atomic<int> done{0};
  const auto now = Clock::now();
  for (int i : {3, 1, 2}) {
    Timer::Global()->Schedule(now + std::chrono::milliseconds(10 * i), [&, i] {
      std::lock_guard<std::mutex> lock(mu);
      order.push_back(i);
      done.fetch_add(1);
    });
  }
  for (int i = 0; i < 500 && done.load() < 3; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
  EXPECT_GE(Clock::now() - now, std::chrono::milliseconds(30));
}

// Cancelling the callback the timer is waiting for (the earliest one) while
// it waits must not leave it reading the cancelled entry.
TEST(TimerTest, CancelBeforeTheDeadlineMeansItNeverRuns) {
  std::atomic<int> ran{0};
  for (int i = 0; i < 200; ++i) {
    // A deadline far enough away that a loaded machine cannot pass it
    // before the cancel (the test is about the cancel, not the clock).
    auto token = Timer::Global()->Schedule(Clock::now() + std::chrono::seconds(30), [&] { ran.fetch_add(1); });
    std::this_thread::sleep_for(std::chrono::microseconds(50));
    EXPECT_TRUE(Timer::Global()->Cancel(token));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(ran.load(), 0);
}

TEST(TimerTest, CancelWaitsForARunningCallback) {
  std::atomic<bool> started{false}, finished{false};
  auto token = Timer::Global()->Schedule(Clock::now(), [&] {
    started = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    finished = true;
  });
  while (!started.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_FALSE(Timer::Global()->Cancel(token));
  EXPECT_TRUE(finished.load());
}

}  // namespace
}  // namespace flowvm

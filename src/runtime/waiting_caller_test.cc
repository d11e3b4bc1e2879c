#include "runtime/waiting_caller.h"

#include <atomic>
#include <thread>

#include <gtest/gtest.h>

namespace flowvm {
namespace {

TEST(WaitingCallerTest, TakesWorkOnlyWhileWaitingAndRunsItOnItsThread) {
  WaitingCaller caller;
  std::function<void()> early = [] {};
  EXPECT_FALSE(caller.TrySchedule(&early)) << "nobody waits yet";
  EXPECT_TRUE(early) << "refused work is left to the caller";

  std::atomic<int> ran{0};
  std::thread::id ran_on;
  std::thread helper([&] {
    // Until the owner waits, work is refused; then it is taken once.
    std::function<void()> fn = [&] {
      ran_on = std::this_thread::get_id();
      ran.fetch_add(1);
    };
    while (!caller.TrySchedule(&fn)) std::this_thread::yield();
    while (ran.load() == 0) std::this_thread::yield();
    caller.Finish();
  });
  caller.Wait();
  helper.join();
  EXPECT_EQ(ran.load(), 1);
  EXPECT_EQ(ran_on, std::this_thread::get_id());
  std::function<void()> late = [] {};
  EXPECT_FALSE(caller.TrySchedule(&late)) << "a finished caller takes nothing";
}

TEST(WaitingCallerTest, FinishBeforeWaitReturnsAtOnce) {
  WaitingCaller caller;
  caller.Finish();
  caller.Wait();
}

}  // namespace
}  // namespace flowvm

#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <thread>

#include "vwheel/core/interrupt.hpp"

namespace vwheel {
namespace {

/// Waits (bounded by a count of yields, not by time) until the handler's thread took the signal.
bool wait_interrupted() {
  for (int i = 0; i < 10'000'000 && !interrupted(); ++i) sched_yield();
  return interrupted();
}

TEST(Interrupt, ExitCodesAndNames) {
  EXPECT_EQ(interrupt_exit_code(SIGINT), 130);
  EXPECT_EQ(interrupt_exit_code(SIGTERM), 143);
  EXPECT_EQ(interrupt_exit_code(SIGHUP), 129);
  EXPECT_EQ(signal_name(SIGINT), "SIGINT");
  EXPECT_EQ(signal_name(SIGTERM), "SIGTERM");
  EXPECT_EQ(signal_name(SIGHUP), "SIGHUP");
}

TEST(Interrupt, InsideACancellableSectionTheSignalIsRecorded) {
  {
    InterruptHandler handler("test");
    Cancellable section;
    EXPECT_FALSE(interrupted());
    ASSERT_EQ(::kill(::getpid(), SIGTERM), 0);
    ASSERT_TRUE(wait_interrupted());
    EXPECT_EQ(interrupt_signal(), SIGTERM);
    EXPECT_EQ(interrupted_error().message, "interrupted by SIGTERM");
    EXPECT_EQ(interrupted_error().kind, ErrorKind::environment);
    EXPECT_FALSE(changes_committed());
  }
  set_interrupted_for_testing(0);
  EXPECT_FALSE(interrupted());
}

TEST(Interrupt, DuringACommitEverySignalIsDeferred) {
  {
    // The commit phase outlives the handler: its thread may take the second signal late (it did
    // under ASan on a loaded machine), and a signal taken after the phase ends would, rightly,
    // end the process.
    CommitPhase commit;
    InterruptHandler handler("test");
    ASSERT_EQ(::kill(::getpid(), SIGINT), 0);
    ASSERT_TRUE(wait_interrupted());
    // Outside a Cancellable section a second one would end the process; in a commit it does not.
    ASSERT_EQ(::kill(::getpid(), SIGHUP), 0);
    commit.committed();
    EXPECT_EQ(interrupt_signal(), SIGINT);  // the first one counts
    EXPECT_TRUE(changes_committed());
  }
  set_interrupted_for_testing(0);
}

TEST(Interrupt, StoppingNeverRecordsTheWakeUp) {
  // The destructor wakes the signal thread with a signal of its own: it never counts as one.
  for (int i = 0; i < 50; ++i) {
    { InterruptHandler handler("test"); }
    ASSERT_EQ(interrupt_signal(), 0) << "iteration " << i;
  }
  // Nor does that signal sent from outside: blocked and taken like the others, then dropped.
  for (int i = 0; i < 50; ++i) {
    {
      InterruptHandler handler("test");
      ASSERT_EQ(::kill(::getpid(), SIGRTMIN), 0);
    }
    ASSERT_EQ(interrupt_signal(), 0) << "iteration " << i;
  }
}

TEST(Interrupt, ASignalArrivingWhileTheHandlerStopsIsRecorded) {
  // SIGINT sent just before the handler stops is taken either by its thread (before or after it
  // learned that it stops) or by the destructor's drain: in every case it is the run's signal,
  // never lost and never replaced by the wake-up. (A commit phase around it, so that a SIGINT
  // taken before the stop is recorded rather than ending the test.)
  CommitPhase commit;
  for (int i = 0; i < 300; ++i) {
    {
      InterruptHandler handler("test");
      ASSERT_EQ(::kill(::getpid(), SIGINT), 0);
    }
    ASSERT_EQ(interrupt_signal(), SIGINT) << "iteration " << i;
    set_interrupted_for_testing(0);
  }
}

std::atomic<int> g_late{0};  // signals that reached the test's own handler (the old disposition)
extern "C" void count_late(int) { g_late.fetch_add(1); }

TEST(Interrupt, ASignalRacingTheStopIsRecordedOrLeftToTheOldDisposition) {
  // Another thread sends SIGINT while the handler stops, at every point of the stop in turn (the
  // loop shifts it): the signal is either the run's signal or, once the handler is gone, the
  // old disposition's, never lost, never the wake-up, and never acted on with a disposition of
  // the handler's own (the process would end).
  struct sigaction mine {}, before {};
  mine.sa_handler = count_late;
  ASSERT_EQ(::sigaction(SIGINT, &mine, &before), 0);
  CommitPhase commit;  // a SIGINT taken before the stop is recorded rather than ending the test
  for (int i = 0; i < 300; ++i) {
    std::atomic<bool> go{false};
    g_late = 0;
    std::thread sender;
    {
      InterruptHandler handler("test");
      sender = std::thread([&go, i] {
        while (!go) sched_yield();
        for (int k = 0; k < i % 50; ++k) sched_yield();
        ::kill(::getpid(), SIGINT);
      });
      go = true;
    }
    sender.join();
    // The signal was sent; the test's handler may not have run yet if it came late: wait for one
    // of the two, bounded by a count of yields.
    for (int k = 0; k < 10'000'000 && interrupt_signal() == 0 && g_late == 0; ++k) sched_yield();
    EXPECT_EQ((interrupt_signal() == SIGINT ? 1 : 0) + g_late.load(), 1) << "iteration " << i;
    EXPECT_NE(interrupt_signal(), SIGRTMIN) << "iteration " << i;
    set_interrupted_for_testing(0);
  }
  // The disposition is the test's again.
  struct sigaction now {};
  ASSERT_EQ(::sigaction(SIGINT, &before, &now), 0);
  EXPECT_EQ(now.sa_handler, &count_late);
}

TEST(Interrupt, AnIgnoredSignalStaysIgnored) {
  // Under nohup SIGHUP is ignored: the handler neither takes it nor changes that.
  struct sigaction ignore {}, before {};
  ignore.sa_handler = SIG_IGN;
  ASSERT_EQ(::sigaction(SIGHUP, &ignore, &before), 0);
  {
    InterruptHandler handler("test");
    Cancellable section;
    ASSERT_EQ(::kill(::getpid(), SIGHUP), 0);
  }
  EXPECT_EQ(interrupt_signal(), 0);
  struct sigaction now {};
  ASSERT_EQ(::sigaction(SIGHUP, &before, &now), 0);
  EXPECT_EQ(now.sa_handler, SIG_IGN);
  set_interrupted_for_testing(0);
}

TEST(InterruptDeathTest, OutsideAnySectionTheProcessExitsAtOnce) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        InterruptHandler handler("test");
        ::kill(::getpid(), SIGTERM);
        for (;;) ::pause();
      },
      ::testing::ExitedWithCode(143), "test: interrupted; nothing was changed");
}

TEST(InterruptDeathTest, ASecondSignalWhileWindingDownExitsAtOnce) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        InterruptHandler handler("test");
        Cancellable section;
        ::kill(::getpid(), SIGINT);
        wait_interrupted();
        ::kill(::getpid(), SIGTERM);
        for (;;) ::pause();
      },
      ::testing::ExitedWithCode(130), "interrupted again; stopped at once");
}

}  // namespace
}  // namespace vwheel

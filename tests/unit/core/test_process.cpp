// run_process: what the child said and how it ended, including a child that closes its pipes
// before it exits (the parent then waits for the exit itself, not for the pipes' end).

#include "vwheel/core/process.hpp"

#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace vwheel {
namespace {

ProcessRequest shell(const char* script, std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
  ProcessRequest r;
  r.argv = {"/bin/sh", "-c", script};
  r.env = {"PATH=/usr/bin:/bin"};
  r.timeout = timeout;
  return r;
}

TEST(RunProcess, OutputErrorAndExitStatusAreReported) {
  auto r = run_process(shell("echo out; echo err >&2; exit 3"));
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->out, "out\n");
  EXPECT_EQ(r->err, "err\n");
  EXPECT_EQ(r->exit_code, 3);
  EXPECT_EQ(r->signal, 0);
  EXPECT_FALSE(r->timed_out);
}

TEST(RunProcess, AChildThatClosesItsPipesIsWaitedForToItsExit) {
  // The pipes end long before the exit: the status is the exit's, and nothing timed out.
  auto r = run_process(shell("echo before; exec >/dev/null 2>&1; sleep 0.3; exit 7"));
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->out, "before\n");
  EXPECT_EQ(r->exit_code, 7);
  EXPECT_FALSE(r->timed_out);
}

TEST(RunProcess, AChildThatClosesItsPipesAndOutlivesTheLimitIsKilled) {
  auto r = run_process(shell("exec >/dev/null 2>&1; sleep 30", std::chrono::milliseconds(300)));
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_TRUE(r->timed_out);
  EXPECT_EQ(r->signal, 9);
  EXPECT_EQ(r->exit_code, -1);
}

TEST(RunProcess, ASignalEndingTheChildIsReported) {
  auto r = run_process(shell("kill -TERM $$"));
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->signal, 15);
  EXPECT_FALSE(r->timed_out);
}

// start_process: the child runs while the caller works; finish reads what it said to the end.
TEST(StartProcess, TheChildRunsWhileTheCallerWorksAndFinishReadsIt) {
  const auto dir = std::filesystem::temp_directory_path() / ("vwheel-start-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const auto marker = (dir / "ran").string();
  auto running = start_process(shell(("touch " + marker + "; echo out").c_str()));
  ASSERT_TRUE(running.has_value()) << running.error().message;
  // The child runs without finish() being called: its file appears.
  for (int i = 0; i < 2000 && !std::filesystem::exists(marker); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_TRUE(std::filesystem::exists(marker));
  const auto r = running->finish();
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.exit_code, 0);
  std::filesystem::remove_all(dir);
}

// A RunningProcess given up unfinished (the caller failed meanwhile) kills its child and reaps it.
TEST(StartProcess, AChildGivenUpIsKilledAndReaped) {
  const auto dir = std::filesystem::temp_directory_path() / ("vwheel-giveup-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const auto pid_file = dir / "pid";
  {
    auto running = start_process(shell(("echo $$ > " + pid_file.string() + ".tmp; mv " + pid_file.string() +
                                        ".tmp " + pid_file.string() + "; exec sleep 30")
                                           .c_str()));
    ASSERT_TRUE(running.has_value()) << running.error().message;
    for (int i = 0; i < 2000 && !std::filesystem::exists(pid_file); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ASSERT_TRUE(std::filesystem::exists(pid_file));
  }
  std::ifstream in(pid_file);
  pid_t pid = 0;
  in >> pid;
  ASSERT_GT(pid, 0);
  // Killed and reaped: no such process any more (not even a zombie).
  EXPECT_EQ(::kill(pid, 0), -1);
  EXPECT_EQ(errno, ESRCH);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace vwheel

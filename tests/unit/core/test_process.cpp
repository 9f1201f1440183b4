// run_process: what the child said and how it ended, including a child that closes its pipes
// before it exits (the parent then waits for the exit itself, not for the pipes' end).

#include "vwheel/core/process.hpp"

#include <gtest/gtest.h>

#include <chrono>

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

}  // namespace
}  // namespace vwheel

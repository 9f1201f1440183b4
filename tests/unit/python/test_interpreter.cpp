#include <gtest/gtest.h>

#include <cstdlib>

#include "vwheel/python/interpreter.hpp"

using namespace vwheel::python;

namespace {
constexpr const char* kReport = R"({
  "environment": {"implementation_name": "cpython", "implementation_version": "3.12.3", "os_name": "posix",
                  "platform_machine": "x86_64", "platform_release": "6.1.0", "platform_system": "Linux",
                  "platform_version": "#1 SMP", "python_full_version": "3.12.3",
                  "platform_python_implementation": "CPython", "python_version": "3.12", "sys_platform": "linux"},
  "version": [3, 12], "implementation": "cpython", "abiflags": "", "gil_disabled": false,
  "platform": "linux-x86_64", "libc": ["glibc", "2.36"],
  "paths": {"purelib": "/venv/lib/python3.12/site-packages", "scripts": "/venv/bin"},
  "prefix": "/venv", "base_prefix": "/usr"})";
}  // namespace

TEST(Interpreter, ParsesTheQueryReport) {
  auto r = parse_interpreter_report("/venv/bin/python", kReport);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->environment.at("python_version"), "3.12");
  EXPECT_EQ(r->paths.at("purelib"), "/venv/lib/python3.12/site-packages");
  EXPECT_TRUE(r->is_virtualenv());
  EXPECT_EQ(r->tag_info.abis, std::vector<std::string>{"cp312"});
  EXPECT_EQ(r->tag_info.platform, "linux_x86_64");
  ASSERT_TRUE(r->tag_info.glibc);
  EXPECT_EQ(r->tag_info.glibc->second, 36);
  EXPECT_EQ(r->tags.front(), "cp312-cp312-manylinux_2_36_x86_64");
}

TEST(Interpreter, BadReportsNameTheInterpreter) {
  auto r = parse_interpreter_report("/x/python", "not json");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("/x/python"), std::string::npos);
  auto missing = parse_interpreter_report("/x/python", R"({"environment": {}})");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("/x/python"), std::string::npos);
}

TEST(Interpreter, QueriesARealInterpreter) {
  auto exe = find_interpreter();
  if (!exe) GTEST_SKIP() << "no python3 on PATH";
  auto r = query_interpreter(*exe);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_FALSE(r->environment.at("python_version").empty());
  EXPECT_FALSE(r->tags.empty());
  EXPECT_EQ(r->tags.back().substr(r->tags.back().size() - 8), "none-any");
  auto bad = query_interpreter("/nonexistent/python3");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("/nonexistent/python3"), std::string::npos);
}

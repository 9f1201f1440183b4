#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

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

// With a module directory the query is imported from a file there, and Python leaves its bytecode
// beside it for the next query; the answer is the `-c` text's. A directory that cannot be
// written (here: a regular file in the way) leaves the query as `-c` text, with the same answer.
TEST(Interpreter, RunsTheQueryAsAModuleWithItsBytecodeKept) {
  auto exe = find_interpreter();
  if (!exe) GTEST_SKIP() << "no python3 on PATH";
  namespace fs = std::filesystem;
  const auto dir = fs::temp_directory_path() / ("vwheel-qm-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  auto plain = query_interpreter(*exe);
  ASSERT_TRUE(plain) << plain.error().message;
  auto first = query_interpreter(*exe, std::chrono::seconds(30), dir / "query");
  ASSERT_TRUE(first) << first.error().message;
  std::vector<std::string> modules;
  for (const auto& e : fs::directory_iterator(dir / "query")) modules.push_back(e.path().filename().string());
  std::sort(modules.begin(), modules.end());
  ASSERT_EQ(modules.size(), 2U);
  EXPECT_EQ(modules[0], "__pycache__");
  EXPECT_EQ(modules[1].rfind("vwheel_query_", 0), 0U) << modules[1];
  EXPECT_FALSE(fs::is_empty(dir / "query" / "__pycache__"));
  EXPECT_EQ(fs::status(dir / "query").permissions() & fs::perms::all, fs::perms::owner_all);
  // A changed module file is put back before it runs.
  std::ofstream(dir / "query" / modules[1]) << "raise SystemExit(3)\n";
  auto second = query_interpreter(*exe, std::chrono::seconds(30), dir / "query");
  ASSERT_TRUE(second) << second.error().message;
  std::ofstream(dir / "blocked") << "a file, not a directory\n";
  auto fallback = query_interpreter(*exe, std::chrono::seconds(30), dir / "blocked" / "query");
  ASSERT_TRUE(fallback) << fallback.error().message;
  for (const auto* r : {&*first, &*second, &*fallback}) {
    EXPECT_EQ(interpreter_report_json(*r), interpreter_report_json(*plain));
  }
  fs::remove_all(dir);
}

namespace {
// What `command` prints (popen; empty when it fails).
std::string output_of(const std::string& command) {
  std::string out;
  if (std::FILE* f = ::popen(command.c_str(), "r")) {
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) out.append(buf, n);
    if (::pclose(f) != 0) out.clear();
  }
  return out;
}
}  // namespace

// The query asks neither `platform` nor `json` on CPython with glibc: what it says must be what
// they say (as packaging computes markers), and its hand-written JSON must carry any path, here
// a virtual environment's prefix with a quote, a backslash, non-ASCII and a character above
// U+FFFF.
TEST(Interpreter, SaysWhatPlatformAndSysconfigSay) {
  auto exe = find_interpreter();
  if (!exe) GTEST_SKIP() << "no python3 on PATH";
  namespace fs = std::filesystem;
  // The interpreter itself (python3 on PATH may be a shim that runs it).
  auto real = output_of("'" + exe->string() + "' -I -S -c 'import sys; print(sys.executable)'");
  while (!real.empty() && real.back() == '\n') real.pop_back();
  ASSERT_FALSE(real.empty());
  exe = fs::canonical(real);
  const auto dir =
      fs::temp_directory_path() / ("vwheel-q-" + std::to_string(::getpid()) + "-\"q\\\xc3\xa9\xf0\x9d\x84\x9e");
  fs::remove_all(dir);
  fs::create_directories(dir / "bin");
  fs::create_symlink(fs::canonical(*exe), dir / "bin" / "python");
  std::ofstream(dir / "pyvenv.cfg") << "home = " << fs::canonical(*exe).parent_path().string() << "\n";
  auto r = query_interpreter(dir / "bin" / "python");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->prefix, dir);
  EXPECT_EQ(r->paths.at("purelib").string().rfind(dir.string(), 0), 0U) << r->paths.at("purelib");
  const auto expected = output_of("'" + fs::canonical(*exe).string() +
                                  "' -I -S -c 'import json, platform; print(json.dumps({"
                                  "\"platform_machine\": platform.machine(), \"platform_release\": platform.release(),"
                                  "\"platform_system\": platform.system(), \"platform_version\": platform.version(),"
                                  "\"python_full_version\": platform.python_version(),"
                                  "\"platform_python_implementation\": platform.python_implementation(),"
                                  "\"python_version\": \".\".join(platform.python_version_tuple()[:2])}))'");
  const auto want = nlohmann::json::parse(expected, nullptr, false);
  ASSERT_TRUE(want.is_object()) << expected;
  for (const auto& [key, value] : want.items()) {
    EXPECT_EQ(r->environment.at(key), value.get<std::string>()) << key;
  }
  fs::remove_all(dir);
}

// The query reports sys.executable and where it resolves to (a shim's or a venv link's real
// interpreter), the micro version, release level and ABI flags; a cached description keeps them.
TEST(Interpreter, ReportsItsExecutableAndWhereItResolvesTo) {
  auto exe = find_interpreter();
  if (!exe) GTEST_SKIP() << "no python3 on PATH";
  namespace fs = std::filesystem;
  auto r = query_interpreter(*exe);
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_FALSE(r->sys_executable.empty());
  EXPECT_EQ(r->real_executable, fs::canonical(r->sys_executable));
  EXPECT_FALSE(r->release_level.empty());
  EXPECT_EQ(fmt::format("{}.{}.{} {} {}\n", r->tag_info.major, r->tag_info.minor, r->micro, r->release_level, r->abiflags),
            output_of("'" + exe->string() +
                      "' -I -c 'import sys; v = sys.version_info; print(\"%d.%d.%d\" % v[:3], v[3], sys.abiflags)'"));
  auto back = parse_interpreter_report(*exe, interpreter_report_json(*r));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->sys_executable, r->sys_executable);
  EXPECT_EQ(back->real_executable, r->real_executable);
  EXPECT_EQ(back->micro, r->micro);
  EXPECT_EQ(back->release_level, r->release_level);
  EXPECT_EQ(back->abiflags, r->abiflags);
}

// A description cached before these fields were recorded still parses (they stay empty), and
// query_interpreter_cached asks the interpreter again and replaces the entry.
TEST(Interpreter, AnOldCacheEntryIsQueriedAgain) {
  auto old = parse_interpreter_report("/venv/bin/python", kReport);
  ASSERT_TRUE(old) << old.error().message;
  EXPECT_TRUE(old->sys_executable.empty());
  EXPECT_TRUE(old->real_executable.empty());
  EXPECT_EQ(old->micro, 0);
  EXPECT_EQ(old->release_level, "");

  auto exe = find_interpreter();
  if (!exe) GTEST_SKIP() << "no python3 on PATH";
  namespace fs = std::filesystem;
  const auto cache = fs::temp_directory_path() / ("vwheel-old-entry-" + std::to_string(::getpid()));
  fs::remove_all(cache);
  auto fresh = query_interpreter_cached(*exe, cache);
  ASSERT_TRUE(fresh) << fresh.error().message;
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(cache)) {
    if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path());
  }
  ASSERT_EQ(files.size(), 1U);
  // The entry as an older vwheel wrote it, doctored so that reading it would show.
  auto entry = nlohmann::json::parse(std::ifstream(files.front()));
  for (const char* key : {"micro", "releaselevel", "executable", "real_executable"}) entry.erase(key);
  entry["environment"]["python_full_version"] = "3.99.0";
  std::ofstream(files.front()) << entry.dump();
  auto again = query_interpreter_cached(*exe, cache);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->real_executable, fresh->real_executable);
  EXPECT_EQ(again->environment, fresh->environment);
  const auto rewritten = nlohmann::json::parse(std::ifstream(files.front()));
  EXPECT_EQ(rewritten.at("real_executable"), fresh->real_executable.string());
  fs::remove_all(cache);
}

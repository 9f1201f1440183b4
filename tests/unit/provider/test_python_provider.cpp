// The Python provider runner: opt-in, isolation, timeouts and validation, with real processes.
//
// `PythonProviderReal` runs the fixture provider (tests/data/python_provider) in a real virtual
// environment made with `python3 -m venv` and pip, offline: the fixture's wheel is built at test
// time with zipfile and installed with `--no-index --find-links DIR`. The environment is kept in
// the build folder (keyed by the fixture's sources), so only the first run pays for its creation;
// concurrent test processes share it through the runner's own locking. Those tests skip when
// python3 cannot make virtual environments. `PythonProviderFake` drives the environment creation
// with a fake interpreter (a shell script) to test failures and concurrency quickly
// (test_python_provider_env.cpp).

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "provider/python_detail.hpp"
#include "python_provider_test_util.hpp"
#include "shared_data.hpp"
#include "vwheel/core/process.hpp"
#include "vwheel/provider/python.hpp"
#include "vwheel/python/interpreter.hpp"

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using vwheel::provider::ProviderMethod;
using vwheel::provider::PythonProviderOptions;
using vwheel::provider::PythonProviderSpec;
using vwheel::provider::run_python_provider;
using vwheel::variant::FeatureConfig;
namespace detail = vwheel::provider::python_detail;
using vwheel::provider::test::count_entries;
using vwheel::provider::test::kNs;
using vwheel::provider::test::ScratchDir;

namespace {

constexpr const char* kMarkerEnv = "VWHEEL_TEST_PROVIDER_MARKER";

fs::path fixture_dir() { return vwheel::testing::source_dir() / "tests" / "data" / "python_provider"; }

vwheel::ProcessResult run(std::vector<std::string> argv, std::chrono::milliseconds timeout = 120s) {
  vwheel::ProcessRequest request;
  const char* path = std::getenv("PATH");
  const auto exe = vwheel::find_executable(argv.front(), path != nullptr ? path : "/usr/bin:/bin");
  if (!exe) return {};
  argv.front() = exe->string();
  request.argv = std::move(argv);
  for (char** e = environ; *e != nullptr; ++e) request.env.emplace_back(*e);
  request.timeout = timeout;
  request.kill_on_overflow = false;
  auto result = vwheel::run_process(request);
  return result ? *result : vwheel::ProcessResult{};
}

std::uint64_t fnv(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

std::vector<FeatureConfig> expected_supported() {
  return {{"min_version", {"3", "2", "1"}, false}, {"gpu", {"zort", "narf"}, true}};
}

std::vector<FeatureConfig> expected_all() {
  return {{"gpu", {"narf", "poit", "zort"}, true}, {"min_version", {"1", "2", "3", "4"}, false}};
}

const FeatureConfig* find_config(const std::vector<FeatureConfig>& configs, std::string_view name) {
  for (const auto& c : configs) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

// ---- pure parts ---------------------------------------------------------------------------

TEST(PythonProviderPlugin, ObjectReferenceFromPluginApiOrFirstRequirement) {
  using vwheel::provider::resolve_plugin_api;
  EXPECT_EQ(*resolve_plugin_api({kNs, {"x"}, "pkg.mod:Cls.inner"}), "pkg.mod:Cls.inner");
  EXPECT_EQ(*resolve_plugin_api({kNs, {"x"}, " pkg.mod : Plugin "}), "pkg.mod:Plugin");
  EXPECT_EQ(*resolve_plugin_api({kNs, {"x"}, "pkg.mod"}), "pkg.mod");
  EXPECT_EQ(*resolve_plugin_api({kNs, {"x"}, "pkg.mod:"}), "pkg.mod");
  EXPECT_EQ(*resolve_plugin_api({kNs, {"Provider.Variant-X86__64>=0.0.1; python_version >= '3.9'"}, std::nullopt}),
            "provider_variant_x86_64");
  EXPECT_EQ(*resolve_plugin_api({kNs, {"fixture-provider", "other"}, std::nullopt}), "fixture_provider");
  for (const char* bad : {"", ":Cls", "pkg..mod:Cls", "pkg:Cls:x", "pkg:1abc", "pkg mod:Cls", "-m:x"}) {
    const auto r = resolve_plugin_api({kNs, {"x"}, std::string(bad)});
    ASSERT_FALSE(r) << bad;
    EXPECT_NE(r.error().message.find("python provider `fictional_hw`: invalid plugin-api"), std::string::npos)
        << r.error().message;
  }
  vwheel::variant::ProviderInfo info;
  info.requires_ = {"fixture-provider>=1"};
  info.plugin_api = "fixture_provider:GoodPlugin";
  const auto spec = vwheel::provider::python_provider_spec(kNs, info);
  EXPECT_EQ(spec.ns, kNs);
  EXPECT_EQ(spec.requires_, info.requires_);
  EXPECT_EQ(*resolve_plugin_api(spec), "fixture_provider:GoodPlugin");
  EXPECT_FALSE(resolve_plugin_api({kNs, {}, std::nullopt}));
  EXPECT_FALSE(resolve_plugin_api({kNs, {"not a requirement!"}, std::nullopt}));
  EXPECT_FALSE(resolve_plugin_api({kNs, {"3d-provider"}, std::nullopt}));  // module `3d_provider`
}

TEST(PythonProviderPlugin, ValidatesTheAnswer) {
  const auto parse = [](std::string_view text, ProviderMethod m = ProviderMethod::supported_configs) {
    return detail::parse_answer(kNs, m, text);
  };
  const auto ok = parse(R"({"namespace": "fictional_hw", "configs": [
      {"name": "gpu", "values": ["zort", "narf"], "multi_value": true}, {"name": "v", "values": ["1.2"]}]})");
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_EQ(*ok, (std::vector<FeatureConfig>{{"gpu", {"zort", "narf"}, true}, {"v", {"1.2"}, false}}));
  EXPECT_TRUE(parse(R"({"namespace": "fictional_hw", "configs": []})"));

  const std::vector<std::pair<std::string, std::string>> bad = {
      {"not json", "not the loader's JSON object"},
      {R"([1])", "not the loader's JSON object"},
      {R"({"configs": []})", "`namespace` is missing"},
      {R"({"namespace": null, "configs": []})", "`namespace` is null"},
      {R"({"namespace": "other_hw", "configs": []})", "`namespace` is `other_hw`, expected `fictional_hw`"},
      {R"({"namespace": "fictional_hw", "configs": "<tuple>"})", "returned `<tuple>` instead of a list"},
      {R"({"namespace": "fictional_hw", "configs": [3]})", "config #1: 3 is not a feature config"},
      {R"({"namespace": "fictional_hw", "configs": [{"values": ["a"]}]})", "config #1: no `name`"},
      {R"({"namespace": "fictional_hw", "configs": [{"name": 7, "values": ["a"]}]})", "`name` is 7"},
      {R"({"namespace": "fictional_hw", "configs": [{"name": "Gpu", "values": ["a"]}]})",
       "feature name `Gpu` is invalid"},
      {R"({"namespace": "fictional_hw", "configs": [{"name": "gpu"}]})", "feature `gpu`: no `values`"},
      {R"({"namespace": "fictional_hw", "configs": [{"name": "gpu", "values": "a"}]})",
       "feature `gpu`: `values` is `a`, expected a list"},
      {R"({"namespace": "fictional_hw", "configs": [{"name": "gpu", "values": []}]})",
       "feature `gpu`: `values` is empty"},
      {R"({"namespace": "fictional_hw", "configs": [{"name": "gpu", "values": [1]}]})",
       "feature `gpu`: value 1 is not a string"},
      {R"({"namespace": "fictional_hw", "configs": [{"name": "gpu", "values": ["a b"]}]})",
       "feature `gpu`: value `a b` is invalid (expected [a-z0-9_.]+)"},
      {R"({"namespace": "fictional_hw", "configs": [{"name": "gpu", "values": ["a\nb"]}]})",
       "value `a\\nb` is invalid"},
      {R"({"namespace": "fictional_hw", "configs": [{"name": "gpu", "values": ["a", "a"]}]})",
       "feature `gpu`: value `a` is listed twice"},
      {R"({"namespace": "fictional_hw", "configs": [{"name": "gpu", "values": ["a"], "multi_value": 1}]})",
       "feature `gpu`: `multi_value` is 1, expected true or false"},
      {R"({"namespace": "fictional_hw", "configs": [{"name": "g", "values": ["a"]}, {"name": "g", "values": ["b"]}]})",
       "feature `g` is listed twice"},
  };
  for (const auto& [text, message] : bad) {
    const auto r = parse(text);
    ASSERT_FALSE(r) << text;
    EXPECT_NE(r.error().message.find("python provider `fictional_hw`: get_supported_configs()"), std::string::npos)
        << r.error().message;
    EXPECT_NE(r.error().message.find(message), std::string::npos) << r.error().message;
    EXPECT_EQ(r.error().message.find('\n'), std::string::npos) << r.error().message;
  }
  const auto empty_all = parse(R"({"namespace": "fictional_hw", "configs": []})", ProviderMethod::all_configs);
  ASSERT_FALSE(empty_all);
  EXPECT_NE(empty_all.error().message.find("get_all_configs(): returned no feature configs"), std::string::npos);
}

TEST(PythonProviderPlugin, VenvKeyIgnoresRequirementOrder) {
  const auto a = detail::venv_key("cpython 3.11.7 final  /usr/bin/python3.11", {"b>=1", "a"});
  const auto b = detail::venv_key("cpython 3.11.7 final  /usr/bin/python3.11", {"a", "b>=1", "a"});
  EXPECT_EQ(a, b);
  EXPECT_NE(a, detail::venv_key("cpython 3.12.1 final  /usr/bin/python3.12", {"a", "b>=1"}));
  EXPECT_NE(a, detail::venv_key("cpython 3.11.7 final  /usr/bin/python3.11", {"a", "b>=2"}));
  EXPECT_EQ(detail::venv_dir_name(a), detail::venv_dir_name(b));
  EXPECT_EQ(detail::venv_dir_name(a).size(), 5U + 16U);
}

// The identity is what the provider's own probe printed before it asked python::query_interpreter,
// so that environments made by an older vwheel keep their key (and are not made again).
TEST(PythonProviderPlugin, InterpreterIdentityKeepsTheProbesFormat) {
  vwheel::python::Interpreter interpreter;
  interpreter.environment["implementation_name"] = "cpython";
  interpreter.tag_info.major = 3;
  interpreter.tag_info.minor = 11;
  interpreter.micro = 7;
  interpreter.release_level = "final";
  interpreter.real_executable = "/usr/bin/python3.11";
  EXPECT_EQ(detail::interpreter_identity(interpreter), "cpython 3.11.7 final  /usr/bin/python3.11");
  interpreter.abiflags = "td";
  EXPECT_EQ(detail::interpreter_identity(interpreter), "cpython 3.11.7 final td /usr/bin/python3.11");

  const auto python = vwheel::python::find_interpreter();
  if (!python) GTEST_SKIP() << "no python3 on PATH";
  const auto probe = run({python->string(), "-I", "-c",
                          "import os, sys\n"
                          "v = sys.version_info\n"
                          "print(sys.implementation.name, '%d.%d.%d' % v[:3], v.releaselevel, getattr(sys, 'abiflags', ''))\n"
                          "print(os.path.realpath(sys.executable))\n"});
  ASSERT_EQ(probe.exit_code, 0) << probe.err;
  const auto nl = probe.out.find('\n');
  ASSERT_NE(nl, std::string::npos);
  const std::string old_identity = probe.out.substr(0, nl) + " " + vwheel::last_line(probe.out.substr(nl + 1));
  const auto queried = vwheel::python::query_interpreter(*python);
  ASSERT_TRUE(queried) << queried.error().message;
  EXPECT_EQ(detail::interpreter_identity(*queried), old_identity);
}

TEST(PythonProviderProcess, LastLineAndTimeouts) {
  EXPECT_EQ(vwheel::last_line("Traceback...\n  x\nRuntimeError: boom\n\n  \n"), "RuntimeError: boom");
  EXPECT_EQ(vwheel::last_line(std::string("a\tb\x01") + "c"), "a bc");
  EXPECT_EQ(vwheel::last_line(""), "");
  EXPECT_EQ(vwheel::last_line(std::string(500, 'x'), 10), "xxxxxxxxxx...");

  const auto start = std::chrono::steady_clock::now();
  // The shell's own child (sleep) is in the process group and goes too.
  const auto r = run({"sh", "-c", "echo started; sleep 30; echo never"}, 300ms);
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.out, "started\n");
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);

  const auto failed = run({"sh", "-c", "echo out; echo 'last words' >&2; exit 3"});
  EXPECT_FALSE(failed.timed_out);
  EXPECT_EQ(failed.exit_code, 3);
  EXPECT_EQ(failed.out, "out\n");
  EXPECT_EQ(failed.err, "last words\n");

  vwheel::ProcessRequest missing;
  missing.argv = {"/nonexistent/vwheel-test-binary"};
  const auto not_run = vwheel::run_process(missing);
  ASSERT_FALSE(not_run);
  EXPECT_NE(not_run.error().message.find("cannot run /nonexistent/vwheel-test-binary"), std::string::npos);
}

TEST(PythonProviderProcess, ChildGetsDefaultSignalActions) {
  // vwheel ignores SIGXFSZ (a write over `ulimit -f` is an error, not a kill); a child must not
  // inherit that, nor an ignored SIGPIPE: its SigIgn mask in /proc has neither bit.
  struct sigaction ignore {
  }, old_pipe{}, old_xfsz{};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  ASSERT_EQ(::sigaction(SIGPIPE, &ignore, &old_pipe), 0);
  ASSERT_EQ(::sigaction(SIGXFSZ, &ignore, &old_xfsz), 0);
  const auto r = run({"sh", "-c", "grep '^SigIgn:' /proc/self/status"});
  ::sigaction(SIGPIPE, &old_pipe, nullptr);
  ::sigaction(SIGXFSZ, &old_xfsz, nullptr);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto pos = r.out.find_first_of("0123456789abcdef", r.out.find(':'));
  ASSERT_NE(pos, std::string::npos) << r.out;
  const std::uint64_t ignored = std::stoull(r.out.substr(pos), nullptr, 16);
  EXPECT_EQ(ignored & (std::uint64_t{1} << (SIGXFSZ - 1)), 0U) << r.out;
  EXPECT_EQ(ignored & (std::uint64_t{1} << (SIGPIPE - 1)), 0U) << r.out;
}

TEST(PythonProviderProcess, OutputLimit) {
  const char* path = std::getenv("PATH");
  vwheel::ProcessRequest request;
  request.argv = {vwheel::find_executable("sh", path != nullptr ? path : "/usr/bin:/bin")->string(), "-c",
                  "yes 0123456789abcdef"};
  request.max_stdout = 1 << 16;
  request.timeout = 20s;
  const auto r = vwheel::run_process(request);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->overflowed);
  EXPECT_FALSE(r->timed_out);
  EXPECT_LE(r->out.size(), request.max_stdout);
}

// ---- opt-in -------------------------------------------------------------------------------

TEST(PythonProviderOptIn, RefusedWithoutOptInAndNothingRuns) {
  ScratchDir scratch;
  const fs::path marker = scratch.path() / "marker";
  const fs::path cache = scratch.path() / "cache";
  PythonProviderOptions options;
  options.cache_dir = cache;
  options.extra_env = {{kMarkerEnv, marker.string()}};
  for (const auto& allowed : {std::set<std::string, std::less<>>{}, std::set<std::string, std::less<>>{"other_hw"},
                              std::set<std::string, std::less<>>{"fictional_hw_2", "FICTIONAL_HW"}}) {
    options.allowed = allowed;
    for (const auto method : {ProviderMethod::supported_configs, ProviderMethod::all_configs}) {
      const auto r = run_python_provider({kNs, {"fixture-provider"}, std::nullopt}, options, method);
      ASSERT_FALSE(r);
      EXPECT_EQ(r.error().message.rfind("python provider `fictional_hw`: not allowed to run", 0), 0U)
          << r.error().message;
      EXPECT_NE(r.error().message.find("--allow-python-provider fictional_hw"), std::string::npos);
      EXPECT_NE(r.error().message.find("allow_python_providers"), std::string::npos);
    }
  }
  // No code ran: the provider's import-time marker is absent, and no environment was made.
  EXPECT_FALSE(fs::exists(marker));
  EXPECT_FALSE(fs::exists(cache));
}

// ---- a real provider in a real virtual environment ------------------------------------------

class PythonProviderReal : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const auto probe = run({"python3", "-I", "-c", "import ensurepip, sys, venv; print(sys.executable)"}, 60s);
    if (probe.exit_code != 0) {
      skip_reason_ = "python3 with the venv and ensurepip modules is needed: " +
                     (probe.err.empty() ? std::string("python3 not found") : vwheel::last_line(probe.err));
      return;
    }
    // The interpreter itself rather than a wrapper such as a pyenv shim: quicker to start.
    python_ = vwheel::last_line(probe.out);
    wheels_ = std::make_unique<ScratchDir>();
    const auto built = run({python_, "-I", (fixture_dir() / "build_wheel.py").string(), wheels_->path().string()});
    ASSERT_EQ(built.exit_code, 0) << built.err;
    // One environment for every test and every test process of this build, renewed when the
    // fixture changes.
    const std::string sources = vwheel::testing::read_file(fixture_dir() / "fixture_provider" / "__init__.py") +
                                vwheel::testing::read_file(fixture_dir() / "build_wheel.py");
    const fs::path root = fs::path(VWHEEL_BINARY_DIR) / "python-provider-tests";
    const std::string name = fmt::format("cache-{:016x}", fnv(sources));
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(root, ec)) {
      if (entry.path().filename() != name) fs::remove_all(entry.path(), ec);
    }
    cache_ = root / name;
  }
  static void TearDownTestSuite() { wheels_.reset(); }

  void SetUp() override {
    if (skip_reason_) GTEST_SKIP() << *skip_reason_;
  }

  [[nodiscard]] PythonProviderOptions options() const {
    PythonProviderOptions o;
    o.cache_dir = cache_;
    o.python = python_;
    o.pip_args = {"--no-index", "--find-links", wheels_->path().string()};
    o.allowed = {kNs};
    o.extra_env = {{kMarkerEnv, marker().string()}};
    return o;
  }
  [[nodiscard]] fs::path marker() const { return scratch_.path() / "marker"; }

  static vwheel::Result<std::vector<FeatureConfig>> call(const std::string& api, const PythonProviderOptions& o,
                                                         ProviderMethod m = ProviderMethod::supported_configs) {
    return run_python_provider({kNs, {"fixture-provider"}, api}, o, m);
  }

  /// Expects an error that names the namespace and contains `part`.
  static void expect_error(const vwheel::Result<std::vector<FeatureConfig>>& r, const std::string& part) {
    ASSERT_FALSE(r) << "expected an error containing: " << part;
    EXPECT_NE(r.error().message.find("python provider `fictional_hw`"), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find(part), std::string::npos) << r.error().message;
    EXPECT_EQ(r.error().message.find('\n'), std::string::npos) << r.error().message;
  }

  ScratchDir scratch_;
  static inline std::optional<std::string> skip_reason_;
  static inline std::unique_ptr<ScratchDir> wheels_;
  static inline fs::path cache_;
  static inline std::string python_;
};

TEST_F(PythonProviderReal, OptInRunsTheProvider) {
  ASSERT_FALSE(fs::exists(marker()));
  // No plugin-api: the module named after the first requirement is the plugin.
  const auto supported =
      run_python_provider({kNs, {"fixture-provider"}, std::nullopt}, options(), ProviderMethod::supported_configs);
  ASSERT_TRUE(supported) << supported.error().message;
  EXPECT_EQ(*supported, expected_supported());
  EXPECT_TRUE(fs::exists(marker()));

  const auto all =
      run_python_provider({kNs, {"fixture-provider"}, std::nullopt}, options(), ProviderMethod::all_configs);
  ASSERT_TRUE(all) << all.error().message;
  EXPECT_EQ(*all, expected_all());
  EXPECT_EQ(vwheel::testing::read_file(marker()).find("imported by " + cache_.string()), 0U)
      << vwheel::testing::read_file(marker());
}

TEST_F(PythonProviderReal, ClassesInstancesAndPlainConfigs) {
  for (const char* api : {"fixture_provider:GoodPlugin", "fixture_provider:static_plugin", "fixture_provider"}) {
    const auto r = call(api, options());
    ASSERT_TRUE(r) << api << ": " << r.error().message;
    EXPECT_EQ(*r, expected_supported()) << api;
  }
  const auto plain = call("fixture_provider:NoMultiValue", options());
  ASSERT_TRUE(plain) << plain.error().message;
  EXPECT_EQ(*plain, (std::vector<FeatureConfig>{{"gpu", {"zort"}, false}}));
}

TEST_F(PythonProviderReal, InvalidAnswersAreErrors) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"InvalidValue", "feature `gpu`: value `Narf` is invalid"},
      {"InvalidName", "feature name `GPU` is invalid"},
      {"DuplicateFeature", "feature `gpu` is listed twice"},
      {"DuplicateValue", "feature `gpu`: value `zort` is listed twice"},
      {"EmptyValues", "feature `gpu`: `values` is empty"},
      {"NumberValue", "feature `min_version`: value 3 is not a string"},
      {"BadMultiValue", "feature `gpu`: `multi_value` is `yes`, expected true or false"},
      {"NotAList", "returned `<dict>` instead of a list"},
      {"MissingValues", "feature `gpu`: no `values`"},
      {"WrongNamespace", "the plugin's `namespace` is `other_hw`, expected `fictional_hw`"},
      {"MissingMethods", "is not a variant provider plugin (missing: get_all_configs, get_supported_configs)"},
      {"BrokenInit", "cannot instantiate 'fixture_provider:BrokenInit': ValueError: cannot build the plugin"},
  };
  for (const auto& [cls, message] : cases) {
    SCOPED_TRACE(cls);
    expect_error(call("fixture_provider:" + cls, options()), message);
  }
  expect_error(call("no_such_module:Plugin", options()),
               "cannot load 'no_such_module:Plugin': ModuleNotFoundError: No module named 'no_such_module'");
}

TEST_F(PythonProviderReal, ExceptionMessageIsReported) {
  const auto r = call("fixture_provider:Raiser", options());
  expect_error(r, "(fixture_provider:Raiser): get_supported_configs() raised RuntimeError: fixture provider exploded");
}

TEST_F(PythonProviderReal, TimeoutKillsTheProvider) {
  ASSERT_TRUE(call("fixture_provider", options()));  // the environment exists: time only the call
  auto o = options();
  o.timeout = 1500ms;
  const auto start = std::chrono::steady_clock::now();
  const auto r = call("fixture_provider:Sleeper", o);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  expect_error(r, "get_supported_configs() timed out after 1500 ms");
  EXPECT_LT(elapsed, 6s);
}

TEST_F(PythonProviderReal, SecondCallReusesTheEnvironment) {
  const auto first = call("fixture_provider", options());
  ASSERT_TRUE(first) << first.error().message;
  ASSERT_EQ(count_entries(cache_, "venv-"), 1U);
  fs::path venv;
  for (const auto& entry : fs::directory_iterator(cache_)) {
    if (entry.path().filename().string().rfind("venv-", 0) == 0) venv = entry.path();
  }
  struct stat before {};
  ASSERT_EQ(::stat(venv.c_str(), &before), 0);

  // A reused environment needs no pip: the second call gets nowhere to install from and must
  // still succeed (the venv's inode below shows it was not made again either).
  auto no_pip = options();
  no_pip.pip_args = {"--no-index", "--find-links", (scratch_.path() / "no-wheels-here").string()};
  const auto second = call("fixture_provider", no_pip);
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_EQ(*second, *first);
  struct stat after {};
  ASSERT_EQ(::stat(venv.c_str(), &after), 0);
  EXPECT_EQ(before.st_ino, after.st_ino);
  EXPECT_EQ(count_entries(cache_, "venv-"), 1U);
  EXPECT_EQ(count_entries(cache_, ".tmp-"), 0U);
}

TEST_F(PythonProviderReal, PrintsOfTheProviderDoNotCorruptTheAnswer) {
  const auto r = call("fixture_provider:Noisy", options());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(*r, expected_supported());
}

TEST_F(PythonProviderReal, OversizedAnswerIsRefused) {
  expect_error(call("fixture_provider:Flood", options()), "get_supported_configs() wrote more than 1048576 bytes");
}

TEST_F(PythonProviderReal, LeftoverProcessesAreKilled) {
  auto o = options();
  const fs::path pidfile = scratch_.path() / "pid";
  o.extra_env["VWHEEL_TEST_PROVIDER_PIDFILE"] = pidfile.string();
  const auto start = std::chrono::steady_clock::now();
  const auto r = call("fixture_provider:Straggler", o);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
  const pid_t pid = std::stoi(vwheel::testing::read_file(pidfile));
  // Killed: gone, or a zombie waiting for its new parent (which may be slow to reap it).
  const auto alive = [pid] {
    if (!fs::exists("/proc/self/stat")) return ::kill(pid, 0) == 0;
    const std::string stat = vwheel::testing::read_file(fmt::format("/proc/{}/stat", pid));
    const std::size_t paren = stat.rfind(')');
    return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] != 'Z' && stat[paren + 2] != 'X';
  };
  bool gone = false;
  for (int i = 0; i < 200 && !gone; ++i) {
    gone = !alive();
    if (!gone) std::this_thread::sleep_for(10ms);
  }
  EXPECT_TRUE(gone) << "sleep " << pid << " survived";
}

TEST_F(PythonProviderReal, ProviderRunsIsolated) {
  ::setenv("PYTHONPATH", "/nonexistent/vwheel-test", 1);
  ::setenv("VWHEEL_TEST_SECRET", "x", 1);
  const auto r = call("fixture_provider:Introspect", options());
  ::unsetenv("PYTHONPATH");
  ::unsetenv("VWHEEL_TEST_SECRET");
  ASSERT_TRUE(r) << r.error().message;
  const auto* env = find_config(*r, "env");
  ASSERT_NE(env, nullptr);
  const std::set<std::string> allowed = {"path", "home", "lang", "lc_ctype", "vwheel_test_provider_marker"};
  for (const auto& name : env->values) EXPECT_TRUE(allowed.count(name)) << "unexpected variable " << name;
  EXPECT_NE(std::find(env->values.begin(), env->values.end(), "path"), env->values.end());
  EXPECT_NE(std::find(env->values.begin(), env->values.end(), "vwheel_test_provider_marker"), env->values.end());
  EXPECT_EQ(*find_config(*r, "isolated"), (FeatureConfig{"isolated", {"1"}, false}));
  EXPECT_EQ(*find_config(*r, "cwd_files"), (FeatureConfig{"cwd_files", {"vwheel_loader.py"}, true}));
  EXPECT_EQ(*find_config(*r, "in_venv"), (FeatureConfig{"in_venv", {"1"}, false}));
}

}  // namespace

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include <fmt/format.h>

#include "fake_interpreter.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/install/install.hpp"
#include "vwheel/install/select.hpp"
#include "vwheel/selection/selection.hpp"
#include "vwheel/wheel/record.hpp"
#include "vwheel/zip/zip.hpp"

namespace fs = std::filesystem;
using namespace vwheel;
using namespace vwheel::install;

namespace {

class SelectTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    root_ = fs::temp_directory_path() / (std::string("vwheel-select-") + info->name() + "-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "links");
  }
  void TearDown() override { fs::remove_all(root_); }

  /// `NAME-VERSION-py3-none-any.whl` in links/, with `Requires-Python: requires_python` when not empty.
  fs::path wheel(const std::string& name, const std::string& version, const std::string& requires_python) {
    const auto di = name + "-" + version + ".dist-info";
    std::map<std::string, std::string> members{
        {name + "/__init__.py", "X = 1\n"},
        {di + "/METADATA", "Metadata-Version: 2.1\nName: " + name + "\nVersion: " + version + "\n" +
                               (requires_python.empty() ? "" : "Requires-Python: " + requires_python + "\n")},
        {di + "/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}};
    zip::WritePlan plan;
    std::string record;
    for (const auto& [path, data] : members) {
      zip::NewMember m;
      m.name = path;
      m.data = data;
      plan.members.emplace_back(m);
      record += path + "," + wheel::record_hash(data) + "," + std::to_string(data.size()) + "\n";
    }
    zip::NewMember rec;
    rec.name = di + "/RECORD";
    rec.data = record + di + "/RECORD,,\n";
    plan.members.emplace_back(rec);
    const auto path = root_ / "links" / (name + "-" + version + "-py3-none-any.whl");
    auto ok = zip::write_archive(nullptr, plan, path);
    EXPECT_TRUE(ok) << (ok ? "" : ok.error().message);
    return path;
  }

  fs::path root_;
};

python::Interpreter interpreter(const std::string& full_version) { return test_support::fake_interpreter(full_version); }

}  // namespace

/// The selection `api::make_selection` builds for an interpreter (tests/unit/api covers building it).
selection::Selection for_interpreter(const python::Interpreter& i) {
  selection::Selection s;
  s.description = "this machine (detected)";
  s.environment.insert(i.environment.begin(), i.environment.end());
  s.environment_source = "interpreter " + i.executable.string();
  s.set_tags(i.tags);
  s.oracle = std::make_shared<variant::TableOracle>(variant::SupportedProperties{});
  return s;
}

TEST_F(SelectTest, RequiresPythonIsCheckedAgainstTheInterpreter) {
  const auto sel = for_interpreter(interpreter("3.11.2"));
  EXPECT_EQ(sel.python_version(), "3.11.2");
  EXPECT_TRUE(check_wheel(wheel("fits", "1.0", ">=3.8"), sel, false));
  EXPECT_TRUE(check_wheel(wheel("none", "1.0", ""), sel, false));
  auto r = check_wheel(wheel("newer", "1.0", ">=3.12"), sel, false);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            "newer-1.0-py3-none-any.whl: Requires-Python `>=3.12` excludes Python 3.11.2 (of the interpreter "
            "/opt/python/bin/python3)");
  // The micro version matters, as in pip.
  EXPECT_FALSE(check_wheel(wheel("micro", "1.0", ">=3.11.3"), sel, false));
  EXPECT_TRUE(sel.check_requires_python("!=3.10.*, <4", "x"));
  auto bad = sel.check_requires_python(">=three", "w.whl");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("w.whl: Requires-Python `>=three`"), std::string::npos) << bad.error().message;
  auto bad_wheel = check_wheel(wheel("garbled", "1.0", ">=three"), sel, false);
  ASSERT_FALSE(bad_wheel);
  EXPECT_NE(bad_wheel.error().message.find("garbled-1.0-py3-none-any.whl: Requires-Python `>=three`"), std::string::npos)
      << bad_wheel.error().message;

  // A selection without a Python version has nothing to check against.
  selection::Selection tags_only;
  tags_only.set_tags({"py3-none-any"});
  EXPECT_FALSE(tags_only.python_version());
  EXPECT_TRUE(check_wheel(root_ / "links" / "newer-1.0-py3-none-any.whl", tags_only, false));
}

TEST_F(SelectTest, TagsAreCheckedAgainstTheSelection) {
  auto sel = for_interpreter(interpreter("3.11.2"));
  sel.set_tags({"cp38-cp38-manylinux_2_17_x86_64"});
  auto r = check_wheel(wheel("pure", "1.0", ""), sel, false);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "pure-1.0-py3-none-any.whl: none of its tags (py3-none-any) is supported by the interpreter");
  sel.from_profile = true;
  EXPECT_EQ(check_wheel(wheel("pure", "1.0", ""), sel, false).error().message,
            "pure-1.0-py3-none-any.whl: none of its tags (py3-none-any) is supported by the target profile");
}

TEST(InterpreterCache, ReportRoundTripsAndTheCacheIsUsed) {
  if (!fs::exists("/usr/bin/python3")) GTEST_SKIP() << "no /usr/bin/python3";
  const auto cache = fs::temp_directory_path() / ("vwheel-interp-cache-" + std::to_string(::getpid()));
  fs::remove_all(cache);
  auto fresh = open_environment(fs::path("/usr/bin/python3"), cache);
  ASSERT_TRUE(fresh) << fresh.error().message;
  std::vector<fs::path> files;
  // Entries are the .json files; the query's module and its bytecode lie beside them.
  for (const auto& e : fs::directory_iterator(cache / "interpreters")) {
    if (e.path().extension() == ".json") files.push_back(e.path());
  }
  ASSERT_EQ(files.size(), 1U);
  // Read back from the cache: the same description.
  auto cached = open_environment(fs::path("/usr/bin/python3"), cache);
  ASSERT_TRUE(cached) << cached.error().message;
  EXPECT_EQ(cached->interpreter.tags, fresh->interpreter.tags);
  EXPECT_EQ(cached->interpreter.environment, fresh->interpreter.environment);
  EXPECT_EQ(cached->interpreter.paths, fresh->interpreter.paths);
  EXPECT_EQ(cached->interpreter.prefix, fresh->interpreter.prefix);
  EXPECT_EQ(cached->interpreter.base_prefix, fresh->interpreter.base_prefix);
  EXPECT_EQ(cached->env.scheme.purelib, fresh->env.scheme.purelib);
  EXPECT_EQ(cached->env.scheme.headers, fresh->env.scheme.headers);
  // The cache is what is read: a doctored entry shows through (and proves no query ran).
  auto doctored = fresh->interpreter;
  doctored.environment["python_full_version"] = "3.99.0";
  ASSERT_TRUE(write_file_atomic(files.front(), python::interpreter_report_json(doctored)));
  auto again = open_environment(fs::path("/usr/bin/python3"), cache);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->interpreter.environment.at("python_full_version"), "3.99.0");
  // A corrupt entry is ignored and replaced.
  ASSERT_TRUE(write_file_atomic(files.front(), "{not json"));
  again = open_environment(fs::path("/usr/bin/python3"), cache);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->interpreter.environment, fresh->interpreter.environment);
  // Without a cache directory nothing is written.
  fs::remove_all(cache);
  ASSERT_TRUE(open_environment(fs::path("/usr/bin/python3"), std::nullopt));
  EXPECT_FALSE(fs::exists(cache));
}

TEST(InterpreterCache, VirtualEnvironmentsOfOneBaseShareAnEntry) {
  if (!fs::exists("/usr/bin/python3")) GTEST_SKIP() << "no /usr/bin/python3";
  const auto root = fs::temp_directory_path() / ("vwheel-interp-venvs-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root);
  for (const char* v : {"a", "b"}) {
    const auto cmd = "/usr/bin/python3 -m venv --without-pip " + (root / v).string();
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  }
  const auto cache = root / "cache";
  auto a = open_environment(root / "a" / "bin" / "python", cache);
  ASSERT_TRUE(a) << a.error().message;
  auto b = open_environment(root / "b" / "bin" / "python", cache);
  ASSERT_TRUE(b) << b.error().message;
  std::size_t entries = 0;
  for (const auto& e : fs::directory_iterator(cache / "interpreters")) entries += e.path().extension() == ".json" ? 1 : 0;
  EXPECT_EQ(entries, 1U);
  // What b got from a's entry is what querying b says.
  auto queried = python::query_interpreter(root / "b" / "bin" / "python");
  ASSERT_TRUE(queried) << queried.error().message;
  EXPECT_EQ(b->interpreter.prefix, queried->prefix);
  EXPECT_EQ(b->interpreter.prefix, root / "b");
  EXPECT_EQ(b->interpreter.base_prefix, queried->base_prefix);
  EXPECT_EQ(b->interpreter.paths, queried->paths);
  EXPECT_EQ(b->interpreter.environment, queried->environment);
  EXPECT_EQ(b->interpreter.tags, queried->tags);
  EXPECT_EQ(b->env.scheme.purelib, root / "b" / "lib" /
                                       fmt::format("python{}.{}", queried->tag_info.major, queried->tag_info.minor) /
                                       "site-packages");
  fs::remove_all(root);
}

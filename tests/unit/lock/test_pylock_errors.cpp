// Unit tests of pylock.toml reading: what is refused (each error names the field and what was
// expected), keys kept though unknown, and hostile input (depth, size, Unicode).

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "pylock_text.hpp"
#include "vwheel/lock/pylock.hpp"

namespace vwheel::lock {
namespace {

using namespace test;  // NOLINT(google-build-using-namespace)

// ---- errors -----------------------------------------------------------------------------

TEST(PylockErrors, TomlSyntaxNamesTheLine) {
  const std::string message = error_of("lock-version = \"1.0\"\n\n[[packages]\nname = 1\n", "locks/pylock.toml");
  EXPECT_EQ(message.rfind("locks/pylock.toml: invalid TOML at line 3, column ", 0), 0U) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos);
  const std::string non_ascii = error_of("lock-version = \"1.0\"\n\xc3\xa9 = 1\n");
  EXPECT_NE(non_ascii.find("non-ASCII character outside a string or comment at line 2"), std::string::npos)
      << non_ascii;
}

// Non-ASCII where toml++ 3.3.0 would consult its Unicode tables (undefined behaviour there) is
// refused before it reads the text (fuzz/pending/*/toml-unicode-after-value*), while the same
// text inside a proper string stays fine.
TEST(PylockErrors, NonAsciiWhereTomlppWouldMisbehaveIsRefused) {
  EXPECT_EQ(error_of("a = 1[\"\xd2\x91\"\n"),
            "pylock.toml: non-ASCII character outside a string or comment at line 1 (TOML allows it only there)");
  EXPECT_EQ(error_of("a = \"\"\"x\\\n\n  \xef\xb9\xbf\"\"\"\n"),
            "pylock.toml: non-ASCII character after a line-ending backslash at line 3 (unsupported)");
  EXPECT_EQ(error_of("a = [\"\xd2\x91\"]\n\"b\".\"\xd2\x91\" = \"\"\"x\\\n  y\xd2\x91\"\"\"\n"),
            "pylock.toml: lock-version is missing (PEP 751 requires it)");
  // Up to two quotes more than `"""` (or `'''`) still close a multi-line string: what follows
  // is outside it (fuzz_user_config: regress-toml-unicode-after-closing-quotes).
  EXPECT_EQ(error_of("n = \"\"\"s =\"\"\"\"\xef\xb9\xbf e\n"),
            "pylock.toml: non-ASCII character outside a string or comment at line 1 (TOML allows it only there)");
  EXPECT_EQ(error_of("n = '''s '''''\xef\xb9\xbf e\n"),
            "pylock.toml: non-ASCII character outside a string or comment at line 1 (TOML allows it only there)");
  EXPECT_EQ(error_of("a = \"\"\"x\"\"\"\"\"\nb = '''y'''''\n\"\xd2\x91\" = 1\n"),
            "pylock.toml: lock-version is missing (PEP 751 requires it)");
}

TEST(PylockErrors, LockVersion) {
  EXPECT_EQ(error_of("created-by = \"x\"\n"), "pylock.toml: lock-version is missing (PEP 751 requires it)");
  EXPECT_EQ(error_of("lock-version = \"2.0\"\n"), "pylock.toml: unsupported lock-version `2.0`: vwheel reads 1.x");
  EXPECT_EQ(error_of("lock-version = \"0.9\"\n"), "pylock.toml: unsupported lock-version `0.9`: vwheel reads 1.x");
  EXPECT_EQ(error_of("lock-version = 1.0\n"), "pylock.toml: lock-version: expected a string, got a float");
  EXPECT_EQ(error_of("lock-version = \"one\"\n"),
            "pylock.toml: lock-version `one`: expected `major.minor`, e.g. `1.0`");
  // A newer minor version of 1 is read.
  auto newer = parse_pylock("lock-version = \"1.7\"\n", "x");
  ASSERT_TRUE(newer);
  EXPECT_EQ(newer->lock_version, "1.7");
  EXPECT_EQ(newer->created_by, "");
}

TEST(PylockErrors, PackageWithoutNameOrVersion) {
  const std::string no_name = error_of("lock-version = \"1.0\"\n[[packages]]\nversion = \"1.0\"\n");
  EXPECT_EQ(no_name, "pylock.toml: packages[0]: `name` is missing");
  const std::string no_version = error_of("lock-version = \"1.0\"\n[[packages]]\nname = \"demo\"\n");
  EXPECT_EQ(no_version, "pylock.toml: packages[0] `demo`: `version` is missing");
  EXPECT_EQ(error_of(lock_with("", "", "demo", "not a version")),
            "pylock.toml: packages[0].version: `not a version` is not a valid PEP 440 version");
  EXPECT_EQ(error_of(lock_with("", "", "-bad-", "1.0")),
            "pylock.toml: packages[0].name: `-bad-` is not a valid project name");
  EXPECT_EQ(error_of("lock-version = \"1.0\"\npackages = [1]\n"),
            "pylock.toml: packages[0]: expected a table, got an integer");
}

TEST(PylockErrors, WheelWithoutHashes) {
  const std::string message =
      error_of(lock_with("wheels = [ { url = \"https://x.example/demo-1.0-py3-none-any.whl\" } ]\n"));
  EXPECT_EQ(message,
            "pylock.toml: package `demo` `1.0`: wheels[0]: `hashes` is missing (PEP 751 requires the file's hashes)");
  EXPECT_EQ(error_of(lock_with("sdist = { path = \"demo-1.0.tar.gz\" }\n")),
            "pylock.toml: package `demo` `1.0`: sdist: `hashes` is missing (PEP 751 requires the file's hashes)");
  EXPECT_EQ(error_of(lock_with("wheels = [ { name = \"demo-1.0-py3-none-any.whl\", hashes = {} } ]\n")),
            "pylock.toml: package `demo` `1.0`: wheels[0]: neither `url` nor `path` is given (PEP 751 requires one)");
}

TEST(PylockErrors, BadHashes) {
  const auto with_hash = [](std::string_view algorithm, std::string_view digest) {
    return error_of(
        lock_with(wheels_line("demo-1.0-py3-none-any.whl", fmt::format("{{ {} = \"{}\" }}", algorithm, digest))));
  };
  EXPECT_EQ(with_hash("sha256", std::string(63, 'a')),
            "pylock.toml: package `demo` `1.0`: wheels[0]: hashes.`sha256`: expected 64 hex digits, got 63");
  EXPECT_EQ(with_hash("sha384", std::string(64, 'a')),
            "pylock.toml: package `demo` `1.0`: wheels[0]: hashes.`sha384`: expected 96 hex digits, got 64");
  EXPECT_EQ(with_hash("sha512", std::string(64, 'a')),
            "pylock.toml: package `demo` `1.0`: wheels[0]: hashes.`sha512`: expected 128 hex digits, got 64");
  EXPECT_EQ(with_hash("sha256", std::string(63, 'a') + "g"),
            "pylock.toml: package `demo` `1.0`: wheels[0]: hashes.`sha256`: `" + std::string(63, 'a') +
                "g` is not a hex digest");
  EXPECT_EQ(with_hash("sha256", ""),
            "pylock.toml: package `demo` `1.0`: wheels[0]: hashes.`sha256`: `` is not a hex digest");
  // Upper-case hex is read and stored lower-case; an unknown algorithm needs only hex.
  auto parsed =
      parse_pylock(lock_with(wheels_line("demo-1.0-py3-none-any.whl",
                                         fmt::format("{{ sha256 = \"{}\", blake3 = \"ABC\" }}", std::string(64, 'F')))),
                   "x");
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->packages[0].wheels[0].hashes.at("sha256"), std::string(64, 'f'));
  EXPECT_EQ(parsed->packages[0].wheels[0].hashes.at("blake3"), "abc");
}

TEST(PylockErrors, VariantWheelWithoutVariantsJson) {
  EXPECT_EQ(error_of(lock_with(wheels_line("demo-1.0-py3-none-any-x86_64_v3.whl"))),
            "pylock.toml: package `demo` `1.0`: wheel `demo-1.0-py3-none-any-x86_64_v3.whl` has variant label "
            "`x86_64_v3` but the package has no variants-json");
}

TEST(PylockErrors, UnknownVariantLabel) {
  EXPECT_EQ(error_of(lock_with(wheels_line("demo-1.0-py3-none-any-x86_64_v4.whl"), kDemoVariants)),
            "pylock.toml: package `demo` `1.0`: wheel `demo-1.0-py3-none-any-x86_64_v4.whl`: unknown variant label "
            "`x86_64_v4` (not in variants-json.variants)");
  EXPECT_TRUE(parse_pylock(lock_with(wheels_line("demo-1.0-py3-none-any-x86_64_v3.whl"), kDemoVariants), "x"));
}

TEST(PylockErrors, InvalidVariantsJson) {
  const auto variants = [](std::string_view namespaces, std::string_view body) {
    return lock_with(wheels_line("demo-1.0-py3-none-any.whl"),
                     fmt::format("[packages.variants-json]\n\"$schema\" = "
                                 "\"https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json\"\n"
                                 "[packages.variants-json.default-priorities]\nnamespace = {}\n"
                                 "[packages.variants-json.variants]\n{}\n",
                                 namespaces, body));
  };
  const std::string bad_name = error_of(variants("[\"X86\"]", "a = { X86 = { level = [\"v3\"] } }"));
  EXPECT_EQ(bad_name.rfind("pylock.toml: package `demo` `1.0`: variants-json: ", 0), 0U) << bad_name;
  EXPECT_NE(bad_name.find("X86"), std::string::npos) << bad_name;

  const std::string null_with = error_of(variants("[\"x86_64\"]", "null = { x86_64 = { level = [\"v3\"] } }"));
  EXPECT_EQ(null_with.rfind("pylock.toml: package `demo` `1.0`: variants-json: ", 0), 0U) << null_with;
  EXPECT_NE(null_with.find("null"), std::string::npos) << null_with;

  const std::string unlisted = error_of(variants("[\"x86_64\"]", "a = { blas = { library = [\"mkl\"] } }"));
  EXPECT_EQ(unlisted,
            "pylock.toml: package `demo` `1.0`: variants-json: variant `a` uses namespace `blas`, which "
            "default-priorities.namespace does not list");

  const std::string bad_schema = error_of(lock_with(
      wheels_line("demo-1.0-py3-none-any.whl"),
      "[packages.variants-json]\n\"$schema\" = \"https://variants-schema.wheelnext.dev/peps/825/v9.0.0.json\"\n"
      "default-priorities = { namespace = [\"a\"] }\nvariants = {}\n"));
  EXPECT_EQ(bad_schema.rfind("pylock.toml: package `demo` `1.0`: variants-json: ", 0), 0U) << bad_schema;

  const std::string date = error_of(
      lock_with(wheels_line("demo-1.0-py3-none-any.whl"), "[packages.variants-json]\n\"$schema\" = 1979-05-27\n"));
  EXPECT_EQ(date,
            "pylock.toml: package `demo` `1.0`: variants-json.$schema: a date has no JSON form (variants-json holds "
            "JSON data)");
  EXPECT_EQ(error_of(lock_with("variants-json = 3\n")),
            "pylock.toml: package `demo` `1.0`: variants-json: expected a table, got an integer");
}

TEST(PylockErrors, WheelNameMustMatchThePackage) {
  EXPECT_EQ(error_of(lock_with(wheels_line("other-1.0-py3-none-any.whl"))),
            "pylock.toml: package `demo` `1.0`: wheels[0]: wheel `other-1.0-py3-none-any.whl` is not a wheel of "
            "`demo` `1.0`");
  EXPECT_EQ(error_of(lock_with(wheels_line("demo-1.1-py3-none-any.whl"))),
            "pylock.toml: package `demo` `1.0`: wheels[0]: wheel `demo-1.1-py3-none-any.whl` is not a wheel of "
            "`demo` `1.0`");
  const std::string not_a_wheel = error_of(lock_with(wheels_line("demo-1.0.tar.gz")));
  EXPECT_EQ(not_a_wheel.rfind("pylock.toml: package `demo` `1.0`: wheels[0]: ", 0), 0U) << not_a_wheel;
  // Names compare normalized, versions as PEP 440; %-escapes in URLs are decoded.
  EXPECT_TRUE(parse_pylock(lock_with(wheels_line("My_Pkg-1.0.0-py3-none-any.whl"), "", "my.pkg", "1.0"), "x"));
  auto local = parse_pylock(lock_with(wheels_line("demo-1.0%2Bcpu-py3-none-any.whl"), "", "demo", "1.0+cpu"), "x");
  ASSERT_TRUE(local) << local.error().message;
  EXPECT_EQ(local->packages[0].wheels[0].name, "demo-1.0+cpu-py3-none-any.whl");
  EXPECT_EQ(error_of(lock_with("wheels = [ { url = \"https://x/demo-1.0-py3-none-any.whl\", hashes = {} },"
                               " { path = \"w/demo-1.0-py3-none-any.whl\", hashes = {} } ]\n")),
            "pylock.toml: package `demo` `1.0`: wheels[1]: wheel `demo-1.0-py3-none-any.whl` is listed twice");
}

TEST(PylockErrors, VariantMarkersOutsideDependencies) {
  EXPECT_EQ(error_of(lock_with("marker = \"variant_label == 'x'\"\n")),
            "pylock.toml: package `demo` `1.0`: marker: marker `variant_label == 'x'` uses a variant marker, which "
            "PEP 825 allows only in dependency specifiers");
  EXPECT_EQ(error_of("lock-version = \"1.0\"\nenvironments = [\"'a :: b :: c' in variant_properties\"]\n"),
            "pylock.toml: environments[0]: marker `'a :: b :: c' in variant_properties` uses a variant marker, "
            "which PEP 825 allows only in dependency specifiers");
  const std::string bad = error_of(lock_with("marker = \"python_version >=\"\n"));
  EXPECT_EQ(bad.rfind("pylock.toml: package `demo` `1.0`: marker: invalid marker: ", 0), 0U) << bad;
  const std::string bad_req = error_of(lock_with("[packages.tool.vwheel]\nrequires-dist = [\"bad req !!\"]\n"));
  EXPECT_EQ(bad_req.rfind("pylock.toml: package `demo` `1.0`: tool.vwheel.requires-dist[0]: invalid requirement: ", 0),
            0U)
      << bad_req;
  // Variant markers are fine in requires-dist.
  EXPECT_TRUE(parse_pylock(lock_with("[packages.tool.vwheel]\nrequires-dist = [\"x; variant_label == 'a'\"]\n"), "x"));
}

TEST(PylockErrors, WrongTypes) {
  EXPECT_EQ(error_of(lock_with("index = 3\n")),
            "pylock.toml: package `demo` `1.0`: index: expected a string, got an integer");
  EXPECT_EQ(
      error_of(lock_with("wheels = [ { url = \"https://x/demo-1.0-py3-none-any.whl\", hashes = {}, size = -1 } ]\n")),
      "pylock.toml: package `demo` `1.0`: wheels[0]: size: expected a non-negative integer, got -1");
  EXPECT_EQ(error_of(lock_with("wheels = [ { url = \"https://x/demo-1.0-py3-none-any.whl\", hashes = {}, upload-time = "
                               "\"2025-01-01T00:00:00Z\" } ]\n")),
            "pylock.toml: package `demo` `1.0`: wheels[0]: upload-time: expected a date-time, got a string");
  EXPECT_EQ(error_of("lock-version = \"1.0\"\nenvironments = \"linux\"\n"),
            "pylock.toml: environments: expected an array of strings, got a string");
  EXPECT_EQ(error_of("lock-version = \"1.0\"\n[tool]\nvwheel = 1\n"),
            "pylock.toml: tool.vwheel: expected a table, got an integer");
}

TEST(PylockErrors, AllProblemsAreReported) {
  auto parsed = parse_pylock(lock_with("index = 3\nmarker = 4\n" + wheels_line("other-1.0-py3-none-any.whl")), "p");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().details.size(), 2U) << parsed.error().message;
  for (const auto& line : parsed.error().details) EXPECT_EQ(line.rfind("p: package `demo` `1.0`: ", 0), 0U) << line;
}

TEST(PylockUnknownKeys, AreIgnored) {
  const std::string text = lock_with(
      "future-key = { anything = [1, 2.5, true, 1979-05-27] }\n"
      "attestation-identities = [ { kind = \"GitHub\", repository = \"a/b\" } ]\n"
      "dependencies = [ { name = \"x\", vcs = { url = \"https://x\" } } ]\n" +
          wheels_line("demo-1.0-py3-none-any.whl"),
      "[packages.tool.uv]\nsource = { registry = \"https://pypi.org/simple\" }\n[packages.tool.vwheel]\nother = 1\n"
      "[tool.pdm]\nhashes = false\n[tool.vwheel]\nfuture = \"x\"\n");
  auto parsed = parse_pylock(text, "x");
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_EQ(parsed->packages.size(), 1U);
  EXPECT_EQ(parsed->packages[0].dependencies, (std::vector<LockedDependency>{{{"name", "x"}}}));
  EXPECT_EQ(parsed->packages[0].wheels.size(), 1U);
}

// ---- hostile input ----------------------------------------------------------------------

TEST(PylockHostile, DeepNestingFailsCleanly) {
  const std::size_t depth = 20000;
  // Nested arrays and inline tables: toml++ refuses beyond its nesting limit.
  EXPECT_FALSE(
      parse_pylock("lock-version = \"1.0\"\nx = " + std::string(depth, '[') + std::string(depth, ']') + "\n", "x"));
  std::string inline_tables = "lock-version = \"1.0\"\nx = ";
  for (std::size_t i = 0; i < depth; ++i) inline_tables += "{ a = ";
  inline_tables += "1";
  for (std::size_t i = 0; i < depth; ++i) inline_tables += " }";
  EXPECT_FALSE(parse_pylock(inline_tables, "x"));
  // A million-part table header (toml++ would recurse once per part and overflow the stack).
  std::string million = "lock-version = \"1.0\"\n# a.b.c\nx = \"...\"\n[x";
  for (int i = 0; i < 1000000; ++i) million += ".x";
  million += "]\n";
  EXPECT_EQ(error_of(million), "pylock.toml: line 4 has more than 256 dotted key parts (nesting too deep)");
  // Dots in strings and comments do not count.
  EXPECT_TRUE(parse_pylock(
      "lock-version = \"1.0\"\n# " + std::string(1000, '.') + "\ncreated-by = \"" + std::string(1000, '.') + "\"\n",
      "x"));
  // Deep table headers inside variants-json: reported by the reader's own limit.
  std::string header = "[packages.variants-json";
  for (int i = 0; i < 200; ++i) header += ".a";
  header += "]\nb = 1\n";
  const std::string deep = error_of(lock_with(wheels_line("demo-1.0-py3-none-any.whl"), header));
  EXPECT_NE(deep.find("nested more than 32 levels deep"), std::string::npos) << deep.substr(0, 300);
  EXPECT_LT(deep.size(), 2000U);
}

TEST(PylockHostile, HugeStringsAndManyPackages) {
  const std::string huge(8U << 20U, 'a');
  auto bad_name = parse_pylock(lock_with("", "", huge + "!", "1.0"), "x");
  ASSERT_FALSE(bad_name);
  EXPECT_LT(bad_name.error().message.size(), 200U);  // values in messages are cut short
  EXPECT_NE(bad_name.error().message.find("...` is not a valid project name"), std::string::npos);
  auto big_ok = parse_pylock(lock_with("", "", huge, "1.0"), "x");  // long but valid
  ASSERT_TRUE(big_ok);
  EXPECT_EQ(big_ok->packages[0].name.size(), huge.size());
  std::string many = "lock-version = \"1.0\"\n";
  for (int i = 0; i < 2000; ++i) {
    many += fmt::format("[[packages]]\nname = \"p{}\"\nversion = \"1.{}\"\n", i, i);
  }
  auto parsed = parse_pylock(many, "x");
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->packages.size(), 2000U);
  // A huge string value round-trips.
  Lock lock;
  LockedPackage p;
  p.name = "demo";
  p.version = "1.0";
  p.index = std::string(4U << 20U, '\\');
  lock.packages = {p};
  auto back = parse_pylock(write_pylock(lock), "x");
  ASSERT_TRUE(back);
  EXPECT_EQ(back->packages[0].index, p.index);
}

TEST(PylockHostile, GarbageFailsCleanly) {
  // Each input is refused, with exactly this one-line message naming the file.
  const std::vector<std::pair<std::string_view, std::string>> cases = {
      {std::string_view(""), "g: lock-version is missing (PEP 751 requires it)"},
      {std::string_view("\0\0\0", 3),
       "g: invalid TOML at line 1, column 1: Error while parsing root table: expected keys, tables, whitespace or "
       "comments, saw '\\u0000'"},
      {std::string_view("[~a]"),
       "g: invalid TOML at line 1, column 2: Error while parsing key: expected bare key starting character or string "
       "delimiter, saw '~'"},
      {std::string_view("lock-version = \"1.0\"\n[[packages]]\n[packages.variants-json]\n"),
       "g: packages[0]: `name` is missing"},
      {std::string_view("lock-version = \"1.0\"\n[packages]\n"),
       "g: packages: expected an array of tables, got a table"},
      {std::string_view("lock-version = \"1.0\"\npackages = [[]]\n"), "g: packages[0]: expected a table, got an array"},
  };
  for (const auto& [text, message] : cases) {
    auto parsed = parse_pylock(text, "g");
    ASSERT_FALSE(parsed) << "accepted: " << text;
    EXPECT_EQ(parsed.error().message, message);
  }
}

}  // namespace
}  // namespace vwheel::lock

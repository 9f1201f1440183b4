// Unit tests of pylock.toml reading, writing and PEP 825 variants-json pruning.

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/toml.hpp"
#include "pylock_text.hpp"
#include "vwheel/core/process.hpp"
#include "vwheel/lock/pylock.hpp"
#include "vwheel/metadata/document.hpp"

namespace vwheel::lock {
namespace {

using Json = nlohmann::json;
using namespace test;  // NOLINT(google-build-using-namespace)

// ---- fixtures ---------------------------------------------------------------------------

// PEP 825's example, verbatim (section "Integration with pylock.toml").
constexpr std::string_view kPep825Example = R"(lock-version = "1.0"
created-by = "uv"
requires-python = ">=3.14"

[[packages]]
name = "numpy"
version = "2.3.4"
index = "https://pypi.anaconda.org/mgorny/simple"
wheels = [
    { url = "https://pypi.anaconda.org/mgorny/simple/numpy/2.3.4/numpy-2.3.4-cp314-cp314-linux_x86_64-openblas.whl", hashes = {} },
    { url = "https://pypi.anaconda.org/mgorny/simple/numpy/2.3.4/numpy-2.3.4-cp314-cp314-linux_x86_64-x86_64_v4_mkl.whl", hashes = {} },
    { url = "https://pypi.anaconda.org/mgorny/simple/numpy/2.3.4/numpy-2.3.4-cp314-cp314-macosx_13_0_x86_64-accelerate.whl", hashes = {} },
    { url = "https://pypi.anaconda.org/mgorny/simple/numpy/2.3.4/numpy-2.3.4-cp314-cp314-macosx_13_0_x86_64-openblas.whl", hashes = {} },
]

[packages.variants-json]
"$schema" = "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json"

[packages.variants-json.default-priorities]
namespace = [ "x86_64", "aarch64", "blas_lapack" ]

[packages.variants-json.variants]
null = { }
x86_64_v3_openblas = { "blas_lapack" = { "library" = ["openblas"]}, "x86_64" = { "level" = ["v3"]}  }
x86_64_v4_mkl = { "blas_lapack" = { "library" = ["mkl"]}, "x86_64" = { "level" = ["v4"]}  }
)";

// The two labels the example's wheels use but its variants table lacks.
constexpr std::string_view kPep825ExampleMissingLabels = R"(openblas = { "blas_lapack" = { "library" = ["openblas"]} }
accelerate = { "blas_lapack" = { "library" = ["accelerate"]} }
)";

variant::VariantMetadata metadata_from_json(std::string_view json) {
  auto parsed = metadata::parse_json_document(json, metadata::DocumentKind::VariantsJson);
  EXPECT_TRUE(parsed) << (parsed ? "" : parsed.error().message);
  return parsed ? parsed->metadata : variant::VariantMetadata{};
}

constexpr std::string_view kTorchVariants = R"({
  "$schema": "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json",
  "default-priorities": {"namespace": ["nvidia", "x86_64", "blas_lapack"]},
  "variants": {
    "null": {},
    "cu126": {"nvidia": {"cuda_version_lower_bound": ["12.6"], "sm_arch": ["80_real", "90_real"]}},
    "cu128": {"nvidia": {"cuda_version_lower_bound": ["12.8"]}},
    "x86_64_v3": {"x86_64": {"level": ["v3"]}},
    "mkl": {"blas_lapack": {"library": ["mkl"]}}
  }
})";

LockedWheel wheel(std::string name, std::string url_dir = "https://files.example/t/") {
  LockedWheel w;
  w.url = url_dir + name;
  w.name = std::move(name);
  w.hashes = {{"sha256", kSha256}};
  return w;
}

// A lock with every modelled field, packages and wheels out of order, and hostile strings.
Lock sample_lock() {
  Lock lock;
  lock.requires_python = ">=3.10";
  lock.environments = {"sys_platform == \"linux\"", "sys_platform == \"darwin\""};
  lock.extras = {"cuda"};
  lock.dependency_groups = {"dev"};
  lock.default_groups = {"dev"};
  lock.requirements = {"torch>=2.8", "weird-name[extra]; python_version >= \"3.10\""};

  LockedPackage torch;
  torch.name = "torch";
  torch.version = "2.8.0";
  torch.index = "https://download.example/simple";
  torch.requires_python = ">=3.10";
  torch.wheels.push_back(wheel("torch-2.8.0-cp312-cp312-manylinux_2_28_x86_64-cu128.whl"));
  torch.wheels.push_back(wheel("torch-2.8.0-cp312-cp312-manylinux_2_28_x86_64-cu126.whl"));
  torch.wheels.push_back(wheel("torch-2.8.0-cp312-cp312-manylinux_2_28_x86_64.whl"));
  torch.wheels.back().size = 123456789;
  torch.wheels.back().upload_time = "2025-03-12T10:00:00.5Z";
  torch.wheels.back().hashes["sha512"] = std::string(128, '0');
  torch.variants_json = prune_variants_json(metadata_from_json(kTorchVariants), used_variant_labels(torch));
  torch.requires_dist = {"nvidia-cudnn; 'nvidia :: cuda_version_lower_bound :: 12.8' in variant_properties",
                         "numpy>=1.26"};
  torch.dependencies = {{{"name", "numpy"}}, {{"name", "nvidia-cudnn"}, {"version", "9.1"}}};

  LockedPackage numpy;
  numpy.name = "numpy";
  numpy.version = "2.3.4";
  numpy.marker = "python_version >= \"3.10\"";
  numpy.wheels.push_back(wheel("numpy-2.3.4-cp312-cp312-linux_x86_64.whl"));
  numpy.sdist = LockedSdist{};
  numpy.sdist->name = "numpy-2.3.4.tar.gz";
  numpy.sdist->path = "dist/numpy-2.3.4.tar.gz";
  numpy.sdist->hashes = {{"sha256", kSha256}};
  numpy.extras = {"blas"};

  LockedPackage odd;  // strings needing escapes; the name sorts first
  odd.name = "Aardvark.Odd";
  odd.version = "1.0";
  odd.index = "https://host/\"quoted\"\\back\\slash/\x01\x7f/\xc3\xa9t\xc3\xa9/\xf0\x9f\x90\x8d\t\n";
  odd.wheels.push_back(wheel("aardvark_odd-1.0-py3-none-any.whl", "file:///tmp/\xe2\x82\xac/"));
  odd.wheels.back().url.reset();
  odd.wheels.back().path = "C:\\wheels\\aardvark_odd-1.0-py3-none-any.whl";

  lock.packages = {torch, numpy, odd};
  return lock;
}

// ---- helpers ----------------------------------------------------------------------------

struct TempFile {
  std::filesystem::path path;
  explicit TempFile(const std::string& content) {
    static std::atomic<int> counter{0};
    path = std::filesystem::temp_directory_path() /
           fmt::format("vwheel-lock-test-{}-{}.toml", ::getpid(), counter.fetch_add(1));
    std::ofstream(path, std::ios::binary) << content;
  }
  ~TempFile() {
    std::error_code ec;
    std::filesystem::remove(path, ec);
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
};

// Loads `text` with Python's tomllib and returns the document as JSON (dates as strings);
// nullopt (and the test skipped by the caller) without python3 or tomllib.
std::optional<Json> load_with_tomllib(const std::string& text) {
  const std::filesystem::path python = "/usr/bin/python3";
  if (!std::filesystem::exists(python)) return std::nullopt;
  TempFile file(text);
  ProcessRequest request;
  request.argv = {python.string(), "-c",
                  "import json, sys\n"
                  "try:\n    import tomllib\nexcept ImportError:\n    print('NO_TOMLLIB'); sys.exit(0)\n"
                  "with open(sys.argv[1], 'rb') as f:\n    data = tomllib.load(f)\n"
                  "print(json.dumps(data, default=str))\n",
                  file.path.string()};
  request.env = current_environment();
  auto result = run_process(request);
  if (!result) {
    ADD_FAILURE() << result.error().message;
    return std::nullopt;
  }
  if (result->out.rfind("NO_TOMLLIB", 0) == 0) return std::nullopt;
  EXPECT_EQ(result->exit_code, 0) << result->err << "\n" << text;
  if (result->exit_code != 0) return Json();
  return Json::parse(result->out);
}

// ---- round trips ------------------------------------------------------------------------

TEST(PylockWrite, RoundTripIsByteIdentical) {
  const std::string first = write_pylock(sample_lock());
  auto parsed = parse_pylock(first, "sample.toml");
  ASSERT_TRUE(parsed) << parsed.error().message << "\n" << first;
  const std::string second = write_pylock(*parsed);
  EXPECT_EQ(first, second);
  // Parsing again gives the same model: nothing is lost or reinterpreted.
  auto again = parse_pylock(second, "sample.toml");
  ASSERT_TRUE(again);
  EXPECT_EQ(*parsed, *again);
}

TEST(PylockWrite, ModelSurvivesExceptOrder) {
  const Lock lock = sample_lock();
  auto parsed = parse_pylock(write_pylock(lock), "sample.toml");
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_EQ(parsed->packages.size(), 3U);
  // Sorted by normalized name.
  EXPECT_EQ(parsed->packages[0].name, "Aardvark.Odd");
  EXPECT_EQ(parsed->packages[1].name, "numpy");
  EXPECT_EQ(parsed->packages[2].name, "torch");
  EXPECT_EQ(parsed->packages[0], lock.packages[2]);  // hostile strings survive exactly
  EXPECT_EQ(parsed->packages[1], lock.packages[1]);
  const LockedPackage& torch = parsed->packages[2];
  // Wheels sorted by file name; everything else as given.
  ASSERT_EQ(torch.wheels.size(), 3U);
  EXPECT_EQ(torch.wheels[0].name, "torch-2.8.0-cp312-cp312-manylinux_2_28_x86_64-cu126.whl");
  EXPECT_EQ(torch.wheels[1].name, "torch-2.8.0-cp312-cp312-manylinux_2_28_x86_64-cu128.whl");
  EXPECT_EQ(torch.wheels[2].name, "torch-2.8.0-cp312-cp312-manylinux_2_28_x86_64.whl");
  EXPECT_EQ(torch.wheels[2].size, 123456789U);
  EXPECT_EQ(torch.wheels[2].upload_time, "2025-03-12T10:00:00.5Z");
  EXPECT_EQ(torch.wheels[2].hashes.at("sha512"), std::string(128, '0'));
  EXPECT_EQ(torch.variants_json, lock.packages[0].variants_json);
  EXPECT_EQ(torch.requires_dist, lock.packages[0].requires_dist);
  EXPECT_EQ(torch.dependencies, lock.packages[0].dependencies);
  EXPECT_EQ(parsed->requirements, lock.requirements);
  EXPECT_EQ(parsed->environments, lock.environments);
  EXPECT_EQ(parsed->extras, lock.extras);
  EXPECT_EQ(parsed->dependency_groups, lock.dependency_groups);
  EXPECT_EQ(parsed->default_groups, lock.default_groups);
  EXPECT_EQ(parsed->requires_python, lock.requires_python);
  EXPECT_EQ(parsed->created_by, "vwheel");
  EXPECT_EQ(parsed->lock_version, "1.0");
}

TEST(PylockWrite, SeveralVersionsOfOneProjectWithMarkedEdges) {
  // A universal lock of torch-like variants: one project at two versions, each needed by one
  // variant, reached through `dependencies` edges whose markers are variant markers.
  Lock lock;
  auto plain = [](std::string name, std::string version) {
    LockedPackage p;
    p.name = std::move(name);
    p.version = std::move(version);
    LockedWheel w;
    std::string file_name = p.name;
    std::replace(file_name.begin(), file_name.end(), '-', '_');
    w.name = fmt::format("{}-{}-py3-none-any.whl", file_name, p.version);
    w.url = "https://example.org/" + w.name;
    w.hashes["sha256"] = std::string(64, 'a');
    p.wheels.push_back(std::move(w));
    return p;
  };
  auto app = plain("app", "1.0");
  app.dependencies.push_back({{"name", "nv-runtime"}, {"version", "12.8.0"}, {"marker", "variant_label == \"cu128\""}});
  app.dependencies.push_back({{"name", "nv-runtime"}, {"version", "12.6.0"}, {"marker", "variant_label == \"cu126\""}});
  app.dependencies.push_back({{"name", "filelock"}, {"version", "3.18.0"}});
  lock.packages = {plain("nv-runtime", "12.8.0"), app, plain("nv-runtime", "12.6.0"), plain("filelock", "3.18.0")};
  const std::string text = write_pylock(lock);
  EXPECT_NE(text.find(R"({ marker = "variant_label == \"cu128\"", name = "nv-runtime", version = "12.8.0" })"),
            std::string::npos)
      << text;
  auto parsed = parse_pylock(text, "forks.toml");
  ASSERT_TRUE(parsed) << parsed.error().message << "\n" << text;
  ASSERT_EQ(parsed->packages.size(), 4U);
  EXPECT_EQ(parsed->packages[2].name, "nv-runtime");
  EXPECT_EQ(parsed->packages[2].version, "12.6.0");  // by name, then version
  EXPECT_EQ(parsed->packages[3].version, "12.8.0");
  EXPECT_EQ(parsed->packages[0].dependencies, app.dependencies);
  EXPECT_EQ(write_pylock(*parsed), text);
}

TEST(PylockWrite, LayoutFollowsPep825Example) {
  const std::string text = write_pylock(sample_lock());
  EXPECT_EQ(text.rfind("lock-version = \"1.0\"\n", 0), 0U) << text;
  EXPECT_NE(text.find("\n[packages.variants-json]\n\"$schema\" = "
                      "\"https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json\"\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\n[packages.variants-json.default-priorities]\nnamespace = [\"nvidia\"]\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("\n[packages.variants-json.variants]\n"
                      "cu126 = { nvidia = { cuda_version_lower_bound = [\"12.6\"], sm_arch = [\"80_real\", "
                      "\"90_real\"] } }\n"
                      "cu128 = { nvidia = { cuda_version_lower_bound = [\"12.8\"] } }\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("wheels = [\n    { name = \"torch-2.8.0-cp312-cp312-manylinux_2_28_x86_64-cu126.whl\", url = "),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("upload-time = 2025-03-12T10:00:00.5Z, "), std::string::npos) << text;
  // Escapes: quote, backslash, controls as \uXXXX, DEL, UTF-8 kept.
  EXPECT_NE(text.find(R"(index = "https://host/\"quoted\"\\back\\slash/\u0001\u007F/)"
                      "\xc3\xa9t\xc3\xa9/\xf0\x9f\x90\x8d\\t\\n\"\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\n[tool.vwheel]\nrequirements = [\n    \"torch>=2.8\",\n"), std::string::npos) << text;
}

TEST(PylockWrite, InvalidUtf8BecomesReplacementCharacter) {
  Lock lock;
  LockedPackage p;
  p.name = "demo";
  p.version = "1.0";
  p.index = std::string("https://x/\xff\xc3(\xed\xa0\x80");  // stray byte, truncated sequence, surrogate
  p.wheels.push_back(wheel("demo-1.0-py3-none-any.whl"));
  lock.packages = {p};
  const std::string text = write_pylock(lock);
  EXPECT_NE(text.find(R"(index = "https://x/\uFFFD\uFFFD(\uFFFD\uFFFD\uFFFD")"), std::string::npos) << text;
  auto parsed = parse_pylock(text, "x");
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->packages[0].index, "https://x/\xef\xbf\xbd\xef\xbf\xbd(\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
}

TEST(PylockWrite, EmptyLockIsMinimal) {
  EXPECT_EQ(write_pylock(Lock{}),
            "lock-version = \"1.0\"\nextras = []\ndependency-groups = []\ncreated-by = \"vwheel\"\n");
  auto parsed = parse_pylock(write_pylock(Lock{}), "x");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(*parsed, Lock{});
}

TEST(PylockWrite, InvalidUploadTimeIsLeftOut) {
  Lock lock;
  LockedPackage p;
  p.name = "demo";
  p.version = "1.0";
  p.wheels.push_back(wheel("demo-1.0-py3-none-any.whl"));
  p.wheels.back().upload_time = "yesterday\"\n[evil]";
  lock.packages = {p};
  const std::string text = write_pylock(lock);
  EXPECT_EQ(text.find("upload-time"), std::string::npos) << text;
  EXPECT_TRUE(parse_pylock(text, "x"));
  p.wheels.back().upload_time = "2025-01-02 03:04:05+00:00";  // other spellings come out canonical
  lock.packages = {p};
  EXPECT_NE(write_pylock(lock).find("upload-time = 2025-01-02T03:04:05Z,"), std::string::npos);
}

TEST(PylockWrite, DraftVariantsJsonKeepsProviders) {
  // A draft (PEP 817 model) document keeps its providers and priorities through the lock.
  constexpr std::string_view kDraft = R"({
    "$schema": "https://variants-schema.wheelnext.dev/v0.0.3.json",
    "default-priorities": {"namespace": ["x86_64"], "feature": {"x86_64": ["level"]}},
    "providers": {"x86_64": {"requires": ["provider-variant-x86-64>=0.0.1"], "plugin-api": "provider_variant_x86_64.plugin:X8664Plugin"}},
    "variants": {"x8664v3": {"x86_64": {"level": ["v3"]}}}
  })";
  Lock lock;
  LockedPackage p;
  p.name = "demo";
  p.version = "1.0";
  p.wheels.push_back(wheel("demo-1.0-py3-none-any-x8664v3.whl"));
  p.variants_json = metadata_from_json(kDraft);
  lock.packages = {p};
  const std::string text = write_pylock(lock);
  EXPECT_NE(text.find("\n[packages.variants-json.providers.x86_64]\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n[packages.variants-json.default-priorities.feature]\nx86_64 = [\"level\"]\n"),
            std::string::npos)
      << text;
  auto parsed = parse_pylock(text, "x");
  ASSERT_TRUE(parsed) << parsed.error().message << "\n" << text;
  EXPECT_EQ(parsed->packages[0].variants_json, p.variants_json);
  EXPECT_EQ(write_pylock(*parsed), text);
}

TEST(PylockWrite, NewerMinorSchemaUrlIsPreserved) {
  const std::string text = lock_with(wheels_line("demo-1.0-py3-none-any-x86_64_v3.whl"),
                                     R"(
[packages.variants-json]
"$schema" = "https://variants-schema.wheelnext.dev/peps/825/v0.1.7.json"
[packages.variants-json.default-priorities]
namespace = ["x86_64"]
[packages.variants-json.variants]
x86_64_v3 = { x86_64 = { level = ["v3"] } }
)");
  auto parsed = parse_pylock(text, "x");
  ASSERT_TRUE(parsed) << parsed.error().message;
  const std::string written = write_pylock(*parsed);
  EXPECT_NE(written.find("\"$schema\" = \"https://variants-schema.wheelnext.dev/peps/825/v0.1.7.json\""),
            std::string::npos)
      << written;
}

// ---- other readers ----------------------------------------------------------------------

TEST(PylockTomllib, AcceptsTheOutput) {
  const Lock lock = sample_lock();
  const std::string text = write_pylock(lock);
  auto doc = load_with_tomllib(text);
  if (!doc) GTEST_SKIP() << "python3 with tomllib is not available";
  ASSERT_TRUE(doc->is_object());
  EXPECT_EQ((*doc)["lock-version"], "1.0");
  EXPECT_EQ((*doc)["created-by"], "vwheel");
  ASSERT_EQ((*doc)["packages"].size(), 3U);
  const Json& odd = (*doc)["packages"][0];
  EXPECT_EQ(odd["index"].get<std::string>(), *lock.packages[2].index);  // escapes decode to the same bytes
  EXPECT_EQ(odd["wheels"][0]["path"].get<std::string>(), *lock.packages[2].wheels[0].path);
  const Json& torch = (*doc)["packages"][2];
  EXPECT_EQ(torch["variants-json"]["$schema"], "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json");
  EXPECT_EQ(torch["variants-json"]["variants"]["cu126"]["nvidia"]["sm_arch"], Json({"80_real", "90_real"}));
  EXPECT_EQ(torch["wheels"][2]["upload-time"], "2025-03-12 10:00:00.500000+00:00");  // a real datetime
  EXPECT_EQ(torch["wheels"][2]["size"], 123456789);
  EXPECT_EQ(torch["tool"]["vwheel"]["requires-dist"][0], lock.packages[0].requires_dist[0]);
  EXPECT_EQ((*doc)["tool"]["vwheel"]["requirements"][1], lock.requirements[1]);
  // The variants-json table is the index-level JSON document, TOML-typed: the metadata reader
  // accepts tomllib's view of it as-is.
  auto md = metadata::parse_json_document(torch["variants-json"].dump(), metadata::DocumentKind::VariantsJson);
  ASSERT_TRUE(md) << md.error().message;
  EXPECT_EQ(md->metadata, *lock.packages[0].variants_json);
}

TEST(PylockTomllib, AcceptsThePep825Example) {
  auto doc = load_with_tomllib(std::string(kPep825Example));
  if (!doc) GTEST_SKIP() << "python3 with tomllib is not available";
  EXPECT_EQ((*doc)["packages"][0]["wheels"].size(), 4U);
}

// A reader that knows only PEP 751 (ignores `variants-json` and `tool`) still sees every wheel,
// the plain one included, with the standard keys only.
TEST(PylockPlainReader, SeesPlainWheels) {
  const std::string text = write_pylock(sample_lock());
  const toml::table doc = toml::parse(text);
  const auto* packages = doc["packages"].as_array();
  ASSERT_NE(packages, nullptr);
  const auto& torch = *packages->get(2)->as_table();
  EXPECT_EQ(torch["name"].value_or(std::string()), "torch");
  for (const auto& [key, value] : torch) {
    const std::string k(key.str());
    EXPECT_TRUE(k == "name" || k == "version" || k == "index" || k == "requires-python" || k == "wheels" ||
                k == "dependencies" || k == "variants-json" || k == "tool")
        << k;
  }
  const auto* wheels = torch["wheels"].as_array();
  ASSERT_NE(wheels, nullptr);
  ASSERT_EQ(wheels->size(), 3U);
  int plain = 0;
  for (const auto& node : *wheels) {
    const auto& w = *node.as_table();
    for (const auto& [key, value] : w) {
      const std::string k(key.str());
      EXPECT_TRUE(k == "name" || k == "url" || k == "path" || k == "upload-time" || k == "size" || k == "hashes") << k;
    }
    EXPECT_TRUE(w["hashes"]["sha256"].is_string());
    if (w["name"].value_or(std::string()) == "torch-2.8.0-cp312-cp312-manylinux_2_28_x86_64.whl") ++plain;
  }
  EXPECT_EQ(plain, 1);
  if (auto py = load_with_tomllib(text)) {
    const Json& w = (*py)["packages"][2]["wheels"];
    EXPECT_EQ(w.size(), 3U);
  }
}

// ---- the PEP 825 example ----------------------------------------------------------------

TEST(PylockPep825Example, VerbatimIsRejectedForItsMissingLabels) {
  // The example's wheels use `openblas` and `accelerate`, which its variants table lacks; PEP 825
  // says the entry for every label that occurs MUST be retained.
  const std::string message = error_of(kPep825Example, "example.toml");
  EXPECT_NE(message.find("example.toml: package `numpy` `2.3.4`: wheel "
                         "`numpy-2.3.4-cp314-cp314-linux_x86_64-openblas.whl`: unknown variant label `openblas`"),
            std::string::npos)
      << message;
  const std::string all = all_errors(kPep825Example);
  EXPECT_NE(all.find("unknown variant label `accelerate`"), std::string::npos) << all;
}

TEST(PylockPep825Example, ParsesWithItsLabelsListed) {
  const std::string text = std::string(kPep825Example) + std::string(kPep825ExampleMissingLabels);
  auto parsed = parse_pylock(text, "example.toml");
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->lock_version, "1.0");
  EXPECT_EQ(parsed->created_by, "uv");
  EXPECT_EQ(parsed->requires_python, ">=3.14");
  ASSERT_EQ(parsed->packages.size(), 1U);
  const LockedPackage& numpy = parsed->packages[0];
  EXPECT_EQ(numpy.name, "numpy");
  EXPECT_EQ(numpy.index, "https://pypi.anaconda.org/mgorny/simple");
  ASSERT_EQ(numpy.wheels.size(), 4U);
  EXPECT_EQ(numpy.wheels[2].name, "numpy-2.3.4-cp314-cp314-macosx_13_0_x86_64-accelerate.whl");  // from the url
  EXPECT_TRUE(numpy.wheels[2].hashes.empty());
  ASSERT_TRUE(numpy.variants_json);
  const auto& md = *numpy.variants_json;
  EXPECT_EQ(md.schema_url, "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json");
  EXPECT_EQ(md.namespace_priorities, (std::vector<std::string>{"x86_64", "aarch64", "blas_lapack"}));
  EXPECT_EQ(md.variants.size(), 5U);
  ASSERT_EQ(md.variants.at("x86_64_v4_mkl").size(), 2U);
  EXPECT_EQ(md.variants.at("x86_64_v4_mkl")[0].to_string(), "blas_lapack :: library :: mkl");
  EXPECT_TRUE(md.variants.at("null").empty());
  EXPECT_EQ(used_variant_labels(numpy), (std::vector<std::string>{"accelerate", "openblas", "x86_64_v4_mkl"}));

  // Pruned to the labels in use, the unused `null`, `x86_64_v3_openblas` and `aarch64` go.
  LockedPackage pruned = numpy;
  pruned.variants_json = prune_variants_json(md, used_variant_labels(numpy));
  EXPECT_EQ(pruned.variants_json->variants.size(), 3U);
  EXPECT_EQ(pruned.variants_json->namespace_priorities, (std::vector<std::string>{"x86_64", "blas_lapack"}));
  Lock relocked = *parsed;
  relocked.packages = {pruned};
  const std::string written = write_pylock(relocked);
  auto reparsed = parse_pylock(written, "relocked.toml");
  ASSERT_TRUE(reparsed) << reparsed.error().message << "\n" << written;
  EXPECT_EQ(write_pylock(*reparsed), written);
}

// ---- pruning ----------------------------------------------------------------------------

TEST(PylockPrune, KeepsUsedLabelsWholeAndDropsTheRest) {
  const auto md = metadata_from_json(kTorchVariants);
  const auto pruned = prune_variants_json(md, {"cu126", "not-there"});
  ASSERT_EQ(pruned.variants.size(), 1U);
  EXPECT_EQ(pruned.variants.at("cu126"), md.variants.at("cu126"));  // all three properties kept
  EXPECT_EQ(pruned.variants.at("cu126").size(), 3U);
  EXPECT_EQ(pruned.namespace_priorities, (std::vector<std::string>{"nvidia"}));
  EXPECT_EQ(pruned.schema_url, md.schema_url);

  const auto two = prune_variants_json(md, {"mkl", "x86_64_v3", "null"});
  EXPECT_EQ(two.variants.size(), 3U);
  EXPECT_EQ(two.namespace_priorities, (std::vector<std::string>{"x86_64", "blas_lapack"}));  // order kept

  const auto everything = prune_variants_json(md, {"null", "cu126", "cu128", "x86_64_v3", "mkl"});
  EXPECT_EQ(everything, md);

  // Only the null variant: the schema needs one namespace, the first stays.
  const auto only_null = prune_variants_json(md, {"null"});
  EXPECT_EQ(only_null.variants.size(), 1U);
  EXPECT_EQ(only_null.namespace_priorities, (std::vector<std::string>{"nvidia"}));
  EXPECT_TRUE(metadata::conformance_problems(only_null, metadata::DocumentKind::VariantsJson).empty());
  EXPECT_TRUE(metadata::conformance_problems(pruned, metadata::DocumentKind::VariantsJson).empty());
}

TEST(PylockPrune, DropsDraftDataOfUnusedNamespaces) {
  auto md = metadata_from_json(kTorchVariants);
  md.feature_priorities = {{"nvidia", {"sm_arch"}}, {"blas_lapack", {"library"}}};
  md.property_priorities = {{"blas_lapack", {{"library", {"mkl"}}}}, {"x86_64", {{"level", {"v3"}}}}};
  md.providers["nvidia"].requires_ = {"nvidia-variant-provider"};
  md.providers["blas_lapack"].requires_ = {"blas-provider"};
  md.static_properties = {{"x86_64", {{"level", {"v3"}}}}};
  const auto pruned = prune_variants_json(md, {"mkl"});
  EXPECT_EQ(pruned.namespace_priorities, (std::vector<std::string>{"blas_lapack"}));
  EXPECT_EQ(pruned.feature_priorities.size(), 1U);
  EXPECT_EQ(pruned.feature_priorities.count("blas_lapack"), 1U);
  EXPECT_EQ(pruned.property_priorities.count("blas_lapack"), 1U);
  EXPECT_EQ(pruned.property_priorities.count("x86_64"), 0U);
  EXPECT_EQ(pruned.providers.size(), 1U);
  EXPECT_EQ(pruned.providers.count("blas_lapack"), 1U);
  EXPECT_TRUE(pruned.static_properties.empty());
}

TEST(PylockPrune, UsedLabelsIgnoreUnparsableNames) {
  LockedPackage p;
  p.wheels = {wheel("a-1-py3-none-any-b.whl"), wheel("a-1-py3-none-any.whl"), wheel("not a wheel"),
              wheel("a-1-py3-none-any-b.whl"), wheel("a-1-2-py3-none-any-c.whl")};
  EXPECT_EQ(used_variant_labels(p), (std::vector<std::string>{"b", "c"}));
}

}  // namespace
}  // namespace vwheel::lock

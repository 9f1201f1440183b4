// libFuzzer target for pylock.toml (lock component): whatever parse_pylock accepts must write and
// read back to the same model, field by field (markers included), and write to the same text
// again (the round trip write_pylock documents). Comparing only texts would miss a writer that
// leaves a field out: the text read back would lack it too, and write the same text again.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vwheel/core/text.hpp"
#include "vwheel/lock/pylock.hpp"
#include "vwheel/metadata/document.hpp"
#include "vwheel/pep440/version.hpp"
#include "vwheel/wheel_name/names.hpp"

namespace {

using vwheel::lock::Lock;
using vwheel::lock::LockedFile;
using vwheel::lock::LockedPackage;

[[noreturn]] void differs(const std::string& field, const std::string& written) {
  std::fprintf(stderr, "fuzz_pylock: parse -> write -> parse changed %s; the written lock:\n%s\n", field.c_str(),
               written.c_str());
  std::abort();
}

// The order write_pylock writes packages in (normalized name, valid versions first in PEP 440
// order, version text, marker; stable), so that the model read back lines up with the one read.
struct PackageOrder {
  std::string name;
  std::optional<vwheel::pep440::Version> version;
  std::string version_text;
  std::string marker;

  explicit PackageOrder(const LockedPackage& package)
      : name(vwheel::wheel_name::canonicalize_name(package.name)),
        version_text(package.version),
        marker(package.marker.value_or("")) {
    if (auto parsed = vwheel::pep440::Version::parse(package.version)) version = std::move(*parsed);
  }

  friend bool operator<(const PackageOrder& a, const PackageOrder& b) {
    if (a.name != b.name) return a.name < b.name;
    if (a.version.has_value() != b.version.has_value()) return a.version.has_value();
    if (a.version && *a.version != *b.version) return *a.version < *b.version;
    if (a.version_text != b.version_text) return a.version_text < b.version_text;
    return a.marker < b.marker;
  }
};

// `lock` as write_pylock lays it out: packages in its order, each package's wheels by file name.
Lock in_written_order(Lock lock) {
  std::stable_sort(lock.packages.begin(), lock.packages.end(),
                   [](const LockedPackage& a, const LockedPackage& b) { return PackageOrder(a) < PackageOrder(b); });
  for (auto& package : lock.packages) {
    std::stable_sort(package.wheels.begin(), package.wheels.end(),
                     [](const LockedFile& a, const LockedFile& b) { return a.name < b.name; });
  }
  return lock;
}

void compare_file(const LockedFile& a, const LockedFile& b, const std::string& where, const std::string& written) {
  if (a.name != b.name) differs(where + ".name", written);
  if (a.url != b.url) differs(where + ".url", written);
  if (a.path != b.path) differs(where + ".path", written);
  if (a.upload_time != b.upload_time) differs(where + ".upload-time", written);
  if (a.size != b.size) differs(where + ".size", written);
  if (a.hashes != b.hashes) differs(where + ".hashes", written);
}

void compare_package(const LockedPackage& a, const LockedPackage& b, const std::string& where,
                     const std::string& written) {
  if (a.name != b.name) differs(where + ".name", written);
  if (a.version != b.version) differs(where + ".version", written);
  if (a.marker != b.marker) differs(where + ".marker", written);
  if (a.requires_python != b.requires_python) differs(where + ".requires-python", written);
  if (a.index != b.index) differs(where + ".index", written);
  if (a.dependencies != b.dependencies) differs(where + ".dependencies", written);
  if (a.wheels.size() != b.wheels.size()) differs(where + ".wheels (count)", written);
  for (std::size_t i = 0; i < a.wheels.size(); ++i) {
    compare_file(a.wheels[i], b.wheels[i], where + ".wheels[" + std::to_string(i) + "]", written);
  }
  if (a.sdist.has_value() != b.sdist.has_value()) differs(where + ".sdist", written);
  if (a.sdist) compare_file(*a.sdist, *b.sdist, where + ".sdist", written);
  if (a.variants_json != b.variants_json) differs(where + ".variants-json", written);
  if (a.requires_dist != b.requires_dist) differs(where + ".tool.vwheel.requires-dist", written);
  if (a.wheel_requires_dist != b.wheel_requires_dist) differs(where + ".tool.vwheel.wheel-requires-dist", written);
  if (a.extras != b.extras) differs(where + ".tool.vwheel.extras", written);
  if (a.directory != b.directory) differs(where + ".directory", written);
}

void compare_lock(const Lock& read, const Lock& again, const std::string& written) {
  Lock a = in_written_order(read);
  // Credentials are never written (no secrets at rest): URLs lose their userinfo.
  for (auto& package : a.packages) {
    if (package.index) package.index = vwheel::url_without_userinfo(*package.index);
    for (auto& wheel : package.wheels) {
      if (wheel.url) wheel.url = vwheel::url_without_userinfo(*wheel.url);
    }
    if (package.sdist && package.sdist->url) package.sdist->url = vwheel::url_without_userinfo(*package.sdist->url);
  }
  // The one change the writer makes to a variants-json on purpose: a draft (0.0.2, 0.0.3, or no
  // `$schema`, read as 0.0.3) is written as v0.0.3 with its URL, as every draft file vwheel
  // writes; the data is kept. A PEP 825 or Providers-draft `$schema` is kept as read.
  for (std::size_t i = 0; i < a.packages.size() && i < again.packages.size(); ++i) {
    auto& first = a.packages[i].variants_json;
    const auto& second = again.packages[i].variants_json;
    if (first && second && vwheel::metadata::is_draft_schema(first->schema) &&
        vwheel::metadata::is_draft_schema(second->schema)) {
      first->schema = second->schema;
      first->schema_url = second->schema_url;
    }
  }
  if (a.lock_version != again.lock_version) differs("lock-version", written);
  if (a.created_by != again.created_by) differs("created-by", written);
  if (a.requires_python != again.requires_python) differs("requires-python", written);
  if (a.environments != again.environments) differs("environments", written);
  if (a.extras != again.extras) differs("extras", written);
  if (a.dependency_groups != again.dependency_groups) differs("dependency-groups", written);
  if (a.default_groups != again.default_groups) differs("default-groups", written);
  if (a.requirements != again.requirements) differs("tool.vwheel.requirements", written);
  if (a.project_inputs != again.project_inputs) differs("tool.vwheel.project-inputs", written);
  if (a.packages.size() != again.packages.size()) differs("packages (count)", written);
  for (std::size_t i = 0; i < a.packages.size(); ++i) {
    compare_package(a.packages[i], again.packages[i], "packages[" + std::to_string(i) + "]", written);
  }
  // Every field is compared above; this catches one added to the model but not here.
  if (!(a == again)) differs("a field compare_lock does not name", written);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto lock = vwheel::lock::parse_pylock(text, "fuzz");
  if (!lock) return 0;
  const std::string first = vwheel::lock::write_pylock(*lock);
  auto again = vwheel::lock::parse_pylock(first, "fuzz");
  if (!again) {
    std::fprintf(stderr, "fuzz_pylock: the written lock does not parse: %s\n%s\n", again.error().message.c_str(),
                 first.c_str());
    std::abort();
  }
  compare_lock(*lock, *again, first);
  if (vwheel::lock::write_pylock(*again) != first) {
    std::fprintf(stderr, "fuzz_pylock: write -> parse -> write changed the text:\n%s\n", first.c_str());
    std::abort();
  }
  return 0;
}

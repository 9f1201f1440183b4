#include "index/dist.hpp"

#include <fmt/format.h>

#include "index/state.hpp"
#include "index/text.hpp"
#include "vwheel/core/text.hpp"
#include "vwheel/simple/core_metadata.hpp"
#include "vwheel/wheel/wheel.hpp"
#include "vwheel/wheel_name/names.hpp"
#include "vwheel/wheel_name/wheel_name.hpp"

namespace vwheel::index::detail {
namespace {

constexpr std::string_view kSdistSuffix = ".tar.gz";
constexpr std::uint64_t kMaxMetadata = std::uint64_t{64} << 20;

Result<std::string> normalized_project(std::string_view filename, std::string_view name) {
  if (!wheel_name::is_valid_project_name(name)) {
    return fail(fmt::format("{}: `{}` is not a valid project name", filename, name));
  }
  std::string project = wheel_name::canonicalize_name(name);
  if (!is_safe_project(project)) return fail(fmt::format("{}: `{}` is not a valid project name", filename, name));
  return project;
}

}  // namespace

Result<std::optional<DistName>> identify(std::string_view filename) {
  if (filename.empty() || filename.front() == '.') return std::optional<DistName>{};
  DistName out;
  if (filename.ends_with(".whl")) {
    auto parsed = wheel_name::parse_wheel_name(filename);
    if (!parsed) return fail(parsed.error());
    out.kind = DistKind::Wheel;
    auto project = normalized_project(filename, parsed->name);
    if (!project) return fail(project.error());
    out.project = std::move(*project);
    out.version_text = parsed->version;
    if (parsed->is_variant()) out.variant_namever = parsed->namever();
  } else if (filename.ends_with(kSdistSuffix)) {
    const std::string_view stem = filename.substr(0, filename.size() - kSdistSuffix.size());
    const auto dash = stem.rfind('-');
    if (dash == std::string_view::npos || dash == 0 || dash + 1 == stem.size()) {
      return fail(fmt::format("{}: expected a source distribution named `{{name}}-{{version}}.tar.gz`", filename));
    }
    out.kind = DistKind::Sdist;
    auto project = normalized_project(filename, stem.substr(0, dash));
    if (!project) return fail(project.error());
    out.project = std::move(*project);
    out.version_text = std::string(stem.substr(dash + 1));
  } else {
    return std::optional<DistName>{};
  }
  auto version = pep440::Version::parse(out.version_text);
  if (!version) {
    return fail(fmt::format("{}: version `{}` is not a valid PEP 440 version", filename, out.version_text));
  }
  out.version = std::move(*version);
  return std::optional<DistName>(std::move(out));
}

Result<WheelInfo> inspect_wheel(const std::filesystem::path& path, const DistName& name) {
  const std::string filename = path.filename().string();
  auto wheel = wheel::open_wheel(path);
  if (!wheel) return fail(wheel.error());
  const std::string member = wheel->dist_info + "/METADATA";
  const zip::Entry* entry = wheel->archive.find(member);
  if (entry == nullptr) return fail(fmt::format("{}: no `{}`", filename, member));
  auto text = wheel->archive.read(*entry, kMaxMetadata);
  if (!text) return fail(text.error());
  auto core = simple::parse_core_metadata(*text, fmt::format("{}: `{}`", filename, member));
  if (!core) return fail(core.error());
  if (wheel_name::canonicalize_name(core->name) != name.project) {
    return fail(fmt::format("{}: `{}` says `Name: {}`, expected `{}` as in the file name", filename, member, core->name,
                            name.project));
  }
  if (auto v = pep440::Version::parse(core->version); !v || *v != name.version) {
    return fail(fmt::format("{}: `{}` says `Version: {}`, expected `{}` as in the file name", filename, member,
                            core->version, name.version_text));
  }
  if (name.variant_namever) {
    auto doc = wheel::read_variant_json(*wheel);
    if (!doc) return fail(doc.error());
  }
  // Valid UTF-8, so that it reads back from the state as it was written.
  std::optional<std::string> requires_python;
  if (core->requires_python) requires_python = to_valid_utf8(*core->requires_python);
  return WheelInfo{std::move(*text), std::move(requires_python)};
}

}  // namespace vwheel::index::detail

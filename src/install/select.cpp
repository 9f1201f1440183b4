#include "vwheel/install/select.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "vwheel/api/maintain.hpp"
#include "vwheel/api/target.hpp"
#include "vwheel/install/layout.hpp"
#include "vwheel/pep440/specifier.hpp"
#include "vwheel/pep440/version.hpp"
#include "vwheel/wheel/wheel.hpp"
#include "vwheel/wheel_name/names.hpp"
#include "vwheel/wheel_name/wheel_name.hpp"

namespace vwheel::install {
namespace fs = std::filesystem;

namespace {

/// The best (lowest) priority index among the wheel's tags, or nullopt when none is supported.
std::optional<std::size_t> tag_priority(const wheel_name::WheelName& name, const Compatibility& compat) {
  std::unordered_map<std::string, std::size_t> index;
  index.reserve(compat.tags.size());
  for (std::size_t i = 0; i < compat.tags.size(); ++i) index.emplace(compat.tags[i], i);
  std::optional<std::size_t> best;
  for (const auto& t : name.tags()) {
    auto it = index.find(fmt::format("{}-{}-{}", t.python, t.abi, t.platform));
    if (it != index.end() && (!best || it->second < *best)) best = it->second;
  }
  return best;
}

using MarkerEnvironment = std::map<std::string, std::string, std::less<>>;

bool has_python_version(const MarkerEnvironment& env) {
  return env.contains("python_full_version") || env.contains("python_version");
}

/// The `Requires-Python` of a wheel's METADATA ("" when absent).
Result<std::string> wheel_requires_python(const fs::path& path) {
  auto w = wheel::open_wheel(path);
  if (!w) return fail(w.error());
  const auto* e = w->archive.find(w->dist_info + "/METADATA");
  if (e == nullptr) return fail(fmt::format("{}: no `{}/METADATA` file", path.filename().string(), w->dist_info));
  auto text = w->archive.read(*e, std::uint64_t{64} << 20);
  if (!text) return fail(text.error().with_context(path.filename().string()));
  return header_value(*text, "Requires-Python").value_or("");
}

/// Checks the wheel's Requires-Python when there is a version to check it against.
Result<void> check_wheel_requires_python(const fs::path& path, const Compatibility& compat) {
  if (!target_python_version(compat)) return {};
  auto rp = wheel_requires_python(path);
  if (!rp) return fail(rp.error());
  return check_requires_python(*rp, compat, path.filename().string());
}

Result<Compatibility> make(std::vector<std::string> tags, std::optional<MarkerEnvironment> environment,
                           std::string environment_source, const std::optional<fs::path>& target, bool no_cache) {
  Compatibility c;
  c.tags = std::move(tags);
  c.target = target;
  c.no_cache = no_cache;
  if (environment && has_python_version(*environment)) {
    c.environment = std::move(environment);
    c.environment_source = std::move(environment_source);
  }
  if (target) {
    auto resolved = api::resolve_target(api::TargetRequest{target, no_cache});
    if (!resolved) return fail(resolved.error());
    if (resolved->tags) c.tags = *resolved->tags;
    if (resolved->environment && has_python_version(*resolved->environment)) {
      c.environment = std::move(resolved->environment);
      c.environment_source = resolved->description;
    }
  }
  return c;
}

}  // namespace

Result<Compatibility> make_compatibility(std::vector<std::string> interpreter_tags,
                                         const std::optional<fs::path>& target, bool no_cache) {
  return make(std::move(interpreter_tags), std::nullopt, "", target, no_cache);
}

Result<Compatibility> make_compatibility(const python::Interpreter& interpreter, const std::optional<fs::path>& target,
                                         bool no_cache) {
  MarkerEnvironment env(interpreter.environment.begin(), interpreter.environment.end());
  return make(interpreter.tags, std::move(env), fmt::format("interpreter {}", interpreter.executable.string()), target,
              no_cache);
}

std::optional<std::string> target_python_version(const Compatibility& compat) {
  if (!compat.environment) return std::nullopt;
  for (const char* key : {"python_full_version", "python_version"}) {
    if (auto it = compat.environment->find(key); it != compat.environment->end() && !it->second.empty()) return it->second;
  }
  return std::nullopt;
}

Result<void> check_requires_python(std::string_view requires_python, const Compatibility& compat, std::string_view what) {
  const auto version = target_python_version(compat);
  if (!version) return {};
  auto spec = pep440::SpecifierSet::parse(requires_python);
  if (!spec) return fail(fmt::format("{}: Requires-Python `{}`: {}", what, requires_python, spec.error().message));
  // As pip: pre-releases of Python itself are admitted.
  if (spec->contains(*version, true)) return {};
  return fail(fmt::format("{}: Requires-Python `{}` excludes Python {} (of the {})", what, requires_python, *version,
                          compat.environment_source.empty() ? "target" : compat.environment_source));
}

Result<void> check_wheel(const fs::path& wheel, const Compatibility& compat, bool ignore_variant) {
  const auto file = wheel.filename().string();
  auto name = wheel_name::parse_wheel_name(file);
  if (!name) return fail(name.error());
  if (!tag_priority(*name, compat)) {
    return fail(fmt::format("{}: none of its tags ({}-{}-{}) is supported by the {}", file, name->python_tag,
                            name->abi_tag, name->platform_tag, compat.target ? "target profile" : "interpreter"));
  }
  if (auto ok = check_wheel_requires_python(wheel, compat); !ok) return ok;
  if (!name->is_variant() || ignore_variant) return {};
  api::AnalyzeRequest req;
  req.wheels = {wheel};
  req.target = compat.target;
  req.no_cache = compat.no_cache;
  auto report = api::analyze_wheels(req);
  if (!report) return fail(report.error());
  const auto& a = report->wheels.front();
  if (!a.supported) {
    return fail(fmt::format("{}: variant `{}` is not supported by {}: {} (--ignore-variant installs it anyway)", file,
                            *name->label, report->target_description, a.reason));
  }
  return {};
}

}  // namespace vwheel::install

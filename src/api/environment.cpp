#include "vwheel/api/environment.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "vwheel/core/fs.hpp"
#include "vwheel/core/process.hpp"
#include "vwheel/install/layout.hpp"
#include "vwheel/python/venv.hpp"
#include "vwheel/wheel/record.hpp"

namespace vwheel::api {
namespace {

Result<install::OpenedEnvironment> open(const EnvironmentRequest& request) {
  return install::open_environment(request.python);
}

// The `Requires-Dist` values of the header block (up to the first empty line), leading spaces
// dropped.
std::vector<std::string> requires_dist_of(const std::string& metadata) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < metadata.size()) {
    auto end = metadata.find('\n', pos);
    if (end == std::string::npos) end = metadata.size();
    std::string_view line(metadata.data() + pos, end - pos);
    pos = end + 1;
    if (line.empty() || line == "\r") break;
    if (!line.starts_with("Requires-Dist:")) continue;
    line.remove_prefix(14);
    while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
    out.emplace_back(line);
  }
  return out;
}

ShownDistribution describe(install::Distribution d) {
  ShownDistribution shown;
  if (auto metadata = read_file(d.dist_info / "METADATA"); metadata) {
    shown.has_metadata = true;
    for (const char* field : {"Summary", "Home-page", "Author", "Author-email", "License", "Requires-Python"}) {
      if (auto v = install::header_value(*metadata, field); v && !v->empty()) shown.fields.emplace_back(field, *v);
    }
    shown.requires_dist = requires_dist_of(*metadata);
  }
  if (auto record = read_file(d.dist_info / "RECORD"); record) {
    auto rows = wheel::parse_record(*record);
    shown.files = rows ? rows->size() : 0;
  }
  shown.distribution = std::move(d);
  return shown;
}

}  // namespace

Result<ListReport> list_distributions(const EnvironmentRequest& request) {
  auto opened = open(request);
  if (!opened) return fail(with_kind(opened.error(), ErrorKind::environment));
  return ListReport{install::list_distributions(opened->env)};
}

std::string format_list_text(const ListReport& report) {
  std::size_t wn = 7, wv = 7, wi = 9;
  for (const auto& d : report.distributions) {
    wn = std::max(wn, d.name.size());
    wv = std::max(wv, d.version.size());
    wi = std::max(wi, d.installer.size());
  }
  std::string out = fmt::format("{:<{}}  {:<{}}  {:<{}}  {}\n", "Package", wn, "Version", wv, "Installer", wi, "Variant");
  for (const auto& d : report.distributions) {
    std::string variant;
    if (d.variant_label) {
      variant = d.variant_properties.empty() ? *d.variant_label + " (null variant)"
                                             : fmt::format("{} ({})", *d.variant_label, fmt::join(d.variant_properties, ", "));
    }
    out += fmt::format("{:<{}}  {:<{}}  {:<{}}  {}\n", d.name, wn, d.version, wv, d.installer, wi, variant);
  }
  return out;
}

std::string format_list_json(const ListReport& report) {
  auto list = nlohmann::ordered_json::array();
  for (const auto& d : report.distributions) {
    nlohmann::ordered_json j;
    j["name"] = d.name;
    j["version"] = d.version;
    j["installer"] = d.installer;
    j["variant"] = d.variant_label ? nlohmann::ordered_json(*d.variant_label) : nlohmann::ordered_json();
    j["variant_properties"] = d.variant_properties;
    // PEP 610's document as the installer wrote it; null when it is not JSON (another tool's).
    j["direct_url"] = d.direct_url ? nlohmann::ordered_json::parse(*d.direct_url, nullptr, false)
                                   : nlohmann::ordered_json();
    if (j["direct_url"].is_discarded()) j["direct_url"] = nullptr;
    list.push_back(std::move(j));
  }
  return list.dump(2) + "\n";
}

Result<ShowReport> show_distributions(const ShowRequest& request) {
  auto opened = open(request.environment);
  if (!opened) return fail(with_kind(opened.error(), ErrorKind::environment));
  return show_distributions(opened->env, request.names);
}

ShowReport show_distributions(const install::Environment& env, const std::vector<std::string>& names) {
  ShowReport report;
  for (const auto& name : names) {
    auto d = install::find_distribution(env, name);
    if (!d) {
      report.entries.emplace_back(fail(fmt::format("{}: not installed in {}", name, env.scheme.purelib.string())));
    } else {
      report.entries.emplace_back(describe(std::move(*d)));
    }
  }
  return report;
}

std::string format_show(const ShowReport& report) {
  std::string out;
  bool first = true;
  for (const auto& entry : report.entries) {
    if (!entry) continue;
    if (!first) out += "---\n";
    first = false;
    const auto& d = entry->distribution;
    out += fmt::format("Name: {}\nVersion: {}\n", d.name, d.version);
    if (entry->has_metadata) {
      for (const auto& [field, value] : entry->fields) out += fmt::format("{}: {}\n", field, value);
      out += fmt::format("Requires: {}\n", fmt::join(entry->requires_dist, ", "));
    }
    out += fmt::format("Location: {}\n", d.dist_info.parent_path().string());
    out += fmt::format("Installer: {}\n", d.installer);
    if (d.direct_url) {
      const auto j = nlohmann::ordered_json::parse(*d.direct_url, nullptr, false);
      if (j.is_object() && j.contains("url") && j["url"].is_string()) {
        // A VCS checkout as pip freeze writes it: `git+URL@COMMIT`, `#subdirectory=` after.
        const auto vcs = j.value("vcs_info", nlohmann::ordered_json::object());
        if (vcs.is_object() && vcs.value("vcs", "") != "" && vcs.value("commit_id", "") != "") {
          out += fmt::format("Direct-URL: {}+{}@{}", vcs.value("vcs", ""), j["url"].get<std::string>(),
                             vcs.value("commit_id", ""));
          if (j.contains("subdirectory") && j["subdirectory"].is_string()) {
            out += "#subdirectory=" + j["subdirectory"].get<std::string>();
          }
          out += "\n";
        } else {
          out += fmt::format("Direct-URL: {}\n", j["url"].get<std::string>());
        }
      }
    }
    if (entry->files) out += fmt::format("Files: {}\n", *entry->files);
    if (d.variant_label) {
      out += fmt::format("Variant: {}{}\n", *d.variant_label, d.variant_properties.empty() ? " (null variant)" : "");
      for (const auto& p : d.variant_properties) out += fmt::format("  {}\n", p);
    }
  }
  return out;
}

Result<UninstallReport> uninstall(const UninstallRequest& request) {
  auto opened = open(request.environment);
  if (!opened) return fail(with_kind(opened.error(), ErrorKind::environment));
  auto removed = install::uninstall(opened->env, request.names);
  if (!removed) return fail(removed.error());
  return UninstallReport{std::move(*removed)};
}

Result<install::Repaired> repair(const EnvironmentRequest& request) {
  auto opened = open(request);
  if (!opened) return fail(with_kind(opened.error(), ErrorKind::environment));
  // Its errors carry their kind: a journal that names a path outside the environment is bad
  // input (exit 1), one that cannot be read or undone an environmental failure (exit 3).
  return install::repair(opened->env);
}

std::string format_repaired(const install::Repaired& repaired) {
  std::string out;
  if (!repaired.interrupted) {
    out = "no interrupted run";
  } else if (repaired.rolled_forward) {
    out = fmt::format("finished an interrupted run that had committed ({} clean-up steps)", repaired.steps);
  } else {
    out = fmt::format("rolled back an interrupted run ({} steps undone)", repaired.steps);
  }
  if (repaired.stale > 0) out += fmt::format("; removed {} stale staging directories", repaired.stale);
  return out + "\n";
}

std::string format_uninstalled(const install::Uninstalled& uninstalled) {
  return fmt::format("uninstalled {} {} ({} files)\n", uninstalled.name, uninstalled.version, uninstalled.files);
}

Result<VenvReport> create_venv(const VenvRequest& request) {
  std::optional<std::filesystem::path> exe = request.python;
  if (!exe) {
    const char* path_env = std::getenv("PATH");
    exe = find_executable("python3", path_env != nullptr ? path_env : "/usr/bin:/bin");
  }
  if (!exe) {
    return fail(with_kind(Error("no Python interpreter found (give --python PATH or put python3 on PATH)"), ErrorKind::environment));
  }
  python::VenvOptions options;
  if (!request.with_pip) options.venv_args.emplace_back("--without-pip");
  options.env = current_environment();
  // The new environment's base is the interpreter itself, not whatever environment is active.
  std::erase_if(options.env,
                [](const std::string& e) { return e.starts_with("VIRTUAL_ENV=") || e.starts_with("PYTHONHOME="); });
  options.timeout = std::chrono::minutes(5);
  if (auto made = python::create_venv(*exe, request.path, options); !made) return fail(made.error());
  return VenvReport{request.path, *exe};
}

std::string format_venv(const VenvReport& report) {
  return fmt::format("created virtual environment {} ({})\n", report.path.string(), report.python.string());
}

}  // namespace vwheel::api

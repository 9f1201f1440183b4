#include "vwheel/api/platform.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "vwheel/config/user_config.hpp"
#include "vwheel/core/cache_layout.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/target/profile.hpp"

namespace vwheel::api {

Result<PlatformReport> analyze_platform(const PlatformRequest& request) {
  PlatformReport report;
  // The interpreter is asked (a process: 9 ms for python3 -I -S here) while the native providers
  // detect (2 ms with --no-cache), instead of after them: started here, before the providers start
  // threads of their own. Started from a thread of its own as well, it began 1.2-1.7 ms after
  // vwheel's start (the threads took both cores), against 0.2-0.3 ms now (an LD_PRELOAD probe of
  // posix_spawn); `analyze-platform --json --no-cache` 13.6 -> 12.3 ms (hyperfine, one run). A
  // description in the cache is read here too, without a thread. The query runs from its compiled
  // module in the cache, with --no-cache as well.
  std::optional<std::filesystem::path> exe;
  std::optional<python::Interpreter> cached;
  std::optional<Result<python::PendingQuery>> started;
  const auto cache_dir = default_cache_dir();
  if (request.with_interpreter) {
    exe = python::find_interpreter(request.python);
    if (exe && !request.no_cache) cached = python::cached_interpreter(*exe, cache_dir);
    if (exe && !cached) {
      started.emplace(python::start_query(*exe, std::chrono::seconds(30),
                                          CacheLayout(cache_dir).area(CacheArea::interpreters)));
    }
  }
  report.machine = provider::detect_machine(provider::DetectOptions{!request.no_cache, std::nullopt});
  if (!request.namespaces.empty()) {
    report.partial = true;
    for (const auto& ns : request.namespaces) {
      const bool known = std::any_of(report.machine.answers.begin(), report.machine.answers.end(),
                                     [&](const auto& a) { return a.ns == ns; });
      if (!known) {
        std::vector<std::string> names;
        for (const auto& a : report.machine.answers) names.push_back(a.ns);
        return fail(fmt::format("--namespace {}: no native provider for this namespace (known: {})", ns,
                                fmt::join(names, ", ")));
      }
    }
    auto& answers = report.machine.answers;
    answers.erase(std::remove_if(answers.begin(), answers.end(),
                                 [&](const auto& a) {
                                   return std::find(request.namespaces.begin(), request.namespaces.end(), a.ns) ==
                                          request.namespaces.end();
                                 }),
                  answers.end());
  }
  if (request.with_interpreter) {
    if (!exe) {
      report.interpreter_note = "no Python interpreter found (python3 is not on PATH)";
    } else {
      auto interp = [&]() -> Result<python::Interpreter> {
        if (cached) return std::move(*cached);
        if (!*started) return fail(started->error());
        auto answer = python::finish_query(**started);
        if (answer && !request.no_cache) python::remember_interpreter(*exe, cache_dir, *answer);
        return answer;
      }();
      if (interp) {
        report.interpreter = std::move(*interp);
      } else if (request.python) {
        return fail(interp.error());
      } else {
        report.interpreter_note = interp.error().message;
      }
    }
  }
  return report;
}

std::string format_platform_text(const PlatformReport& report) {
  std::string out;
  for (const auto& a : report.machine.answers) {
    out += fmt::format("{} (provider {}): {}\n", a.ns, a.version,
                       a.detection.supported.empty() ? "nothing supported" : a.detection.source);
    for (const auto& fc : a.detection.supported) {
      out += fmt::format("  {}{}: {}\n", fc.name, fc.multi_value ? " (multi-value)" : "", fmt::join(fc.values, ", "));
    }
    if (a.detection.supported.empty() && !a.detection.source.empty()) out += fmt::format("  source: {}\n", a.detection.source);
    for (const auto& n : a.detection.notes) out += fmt::format("  note: {}\n", n);
  }
  if (report.machine.from_cache) out += fmt::format("(from cache {})\n", report.machine.cache_file.string());
  return out;
}

std::string format_platform_profile(const PlatformReport& report) {
  target::TargetProfile profile;
  profile.properties = report.machine.supported();
  if (report.partial) {
    profile.detect = true;
  } else if (report.interpreter) {
    profile.environment = report.interpreter->environment;
    profile.tags = report.interpreter->tags;
  } else {
    profile.environment = provider::host_marker_environment();
  }
  return target::to_json(profile);
}

namespace {

struct ProviderRow {
  std::string ns;
  std::string kind;
  std::string version;
  bool enabled = false;
  std::string why;
};

std::vector<ProviderRow> provider_rows(const provider::MachineReport& machine,
                                       const std::vector<std::string>& allowed_python) {
  std::vector<ProviderRow> rows;
  for (const auto& a : machine.answers) {
    ProviderRow r{a.ns, "native", a.version, !a.detection.supported.empty(), {}};
    if (r.enabled) {
      r.why = a.detection.source;
    } else {
      r.why = a.detection.notes.empty() ? "nothing detected" : a.detection.notes.front();
    }
    rows.push_back(std::move(r));
  }
  for (const auto& ns : allowed_python) {
    rows.push_back(ProviderRow{ns, "python", "", true,
                               "allowed to run the package's Python provider in an isolated environment"});
  }
  rows.push_back(ProviderRow{"*", "static", "", true,
                             "ahead-of-time namespaces: values from the package's static-properties, no code runs"});
  rows.push_back(ProviderRow{"*", "python", "", false,
                             "other namespaces: unsupported unless allowed with --allow-python-provider NS"});
  return rows;
}

}  // namespace

Result<ProvidersReport> list_providers(const ProvidersRequest& request) {
  auto cfg = config::load_user_config(request.config);
  if (!cfg) return fail(cfg.error());
  return ProvidersReport{provider::detect_machine(provider::DetectOptions{!request.no_cache, std::nullopt}),
                         cfg->allow_python_providers};
}

std::string format_providers_text(const ProvidersReport& report) {
  std::string out = fmt::format("{:<10} {:<7} {:<8} {:<8} {}\n", "NAMESPACE", "KIND", "VERSION", "ENABLED", "WHY");
  for (const auto& r : provider_rows(report.machine, report.allowed_python)) {
    out += fmt::format("{:<10} {:<7} {:<8} {:<8} {}\n", r.ns, r.kind, r.version.empty() ? "-" : r.version,
                       r.enabled ? "yes" : "no", r.why);
  }
  return out;
}

std::string format_providers_json(const ProvidersReport& report) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& r : provider_rows(report.machine, report.allowed_python)) {
    list.push_back({{"namespace", r.ns}, {"kind", r.kind}, {"version", r.version}, {"enabled", r.enabled},
                    {"why", r.why}});
  }
  return list.dump(2) + "\n";
}

}  // namespace vwheel::api

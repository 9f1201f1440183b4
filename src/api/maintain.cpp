#include "vwheel/core/cache_layout.hpp"
#include "vwheel/api/maintain.hpp"
#include "vwheel/variant/ordering.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <system_error>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "vwheel/api/rank.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/core/parallel.hpp"
#include "vwheel/metadata/merge.hpp"
#include "vwheel/wheel_name/names.hpp"
#include "vwheel/provider/python.hpp"
#include "vwheel/provider/registry.hpp"
#include "vwheel/variant/label.hpp"

namespace vwheel::api {
namespace fs = std::filesystem;

Result<std::optional<Pyproject>> load_pyproject(const std::optional<fs::path>& explicit_path) {
  fs::path path = explicit_path.value_or("pyproject.toml");
  std::error_code ec;
  if (!explicit_path && !fs::exists(path, ec)) return std::optional<Pyproject>{};
  auto text = read_file(path);
  if (!text) return fail(text.error());
  auto doc = metadata::parse_pyproject(*text);
  if (!doc) return fail(doc.error().with_context(path.string()));
  return std::optional<Pyproject>(Pyproject{std::move(path), std::move(*doc)});
}

namespace {

using Configs = std::vector<variant::FeatureConfig>;

const variant::FeatureConfig* find_feature(const Configs& configs, std::string_view name) {
  for (const auto& c : configs) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

// Where a namespace's valid values come from, and the values themselves.
struct Authority {
  std::string source;
  Configs configs;
};

Result<std::optional<Authority>> authority_for(const std::string& ns, const Pyproject* pyproject,
                                               const PropertyValidation& validation) {
  if (pyproject != nullptr) {
    const auto& md = pyproject->document.metadata;
    if (auto it = md.static_properties.find(ns); it != md.static_properties.end()) {
      Authority a{fmt::format("the static properties in {}", pyproject->path.string()), {}};
      for (const auto& [feature, values] : it->second) a.configs.push_back({feature, values, true});
      return std::optional<Authority>(std::move(a));
    }
  }
  for (const auto& p : provider::native_providers()) {
    if (p->ns() == ns) return std::optional<Authority>(Authority{fmt::format("vwheel's `{}` provider", ns), p->all_configs()});
  }
  const bool allowed = std::find(validation.allow_python_providers.begin(), validation.allow_python_providers.end(),
                                 ns) != validation.allow_python_providers.end();
  if (allowed && pyproject != nullptr) {
    const auto& providers = pyproject->document.metadata.providers;
    if (auto it = providers.find(ns); it != providers.end()) {
      provider::PythonProviderOptions options;
      options.cache_dir = CacheLayout(default_cache_dir()).area(CacheArea::python_providers);
      options.allowed.insert(ns);
      auto configs = provider::run_python_provider(provider::python_provider_spec(ns, it->second), options,
                                                   provider::ProviderMethod::all_configs);
      if (!configs) return fail(configs.error());
      return std::optional<Authority>(Authority{fmt::format("the Python provider of `{}`", ns), std::move(*configs)});
    }
  }
  return std::optional<Authority>{};
}

}  // namespace

Result<void> validate_properties(const variant::PropertySet& properties, const Pyproject* pyproject,
                                 const PropertyValidation& validation) {
  if (validation.skip) return {};
  std::vector<std::string> problems;
  std::map<std::string, std::optional<Authority>> authorities;
  std::map<variant::FeatureRef, std::vector<std::string>> values_per_feature;
  for (const auto& p : properties) {
    if (p.ns == variant::kAbiDependencyNamespace) {
      // PEP 817: no provider; the feature is a distribution name, the value a release segment of
      // up to three numbers, and a wheel may list several.
      std::size_t parts = 1;
      bool ok = !p.value.empty() && p.value.front() != '.' && p.value.back() != '.';
      for (std::size_t i = 0; ok && i < p.value.size(); ++i) {
        if (p.value[i] == '.') {
          ok = p.value[i - 1] != '.';
          ++parts;
        } else {
          ok = p.value[i] >= '0' && p.value[i] <= '9';
        }
      }
      if (!ok || parts > 3) {
        problems.push_back(fmt::format("`{}`: an `abi_dependency` value is a release of up to three numbers, e.g. 2.8",
                                       p.to_string()));
      }
      continue;
    }
    auto [it, inserted] = authorities.try_emplace(p.ns);
    if (inserted) {
      auto a = authority_for(p.ns, pyproject, validation);
      if (!a) return fail(a.error());
      it->second = std::move(*a);
    }
    if (!it->second) {
      problems.push_back(fmt::format(
          "`{}`: namespace `{}` has no native provider and no static properties{}; run its Python provider with "
          "--allow-python-provider {} or pass --skip-provider-validation",
          p.to_string(), p.ns, pyproject ? fmt::format(" in {}", pyproject->path.string()) : std::string(), p.ns));
      continue;
    }
    const auto* feature = find_feature(it->second->configs, p.feature);
    if (feature == nullptr) {
      problems.push_back(fmt::format("`{}`: {} has no feature `{}`", p.to_string(), it->second->source, p.feature));
      continue;
    }
    if (std::find(feature->values.begin(), feature->values.end(), p.value) == feature->values.end()) {
      problems.push_back(fmt::format("`{}`: `{}` is not a value of `{} :: {}` according to {}", p.to_string(),
                                     p.value, p.ns, p.feature, it->second->source));
      continue;
    }
    auto& values = values_per_feature[variant::FeatureRef{p.ns, p.feature}];
    values.push_back(p.value);
    if (values.size() == 2 && !feature->multi_value) {
      problems.push_back(fmt::format("`{} :: {}` is not a multi-value feature (according to {}) but is given {} and {}",
                                     p.ns, p.feature, it->second->source, values[0], values[1]));
    }
  }
  if (problems.empty()) return {};
  return fail(Error(fmt::format("invalid variant property {}", problems.front()),
                    std::vector<std::string>(problems.begin() + 1, problems.end())));
}

Result<MakeVariantsReport> make_variants(const MakeVariantsRequest& request) {
  if (request.inputs.empty()) return fail("no input wheel given");
  if (request.null_variant && !request.properties.empty()) return fail("--null cannot be combined with -p/--property");
  if (!request.null_variant && request.properties.empty()) return fail("give the variant's properties with -p/--property, or --null");

  std::vector<variant::Property> parsed;
  std::vector<std::string> order;  // namespaces in the order first given
  for (const auto& text : request.properties) {
    auto p = variant::parse_property(text);
    if (!p) return fail(p.error().with_context(fmt::format("-p `{}`", text)));
    if (std::find(order.begin(), order.end(), p->ns) == order.end()) order.push_back(p->ns);
    parsed.push_back(std::move(*p));
  }
  auto properties = variant::make_property_set(std::move(parsed));
  if (!properties) return fail(properties.error());
  auto label = variant::make_label(*properties, request.label);
  if (!label) return fail(label.error().with_context("--label"));

  MakeVariantsReport report;
  if (label->size() > variant::kMaxPortableLabelLength) {
    report.warnings.push_back(fmt::format("label `{}` is longer than {} characters: installers following PEP 817 reject it",
                                          *label, variant::kMaxPortableLabelLength));
  }
  auto pyproject = request.project ? Result<std::optional<Pyproject>>(request.project) : load_pyproject(request.pyproject);
  if (!pyproject) return fail(pyproject.error());
  if (*pyproject) {
    for (const auto& [ns, provider] : (*pyproject)->document.metadata.providers) {
      if (!provider.build_requires.empty()) {
        return fail(fmt::format("{}: the static-properties of `{}` come from its `build-requires` plugin when the "
                                "wheel is built; build the variants with `vwheel build`",
                                (*pyproject)->path.string(), ns));
      }
    }
  }
  if (!*pyproject && request.null_variant) {
    return fail("the null variant's variant.json must list the package's namespaces (PEP 825): give the project's "
                "pyproject.toml with --pyproject, or run in its directory");
  }
  std::optional<variant::VariantMetadata> table;
  if (*pyproject) {
    for (const auto& w : (*pyproject)->document.conformance_problems) {
      report.warnings.push_back(fmt::format("{}: {}", (*pyproject)->path.string(), w));
    }
    table = (*pyproject)->document.metadata;
    for (const auto& ns : order) {
      if (std::find(table->namespace_priorities.begin(), table->namespace_priorities.end(), ns) ==
          table->namespace_priorities.end()) {
        return fail(fmt::format("{}: namespace `{}` (used by -p) is not listed in [variant.default-priorities] "
                                "namespace; add it with `vwheel pyproject add-provider {}`",
                                (*pyproject)->path.string(), ns, ns));
      }
    }
  } else if (!order.empty()) {
    // Without a pyproject.toml the namespaces are ranked in the order they were given.
    // Native namespaces name the reference Python provider they stand in for.
    table.emplace();
    table->namespace_priorities = order;
    for (const auto& ns : order) {
      if (auto info = provider::reference_declaration(ns)) table->providers.emplace(ns, std::move(*info));
    }
  }
  if (auto ok = validate_properties(*properties, *pyproject ? &**pyproject : nullptr, request.validation); !ok) {
    return fail(ok.error());
  }

  // Two inputs that would write the same file are a label clash within this call.
  std::map<std::string, std::string> outputs;
  for (const auto& input : request.inputs) {
    auto name = wheel_name::parse_wheel_name(input.filename().string());
    if (!name) continue;  // reported by make_variant
    auto [it, inserted] = outputs.try_emplace(name->base_name(), input.filename().string());
    if (!inserted) {
      return fail(fmt::format("{} and {} would both become {}-{}.whl", it->second, input.filename().string(),
                              name->base_name(), *label));
    }
  }

  report.results.resize(request.inputs.size(), fail("not processed"));
  parallel_for(request.inputs.size(), request.jobs, [&](std::size_t i) {
    wheel::MakeVariantRequest one{request.inputs[i], request.output_dir, *properties, request.label, table,
                                  request.format};
    try {
      report.results[i] = wheel::make_variant(one);
    } catch (const std::exception& e) {
      report.results[i] = fail(fmt::format("{}: {}", request.inputs[i].string(), e.what()));
    }
  });
  return report;
}

Result<AnalyzeReport> analyze_wheels(const AnalyzeRequest& request) {
  auto selection = make_selection(request.selection, nullptr);
  if (!selection) return fail(selection.error());
  return analyze_wheels(request.wheels, *selection);
}

Result<AnalyzeReport> analyze_wheels(const std::vector<std::filesystem::path>& wheels, selection::Selection& selection) {
  AnalyzeReport report;
  report.target_description = selection.description;
  report.notes = selection.notes;
  std::map<std::string, std::vector<std::size_t>> groups;  // namever -> indexes into report.wheels
  for (const auto& path : wheels) {
    auto w = wheel::open_wheel(path);
    if (!w) return fail(w.error());
    auto doc = wheel::read_variant_json(*w);
    if (!doc) return fail(doc.error());
    WheelAnalysis a;
    a.path = path;
    a.name = w->name;
    a.dist_info = w->dist_info;
    a.members = w->archive.entries().size();
    if (*doc) {
      a.properties = (*doc)->metadata.variants.begin()->second;
      for (const auto& p : (*doc)->conformance_problems) {
        report.warnings.push_back(fmt::format("{}: variant.json: {}", path.filename().string(), p));
      }
      a.variant_json = std::move(**doc);
    }
    groups[a.name.namever()].push_back(report.wheels.size());
    report.wheels.push_back(std::move(a));
  }

  for (const auto& [namever, members] : groups) {
    std::vector<variant::VariantMetadata> inputs;
    for (auto i : members) {
      if (report.wheels[i].variant_json) inputs.push_back(report.wheels[i].variant_json->metadata);
    }
    std::size_t position = 0;
    if (!inputs.empty()) {
      auto merged = metadata::merge_all(inputs);
      if (!merged) return fail(merged.error().with_context(fmt::format("the variant wheels of {}", namever)));
      const auto project = wheel_name::canonicalize_name(report.wheels[members.front()].name.name);
      auto ranked = rank_metadata(*merged, namever, project, selection);
      if (!ranked) return fail(ranked.error());
      for (const auto& label : ranked->ranking.order) {
        ++position;
        for (auto i : members) {
          if (report.wheels[i].name.label == label) report.wheels[i].rank = position;
        }
      }
      for (const auto& r : ranked->ranking.reports) {
        if (r.compatible) continue;
        for (auto i : members) {
          if (report.wheels[i].name.label != r.label) continue;
          report.wheels[i].supported = false;
          report.wheels[i].reason = r.reason;
        }
      }
    }
    // Non-variant wheels come after every usable variant (PEP 825: null variant first).
    const std::size_t after_variants = position + 1;
    std::size_t usable = position;
    for (auto i : members) {
      if (!report.wheels[i].name.is_variant()) {
        report.wheels[i].rank = after_variants;
        usable = after_variants;
      }
    }
    for (auto i : members) report.wheels[i].usable = usable;
  }
  return report;
}

namespace {

std::string tags_of(const wheel_name::WheelName& n) {
  return fmt::format("{}-{}-{}", n.python_tag, n.abi_tag, n.platform_tag);
}

}  // namespace

std::string format_analyze_plain(const AnalyzeReport& report) {
  std::string out = fmt::format("Target: {}\n", report.target_description);
  for (const auto& n : report.notes) out += fmt::format("  note: {}\n", n);
  for (const auto& w : report.wheels) {
    out += fmt::format("\n{}\n", w.path.filename().string());
    out += fmt::format("  name:       {} {}{}\n", w.name.name, w.name.version,
                       w.name.build ? fmt::format(" (build {})", w.name.build->text) : std::string());
    out += fmt::format("  tags:       {}\n", tags_of(w.name));
    out += fmt::format("  dist-info:  {} ({} members)\n", w.dist_info, w.members);
    if (!w.variant_json) {
      out += "  variant:    none (a non-variant wheel)\n";
    } else {
      const auto hash = variant::variant_hash(w.properties);
      out += fmt::format("  label:      {}{}\n", *w.name.label,
                         w.properties.empty() ? " (the null variant)"
                         : hash == *w.name.label ? std::string()
                                                 : fmt::format(" (hash {})", hash));
      for (const auto& p : w.properties) out += fmt::format("  property:   {}\n", p.to_string());
      const auto& md = w.variant_json->metadata;
      std::set<std::string> used;
      for (const auto& p : w.properties) used.insert(p.ns);
      for (const auto& ns : md.namespace_priorities) {
        std::string how = "no provider declared";
        if (auto it = md.providers.find(ns); it != md.providers.end()) {
          const auto& pi = it->second;
          how = pi.install_time ? "install-time" : "ahead-of-time";
          if (!pi.requires_.empty()) how += fmt::format(", requires {}", fmt::join(pi.requires_, ", "));
          if (pi.plugin_api) how += fmt::format(", plugin-api {}", *pi.plugin_api);
          if (pi.optional) how += ", optional";
          if (pi.enable_if) how += fmt::format(", enable-if `{}`", *pi.enable_if);
        } else if (md.static_properties.contains(ns)) {
          how = "static properties";
        }
        out += fmt::format("  provider:   {}{}: {}\n", ns, used.contains(ns) ? "" : " (unused)", how);
      }
    }
    if (w.supported) {
      out += fmt::format("  supported:  yes, rank {} of {} usable\n", w.rank.value_or(0), w.usable);
    } else {
      out += fmt::format("  supported:  no: {}\n", w.reason);
    }
  }
  return out;
}

std::string format_analyze_json(const AnalyzeReport& report) {
  nlohmann::ordered_json j;
  j["target"] = report.target_description;
  j["notes"] = report.notes;
  j["warnings"] = report.warnings;
  auto& list = j["wheels"] = nlohmann::ordered_json::array();
  for (const auto& w : report.wheels) {
    nlohmann::ordered_json e;
    e["file"] = w.path.filename().string();
    e["name"] = w.name.name;
    e["version"] = w.name.version;
    e["build"] = w.name.build ? nlohmann::ordered_json(w.name.build->text) : nlohmann::ordered_json(nullptr);
    e["python_tag"] = w.name.python_tag;
    e["abi_tag"] = w.name.abi_tag;
    e["platform_tag"] = w.name.platform_tag;
    e["label"] = w.name.label ? nlohmann::ordered_json(*w.name.label) : nlohmann::ordered_json(nullptr);
    e["dist_info"] = w.dist_info;
    e["members"] = w.members;
    std::vector<std::string> props;
    for (const auto& p : w.properties) props.push_back(p.to_string());
    e["properties"] = props;
    if (w.variant_json) {
      const auto& md = w.variant_json->metadata;
      e["namespaces"] = md.namespace_priorities;
      auto& providers = e["providers"] = nlohmann::ordered_json::object();
      for (const auto& [ns, pi] : md.providers) {
        nlohmann::ordered_json pj;
        pj["requires"] = pi.requires_;
        pj["plugin-api"] = pi.plugin_api ? nlohmann::ordered_json(*pi.plugin_api) : nlohmann::ordered_json(nullptr);
        pj["enable-if"] = pi.enable_if ? nlohmann::ordered_json(*pi.enable_if) : nlohmann::ordered_json(nullptr);
        pj["optional"] = pi.optional;
        pj["install-time"] = pi.install_time;
        providers[ns] = std::move(pj);
      }
    } else {
      e["namespaces"] = nlohmann::ordered_json::array();
      e["providers"] = nlohmann::ordered_json::object();
    }
    e["supported"] = w.supported;
    e["reason"] = w.supported ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(w.reason);
    e["rank"] = w.rank ? nlohmann::ordered_json(*w.rank) : nlohmann::ordered_json(nullptr);
    e["usable"] = w.usable;
    list.push_back(std::move(e));
  }
  return j.dump(2) + "\n";
}

}  // namespace vwheel::api

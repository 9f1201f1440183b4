#include "vwheel/api/rank.hpp"

#include <cstdlib>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "vwheel/api/target.hpp"
#include "vwheel/config/user_config.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/metadata/document.hpp"
#include "vwheel/python/interpreter.hpp"

namespace vwheel::api {
namespace {

bool needs_interpreter_variables(const variant::VariantMetadata& md, const markers::Environment& env) {
  for (const auto& [ns, provider] : md.providers) {
    if (!provider.enable_if) continue;
    auto marker = markers::Marker::parse(*provider.enable_if);
    if (!marker) continue;  // reported when the marker is evaluated
    for (auto variable : marker->variables()) {
      const auto name = markers::to_string(variable);
      if (name != "extra" && !markers::is_variant_variable(variable) && !env.variables.contains(name)) return true;
    }
  }
  return false;
}

}  // namespace

Result<RankReport> rank(const RankRequest& request) {
  const auto file = request.variants_json.string();
  auto text = read_file(request.variants_json);
  if (!text) return fail(text.error());
  auto doc = metadata::parse_json_document(*text, metadata::DocumentKind::VariantsJson);
  if (!doc) return fail(doc.error().with_context(file));
  auto report = rank_metadata(doc->metadata, file, request);
  if (!report) return fail(report.error());
  std::vector<std::string> warnings;
  for (const auto& w : doc->conformance_problems) warnings.push_back(fmt::format("{}: {}", file, w));
  report->warnings.insert(report->warnings.begin(), warnings.begin(), warnings.end());
  return report;
}

Result<RankReport> rank_metadata(const variant::VariantMetadata& metadata, const std::string& file,
                                 const RankRequest& request) {
  RankReport report;
  report.variants = metadata.variants;

  auto machine = resolve_target(TargetRequest{request.target, request.no_cache});
  if (!machine) return fail(machine.error());
  report.target_description = machine->description;
  report.notes = machine->notes;

  auto cfg = config::load_user_config(request.config);
  if (!cfg) return fail(cfg.error());

  variant::SelectionOptions options;
  options.enable_all_optional = request.enable_all_optional;
  options.enabled_optional.insert(request.enabled_optional.begin(), request.enabled_optional.end());
  if (const char* env = std::getenv("VARIANT_ABI_DEPENDENCY"); env != nullptr && *env != '\0') {
    auto parsed = variant::parse_abi_dependency_env(env);
    options.abi_dependencies = std::move(parsed.items);
    report.notes.insert(report.notes.end(), parsed.ignored.begin(), parsed.ignored.end());
  }
  for (const auto& item : request.abi_dependencies) {
    auto parsed = variant::parse_abi_dependency_env(item);
    if (parsed.items.size() != 1 || !parsed.ignored.empty()) {
      return fail(fmt::format("--abi-dependency `{}`: expected NAME==VERSION", item));
    }
    options.abi_dependencies.push_back(parsed.items.front());
  }
  std::optional<markers::Environment> env;
  if (machine->environment) {
    env.emplace();
    for (const auto& [k, v] : *machine->environment) env->variables.emplace(k, v);
    options.environment = &*env;
    // Detected machines know the uname variables only; when a provider's enable-if needs more
    // (python_version, ...), ask the default interpreter, once.
    if (!request.target && needs_interpreter_variables(metadata, *env)) {
      if (auto exe = python::find_interpreter(); exe) {
        if (auto interp = python::query_interpreter(*exe); interp) {
          for (const auto& [k, v] : interp->environment) env->variables.insert_or_assign(k, v);
        }
      }
    }
  }

  std::unique_ptr<variant::SupportOracle> oracle;
  if (request.target) {
    oracle = std::make_unique<variant::TableOracle>(machine->properties);
  } else {
    provider::PythonProviderPolicy policy;
    policy.allowed.insert(request.allow_python_providers.begin(), request.allow_python_providers.end());
    policy.allowed.insert(cfg->allow_python_providers.begin(), cfg->allow_python_providers.end());
    oracle = std::make_unique<provider::DetectionOracle>(machine->machine, std::move(policy));
  }
  auto ranking = variant::rank_variants(metadata, *oracle, cfg->priorities, options);
  if (!ranking) return fail(ranking.error().with_context(file));
  report.ranking = std::move(*ranking);
  // Python providers answer during ranking, so the supported table is rebuilt from its result.
  for (const auto& p : report.ranking.sorted_supported) {
    auto& features = report.supported[p.ns];
    if (features.empty() || features.back().name != p.feature) features.push_back({p.feature, {}, false});
    features.back().values.push_back(p.value);
  }
  return report;
}

std::string format_rank_plain(const RankReport& report) {
  std::string out;
  for (const auto& label : report.ranking.order) out.append(label).push_back('\n');
  return out;
}

namespace {

std::string describe_properties(const std::vector<variant::Property>& props) {
  if (props.empty()) return "no properties (the null variant)";
  std::vector<std::string> parts;
  parts.reserve(props.size());
  for (const auto& p : props) parts.push_back(p.to_string());
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace

std::string format_rank_explain(const RankReport& report) {
  std::string out = fmt::format("Target: {}\n", report.target_description);
  for (const auto& n : report.notes) out += fmt::format("  note: {}\n", n);
  out += "Namespaces, in priority order:\n";
  for (const auto& ns : report.ranking.namespace_order) {
    const variant::NamespaceReport* r = nullptr;
    for (const auto& candidate : report.ranking.namespaces) {
      if (candidate.ns == ns) r = &candidate;
    }
    if (r == nullptr) continue;
    auto it = report.supported.find(ns);
    if (it == report.supported.end()) {
      if (ns == variant::kAbiDependencyNamespace && r->note.empty()) continue;
      out += fmt::format("  {}: unsupported{}\n", ns, r->note.empty() ? "" : fmt::format(" ({})", r->note));
      continue;
    }
    out += fmt::format("  {} (from {}):\n", ns, r->source);
    for (const auto& fc : it->second) {
      if (fc.values.size() <= 10) {
        out += fmt::format("    {}: {}\n", fc.name, fmt::join(fc.values, " > "));
      } else {
        out += fmt::format("    {}: {} > ... > {} ({} values)\n", fc.name,
                           fmt::join(fc.values.begin(), fc.values.begin() + 8, " > "), fc.values.back(),
                           fc.values.size());
      }
    }
  }
  out += "Variants:\n";
  for (const auto& r : report.ranking.reports) {
    if (r.compatible) {
      auto props = report.variants.find(r.label);
      const bool null_variant = props != report.variants.end() && props->second.empty();
      out += fmt::format("  {:>3}. {}: {}\n", *r.position + 1, r.label,
                         null_variant ? std::string("no properties: the null variant, always compatible, ranked last")
                                      : "best values " + describe_properties(r.best_properties));
    } else {
      out += fmt::format("   --  {}: incompatible: {}\n", r.label, r.reason);
    }
  }
  for (const auto& w : report.warnings) out += fmt::format("Conformance: {}\n", w);
  if (report.ranking.order.empty()) {
    out += "No variant is compatible: an installer would fall back to a non-variant wheel, if one exists.\n";
  } else {
    out += fmt::format("An installer would choose `{}`.\n", report.ranking.order.front());
  }
  return out;
}

std::string format_rank_json(const RankReport& report) {
  using nlohmann::ordered_json;
  ordered_json root;
  root["target"] = report.target_description;
  root["order"] = report.ranking.order;
  ordered_json labels = ordered_json::array();
  for (const auto& r : report.ranking.reports) {
    ordered_json j;
    j["label"] = r.label;
    j["compatible"] = r.compatible;
    if (r.position) j["rank"] = *r.position + 1;
    ordered_json props = ordered_json::array();
    if (auto it = report.variants.find(r.label); it != report.variants.end()) {
      for (const auto& p : it->second) props.push_back(p.to_string());
    }
    j["properties"] = std::move(props);
    if (r.compatible) {
      ordered_json best = ordered_json::array();
      for (const auto& p : r.best_properties) best.push_back(p.to_string());
      j["best_properties"] = std::move(best);
    } else {
      j["reason"] = r.reason;
    }
    labels.push_back(std::move(j));
  }
  root["labels"] = std::move(labels);
  ordered_json supported = ordered_json::object();
  for (const auto& ns : report.ranking.namespace_order) {
    auto it = report.supported.find(ns);
    if (it == report.supported.end()) continue;
    ordered_json features = ordered_json::array();
    for (const auto& fc : it->second) features.push_back(ordered_json{{"name", fc.name}, {"values", fc.values}});
    supported[ns] = std::move(features);
  }
  root["supported"] = std::move(supported);
  ordered_json namespaces = ordered_json::array();
  for (const auto& n : report.ranking.namespaces) {
    ordered_json j{{"namespace", n.ns}, {"source", n.source}};
    if (!n.note.empty()) j["note"] = n.note;
    namespaces.push_back(std::move(j));
  }
  root["namespaces"] = std::move(namespaces);
  root["notes"] = report.notes;
  root["warnings"] = report.warnings;
  return root.dump(2) + "\n";
}

}  // namespace vwheel::api

#include "vwheel/api/rank.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "vwheel/wheel_name/names.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/metadata/document.hpp"
#include "vwheel/metadata/merge.hpp"
#include "vwheel/pep440/version.hpp"
#include "vwheel/python/interpreter.hpp"
#include "vwheel/wheel/wheel.hpp"
#include "vwheel/wheel_name/wheel_name.hpp"

namespace vwheel::api {
namespace {

/// The project of a `{name}-{version}-variants.json` file, canonical ("" when the name has no version part).
std::string project_of(const std::filesystem::path& file) {
  auto stem = file.filename().string();
  if (!stem.ends_with("-variants.json")) return {};
  stem.resize(stem.size() - std::string_view("-variants.json").size());
  const auto dash = stem.rfind('-');
  return dash == std::string::npos ? std::string() : wheel_name::canonicalize_name(stem.substr(0, dash));
}

/// PEP 825 lets clients read `variant.json` from wheels whose labels the index-level file lacks:
/// the wheels of the file's project version beside it (a `--find-links` directory, a build's
/// `dist/`) whose labels `metadata` lacks are read and merged in, one note each. A wheel that
/// cannot be read or disagrees with the file is left out with a note.
void add_labels_from_wheels_beside(const std::filesystem::path& file, variant::VariantMetadata& metadata,
                                   std::vector<std::string>& notes) {
  auto stem = file.filename().string();
  if (!stem.ends_with("-variants.json")) return;
  stem.resize(stem.size() - std::string_view("-variants.json").size());
  const auto dash = stem.rfind('-');
  if (dash == std::string::npos) return;
  const auto project = wheel_name::canonicalize_name(stem.substr(0, dash));
  const auto version = pep440::Version::parse(stem.substr(dash + 1));
  if (!version) return;
  const auto dir = file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
  std::vector<std::filesystem::path> wheels;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() == ".whl") wheels.push_back(it->path());
  }
  std::sort(wheels.begin(), wheels.end());  // directory order is arbitrary; notes are not
  const auto name = file.filename().string();
  std::set<std::string> seen;
  for (const auto& path : wheels) {
    auto parsed = wheel_name::parse_wheel_name(path.filename().string());
    if (!parsed || !parsed->label || wheel_name::canonicalize_name(parsed->name) != project) continue;
    auto v = pep440::Version::parse(parsed->version);
    if (!v || !(*v == *version)) continue;
    const auto& label = *parsed->label;
    if (metadata.variants.contains(label) || !seen.insert(label).second) continue;
    std::string why;
    auto w = wheel::open_wheel(path);
    auto doc = w ? wheel::read_variant_json(*w) : Result<std::optional<metadata::ParsedDocument>>(fail(w.error()));
    if (!doc) {
      why = doc.error().message;
    } else if (!*doc) {
      why = fmt::format("{} has no variant.json", path.filename().string());
    } else {
      const variant::VariantMetadata both[] = {metadata, (**doc).metadata};
      auto merged = metadata::merge_all(both);
      if (merged) {
        metadata = std::move(*merged);
        notes.push_back(fmt::format("label {}: properties read from the wheel's variant.json, not in {}", label, name));
        continue;
      }
      why = fmt::format("{}: its variant.json disagrees with {}: {}", path.filename().string(), name,
                        merged.error().message);
    }
    notes.push_back(fmt::format("label {}: not in {}, and not read from the wheel: {}", label, name, why));
  }
}

}  // namespace

Result<RankReport> rank(const RankRequest& request) {
  const auto file = request.variants_json.string();
  auto text = read_file(request.variants_json);
  if (!text) return fail(text.error());
  auto doc = metadata::parse_json_document(*text, metadata::DocumentKind::VariantsJson);
  if (!doc) return fail(doc.error().with_context(file));
  std::vector<std::string> from_wheels;
  add_labels_from_wheels_beside(request.variants_json, doc->metadata, from_wheels);
  auto selection = make_selection(request.selection, nullptr);
  if (!selection) return fail(selection.error());
  auto report = rank_metadata(doc->metadata, file, project_of(request.variants_json), *selection);
  if (!report) return fail(report.error());
  report->notes.insert(report->notes.end(), from_wheels.begin(), from_wheels.end());
  std::vector<std::string> warnings;
  for (const auto& w : doc->conformance_problems) warnings.push_back(fmt::format("{}: {}", file, w));
  report->warnings.insert(report->warnings.begin(), warnings.begin(), warnings.end());
  return report;
}

Result<RankReport> rank_metadata(const variant::VariantMetadata& metadata, const std::string& file,
                                 std::string_view project, selection::Selection& selection) {
  RankReport report;
  report.variants = metadata.variants;
  report.target_description = selection.description;
  report.notes = selection.notes;
  report.property_sources = selection.property_sources;

  complete_environment(selection, metadata);
  std::optional<markers::Environment> env;
  if (!selection.environment.empty()) env = selection.marker_environment();
  auto ranking = selection.rank(metadata, env ? &*env : nullptr);
  if (!ranking) return fail(ranking.error().with_context(file));
  report.ranking = std::move(*ranking);
  // Python providers answer during ranking, so the supported table is rebuilt from its result.
  report.supported = selection::supported_of(report.ranking);
  if (selection.no_variants) {
    report.ranking.order.clear();
    report.notes.emplace_back("--no-variants: no variant is used");
  } else if (const auto* forced = selection.forced_label(project)) {
    auto& order = report.ranking.order;
    auto it = std::find(order.begin(), order.end(), *forced);
    if (it == order.end()) {
      std::string why = metadata.variants.contains(*forced) ? "not supported" : "no such label";
      for (const auto& r : report.ranking.reports) {
        if (r.label == *forced && !r.compatible) why = r.reason;
      }
      return fail(fmt::format("--variant {}={}: variant `{}` of {} is not compatible with {}: {}", project, *forced,
                              *forced, file, selection.description, why));
    }
    std::rotate(order.begin(), it, it + 1);
    report.notes.push_back(fmt::format("--variant {}={}: chosen first", project, *forced));
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

/// Where a namespace's answer came from: the selection's source for the target's answers (a
/// profile file, or detection), else the ranking's ("static-properties", ...).
std::string origin_of(const RankReport& report, const variant::NamespaceReport& r) {
  if (r.source == "target") {
    if (auto it = report.property_sources.find(r.ns); it != report.property_sources.end()) return it->second;
  }
  return r.source;
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
    out += fmt::format("  {} (from {}):\n", ns, origin_of(report, *r));
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
    if (auto origin = origin_of(report, n); origin != n.source) j["origin"] = origin;
    if (!n.note.empty()) j["note"] = n.note;
    namespaces.push_back(std::move(j));
  }
  root["namespaces"] = std::move(namespaces);
  root["notes"] = report.notes;
  root["warnings"] = report.warnings;
  return root.dump(2) + "\n";
}

}  // namespace vwheel::api

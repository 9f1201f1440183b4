// Public entry points for reading JSON documents, and schema version handling.

#include <algorithm>
#include <charconv>
#include <optional>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "metadata/internal.hpp"

namespace vwheel::metadata {
namespace {

// Parses a decimal number without sign or leading '+'; nullopt if `text` is not one.
std::optional<int> parse_component(std::string_view text) {
  if (text.empty() || text.size() > 9) return std::nullopt;
  if (!std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) return std::nullopt;
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// Parses JSON text; on failure, the error describes where. A key repeated within one object is
// an error: parsers disagree on which value wins, so a label written twice (with two property
// sets) must not be silently resolved.
Result<detail::Json> parse_json_text(std::string_view text) {
  std::vector<std::pair<std::string, std::set<std::string>>> objects;  // (path, keys seen)
  std::string pending_key;
  std::optional<std::string> duplicate;
  const auto callback = [&](int /*depth*/, detail::Json::parse_event_t event, detail::Json& parsed) {
    using Event = detail::Json::parse_event_t;
    if (event == Event::object_start) {
      std::string at = objects.empty() ? std::string() : objects.back().first;
      if (!objects.empty() && !pending_key.empty()) at += (at.empty() ? "" : ".") + pending_key;
      objects.emplace_back(std::move(at), std::set<std::string>{});
    } else if (event == Event::object_end) {
      if (!objects.empty()) objects.pop_back();
    } else if (event == Event::key && !objects.empty()) {
      pending_key = parsed.get<std::string>();
      if (!objects.back().second.insert(pending_key).second && !duplicate) {
        const auto& where = objects.back().first;
        duplicate = fmt::format("{}: key \"{}\" appears twice in the same object", where.empty() ? "(root)" : where,
                                detail::single_line(pending_key));
      }
    } else if (event == Event::array_start) {
      pending_key += "[]";
    }
    return true;
  };
  try {
    auto json = detail::Json::parse(text.begin(), text.end(), callback);
    if (duplicate) return fail(*duplicate);
    return json;
  } catch (const detail::Json::exception& e) {
    std::string_view what = e.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 2: ..."
    if (const auto pos = what.find("] "); what.starts_with("[json.exception.") && pos != std::string_view::npos) {
      what.remove_prefix(pos + 2);
    }
    constexpr std::size_t kMax = 300;
    std::string message = detail::single_line(what.substr(0, kMax));
    if (what.size() > kMax) message += "...";
    return fail(fmt::format("invalid JSON: {}", message));
  }
}

}  // namespace

std::optional<variant::SchemaVersion> parse_schema_version(std::string_view url) {
  const auto slash = url.rfind('/');
  std::string_view last = slash == std::string_view::npos ? url : url.substr(slash + 1);
  if (!last.starts_with('v') || !last.ends_with(".json")) return std::nullopt;
  last.remove_prefix(1);
  last.remove_suffix(5);
  const auto dot1 = last.find('.');
  if (dot1 == std::string_view::npos) return std::nullopt;
  const auto dot2 = last.find('.', dot1 + 1);
  if (dot2 == std::string_view::npos) return std::nullopt;
  const auto major = parse_component(last.substr(0, dot1));
  const auto minor = parse_component(last.substr(dot1 + 1, dot2 - dot1 - 1));
  const auto patch = parse_component(last.substr(dot2 + 1));
  if (!major || !minor || !patch) return std::nullopt;
  return variant::SchemaVersion{*major, *minor, *patch};
}

bool is_supported_schema(const variant::SchemaVersion& version) noexcept {
  return version == variant::kSchemaDraft002 || version == variant::kSchemaDraft003 ||
         (version.major == 0 && version.minor >= 1);
}

bool is_draft_schema(const variant::SchemaVersion& version) noexcept {
  return version < variant::SchemaVersion{0, 1, 0};
}

ValidationReport check_json_document(std::string_view text, DocumentKind kind,
                                     std::optional<std::string_view> expected_label) {
  ValidationReport report;
  auto root = parse_json_text(text);
  if (!root) {
    report.errors.push_back(root.error().message);
    report.findings.push_back({Severity::Error, "invalid", "", "", root.error().message});
    return report;
  }
  auto outcome = detail::read_document(*root, kind, expected_label, text);
  report.errors = std::move(outcome.errors);
  report.conformance_problems = std::move(outcome.conformance);
  report.findings = std::move(outcome.findings);
  // Hard errors first, as in validate_json_document's lines.
  std::stable_partition(report.findings.begin(), report.findings.end(),
                        [](const Finding& f) { return f.rule == "invalid"; });
  detail::fill_pointers(report.findings, &*root);
  return report;
}

Result<ParsedDocument> parse_json_document(std::string_view text, DocumentKind kind,
                                           std::optional<std::string_view> expected_label) {
  auto root = parse_json_text(text);
  if (!root) return fail(root.error());
  return detail::to_result(detail::read_document(*root, kind, expected_label, text));
}

std::vector<std::string> validate_json_document(std::string_view text, DocumentKind kind,
                                                std::optional<std::string_view> expected_label) {
  auto report = check_json_document(text, kind, expected_label);
  auto all = std::move(report.errors);
  all.insert(all.end(), std::make_move_iterator(report.conformance_problems.begin()),
             std::make_move_iterator(report.conformance_problems.end()));
  return all;
}

}  // namespace vwheel::metadata

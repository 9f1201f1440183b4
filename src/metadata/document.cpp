// Public entry points for reading JSON documents, and schema version handling.

#include <algorithm>
#include <charconv>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "core/json.hpp"
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

// Why a document could not be read as JSON, placed as a finding is: `location` (dotted, as the
// reader's findings are; `(document)` for the top-level object; empty when the message names its
// place itself: syntax errors by line and column, nesting by JSON pointer),
// `pointer` (RFC 6901) and a one-line `message`.
struct JsonFailure {
  std::string location;
  std::string pointer;
  std::string message;

  [[nodiscard]] std::string line() const { return location.empty() ? message : location + ": " + message; }
};

// The dotted key path (`variants.l["a b"][0]`) of `path`, shortened from the front when long.
std::string dotted_path(const std::vector<JsonPathSegment>& path) {
  std::string out;
  for (const auto& segment : path) {
    if (const auto* index = std::get_if<std::size_t>(&segment)) {
      out = detail::index_path(out, *index);
    } else {
      out = detail::child_path(out, std::get<std::string>(segment));
    }
  }
  constexpr std::size_t kMax = 200;
  if (out.size() > kMax) out = "..." + out.substr(out.size() - kMax);
  return detail::single_line(out);
}

// Parses JSON text with the untrusted-document reader (core/json.hpp): linear in size and depth,
// at most 64 levels and 10,000 members per object or array. A key repeated within one object is
// an error: parsers disagree on which value wins, so a label written twice (with two property
// sets) must not be silently resolved.
tl::expected<detail::Json, JsonFailure> parse_json_text(std::string_view text) {
  auto parsed = parse_untrusted_json(text);
  if (parsed) return std::move(*parsed);
  const JsonError& e = parsed.error();
  const auto at = fmt::format("(line {}, column {})", e.line, e.column);
  switch (e.kind) {
    case JsonError::Kind::syntax:
      return tl::unexpected(JsonFailure{"", "", fmt::format("invalid JSON: {}", detail::single_line(e.what))});
    case JsonError::Kind::depth:
      return tl::unexpected(JsonFailure{"", e.pointer(), fmt::format("invalid JSON: {}", detail::single_line(e.message()))});
    case JsonError::Kind::duplicate_key: {
      // Placed at the object holding the key, as the old message was ("variants: key ...").
      const std::vector<JsonPathSegment> object(e.path.begin(), e.path.end() - 1);
      JsonError container = e;
      container.path = object;
      return tl::unexpected(JsonFailure{object.empty() ? "(document)" : dotted_path(object), container.pointer(),
                                        fmt::format("{} {}", detail::single_line(e.what), at)});
    }
    case JsonError::Kind::too_many_members:
      return tl::unexpected(JsonFailure{e.path.empty() ? "(document)" : dotted_path(e.path), e.pointer(),
                                        fmt::format("{} {}", detail::single_line(e.what), at)});
  }
  return tl::unexpected(JsonFailure{"", "", detail::single_line(e.message())});
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
    const auto& failure = root.error();
    report.errors.push_back(failure.line());
    report.findings.push_back({Severity::Error, "invalid", failure.pointer, failure.location, failure.message});
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
  if (!root) return fail(root.error().line());
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

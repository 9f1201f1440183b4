#include "vwheel/pep440/specifier.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "pep440/version_grammar.hpp"

namespace vwheel::pep440 {
namespace {

struct OperatorSpelling {
  std::string_view text;
  Operator op;
};

// Longest first, so that `===` is not read as `==` followed by `=`.
constexpr std::array<OperatorSpelling, 8> kOperators{{
    {"===", Operator::arbitrary},
    {"~=", Operator::compatible},
    {"==", Operator::equal},
    {"!=", Operator::not_equal},
    {"<=", Operator::less_equal},
    {">=", Operator::greater_equal},
    {"<", Operator::less},
    {">", Operator::greater},
}};

std::optional<OperatorSpelling> match_operator(std::string_view s) noexcept {
  for (const auto& o : kOperators) {
    if (s.starts_with(o.text)) return o;
  }
  return std::nullopt;
}

std::size_t skip_space(std::string_view s, std::size_t i) noexcept {
  while (i < s.size() && is_python_ascii_space(s[i])) ++i;
  return i;
}

detail::VersionSyntax syntax_for(Operator op) noexcept {
  detail::VersionSyntax syntax;
  syntax.allow_local = op == Operator::equal || op == Operator::not_equal;
  syntax.allow_wildcard = syntax.allow_local;
  syntax.min_release_parts = op == Operator::compatible ? 2 : 1;
  return syntax;
}

// `===` takes `[^\s;)]*`.
std::size_t arbitrary_end(std::string_view s, std::size_t i) noexcept {
  while (i < s.size() && !is_python_ascii_space(s[i]) && s[i] != ';' && s[i] != ')') ++i;
  return i;
}

Version from_parts(detail::VersionParts&& parts) {
  // Rebuild through the text form: simple and keeps Version's invariants in one place.
  std::string text;
  if (!parts.epoch.is_zero()) text += parts.epoch.to_string() + "!";
  for (std::size_t i = 0; i < parts.release.size(); ++i) {
    if (i != 0) text += '.';
    text += parts.release[i].to_string();
  }
  return *Version::parse(text);
}

// `==V.*`: same epoch, and the release padded with zeros starts with the wildcard's release.
bool matches_prefix(const Version& candidate, const Version& prefix) {
  if (candidate.epoch() != prefix.epoch()) return false;
  const auto& rel = candidate.release();
  const auto& want = prefix.release();
  static const Number zero;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const Number& have = i < rel.size() ? rel[i] : zero;
    if (have != want[i]) return false;
  }
  return true;
}

}  // namespace

std::string_view to_string(Operator op) noexcept {
  for (const auto& o : kOperators) {
    if (o.op == op) return o.text;
  }
  return "?";
}

std::size_t match_specifier(std::string_view text) {
  const auto o = match_operator(text);
  if (!o) return 0;
  const std::size_t start = skip_space(text, o->text.size());
  if (o->op == Operator::arbitrary) return arbitrary_end(text, start);
  const std::size_t end = detail::match_version(text, start, nullptr, syntax_for(o->op));
  return end == std::string_view::npos ? 0 : end;
}

Result<Specifier> Specifier::parse(std::string_view text) {
  const std::string_view s = ascii_trim(text, is_python_ascii_space);
  const auto o = match_operator(s);
  if (!o) {
    return fail(
        fmt::format("invalid specifier `{}`: expected an operator (one of ~=, ==, !=, <=, >=, <, >, ===) "
                    "followed by a version",
                    detail::printable(text)));
  }
  Specifier spec;
  spec.op_ = o->op;
  const std::string_view version_text = s.substr(skip_space(s, o->text.size()));
  spec.text_ = std::string(version_text);

  if (o->op == Operator::arbitrary) {
    if (arbitrary_end(version_text, 0) != version_text.size()) {
      return fail(fmt::format("invalid specifier `{}`: the version of `===` must not contain whitespace, `;` or `)`",
                              detail::printable(text)));
    }
    if (auto v = Version::parse(version_text)) spec.version_ = std::move(*v);
    return spec;
  }

  detail::VersionParts parts;
  const auto syntax = syntax_for(o->op);
  if (detail::match_version(version_text, 0, &parts, syntax) == version_text.size()) {
    spec.wildcard_ = parts.wildcard;
    if (parts.wildcard) {
      spec.version_ = from_parts(std::move(parts));
    } else {
      spec.version_ = *Version::parse(version_text);
    }
    return spec;
  }

  // Explain what is wrong.
  const auto full = Version::parse(version_text);
  std::string why;
  if (version_text.empty()) {
    why = "missing version";
  } else if (version_text.ends_with(".*")) {
    why = syntax.allow_wildcard ? "a `.*` wildcard may only follow the release numbers (e.g. `==1.2.*`)"
                                : fmt::format("a `.*` wildcard is only allowed with `==` and `!=`, not `{}`", o->text);
  } else if (!full) {
    why = fmt::format("`{}` is not a valid PEP 440 version", detail::printable(version_text));
  } else if (full->has_local() && !syntax.allow_local) {
    why = fmt::format("a local version label is only allowed with `==` and `!=`, not `{}`", o->text);
  } else if (o->op == Operator::compatible && full->release().size() < 2) {
    why = "`~=` needs a version with at least two release numbers (e.g. `~=1.4`)";
  } else {
    why = fmt::format("`{}` is not a valid version for `{}`", detail::printable(version_text), o->text);
  }
  return fail(fmt::format("invalid specifier `{}`: {}", detail::printable(text), why));
}

bool Specifier::prereleases() const noexcept {
  switch (op_) {
    case Operator::equal:
    case Operator::greater_equal:
    case Operator::less_equal:
    case Operator::compatible:
    case Operator::arbitrary:
      return version_.has_value() && !wildcard_ && version_->is_prerelease();
    default:
      return false;
  }
}

bool Specifier::contains(const Version& v, std::optional<bool> prereleases) const {
  if (v.is_prerelease() && !prereleases.value_or(this->prereleases())) return false;
  if (op_ == Operator::arbitrary) {
    return ascii_iequals(v.to_string(), text_);
  }
  const Version& spec = *version_;
  switch (op_) {
    case Operator::equal:
    case Operator::not_equal: {
      bool eq = false;
      if (wildcard_) {
        eq = matches_prefix(v, spec);
      } else if (spec.has_local()) {
        eq = v == spec;
      } else {
        eq = v.without_local() == spec;
      }
      return op_ == Operator::equal ? eq : !eq;
    }
    case Operator::less_equal:
      return v.without_local() <= spec;
    case Operator::greater_equal:
      return v.without_local() >= spec;
    case Operator::less:
      // `<V` excludes pre-releases of V itself unless V is a pre-release.
      if (!(v < spec)) return false;
      return spec.is_prerelease() || !v.is_prerelease() || v.base() != spec.base();
    case Operator::greater:
      // `>V` excludes post-releases and local versions of V itself.
      if (!(v > spec)) return false;
      if (!spec.is_postrelease() && v.is_postrelease() && v.base() == spec.base()) return false;
      if (v.has_local() && v.base() == spec.base()) return false;
      return true;
    case Operator::compatible: {
      if (!(v.without_local() >= spec)) return false;
      // ~=X.Y.Z is >=X.Y.Z, ==X.Y.*
      std::string prefix_text = spec.epoch().is_zero() ? std::string() : spec.epoch().to_string() + "!";
      const auto& rel = spec.release();
      for (std::size_t i = 0; i + 1 < rel.size(); ++i) {
        if (i != 0) prefix_text += '.';
        prefix_text += rel[i].to_string();
      }
      return matches_prefix(v, *Version::parse(prefix_text));
    }
    case Operator::arbitrary:
      break;
  }
  return false;
}

bool Specifier::contains(std::string_view version, std::optional<bool> prereleases) const {
  if (auto v = Version::parse(version)) return contains(*v, prereleases);
  return op_ == Operator::arbitrary && ascii_iequals(ascii_trim(version, is_python_ascii_space), text_);
}

std::string Specifier::to_string() const {
  std::string out(pep440::to_string(op_));
  out += text_;
  return out;
}

std::string Specifier::canonical_text() const {
  if (!version_ || op_ == Operator::arbitrary) return text_;
  if (wildcard_) return version_->to_string() + ".*";
  if (op_ == Operator::compatible) return version_->to_string();
  // Strip trailing zeros of the release, as packaging's canonicalize_version.
  const std::string text = version_->to_string();
  const std::string base = version_->base_version();
  std::string stripped = base;
  while (stripped.ends_with(".0")) stripped.resize(stripped.size() - 2);
  return stripped + text.substr(base.size());
}

bool operator==(const Specifier& a, const Specifier& b) {
  return a.op_ == b.op_ && a.canonical_text() == b.canonical_text();
}

// ---- SpecifierSet ----

Result<SpecifierSet> SpecifierSet::parse(std::string_view text) {
  SpecifierSet set;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    const std::string_view item = ascii_trim(text.substr(start, comma - start), is_python_ascii_space);
    if (!item.empty()) {
      auto spec = Specifier::parse(item);
      if (!spec) {
        if (item.size() == text.size()) return fail(spec.error());
        return fail(
            fmt::format("invalid version specifier set `{}`: {}", detail::printable(text), spec.error().message));
      }
      set.insert(std::move(*spec));
    }
    start = comma + 1;
  }
  return set;
}

void SpecifierSet::insert(Specifier spec) {
  for (const auto& existing : specs_) {
    if (existing == spec) return;
  }
  const auto key = spec.to_string();
  auto pos = std::find_if(specs_.begin(), specs_.end(), [&](const Specifier& s) { return s.to_string() > key; });
  specs_.insert(pos, std::move(spec));
}

void SpecifierSet::merge(const SpecifierSet& other) {
  for (const auto& s : other.specs_) insert(s);
}

std::optional<bool> SpecifierSet::prereleases() const noexcept {
  if (specs_.empty()) return std::nullopt;
  return std::any_of(specs_.begin(), specs_.end(), [](const Specifier& s) { return s.prereleases(); });
}

bool SpecifierSet::contains(const Version& version, std::optional<bool> prereleases) const {
  if (!prereleases) prereleases = this->prereleases();
  if (version.is_prerelease() && !prereleases.value_or(false)) return false;
  return std::all_of(specs_.begin(), specs_.end(),
                     [&](const Specifier& s) { return s.contains(version, prereleases); });
}

bool SpecifierSet::contains(std::string_view version, std::optional<bool> prereleases) const {
  if (auto v = Version::parse(version)) return contains(*v, prereleases);
  return !specs_.empty() && std::all_of(specs_.begin(), specs_.end(),
                                        [&](const Specifier& s) { return s.contains(version, prereleases); });
}

std::string SpecifierSet::to_string() const {
  std::string out;
  for (const auto& s : specs_) {
    if (!out.empty()) out += ',';
    out += s.to_string();
  }
  return out;
}

}  // namespace vwheel::pep440

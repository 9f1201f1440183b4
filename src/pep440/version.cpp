#include "vwheel/pep440/version.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "pep440/version_grammar.hpp"

namespace vwheel::pep440 {

// ---- Number ----

std::optional<Number> Number::from_digits(std::string_view digits) {
  if (digits.empty() || !std::all_of(digits.begin(), digits.end(), is_ascii_digit)) return std::nullopt;
  const auto first = digits.find_first_not_of('0');
  if (first == std::string_view::npos) return Number();
  digits.remove_prefix(first);
  // Any value of up to 19 digits fits; 20 digits fit when not above UINT64_MAX.
  constexpr std::string_view kMax = "18446744073709551615";
  Number n;
  if (digits.size() < kMax.size() || (digits.size() == kMax.size() && digits <= kMax)) {
    std::uint64_t v = 0;
    for (char c : digits) v = v * 10 + static_cast<std::uint64_t>(c - '0');
    n.small_ = v;
  } else {
    n.big_ = std::string(digits);
  }
  return n;
}

std::optional<std::uint64_t> Number::to_u64() const noexcept {
  if (!big_.empty()) return std::nullopt;
  return small_;
}

std::string Number::to_string() const { return big_.empty() ? fmt::to_string(small_) : big_; }

std::strong_ordering operator<=>(const Number& a, const Number& b) noexcept {
  if (a.big_.empty() && b.big_.empty()) return a.small_ <=> b.small_;
  if (a.big_.empty()) return std::strong_ordering::less;
  if (b.big_.empty()) return std::strong_ordering::greater;
  if (a.big_.size() != b.big_.size()) return a.big_.size() <=> b.big_.size();
  const int c = a.big_.compare(b.big_);
  return c < 0 ? std::strong_ordering::less : c > 0 ? std::strong_ordering::greater : std::strong_ordering::equal;
}

std::string_view to_string(PreReleaseKind kind) noexcept {
  switch (kind) {
    case PreReleaseKind::alpha:
      return "a";
    case PreReleaseKind::beta:
      return "b";
    case PreReleaseKind::rc:
      return "rc";
  }
  return "?";
}

// ---- Version ----

Version::Version() : release_{Number()} {}

Result<Version> Version::parse(std::string_view text) {
  detail::VersionParts parts;
  const std::string_view s = ascii_trim(text, is_python_ascii_space);
  if (detail::match_version(s, 0, &parts) != s.size()) {
    return fail(fmt::format("invalid version `{}`: not a valid PEP 440 version", detail::printable(text)));
  }
  Version v;
  v.epoch_ = std::move(parts.epoch);
  v.release_ = std::move(parts.release);
  v.pre_ = std::move(parts.pre);
  v.post_ = std::move(parts.post);
  v.dev_ = std::move(parts.dev);
  v.local_ = std::move(parts.local);
  return v;
}

std::string normalized_or_verbatim(std::string_view text) {
  auto v = Version::parse(text);
  return v ? v->to_string() : std::string(text);
}

bool is_valid_version(std::string_view text) {
  const std::string_view s = ascii_trim(text, is_python_ascii_space);
  return detail::match_version(s, 0, nullptr) == s.size();
}

namespace {

void append_release(std::string& out, const Number& epoch, const std::vector<Number>& release) {
  if (!epoch.is_zero()) {
    out += epoch.to_string();
    out += '!';
  }
  for (std::size_t i = 0; i < release.size(); ++i) {
    if (i != 0) out += '.';
    out += release[i].to_string();
  }
}

void append_suffixes(std::string& out, const std::optional<PreRelease>& pre, const std::optional<Number>& post,
                     const std::optional<Number>& dev) {
  if (pre) {
    out += to_string(pre->kind);
    out += pre->number.to_string();
  }
  if (post) {
    out += ".post";
    out += post->to_string();
  }
  if (dev) {
    out += ".dev";
    out += dev->to_string();
  }
}

// Ordering helpers mirroring packaging's _cmpkey with its infinities.
enum class Rank : std::uint8_t { negative_infinity, value, infinity };

std::strong_ordering compare_release(const std::vector<Number>& a, const std::vector<Number>& b) noexcept {
  // Trailing zeros are insignificant: compare as if the shorter were padded with zeros.
  const std::size_t n = std::max(a.size(), b.size());
  static const Number zero;
  for (std::size_t i = 0; i < n; ++i) {
    const Number& x = i < a.size() ? a[i] : zero;
    const Number& y = i < b.size() ? b[i] : zero;
    if (auto c = x <=> y; c != 0) return c;
  }
  return std::strong_ordering::equal;
}

std::strong_ordering compare_local_part(const LocalPart& a, const LocalPart& b) noexcept {
  const bool a_num = std::holds_alternative<Number>(a);
  const bool b_num = std::holds_alternative<Number>(b);
  if (a_num != b_num) return a_num ? std::strong_ordering::greater : std::strong_ordering::less;
  if (a_num) return std::get<Number>(a) <=> std::get<Number>(b);
  const int c = std::get<std::string>(a).compare(std::get<std::string>(b));
  return c < 0 ? std::strong_ordering::less : c > 0 ? std::strong_ordering::greater : std::strong_ordering::equal;
}

}  // namespace

std::string Version::to_string() const {
  std::string out = public_version();
  if (!local_.empty()) {
    out += '+';
    out += local_string();
  }
  return out;
}

std::string Version::public_version() const {
  std::string out;
  append_release(out, epoch_, release_);
  append_suffixes(out, pre_, post_, dev_);
  return out;
}

std::string Version::base_version() const {
  std::string out;
  append_release(out, epoch_, release_);
  return out;
}

std::string Version::local_string() const {
  std::string out;
  for (std::size_t i = 0; i < local_.size(); ++i) {
    if (i != 0) out += '.';
    if (const auto* s = std::get_if<std::string>(&local_[i])) {
      out += *s;
    } else {
      out += std::get<Number>(local_[i]).to_string();
    }
  }
  return out;
}

Version Version::without_local() const {
  Version v = *this;
  v.local_.clear();
  return v;
}

Version Version::base() const {
  Version v;
  v.epoch_ = epoch_;
  v.release_ = release_;
  return v;
}

std::strong_ordering Version::compare(const Version& other) const noexcept {
  if (auto c = epoch_ <=> other.epoch_; c != 0) return c;
  if (auto c = compare_release(release_, other.release_); c != 0) return c;

  // Pre-release: a dev release without pre/post sorts before every pre-release; no pre-release
  // sorts after every pre-release.
  auto pre_rank = [](const Version& v) {
    if (!v.pre_ && !v.post_ && v.dev_) return Rank::negative_infinity;
    if (!v.pre_) return Rank::infinity;
    return Rank::value;
  };
  const Rank pa = pre_rank(*this);
  const Rank pb = pre_rank(other);
  if (pa != pb) return pa <=> pb;
  if (pa == Rank::value) {
    if (auto c = *pre_ <=> *other.pre_; c != 0) return c;
  }

  // Post-release: none sorts first.
  if (post_.has_value() != other.post_.has_value())
    return post_.has_value() ? std::strong_ordering::greater : std::strong_ordering::less;
  if (post_) {
    if (auto c = *post_ <=> *other.post_; c != 0) return c;
  }

  // Dev release: none sorts last.
  if (dev_.has_value() != other.dev_.has_value())
    return dev_.has_value() ? std::strong_ordering::less : std::strong_ordering::greater;
  if (dev_) {
    if (auto c = *dev_ <=> *other.dev_; c != 0) return c;
  }

  // Local: none sorts first; then part by part, a shorter prefix first.
  const std::size_t n = std::min(local_.size(), other.local_.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (auto c = compare_local_part(local_[i], other.local_[i]); c != 0) return c;
  }
  return local_.size() <=> other.local_.size();
}

}  // namespace vwheel::pep440

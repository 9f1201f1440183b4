#include "vwheel/core/text.hpp"
#include "vwheel/wheel_name/wheel_name.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace vwheel::wheel_name {
namespace {

constexpr bool is_name_char(char c) noexcept { return is_ascii_alnum(c) || c == '_' || c == '.'; }
constexpr bool is_tag_char(char c) noexcept { return is_ascii_alnum(c) || c == '_'; }
constexpr bool is_label_char(char c) noexcept {
  return is_ascii_digit(c) || (c >= 'a' && c <= 'z') || c == '_' || c == '.';
}
// Characters never allowed in any component: whitespace, controls, path separators.
constexpr bool is_forbidden(char c) noexcept {
  const auto u = static_cast<unsigned char>(c);
  return u <= 0x20 || u == 0x7f || c == '/' || c == '\\';
}

std::vector<std::string> split_dots(std::string_view s) {
  std::vector<std::string> out;
  while (true) {
    const auto dot = s.find('.');
    out.emplace_back(s.substr(0, dot));
    if (dot == std::string_view::npos) break;
    s.remove_prefix(dot + 1);
  }
  return out;
}


std::string_view trim_zeros(std::string_view digits) noexcept {
  while (digits.size() > 1 && digits.front() == '0') digits.remove_prefix(1);
  return digits;
}

}  // namespace

std::string_view BuildTag::number() const noexcept {
  std::size_t n = 0;
  while (n < text.size() && is_ascii_digit(text[n])) ++n;
  return std::string_view(text).substr(0, n);
}

std::string_view BuildTag::suffix() const noexcept { return std::string_view(text).substr(number().size()); }

std::strong_ordering operator<=>(const BuildTag& a, const BuildTag& b) noexcept {
  const auto na = trim_zeros(a.number());
  const auto nb = trim_zeros(b.number());
  if (na.size() != nb.size()) return na.size() <=> nb.size();
  if (auto c = na.compare(nb); c != 0) return c < 0 ? std::strong_ordering::less : std::strong_ordering::greater;
  const auto c = a.suffix().compare(b.suffix());
  return c < 0 ? std::strong_ordering::less : c > 0 ? std::strong_ordering::greater : std::strong_ordering::equal;
}

std::string Tag::to_string() const { return fmt::format("{}-{}-{}", python, abi, platform); }

std::vector<std::string> WheelName::python_tags() const { return split_dots(python_tag); }
std::vector<std::string> WheelName::abi_tags() const { return split_dots(abi_tag); }
std::vector<std::string> WheelName::platform_tags() const { return split_dots(platform_tag); }

std::vector<Tag> WheelName::tags() const {
  std::vector<Tag> out;
  for (const auto& py : python_tags()) {
    for (const auto& abi : abi_tags()) {
      for (const auto& plat : platform_tags()) out.push_back(Tag{py, abi, plat});
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string WheelName::namever() const { return fmt::format("{}-{}", name, version); }

std::string WheelName::base_name() const {
  std::string out = namever();
  if (build) {
    out += '-';
    out += build->text;
  }
  out += fmt::format("-{}-{}-{}", python_tag, abi_tag, platform_tag);
  return out;
}

std::string WheelName::to_string() const {
  std::string out = base_name();
  if (label) {
    out += '-';
    out += *label;
  }
  out += ".whl";
  return out;
}

Result<WheelName> parse_wheel_name(std::string_view filename) {
  auto bad = [&](std::string_view why) {
    return fail(fmt::format("invalid wheel file name `{}`: {}", printable(filename), why));
  };
  if (!filename.ends_with(".whl")) return bad("expected the extension `.whl`");
  const std::string_view stem = filename.substr(0, filename.size() - 4);
  if (const auto it = std::find_if(stem.begin(), stem.end(), is_forbidden); it != stem.end()) {
    return bad(fmt::format("unexpected character {:?} at position {}", *it, it - stem.begin() + 1));
  }

  std::vector<std::string_view> parts;
  for (std::string_view rest = stem;;) {
    const auto dash = rest.find('-');
    parts.push_back(rest.substr(0, dash));
    if (dash == std::string_view::npos) break;
    rest.remove_prefix(dash + 1);
  }
  if (parts.size() < 5 || parts.size() > 7) {
    return bad(
        fmt::format("expected 5 to 7 `-`-separated parts ({{distribution}}-{{version}}(-{{build tag}})?-"
                    "{{python tag}}-{{abi tag}}-{{platform tag}}(-{{variant label}})?), found {}",
                    parts.size()));
  }

  // With six parts the third decides: a build tag starts with a digit, a python tag must not.
  bool has_build = false;
  bool has_label = false;
  if (parts.size() == 7) {
    has_build = has_label = true;
  } else if (parts.size() == 6) {
    has_build = !parts[2].empty() && is_ascii_digit(parts[2].front());
    has_label = !has_build;
  }

  WheelName w;
  w.name = std::string(parts[0]);
  w.version = std::string(parts[1]);
  std::size_t i = 2;
  if (has_build) w.build = BuildTag{std::string(parts[i++])};
  w.python_tag = std::string(parts[i++]);
  w.abi_tag = std::string(parts[i++]);
  w.platform_tag = std::string(parts[i++]);
  if (has_label) w.label = std::string(parts[i]);

  if (w.name.empty()) return bad("empty distribution name");
  if (!std::all_of(w.name.begin(), w.name.end(), is_name_char)) {
    return bad(fmt::format("invalid distribution name `{}`: expected letters, digits, `_` and `.`", w.name));
  }
  if (w.version.empty()) return bad("empty version");
  if (w.build && (w.build->text.empty() || !is_ascii_digit(w.build->text.front()))) {
    return bad(fmt::format("build tag `{}` must start with a digit", w.build->text));
  }
  struct TagField {
    std::string_view what;
    const std::string& value;
  };
  for (const TagField& f : {TagField{"python tag", w.python_tag}, TagField{"abi tag", w.abi_tag},
                            TagField{"platform tag", w.platform_tag}}) {
    if (f.value.empty()) return bad(fmt::format("empty {}", f.what));
    for (const auto& part : split_dots(f.value)) {
      if (part.empty() || !std::all_of(part.begin(), part.end(), is_tag_char)) {
        return bad(
            fmt::format("invalid {} `{}`: expected `.`-separated tags of letters, digits and `_`", f.what, f.value));
      }
    }
  }
  for (const auto& py : w.python_tags()) {
    if (is_ascii_digit(py.front())) return bad(fmt::format("python tag `{}` must not start with a digit", py));
  }
  if (w.label && (w.label->empty() || !std::all_of(w.label->begin(), w.label->end(), is_label_char))) {
    return bad(fmt::format("invalid variant label `{}`: expected one or more of [0-9a-z_.]", *w.label));
  }
  return w;
}

}  // namespace vwheel::wheel_name

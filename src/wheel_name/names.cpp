#include "vwheel/wheel_name/names.hpp"

#include "vwheel/core/text.hpp"

namespace vwheel::wheel_name {
namespace {

constexpr bool is_sep(char c) noexcept { return c == '-' || c == '_' || c == '.'; }

std::string normalize(std::string_view name, char replacement) {
  std::string out;
  out.reserve(name.size());
  bool in_sep = false;
  for (char c : name) {
    if (is_sep(c)) {
      if (!in_sep) out += replacement;
      in_sep = true;
    } else {
      out += ascii_lower(c);
      in_sep = false;
    }
  }
  return out;
}

}  // namespace

std::string canonicalize_name(std::string_view name) { return normalize(name, '-'); }

bool is_normalized_name(std::string_view name) noexcept {
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c >= 'A' && c <= 'Z') return false;
    if (c == '_' || c == '.') return false;
    if (c == '-' && i > 0 && name[i - 1] == '-') return false;
  }
  return true;
}

bool is_valid_project_name(std::string_view name) noexcept {
  if (name.empty() || !is_ascii_alnum(name.front()) || !is_ascii_alnum(name.back())) return false;
  for (char c : name) {
    if (!is_ascii_alnum(c) && !is_sep(c)) return false;
  }
  return true;
}

std::string escape_wheel_name(std::string_view name) { return normalize(name, '_'); }

}  // namespace vwheel::wheel_name

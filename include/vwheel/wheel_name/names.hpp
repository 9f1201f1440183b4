#pragma once
/// \file
/// Project names: PEP 503 normalization, PEP 508 validity and the escaped form used in wheel
/// file names.

#include <string>
#include <string_view>

namespace vwheel::wheel_name {

/// PEP 503 normalized name: lowercase, every run of `-`, `_` and `.` replaced by one `-`
/// (`Foo.Bar__baz` → `foo-bar-baz`).
[[nodiscard]] std::string canonicalize_name(std::string_view name);

/// True when `name` is already in PEP 503 normalized form.
[[nodiscard]] bool is_normalized_name(std::string_view name) noexcept;

/// A valid PEP 508 project name: ASCII letters and digits, with `.`, `_`, `-` allowed inside
/// (`^([A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9])$`, case-insensitive).
[[nodiscard]] bool is_valid_project_name(std::string_view name) noexcept;

/// The form of a name in a wheel file name: normalized, with `-` replaced by `_`
/// (`Foo.Bar-baz` → `foo_bar_baz`).
[[nodiscard]] std::string escape_wheel_name(std::string_view name);

}  // namespace vwheel::wheel_name

#pragma once
/// \file
/// Checks of a wheel file given for installation (PEP 825, "Installing a specific local wheel"):
/// its tags, its `Requires-Python`, and its variant, against the interpreter or a target profile.
/// (Choosing among candidates is the `plan` component's job.)

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "vwheel/core/error.hpp"
#include "vwheel/python/interpreter.hpp"

namespace vwheel::install {

/// What a wheel must fit.
struct Compatibility {
  /// Supported tags, most preferred first (the interpreter's, or the target profile's).
  std::vector<std::string> tags;
  /// A target profile for variant support; this machine when absent.
  std::optional<std::filesystem::path> target;
  bool no_cache = false;  ///< skip the provider detection cache
  /// The PEP 508 marker environment a wheel's `Requires-Python` is checked against (its
  /// `python_full_version`, else `python_version`): the target profile's `environment` when it
  /// has a Python version, else the interpreter's. Nullopt (or no Python version in it): not checked.
  std::optional<std::map<std::string, std::string, std::less<>>> environment;
  /// Where `environment` comes from, for messages: `target profile FILE` or `interpreter PATH`.
  std::string environment_source;
};

/// The tags to use: the target profile's `tags` when it has them, else `interpreter_tags`; the
/// environment: the target profile's when it has one (Requires-Python is then checked against it).
[[nodiscard]] Result<Compatibility> make_compatibility(std::vector<std::string> interpreter_tags,
                                                       const std::optional<std::filesystem::path>& target,
                                                       bool no_cache);

/// As above for an interpreter: its tags and marker environment, unless the target profile
/// carries `tags` / an `environment` with a Python version, which are used instead.
[[nodiscard]] Result<Compatibility> make_compatibility(const python::Interpreter& interpreter,
                                                       const std::optional<std::filesystem::path>& target,
                                                       bool no_cache);

/// The Python version `Requires-Python` is checked against (`python_full_version`, else
/// `python_version` of `compat.environment`), or nullopt when there is none.
[[nodiscard]] std::optional<std::string> target_python_version(const Compatibility& compat);

/// Checks a `Requires-Python` value (`what` names the wheel) against `compat`'s Python version:
/// the error names the wheel, the specifier, the version and where it comes from. An absent
/// Python version, or an empty value, passes; an unparsable value is an error.
[[nodiscard]] Result<void> check_requires_python(std::string_view requires_python, const Compatibility& compat,
                                                 std::string_view what);

/// Checks a wheel file given for installation: one of its tags is supported, its METADATA's
/// `Requires-Python` admits the target's Python version (see `Compatibility::environment`),
/// and, for a variant wheel (unless `ignore_variant`), its variant is supported by the target
/// (the reason when not).
[[nodiscard]] Result<void> check_wheel(const std::filesystem::path& wheel, const Compatibility& compat,
                                       bool ignore_variant);

}  // namespace vwheel::install

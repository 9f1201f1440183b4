#pragma once
/// \file
/// Which wheel to install: checks of a wheel given as a file (tags, PEP 825 variant support),
/// and the choice among local candidates (`--find-links DIR`): highest version, tags in the
/// interpreter's priority order, variants in the ranking's order, the null variant before
/// non-variant wheels. No dependency resolution.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "vwheel/core/error.hpp"

namespace vwheel::install {

/// What a wheel must fit.
struct Compatibility {
  /// Supported tags, most preferred first (the interpreter's, or the target profile's).
  std::vector<std::string> tags;
  /// A target profile for variant support; this machine when absent.
  std::optional<std::filesystem::path> target;
  bool no_cache = false;  ///< skip the provider detection cache
};

/// The tags to use: the target profile's `tags` when it has them, else `interpreter_tags`.
[[nodiscard]] Result<Compatibility> make_compatibility(std::vector<std::string> interpreter_tags,
                                                       const std::optional<std::filesystem::path>& target,
                                                       bool no_cache);

/// Checks a wheel file given for installation: one of its tags is supported, and, for a variant
/// wheel (unless `ignore_variant`), its variant is supported by the target (the reason when not).
[[nodiscard]] Result<void> check_wheel(const std::filesystem::path& wheel, const Compatibility& compat,
                                       bool ignore_variant);

/// The wheel chosen for one requirement.
struct Choice {
  std::filesystem::path wheel;
  std::string name;
  std::string version;
  std::string why;              ///< e.g. `variant v3: x86_64 :: level :: v3` or `non-variant`
  std::size_t candidates = 0;   ///< wheels of that project in the directory
};

/// Chooses among the wheels in `dir` for `requirement` (`NAME` or `NAME==VERSION`): the highest
/// version (no pre-releases unless `pre` or pinned) with a wheel whose tags are supported and,
/// for variants, whose variant is supported; within it the best variant, then the best tag.
[[nodiscard]] Result<Choice> choose_wheel(const std::filesystem::path& dir, const std::string& requirement,
                                          const Compatibility& compat, bool pre);

/// `pkg 1.0: FILE (WHY; N candidates)`.
[[nodiscard]] std::string describe_choice(const Choice& choice);

}  // namespace vwheel::install

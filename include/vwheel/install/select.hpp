#pragma once
/// \file
/// Checks of a wheel file given for installation (PEP 825, "Installing a specific local wheel"):
/// its tags, its `Requires-Python`, and its variant, against the run's selection (the
/// interpreter or a target profile). Choosing among candidates is the `plan` component's job.

#include <filesystem>

#include "vwheel/core/error.hpp"
#include "vwheel/selection/selection.hpp"

namespace vwheel::install {

/// Checks a wheel file given for installation: one of its tags is in the selection's tags, its
/// METADATA's `Requires-Python` admits the selection's Python version, and, for a variant wheel
/// (unless `ignore_variant`), its variant is supported (the reason when not).
[[nodiscard]] Result<void> check_wheel(const std::filesystem::path& wheel, const selection::Selection& selection,
                                       bool ignore_variant);

}  // namespace vwheel::install

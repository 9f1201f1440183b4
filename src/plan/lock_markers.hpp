#pragma once
// Private to the plan component: the environments a universal lock covers, and the PEP 508 marker
// that says which of them a lock entry is for. Pure: no I/O (lock_markers.cpp).

#include <optional>
#include <string>
#include <vector>

#include "vwheel/core/error.hpp"
#include "vwheel/markers/marker.hpp"
#include "vwheel/pep440/specifier.hpp"
#include "vwheel/wheel_name/wheel_name.hpp"

namespace vwheel::plan::detail {

/// The environments a universal lock stands for: `base` (the interpreter's or profile's) first,
/// then CPython and PyPy on Linux (x86_64, aarch64, i686), Windows (AMD64) and macOS (arm64,
/// x86_64), with every Python minor from 3.9 to 3.15 (PyPy: 3.9 to 3.11), every marker variable set
/// consistently. Those whose `python_full_version` `requires_python` excludes are left out (`base`
/// too). Markers on dependencies are evaluated in each; where they differ, the resolution forks.
[[nodiscard]] std::vector<markers::Environment> lock_universe(const markers::Environment& base,
                                                              const std::optional<pep440::SpecifierSet>& requires_python);

/// A PEP 508 marker that holds in exactly the environments of `universe` whose flag in `members`
/// is set (same size), built from `sys_platform`, `platform_machine`, `implementation_name` and
/// Python version comparisons only (never a variant marker), simplified so that it reads as the
/// platforms and Pythons it means and says something sensible outside the universe: every Linux
/// machine is `sys_platform == "linux"`, a Python range up to the universe's newest is open
/// upwards (`python_full_version >= "3.12"`), one from its oldest open downwards, both
/// implementations need no implementation term. nullopt when every environment is a member.
/// Fails (naming the marker) only if the result would not evaluate to membership, which the
/// universe's environments (each platform a consistent set of variables) never cause.
[[nodiscard]] Result<std::optional<std::string>> environment_marker(const std::vector<markers::Environment>& universe,
                                                                    const std::vector<bool>& members);

/// Whether `wheel`'s tags may install in `env`, by family: the platform tag's OS and machine
/// (manylinux/musllinux/linux_ARCH, win_amd64/win32, macosx_*_arm64/x86_64; universal2 and any
/// fit either) and the Python tag's implementation and version (ppXY: PyPy; cpXY: CPython XY, or
/// XY and newer with abi3/none; pyX: any). Conservative: a tag it does not know fits.
[[nodiscard]] bool wheel_may_fit(const wheel_name::WheelName& wheel, const markers::Environment& env);

/// `a and b` with each side parenthesized where it is a disjunction; one side when the other is
/// empty.
[[nodiscard]] std::string marker_and(const std::string& a, const std::string& b);

/// `a or b ...`; the one term where there is one.
[[nodiscard]] std::string marker_or(const std::vector<std::string>& terms);

}  // namespace vwheel::plan::detail

#pragma once
// The distribution files of a wheel directory: what their names say, and what `build_site`
// reads from a wheel (its core metadata, checked against the file name, and for a variant wheel
// its `variant.json`).

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "vwheel/core/error.hpp"
#include "vwheel/pep440/version.hpp"

namespace vwheel::index::detail {

enum class DistKind { Wheel, Sdist };

struct DistName {
  DistKind kind = DistKind::Wheel;
  std::string project;       // PEP 503 normalized, `[a-z0-9-]`
  std::string version_text;  // as in the file name
  pep440::Version version;
  std::optional<std::string> variant_namever;  // variant wheels: `{name}-{version}` as in the file name
};

// nullopt for a file that is not a distribution (hidden, or neither `*.whl` nor `*.tar.gz`). An
// error names the file when its name is not a valid wheel or sdist name.
[[nodiscard]] Result<std::optional<DistName>> identify(std::string_view filename);

struct WheelInfo {
  std::string metadata;  // `{dist_info}/METADATA`, for `<file>.metadata`
  std::optional<std::string> requires_python;
};

// Opens the wheel and reads `{dist_info}/METADATA`, whose `Name` and `Version` must match the file
// name; a variant wheel must have a valid `variant.json`. Errors name the file.
[[nodiscard]] Result<WheelInfo> inspect_wheel(const std::filesystem::path& path, const DistName& name);

}  // namespace vwheel::index::detail

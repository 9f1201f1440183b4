#pragma once
/// \file
/// `vwheel build`: builds a project's variant wheels with vwheel's PEP 517 frontend
/// (`vwheel/build/frontend.hpp`), filling the isolated build environments with vwheel's installer
/// and making the variant wheels as `make-variant` does, then writes the index's `variants.json`.

#include <filesystem>
#include <vector>

#include "vwheel/api/install.hpp"
#include "vwheel/api/maintain.hpp"
#include "vwheel/build/frontend.hpp"
#include "vwheel/core/error.hpp"

namespace vwheel::api {

/// What `build` does: the frontend's request, and how the layers above it serve it.
struct BuildRequest : build::BuildRequest {
  /// Where the isolated builds' requirements come from (as for `install`).
  SourceRequest sources;
  /// Run `generate-index-json` over the output folder at the end.
  bool index = true;
  /// How the properties of variants vwheel makes itself are checked (as for `make-variant`).
  PropertyValidation validation;
  wheel::VariantJsonFormat format = wheel::VariantJsonFormat::Draft003;
};

/// What `build` did.
struct BuildReport : build::BuildReport {
  /// `{name}-{version}-variants.json` files written.
  std::vector<std::filesystem::path> index_files;
};

/// `build::build_project`, with each isolated environment a `--without-pip` venv into which
/// `install` puts the build requirements from `sources`, and each plain wheel made a variant wheel
/// by `make_variants` (with `validation` and `format`); then, when a variant wheel was published,
/// `generate-index-json` over the output folder (unless `index` is off).
[[nodiscard]] Result<BuildReport> build(const BuildRequest& request);

}  // namespace vwheel::api

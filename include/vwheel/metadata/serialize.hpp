#pragma once
/// \file
/// Writing variant metadata: the draft v0.0.3 text variantlib writes (byte-identical to its
/// `VariantsJson.to_str()`), PEP 825's v0.1.1 format, the Providers draft's v0.2.0 format, and
/// the `variant.json` of a new wheel.

#include <optional>
#include <string>

#include "vwheel/core/error.hpp"
#include "vwheel/variant/metadata.hpp"

namespace vwheel::metadata {

/// The draft v0.0.3 document, byte-identical to variantlib's `to_str()`: Python
/// `json.dumps(data, indent=4, sort_keys=True)` (ASCII only, `\uXXXX` escapes with surrogate
/// pairs, no trailing newline). `$schema` is always `kSchemaUrlDraft003`;
/// `default-priorities.namespace`, `providers` and `variants` are always present;
/// `default-priorities.feature/property` and `static-properties` only when non-empty; provider
/// keys only when not at their defaults (`requires` non-empty, `enable-if`/`plugin-api` set,
/// `optional` true, `install-time` false). Variant values come out sorted, other lists in their
/// order. Writes whatever the model holds (no validation).
[[nodiscard]] std::string to_json_draft003(const variant::VariantMetadata& metadata);

/// PEP 825's format, v0.1.1: only `$schema` (`kSchemaUrlPep825`), `default-priorities.namespace`
/// and `variants` (values sorted), same layout as `to_json_draft003` (4-space indent, sorted keys,
/// ASCII) **plus a trailing newline**. The draft keys (providers, static properties, feature and
/// property priorities) are dropped. Valid against the v0.1.1 JSON schema whenever
/// `conformance_problems(metadata, kind)` is empty; callers that must produce conforming files
/// check that first.
[[nodiscard]] std::string to_json_pep825(const variant::VariantMetadata& metadata);

/// The Providers draft's format, v0.2.0 (`$schema` `kSchemaUrlProviders`): `default-priorities`
/// with only `namespace` (without `abi_dependency`, which is reserved), `providers` for the listed
/// namespaces (an install-time provider as `requires` and `plugin-api` when set, an ahead-of-time
/// one as `static-properties`, features in `feature_priorities` order then by name, values as
/// given; `optional` only when true) and `variants`. Layout as `to_json_pep825` (4-space indent,
/// sorted keys except the static features, ASCII, trailing newline). `enable-if` and PEP 817's
/// priority overrides are dropped. Valid v0.2.0 whenever `conformance_problems_v020(metadata,
/// kind)` is empty.
[[nodiscard]] std::string to_json_v020(const variant::VariantMetadata& metadata);

/// The metadata of a new wheel's `variant.json`, as variantlib's `make_variant_dist_info()`
/// without its ahead-of-time plugin expansion: the `pyproject` metadata (priorities, providers,
/// static properties; its variants are dropped) plus one variant, `properties` under `label` (the
/// hash label when absent; validated by `variant::make_label`: `null` exactly for no properties).
/// `schema_url`/`schema` are the draft v0.0.3 ones. Providers with `install-time = false` and
/// non-empty `requires` need their plugin's values in `static_properties` for the result to be
/// readable by `parse_json_document`: a caller that runs AoT plugins adds them to `pyproject` first.
[[nodiscard]] Result<variant::VariantMetadata> make_dist_info_metadata(
    const variant::PropertySet& properties, const std::optional<variant::VariantMetadata>& pyproject,
    const std::optional<std::string>& label = std::nullopt);

/// `to_json_draft003(make_dist_info_metadata(...))`: byte-identical to variantlib's
/// `make_variant_dist_info()` (without AoT expansion).
[[nodiscard]] Result<std::string> make_variant_dist_info(const variant::PropertySet& properties,
                                                         const std::optional<variant::VariantMetadata>& pyproject,
                                                         const std::optional<std::string>& label = std::nullopt);

}  // namespace vwheel::metadata

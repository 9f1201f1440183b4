#pragma once
/// \file
/// Combining the variant metadata of several wheels (or index files) of one package version,
/// per PEP 825 "Metadata consistency" and, for the draft keys, PEP 817's merging rules.
///
/// * `default-priorities.namespace`: identical, or one starts with the other; the result is the
///   longer list.
/// * `variants`: union; a label present in both must map to the same property set.
/// * `providers`, `static-properties`: union per namespace; a namespace present in both must have
///   identical values.
/// * `default-priorities.feature` / `.property`: union per namespace; a namespace present in both
///   must have identical values, and one present in only one input is an inconsistency when the
///   other input lists that namespace in its `default-priorities.namespace` (it then states "no
///   override" for it; PEP 817: these keys may be added only for namespaces the other did not list).
/// * `$schema`: the newest version (ties: the greater URL), so that the result does not depend on
///   the order. A Providers-draft document (v0.2.x) merges only with others of that format: its
///   providers are normative where the older formats' are absent (v0.1.x) or carry `enable-if` and
///   `install-time` (v0.0.x), so one version of a project cannot mix them.
/// * v0.2.x `providers` (and each static provider's feature order, kept in
///   `default-priorities.feature`) follow the rules above: every provider must agree.
///
/// Every rule is symmetric, so merging consistent inputs gives the same result in any order.
/// Where variantlib 0.0.3 differs (it rejects a namespace list extending another, overwrites a
/// label with different properties, and never compares static properties), PEP 825/817 win.

#include <span>

#include "vwheel/core/error.hpp"
#include "vwheel/variant/metadata.hpp"

namespace vwheel::metadata {

/// Merges `other` into `acc` (usually a copy of the first input). On inconsistency fails with
/// every inconsistency found (first in `message`, the rest in `details`), each naming the key
/// and both values, and leaves `acc` unchanged.
[[nodiscard]] Result<void> merge_into(variant::VariantMetadata& acc, const variant::VariantMetadata& other);

/// Merges all inputs, first to last; an empty span gives default metadata. The error names the
/// index of the input that could not be merged.
[[nodiscard]] Result<variant::VariantMetadata> merge_all(std::span<const variant::VariantMetadata> inputs);

}  // namespace vwheel::metadata

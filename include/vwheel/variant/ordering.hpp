#pragma once
/// \file
/// The variant engine: which variants of a package version a target supports, and in which
/// order an installer should prefer them (PEP 825 "Variant ordering", with PEP 817's
/// `default-priorities.feature/property` overrides and the user's `variants.toml`).

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "vwheel/core/error.hpp"
#include "vwheel/markers/marker.hpp"
#include "vwheel/variant/metadata.hpp"
#include "vwheel/variant/property.hpp"

namespace vwheel::variant {

/// The supported features of each namespace, most important first, values most preferred first.
using SupportedProperties = std::map<std::string, std::vector<FeatureConfig>>;

/// The reserved namespace of PEP 817 whose values come from installed distributions' versions.
inline constexpr std::string_view kAbiDependencyNamespace = "abi_dependency";

/// The user's preferences (`variants.toml`): listed items come first, before the package's own.
struct UserPriorities {
  std::vector<std::string> namespace_priorities;
  std::map<std::string, std::vector<std::string>> feature_priorities;
  PropertyMap property_priorities;

  bool operator==(const UserPriorities&) const = default;
};

/// Answers, for one install-time namespace, what the target supports.
class SupportOracle {
 public:
  virtual ~SupportOracle() = default;
  /// `std::nullopt` when no provider is available for `ns` (the namespace is then unsupported
  /// and `note` says why); an error when the provider failed or answered invalid data.
  /// `declared` is the package's provider entry, if it has one.
  [[nodiscard]] virtual Result<std::optional<std::vector<FeatureConfig>>> supported(
      const std::string& ns, const ProviderInfo* declared, std::string& note) const = 0;
};

/// An oracle that answers from a fixed table (a target profile): namespaces absent from the
/// table have no provider.
class TableOracle final : public SupportOracle {
 public:
  explicit TableOracle(SupportedProperties table) : table_(std::move(table)) {}
  [[nodiscard]] Result<std::optional<std::vector<FeatureConfig>>> supported(
      const std::string& ns, const ProviderInfo* declared, std::string& note) const override;

 private:
  SupportedProperties table_;
};

/// Options that change what is considered supported.
struct SelectionOptions {
  /// Enable every provider marked `optional`.
  bool enable_all_optional = false;
  /// Enable these optional providers.
  std::set<std::string, std::less<>> enabled_optional;
  /// Installed distributions `(name, version)` that give the `abi_dependency` namespace its values.
  std::vector<std::pair<std::string, std::string>> abi_dependencies;
  /// The target's marker environment, for providers' `enable-if`; nullptr when unknown (then an
  /// `enable-if` is an error naming the provider).
  const markers::Environment* environment = nullptr;
};

/// Why a namespace is (not) supported, for explanations.
struct NamespaceReport {
  std::string ns;
  std::string source;  ///< "target", "static-properties", "installed distributions", "none"
  std::string note;    ///< why unsupported, or empty
};

/// One label of the metadata, with its verdict.
struct LabelReport {
  std::string label;
  bool compatible = false;
  /// 0-based position among compatible labels, when compatible.
  std::optional<std::size_t> position;
  /// For compatible labels: the best supported value of each feature, most significant first.
  std::vector<Property> best_properties;
  /// For incompatible labels: the first reason, one line.
  std::string reason;
};

/// The outcome of ranking.
struct Ranking {
  /// Compatible labels present in the metadata, best first.
  std::vector<std::string> order;
  /// Every label of the metadata, in `order` first and then the incompatible ones by label.
  std::vector<LabelReport> reports;
  /// The supported properties after applying priorities, in the order used for ranking.
  std::vector<Property> sorted_supported;
  /// The namespace priority list used (package, user, `abi_dependency`).
  std::vector<std::string> namespace_order;
  /// One entry per namespace that matters to this metadata.
  std::vector<NamespaceReport> namespaces;
};

/// Computes the supported properties of the target for this metadata, filters the variants and
/// orders the compatible ones. The null variant, when listed, is always last among compatible
/// labels; ties are broken by label; every label is reported even when two share a property set.
[[nodiscard]] Result<Ranking> rank_variants(const VariantMetadata& metadata, const SupportOracle& oracle,
                                            const UserPriorities& user, const SelectionOptions& options);

/// Whether one variant's properties are supported: every feature has at least one supported
/// value. On failure `reason` names the feature, its values and what the target supports.
[[nodiscard]] bool is_supported(const PropertySet& properties, const SupportedProperties& supported,
                                std::string* reason = nullptr);

/// The variant markers of PEP 825 for a selected wheel: its label and those of its properties the
/// target supports (`variant_properties`), plus derived features and namespaces.
void set_variant_markers(markers::Environment& env, const std::string& label, const PropertySet& properties,
                         const SupportedProperties& supported);

/// `abi_dependency` values for a version: `M`, `M.m`, `M.m.p` (in that order). Error if the
/// version is not a PEP 440 version.
[[nodiscard]] Result<std::vector<std::string>> abi_dependency_values(std::string_view version);

/// Normalizes a distribution name into an `abi_dependency` feature name (`Jax-Lib` -> `jax_lib`).
[[nodiscard]] std::string abi_dependency_feature(std::string_view name);

/// `VARIANT_ABI_DEPENDENCY` (`name==version,...`), parsed.
struct AbiDependencyOverrides {
  std::vector<std::pair<std::string, std::string>> items;
  /// Items without `==`, which are ignored (as the reference does), one line each.
  std::vector<std::string> ignored;
};

/// Parses `VARIANT_ABI_DEPENDENCY`: comma-separated `name==version` items; others are ignored
/// and reported in `ignored`.
[[nodiscard]] AbiDependencyOverrides parse_abi_dependency_env(std::string_view value);

}  // namespace vwheel::variant

#pragma once
/// \file
/// The in-memory model of variant metadata, shared by the three documents that carry it:
/// a wheel's `*.dist-info/variant.json`, the index-level `{name}-{version}-variants.json`, and
/// the `[variant]` table of `pyproject.toml`. Reading and writing the documents lives in the
/// `metadata` component (`vwheel/metadata/document.hpp`); this header is plain data.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "vwheel/variant/property.hpp"

namespace vwheel::variant {

/// A version of the metadata format, as found in the `$schema` URL (`.../v0.0.3.json`,
/// `.../peps/825/v0.1.1.json`, `.../peps/850/v0.2.0.json`).
struct SchemaVersion {
  int major = 0;
  int minor = 0;
  int patch = 0;

  auto operator<=>(const SchemaVersion&) const = default;
  bool operator==(const SchemaVersion&) const = default;
};

/// The draft formats (PEP 817 data model, variantlib) and PEP 825's format.
inline constexpr SchemaVersion kSchemaDraft002{0, 0, 2};
inline constexpr SchemaVersion kSchemaDraft003{0, 0, 3};
inline constexpr SchemaVersion kSchemaPep825{0, 1, 1};
/// The Providers draft (PEP 850, earlier numbered 826 and 9999): PEP 825's format plus a
/// `providers` table whose entries carry either `requires` (a plugin) or `static-properties`.
inline constexpr SchemaVersion kSchemaProviders{0, 2, 0};

/// True for documents read with the Providers draft's rules: 0.2.0 and every newer minor of major 0.
[[nodiscard]] constexpr bool is_providers_schema(const SchemaVersion& version) noexcept {
  return version.major == 0 && version.minor >= kSchemaProviders.minor;
}

/// `providers.{namespace}` (draft formats and pyproject.toml, PEP 817; the Providers draft, v0.2.0).
/// A v0.2.0 provider with `static-properties` reads as `install_time = false` (its values in
/// `VariantMetadata::static_properties`, its feature order in `feature_priorities`); one with
/// `requires` as `install_time = true`. v0.2.0 has no `enable-if`.
struct ProviderInfo {
  std::vector<std::string> requires_;      ///< PEP 508 requirement strings of the provider package
  std::optional<std::string> enable_if;    ///< a PEP 508 marker; the provider is used only if it is true
  bool optional = false;                   ///< used only when optional providers are enabled
  std::optional<std::string> plugin_api;   ///< `module:attr` object reference, as written
  bool install_time = true;                ///< false: ahead-of-time, values come from static-properties
  /// `build-requires` (the Building draft; pyproject.toml only): the plugin's packages, installed at
  /// build time to fill `static-properties` (such a provider is ahead-of-time and has no `requires`).
  std::vector<std::string> build_requires;

  bool operator==(const ProviderInfo&) const = default;
};

/// `{namespace: {feature: [values]}}` with value lists in their given order.
using PropertyMap = std::map<std::string, std::map<std::string, std::vector<std::string>>>;

/// Combined variant metadata of one package version (or of one wheel).
struct VariantMetadata {
  /// The `$schema` URL as read (empty when absent), and the version parsed from it.
  std::string schema_url;
  SchemaVersion schema = kSchemaPep825;

  /// `default-priorities.namespace`: namespaces in decreasing priority.
  std::vector<std::string> namespace_priorities;
  /// `default-priorities.feature` (PEP 817): per namespace, features in decreasing priority. For
  /// v0.2.0 also the order of a provider's `static-properties` features, as written.
  std::map<std::string, std::vector<std::string>> feature_priorities;
  /// `default-priorities.property` (PEP 817): per namespace and feature, values in decreasing priority.
  PropertyMap property_priorities;
  /// `providers` (PEP 817).
  std::map<std::string, ProviderInfo> providers;
  /// `static-properties` (PEP 817): values of ahead-of-time providers, in preference order.
  PropertyMap static_properties;
  /// `variants`: label -> sorted, validated property set. Empty for pyproject.toml.
  std::map<std::string, PropertySet> variants;

  bool operator==(const VariantMetadata&) const = default;
};

}  // namespace vwheel::variant

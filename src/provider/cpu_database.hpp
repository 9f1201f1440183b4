#pragma once
// The microarchitecture database in memory (built once from the embedded table) and archspec's
// host() matching rules over it.

#include <bitset>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace vwheel::provider::cpu {

inline constexpr std::size_t kMaxFeatures = 256;  // distinct feature names in one family
inline constexpr std::size_t kMaxUarchs = 128;    // entries in one family

using FeatureSet = std::bitset<kMaxFeatures>;
using UarchSet = std::bitset<kMaxUarchs>;

/// One database entry. Indices refer to the entry's family.
struct Uarch {
  std::string_view name;
  std::string_view vendor;
  std::string_view cpu_part;
  std::vector<std::size_t> parents;
  /// archspec's `ancestors`: the parents, then each parent's ancestors not yet listed.
  std::vector<std::size_t> ancestors;
  UarchSet ancestor_set;
  /// The feature list as a set, with the aliases applied (`ssse3` adds `sse3`).
  FeatureSet features;
  std::size_t feature_count = 0;

  [[nodiscard]] bool is_generic() const noexcept { return vendor == "generic"; }
};

/// The entries descending from one root (`x86_64`, `aarch64`), in database order.
class Family {
 public:
  /// Builds the family rooted at `root` from the embedded table.
  explicit Family(std::string_view root);

  [[nodiscard]] std::string_view root() const noexcept { return root_; }
  [[nodiscard]] std::span<const Uarch> uarchs() const noexcept { return uarchs_; }
  [[nodiscard]] const Uarch& at(std::size_t index) const { return uarchs_.at(index); }
  /// Index of the entry named `name`.
  [[nodiscard]] std::optional<std::size_t> find(std::string_view name) const noexcept;
  /// Id of a feature name any entry (or alias) of the family mentions.
  [[nodiscard]] std::optional<std::size_t> feature_id(std::string_view feature) const noexcept;
  /// Whether the entry's feature list (aliases applied) has `feature` (archspec `feature in t`).
  [[nodiscard]] bool has_feature(std::size_t uarch, std::string_view feature) const noexcept;
  /// The set of known features among `words`, with the aliases applied. Unknown words are
  /// dropped: no entry can require them.
  [[nodiscard]] FeatureSet feature_set(std::span<const std::string_view> words) const;
  /// archspec's `generic`: among the entry and its ancestors, the generic one with the most
  /// ancestors (the first such in [entry] + ancestors order on a tie).
  [[nodiscard]] std::size_t generic_of(std::size_t uarch) const noexcept;

 private:
  void apply_aliases(FeatureSet& set) const noexcept;

  std::string_view root_;
  std::vector<Uarch> uarchs_;
  std::vector<std::string_view> feature_names_;  // sorted; id = position
  struct Alias {
    std::size_t feature;
    std::vector<std::size_t> implied_by;
  };
  std::vector<Alias> aliases_;
};

[[nodiscard]] const Family& x86_64_family();
[[nodiscard]] const Family& aarch64_family();

/// Arm `CPU implementer` code to vendor name; an unknown code is returned unchanged.
[[nodiscard]] std::string_view arm_vendor_name(std::string_view code) noexcept;

/// What the matching knows about the host CPU.
struct HostCpu {
  std::string_view vendor;    ///< "generic" when unknown
  FeatureSet features;        ///< aliases applied
  std::string_view cpu_part;  ///< aarch64 only; empty otherwise
};

enum class MatchRules {
  x86_64,   ///< every entry of the family may match
  aarch64,  ///< generic entries other than the root never match
};

/// archspec's host(): the best database entry for `host` (index into `family`).
[[nodiscard]] std::size_t match_host(const Family& family, const HostCpu& host, MatchRules rules);

}  // namespace vwheel::provider::cpu

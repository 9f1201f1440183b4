#pragma once
/// \file
/// PEP 508 environment markers, extended with the four variant markers of PEP 825
/// (`variant_label`, `variant_properties`, `variant_features`, `variant_namespaces`).
///
/// Semantics (as `packaging.markers`, plus PEP 825):
/// - `and` binds tighter than `or`; parentheses group. Evaluation is left to right and
///   short-circuits, so an undefined variable in a branch that is not needed is not an error.
/// - A comparison `a OP b` (`OP` one of `==`, `!=`, `<`, `<=`, `>`, `>=`, `~=`, `===`) on a
///   version-like variable (`python_version`, `python_full_version`, `implementation_version`,
///   `platform_release`; the variable on the left decides when both sides are variables) uses
///   PEP 440 semantics when `OP b` parses as a version specifier and `a` as a version
///   (pre-releases admitted, so `python_version > "3.13a1"` works), else Python string comparison
///   (so a `platform_release` like `5.10.0-1057-oem` compares as a string). Every other variable,
///   `variant_label` included, compares as a plain string. `~=` is an error where there is no
///   version comparison.
/// - `a in b` / `a not in b` on strings is substring containment.
/// - `extra` compares after PEP 503 name normalization of both sides and is `""` when the
///   environment does not define it. Every other standard variable missing from
///   `Environment::variables` is an error.
/// - `variant_label` is a String. `variant_properties`, `variant_features` and
///   `variant_namespaces` are Sets of Strings: the only valid form is `"x" in <set>` /
///   `"x" not in <set>` (or a string variable in place of the literal), meaning set membership.
///   Any other use of a set-valued variable (`==`, `<`, ..., on the left of `in`) is rejected when
///   parsing. Whitespace around `::` in the string is ignored: `"a::b :: c"` is `"a :: b :: c"`.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "vwheel/core/error.hpp"
#include "vwheel/pep440/specifier.hpp"

namespace vwheel::markers {

// clang-format off
/// The target environment a marker is evaluated against.
struct Environment {
  std::map<std::string, std::string, std::less<>> variables;  // python_version, sys_platform, platform_machine, ... , extra
  std::string variant_label;                                // "" for a non-variant wheel
  std::set<std::string, std::less<>> variant_properties;    // canonical "ns :: feature :: value"
  std::set<std::string, std::less<>> variant_features;      // canonical "ns :: feature"
  std::set<std::string, std::less<>> variant_namespaces;
  /// PEP 751 `extras` / `dependency_groups`: the extras and dependency groups a lock file is
  /// installed with (canonical names); empty elsewhere.
  std::set<std::string, std::less<>> extras;
  std::set<std::string, std::less<>> dependency_groups;
};
// clang-format on

/// A marker variable.
enum class Variable : std::uint8_t {
  os_name,
  sys_platform,
  platform_machine,
  platform_python_implementation,
  platform_release,
  platform_system,
  platform_version,
  python_version,
  python_full_version,
  implementation_name,
  implementation_version,
  extra,
  variant_label,
  variant_properties,
  variant_features,
  variant_namespaces,
  extras,             ///< PEP 751 (lock files): a set
  dependency_groups,  ///< PEP 751 (lock files): a set
};

/// The variable's canonical name, e.g. `python_version`.
[[nodiscard]] std::string_view to_string(Variable variable) noexcept;
/// Looks a variable up by name. Besides the canonical names, the legacy spellings accepted by
/// packaging are recognized: `os.name`, `sys.platform`, `platform.version`, `platform.machine`,
/// `platform.python_implementation` and `python_implementation`.
[[nodiscard]] std::optional<Variable> variable_from_name(std::string_view name) noexcept;
/// True for `variant_properties`, `variant_features` and `variant_namespaces`.
[[nodiscard]] constexpr bool is_set_valued(Variable v) noexcept {
  return v == Variable::variant_properties || v == Variable::variant_features || v == Variable::variant_namespaces ||
         v == Variable::extras || v == Variable::dependency_groups;
}
/// True for the variables compared as PEP 440 versions when both sides are versions:
/// `python_version`, `python_full_version`, `implementation_version`, `platform_release`.
[[nodiscard]] constexpr bool is_version_like(Variable v) noexcept {
  return v == Variable::python_version || v == Variable::python_full_version || v == Variable::implementation_version ||
         v == Variable::platform_release;
}
/// True for the four PEP 825 variant markers.
[[nodiscard]] constexpr bool is_variant_variable(Variable v) noexcept {
  return v == Variable::variant_label || v == Variable::variant_properties || v == Variable::variant_features ||
         v == Variable::variant_namespaces;
}

/// Normalizes whitespace around `::` separators: each `::`-separated part is trimmed and the parts
/// are joined with `" :: "` (`"nvidia ::sm_arch"` → `"nvidia :: sm_arch"`). Text without `::` is
/// only trimmed.
[[nodiscard]] std::string normalize_variant_text(std::string_view text);

/// A parsed marker expression.
class Marker {
 public:
  /// Parses a marker (the part after `;` in a requirement). The error names the text, what was
  /// expected and the column (1-based).
  [[nodiscard]] static Result<Marker> parse(std::string_view text);

  /// Evaluates the marker against `env` (see the file comment for the semantics).
  [[nodiscard]] Result<bool> evaluate(const Environment& env) const;

  /// Normalized text: variables bare, strings in double quotes (single quotes when the string
  /// contains `"`), single spaces around operators, parentheses where they were written.
  /// Parsing the result gives an equal marker.
  [[nodiscard]] std::string to_string() const;

  /// The distinct variables the marker uses, in order of first use.
  [[nodiscard]] std::vector<Variable> variables() const;
  /// True when any of the four variant markers is used.
  [[nodiscard]] bool uses_variant_variables() const;

  friend bool operator==(const Marker& a, const Marker& b) { return a.to_string() == b.to_string(); }

 private:
  friend struct Requirement;
  friend class MarkerParser;

  Marker() = default;

  /// One side of a comparison: a variable or a string literal.
  struct Operand {
    std::optional<Variable> variable;
    std::string literal;
  };
  enum class Op : std::uint8_t {
    equal,
    not_equal,
    less,
    less_equal,
    greater,
    greater_equal,
    compatible,
    arbitrary,
    in,
    not_in
  };
  struct Comparison {
    Operand lhs;
    Op op = Op::equal;
    Operand rhs;
    std::optional<pep440::Specifier> spec;  ///< `op rhs` as a specifier (literal rhs, version-like key)
  };
  struct Node {
    enum class Kind : std::uint8_t { comparison, all, any };
    Kind kind = Kind::comparison;
    bool parenthesized = false;
    std::size_t comparison = 0;         ///< index into comparisons_ (Kind::comparison)
    std::vector<std::size_t> children;  ///< indices into nodes_ (Kind::all / Kind::any)
  };

  [[nodiscard]] Result<bool> evaluate_node(std::size_t node, const Environment& env) const;
  [[nodiscard]] Result<bool> evaluate_comparison(const Comparison& c, const Environment& env) const;
  void format_node(std::size_t node, bool top, std::string& out) const;

  std::vector<Comparison> comparisons_;
  std::vector<Node> nodes_;
  std::size_t root_ = 0;
};

}  // namespace vwheel::markers

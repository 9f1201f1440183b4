#pragma once
/// \file
/// The machine wheels are chosen for, as one value: its marker environment, wheel tags, variant
/// support (with where each namespace's answer comes from), the user's priorities, optional and
/// allowed providers, `abi_dependency` values, and the `--variant` / `--no-variants` choices.
///
/// Every command that chooses (rank, analyze-wheel, install, lock, sync, export) takes a
/// `Selection`, built once per run by `api::make_selection` from a target profile or this
/// machine's detection, the user configuration and the interpreter. Tag ranking and the
/// `Requires-Python` check live here, once. Pure: no I/O.

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "vwheel/core/error.hpp"
#include "vwheel/markers/marker.hpp"
#include "vwheel/variant/metadata.hpp"
#include "vwheel/variant/ordering.hpp"
#include "vwheel/wheel_name/wheel_name.hpp"

namespace vwheel::selection {

/// PEP 508 marker variables by name.
using MarkerVariables = std::map<std::string, std::string, std::less<>>;

/// Everything about choosing wheels for one machine.
struct Selection {
  /// One line for messages: "target profile FILE" / "this machine (detected)".
  std::string description;
  /// The machine is described by target profiles: nothing was detected, or (profiles with
  /// `"detect": true`) only variant namespaces were and the profiles give the marker environment.
  bool from_profile = false;

  /// PEP 508 marker variables (profile over interpreter; the uname variables when detected
  /// without an interpreter). May lack variables; empty when nothing is known.
  MarkerVariables environment;
  /// Where the Python version of `environment` comes from, for messages: "target profile FILE"
  /// or "interpreter PATH" (empty when there is none).
  std::string environment_source;

  /// Supported wheel tags, most preferred first (empty when unknown). Set with `set_tags`.
  [[nodiscard]] const std::vector<std::string>& tags() const noexcept { return tags_; }
  /// Replaces the tag list (and the index `tag_rank` uses).
  void set_tags(std::vector<std::string> tags);

  /// Answers "what does the machine support in namespace NS": a table for profiles, detection
  /// (and the opt-in Python providers) otherwise.
  std::shared_ptr<const variant::SupportOracle> oracle;
  /// What is known to be supported before ranking (profile or native detection), per namespace.
  variant::SupportedProperties supported;
  /// Where each namespace of `supported` comes from ("target profile FILE", "detected: NVML", ...).
  std::map<std::string, std::string, std::less<>> property_sources;
  /// The user configuration's priority overrides.
  variant::UserPriorities priorities;
  /// The configuration file they come from (empty when none).
  std::string config_source;

  /// Optional providers turned on (`--enable-optional-providers`, `--enable-optional-provider`).
  bool enable_all_optional = false;
  std::set<std::string, std::less<>> enabled_optional;
  /// Installed distributions `(name, version)` for the `abi_dependency` namespace: the
  /// environment's (or the profile's), overridden by `VARIANT_ABI_DEPENDENCY` and `--abi-dependency`.
  std::vector<std::pair<std::string, std::string>> abi_dependencies;

  /// Only non-variant wheels (`--no-variants`).
  bool no_variants = false;
  /// Canonical project name -> label (`--variant NAME=LABEL`).
  std::map<std::string, std::string, std::less<>> variant_choices;

  /// Detection notes, one line each.
  std::vector<std::string> notes;
  /// What `oracle` refers to (the detection report), kept alive with the selection.
  std::shared_ptr<const void> keepalive;

  /// The best (lowest) position of the wheel's tags in `tags()`, or nullopt when none is supported.
  [[nodiscard]] std::optional<std::size_t> tag_rank(const wheel_name::WheelName& wheel) const;

  /// The Python version `Requires-Python` is checked against: `python_full_version`, else
  /// `python_version` of `environment`; nullopt when there is none.
  [[nodiscard]] std::optional<std::string> python_version() const;

  /// Checks a `Requires-Python` value (`what` names the file) against `python_version()`.
  /// An empty value, or no known Python version, passes. An unparsable value never admits the
  /// file (the error says why), wherever the file comes from.
  [[nodiscard]] Result<void> check_requires_python(std::string_view requires_python, std::string_view what) const;

  /// `environment` as a marker environment (no variant markers).
  [[nodiscard]] markers::Environment marker_environment() const;

  /// The ranking options of this selection; `environment` (nullable) evaluates `enable-if`.
  [[nodiscard]] variant::SelectionOptions ranking_options(const markers::Environment* environment) const;

  /// Ranks `metadata` for this machine (PEP 825 order, user priorities, optional providers,
  /// `abi_dependency`).
  [[nodiscard]] Result<variant::Ranking> rank(const variant::VariantMetadata& metadata,
                                              const markers::Environment* environment) const;

  /// The `--variant` choice for a canonical project name, if any.
  [[nodiscard]] const std::string* forced_label(std::string_view project) const;

 private:
  std::vector<std::string> tags_;
  std::map<std::string, std::size_t, std::less<>> tag_index_;
};

/// The supported properties a ranking used (Python providers answer during ranking), as a table.
[[nodiscard]] variant::SupportedProperties supported_of(const variant::Ranking& ranking);

/// A variant's marker environment: `base` plus `variant_label` and the label's properties that
/// `supported` lists (PEP 825 variant markers).
[[nodiscard]] markers::Environment variant_environment(const markers::Environment& base, const std::string& label,
                                                       const variant::PropertySet& properties,
                                                       const variant::SupportedProperties& supported);

}  // namespace vwheel::selection

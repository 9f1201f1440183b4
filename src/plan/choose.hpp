#pragma once
// Private to the plan component: choosing the wheel of one project version for a target.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "vwheel/finder/finder.hpp"
#include "vwheel/plan/plan.hpp"

namespace vwheel::plan::detail {

// Reads the combined variant metadata of one source's variant wheels of a version: from the
// `*-variants.json` file when the source has one (`variants_json`), else from the wheels. Labels
// the file lacks may be read from their wheels; `notes` gets one line each (for --explain).
using MetadataLoader = std::function<Result<variant::VariantMetadata>(
    const finder::File* variants_json, const std::vector<const finder::File*>& variant_wheels,
    std::vector<std::string>& notes)>;

// The loader of the finder's files. PEP 825 lets clients read `variant.json` from wheels whose
// labels the index-level file lacks: such a label is read from its wheel (a local file directly;
// a remote one with HTTP range requests on its zip directory, the whole wheel only where the
// server refuses ranges) and merged in, with a note. A wheel whose own metadata cannot be read or
// disagrees with the file is left out with a note, never failing the labels the file describes.
[[nodiscard]] MetadataLoader finder_loader(finder::Finder& finder);

struct ChooseRequest {
  std::string name;     // canonical
  std::string version;  // as in the file names
  std::vector<const finder::File*> files;  // every file of the version (wheels and variants.json), all sources
  std::size_t source_count = 1;
  bool no_variants = false;
  std::optional<std::string> forced_label;
  bool allow_yanked = false;  // the version is pinned with `==`
};

struct Choice {
  const finder::File* wheel = nullptr;
  std::optional<std::string> label;
  variant::PropertySet properties;
  std::string why;
  std::vector<OtherVariant> others;
  markers::Environment environment;  // the target's variables plus the wheel's variant markers
  std::optional<variant::VariantMetadata> metadata;
  bool uses_abi_dependency = false;  // some variant of the version has `abi_dependency` properties
  std::vector<std::string> explain;
};

// nullopt (with `reason` set) when no wheel of the version fits the target; an error for broken
// variant metadata or a `--variant` label that is unknown or incompatible.
[[nodiscard]] Result<std::optional<Choice>> choose(const ChooseRequest& request, const selection::Selection& target,
                                                   const MetadataLoader& load, std::string& reason);

// Whether the file's Requires-Python admits the target's Python (the selection's one check: an
// unparsable value never admits it).
[[nodiscard]] bool python_fits(const finder::File& file, const selection::Selection& target);

// Why none of a version's files can be installed on `target`, as one phrase for an error that
// names the version before it (`x 2.0: ...`); empty when some wheel passes these checks (then the
// variant choice says why, or nothing is wrong). `files` are every file of the version: wheels,
// sdists (Finder::sdists) and `*-variants.json` (ignored). The checks go in pip's order, and the
// first that rules out every file is the reason:
// - yanked, unless `allow_yanked` (pinned with `==`/`===`): `yanked (REASON); ...`;
// - Requires-Python: `Requires-Python >=3.12 excludes Python 3.11.2 (the target's)`;
// - no wheel: `only a source distribution (vwheel installs wheels from indexes)`;
// - tags (when `check_tags`; a universal lock has no tags): the wheels' tag triples, then the
//   target's best tag.
[[nodiscard]] std::string why_unusable(const std::vector<const finder::File*>& files,
                                       const selection::Selection& target, bool allow_yanked, bool check_tags);

// `ns :: feature :: value` strings.
[[nodiscard]] std::vector<std::string> property_strings(const variant::PropertySet& properties);

// The universal environment of one label: every property of it counts as supported.
[[nodiscard]] markers::Environment label_environment(const markers::Environment& base, const std::string& label,
                                                     const variant::PropertySet& properties);

}  // namespace vwheel::plan::detail

namespace vwheel::plan::detail {

// `NAME VERSION [LABEL] requires REQ, TAIL` (the label only for a variant wheel; REQ without its
// marker).
[[nodiscard]] std::string unmet_requirement(std::string_view name, std::string_view version,
                                            const std::optional<std::string>& label, const markers::Requirement& r,
                                            std::string_view tail);

// Checks that every requirement of every planned wheel, evaluated with its chosen variant, the
// target's environment and the extras asked of it, is met by a planned package (a version inside
// the specifier; extras asked of the dependency are among its planned extras). The error is one
// `unmet_requirement` line ending with `tail`.
[[nodiscard]] Result<void> check_complete(const Plan& plan, std::string_view tail);

}  // namespace vwheel::plan::detail

#pragma once
/// \file
/// `pylock.toml` (PEP 751, lock-version 1.x) with PEP 825's `[packages.variants-json]`.
///
/// Pure functions: text in, model out, and back; no file I/O.
///
/// What is modelled (everything else is ignored when reading and not written):
///
/// * top level: `lock-version`, `created-by`, `requires-python`, `environments`, `extras`,
///   `dependency-groups`, `default-groups`, `[[packages]]`, and `[tool.vwheel]` (`requirements`:
///   the root requirements the lock was made for). Other tools' `[tool.*]` tables are ignored.
/// * `[[packages]]`: `name`, `version`, `marker`, `requires-python`, `index`, `dependencies` (the
///   string-valued keys of each entry), `wheels`, `sdist`, `[packages.variants-json]` and
///   `[packages.tool.vwheel]` (`requires-dist`, `extras`), and PEP 751's other sources:
///   `directory` (`path`, `editable`, `subdirectory`), `archive` (`url`, `path`, `upload-time`,
///   `size`, `hashes`, `subdirectory`) and `vcs` (`type`, `url`, `path`, `requested-revision`,
///   `commit-id`, `subdirectory`). `attestation-identities` is not read.
/// * wheels and sdist: `name`, `url`, `path`, `upload-time`, `size`, `hashes`.
///
/// `[packages.variants-json]` is the index-level `{name}-{version}-variants.json` document with
/// its JSON types turned into TOML types (PEP 825 "Integration with pylock.toml"); it is read and
/// validated by the `metadata` component's reader (`vwheel/metadata/document.hpp`) and written
/// by its serializers (`vwheel/metadata/serialize.hpp`), so `$schema` is kept.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vwheel/core/error.hpp"
#include "vwheel/variant/metadata.hpp"

namespace vwheel::lock {

/// One file of a package: an element of `packages.wheels`, or `packages.sdist`.
struct LockedFile {
  /// The file name, e.g. `numpy-2.3.4-cp314-cp314-linux_x86_64-openblas.whl`. When the lock
  /// omits `name` (PEP 751 allows it) it is the last path segment of `url` or `path`.
  std::string name;
  std::optional<std::string> url;   ///< where to download it
  std::optional<std::string> path;  ///< a local path (relative to the lock file's directory, or absolute)
  /// `upload-time` as RFC 3339 text (`2025-03-12T10:00:00Z`); written as a TOML offset date-time.
  std::optional<std::string> upload_time;
  std::optional<std::uint64_t> size;  ///< size in bytes
  /// Algorithm (lowercase, e.g. `sha256`) -> lowercase hex digest. PEP 751 wants at least one;
  /// an empty table is read (PEP 825's own example writes `hashes = {}`), a missing one is not.
  std::map<std::string, std::string> hashes;

  bool operator==(const LockedFile&) const = default;
};

using LockedWheel = LockedFile;
using LockedSdist = LockedFile;

/// An entry of `packages.dependencies`: `name` and `version` identify the other package entry;
/// vwheel writes `marker` for the condition under which the package needs it: the markers of the
/// Requires-Dist lines that led to it, variant markers included (PEP 825 evaluates them against
/// the wheel selected for this package). Where a lock holds several versions of a project, these
/// edges say which one each package needs; `vwheel sync` follows them.
using LockedDependency = std::map<std::string, std::string>;

/// `packages.directory`: a source tree on local disk (a locked project itself, or a local one).
struct LockedDirectory {
  std::string path;              ///< relative to the lock file's directory (POSIX separators), or absolute
  std::optional<bool> editable;  ///< written only when set
  /// Where the project (its pyproject.toml) is within the tree, relative to its root.
  std::optional<std::string> subdirectory;

  bool operator==(const LockedDirectory&) const = default;
};

/// `packages.archive`: a wheel, an sdist or another archive of a source tree, by URL or path.
struct LockedArchive {
  std::optional<std::string> url;
  std::optional<std::string> path;         ///< relative to the lock file's directory, or absolute
  std::optional<std::string> upload_time;  ///< as in LockedFile
  std::optional<std::uint64_t> size;
  std::map<std::string, std::string> hashes;  ///< required (PEP 751), as in LockedFile
  std::optional<std::string> subdirectory;    ///< the project's place within the source tree

  bool operator==(const LockedArchive&) const = default;
};

/// `packages.vcs`: a commit of a version-controlled source tree.
struct LockedVcs {
  std::string type;  ///< PEP 610's VCS name: `git`, `hg`, `bzr`, `svn`
  std::optional<std::string> url;
  std::optional<std::string> path;  ///< a local repository, relative to the lock file's directory
  /// What the user asked for (a branch, a tag): informational, never checked out (PEP 751).
  std::optional<std::string> requested_revision;
  std::string commit_id;  ///< the exact commit to install
  std::optional<std::string> subdirectory;

  bool operator==(const LockedVcs&) const = default;
};

/// One `[[packages]]` entry.
struct LockedPackage {
  std::string name;  ///< as written (PEP 751 wants it normalized; not enforced)
  /// As written; empty when the entry has none, which PEP 751 allows (and wants, where the version
  /// may not match the code) for a source tree: vwheel reads an entry without `version` only when it
  /// has a `directory` or a `vcs` (source trees), and writes none when it is empty.
  std::string version;
  std::optional<std::string> marker;           ///< PEP 508 marker; never a variant marker (PEP 825)
  std::optional<std::string> requires_python;  ///< a PEP 440 specifier set
  std::optional<std::string> index;            ///< the index's base URL
  std::vector<LockedDependency> dependencies;
  std::vector<LockedWheel> wheels;  ///< written sorted by file name
  std::optional<LockedSdist> sdist;
  /// `[packages.variants-json]`: combined variant metadata for the variant wheels listed.
  std::optional<variant::VariantMetadata> variants_json;
  /// `[packages.tool.vwheel] requires-dist`: the package's Requires-Dist lines as written. Variant
  /// markers in them are evaluated at sync time against the wheel selected for this entry.
  std::vector<std::string> requires_dist;
  /// `[packages.tool.vwheel.wheel-requires-dist]`: file name -> Requires-Dist, for wheels whose core
  /// metadata differs from `requires_dist` (e.g. the non-variant wheel of a version whose variant
  /// wheels use variant markers).
  std::map<std::string, std::vector<std::string>> wheel_requires_dist;
  /// `[packages.tool.vwheel] extras`: the extras requested of this package.
  std::vector<std::string> extras;
  /// PEP 751's sources other than files: each excludes the others, `wheels` and `sdist`.
  std::optional<LockedDirectory> directory;
  std::optional<LockedArchive> archive;
  std::optional<LockedVcs> vcs;

  bool operator==(const LockedPackage&) const = default;
};

/// A whole `pylock.toml`.
struct Lock {
  std::string lock_version = "1.0";
  std::string created_by = "vwheel";
  std::optional<std::string> requires_python;
  std::vector<std::string> environments;       ///< PEP 508 markers; never variant markers (PEP 825)
  std::vector<std::string> extras;             ///< `extras`: the extras the lock supports
  std::vector<std::string> dependency_groups;  ///< `dependency-groups`
  std::vector<std::string> default_groups;     ///< `default-groups`
  /// `[tool.vwheel] requirements`: the root requirements the lock was made for.
  std::vector<std::string> requirements;
  /// `[tool.vwheel] project-inputs`: for a project's lock, `sha256:<hex>` of what it was made from
  /// (`metadata::project_inputs_digest`), so that `vwheel sync --locked` can tell whether the
  /// project's pyproject.toml changed since.
  std::optional<std::string> project_inputs;
  /// The packages; `write_pylock` sorts them by normalized name, then version, then marker.
  std::vector<LockedPackage> packages;

  bool operator==(const Lock&) const = default;
};

/// Deterministic TOML text: top-level keys, then `[[packages]]` sorted by normalized name (then
/// version, then marker; the sort is stable), each with its scalar keys, `dependencies`, `sdist`
/// and `wheels` as inline tables (wheels sorted by file name, one per line, as in PEP 825's
/// example), `directory`, `archive` and `vcs` as inline tables, `[packages.variants-json]` as subtables (PEP 825 v0.1.1
/// layout via `metadata::to_json_pep825`, or the draft layout via `to_json_draft003` for draft-format metadata; a
/// non-draft `$schema` URL from the input is kept), `[packages.tool.vwheel]`, and finally `[tool.vwheel]`. Every string
/// is a TOML basic string with escapes for `"`, `\`, control characters and DEL; UTF-8 text is kept (invalid UTF-8
/// bytes become U+FFFD). Empty optional lists are omitted, except the top-level `extras` and `dependency-groups`
/// (always written); an `upload_time` that is not a TOML date-time is left out. Writes whatever the model holds
/// otherwise (no validation): a lock that `parse_pylock` accepted gives the same text back after write → parse → write.
[[nodiscard]] std::string write_pylock(const Lock& lock);

/// Parses and validates a `pylock.toml`. Errors are one line naming `source`, the package (and
/// wheel) and the field:
///
/// * TOML syntax (with line and column), a wrong type for a modelled key, a line with more than
///   256 dotted key parts outside strings (toml++ would overflow the stack on such nesting);
/// * `lock-version` missing, not `major.minor`, or with a major other than 1
///   ("unsupported lock-version `2.0`: vwheel reads 1.x");
/// * a package without `name`, or without `version` and without `directory` or `vcs` (a source
///   tree); an invalid project name or PEP 440 version; a `directory` without a string `path`, or
///   whose `editable` is not a boolean; a `vcs` without `type` or `commit-id`; an entry with two
///   sources PEP 751 makes exclusive (`vcs`, `directory`, `archive`: each alone; `sdist` and
///   `wheels` may go together);
/// * a wheel, sdist, archive or vcs without `url` and `path`; a wheel, sdist or archive without
///   `hashes`; a hash that is not hex, or not of the right length for
///   `sha256`/`sha384`/`sha512`/`sha1`/`md5`;
/// * a wheel file name that does not parse, or whose name/version do not match the package's
///   (compared normalized), or listed twice;
/// * a variant wheel (label in the file name) whose package has no `variants-json`, or whose
///   label is not among its `variants` ("unknown variant label `x`");
/// * `variants-json` that the metadata reader rejects (bad names, `null` with properties, an
///   unknown `$schema` major, ...) or whose variants use a namespace not listed in
///   `default-priorities.namespace`;
/// * a variant marker in `packages.marker` or `environments`, a marker that does not parse.
///
/// Unknown keys (other tools' `tool` tables, future PEP 751 keys) are ignored, never an error.
[[nodiscard]] Result<Lock> parse_pylock(std::string_view text, const std::string& source);

/// PEP 825: keeps the `variants` entries whose labels are in `used_labels` (each in full) and
/// drops the others, then drops the namespaces no kept variant uses from
/// `default-priorities.namespace`, and their `default-priorities.feature`/`property`,
/// `providers` and `static-properties` entries. When no kept variant uses any namespace (only
/// `null`, or nothing, is left), the first namespace of the list stays: the schema wants at least
/// one. Labels in `used_labels` that the metadata does not have are ignored. Everything else is
/// kept.
[[nodiscard]] variant::VariantMetadata prune_variants_json(const variant::VariantMetadata& metadata,
                                                           const std::vector<std::string>& used_labels);

/// The variant labels of the wheels in `package.wheels` (file names that do not parse count as
/// non-variant), sorted and unique: the `used_labels` for `prune_variants_json`.
[[nodiscard]] std::vector<std::string> used_variant_labels(const LockedPackage& package);

}  // namespace vwheel::lock

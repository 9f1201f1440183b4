#pragma once
/// \file
/// Reading and validating the three documents that carry variant metadata:
///
/// * a wheel's `*.dist-info/variant.json` (exactly one variant),
/// * the index-level `{name}-{version}-variants.json`,
/// * the `[variant]` table of `pyproject.toml` (PEP 817; no `variants`).
///
/// Pure functions: text in, model out; no file I/O.
///
/// Reading is lenient where PEP 825/817 allow it and strict where the data would be ambiguous:
///
/// * Formats: the drafts v0.0.2 and v0.0.3 (PEP 817 data model: `providers`, `static-properties`,
///   `default-priorities.feature/property`; v0.0.2's `plugin-use` is understood and upgraded as
///   the index aggregator does: `build`/`none` mean `install-time = false`, and such a provider's
///   `default-priorities.property` entry doubles as its `static-properties`), PEP 825 v0.1.x, and
///   the Providers draft v0.2.x (PEP 850; `$schema` `.../peps/{850,826,9999}/v0.2.0.json`).
///   The version comes from the `$schema` URL's last segment, `v{major}.{minor}.{patch}.json`:
///   0.0.2, 0.0.3 and every version from 0.1.0 on within major 0 are accepted (PEP 825: consumers
///   SHOULD accept a newer minor of a supported major; a minor above 0.2 is read as 0.2.0, its
///   nearest known minor, and reported); any other version is a hard error (PEP 825: tools MUST reject unknown major
///   versions; the 0.0.x drafts other than 0.0.2/0.0.3 are unknown). A missing `$schema`
///   is read as draft v0.0.3 and an unversioned `https://variants-schema.wheelnext.dev/...` URL
///   (published by PyTorch) as draft v0.0.2, each reported as a conformance problem; any other
///   URL without a version, or a `$schema` that is not a string, is a hard error.
/// * Hard errors (the `Result` fails; one line per problem, naming the key path and value):
///   JSON/TOML syntax, wrong types, names/values/labels not matching their patterns
///   (namespace and feature `[a-z0-9_]+`, value `[a-z0-9_.]+`, label `[0-9a-z_.]+` of any length),
///   a value listed twice for one feature, the label `null` on a variant with properties, a missing
///   `variants` key (JSON), variant.json with other than one variant or with a label other than the
///   expected one, and the provider rules of PEP 817 that make provider data contradictory: an
///   install-time provider without `requires`; `static-properties` not matching the ahead-of-time
///   providers (JSON: every `install-time = false` provider; pyproject.toml: those without
///   `requires`); an ahead-of-time provider with several static features not all ordered in
///   `default-priorities.feature`; `plugin-use` contradicting `install-time`.
/// * Conformance problems (the document is used; each is one line naming the key): missing
///   `$schema` or `default-priorities.namespace`, an empty namespace list or one listing a
///   namespace twice, a namespace used by a variant but not listed, a non-`null` label on a
///   variant without properties (e.g. the hash-era `00000000`), feature values not sorted or an
///   empty value list, unknown keys (ignored, as PEP 817 requires), draft-only keys in a PEP 825
///   file, and, for draft files and pyproject.toml, `default-priorities.namespace` not listing
///   exactly the `providers` keys and labels longer than 16 characters.
///
/// * v0.2.x (Providers draft): `providers` maps every namespace of `default-priorities.namespace`
///   (and no other) to exactly one of `requires` (one or more requirement strings; `plugin-api`
///   optional, inferred from the first requirement's normalized name) or `static-properties`
///   (`{feature: [values]}`, features in priority order as written, values in preference order);
///   `optional` may accompany either. Hard errors: both or neither of `requires` and
///   `static-properties`, an empty `requires`, `plugin-api` beside `static-properties`,
///   `enable-if`/`install-time` (removed by the draft). Conformance errors (MUSTs of v0.2.0, the
///   document is still used): the namespace list and the `providers` keys differing, a missing
///   `providers`, the reserved `abi_dependency` namespace in either (it needs no provider and is
///   dropped from `providers`), a first requirement whose plugin-api cannot be inferred or differs
///   between marker-filtered alternatives. PEP 817 keys (`default-priorities.feature/property`,
///   top-level `static-properties`) are warnings; `static-properties` at the top level is ignored.
///   Labels longer than 16 characters are warnings, as in the drafts (the draft schema caps them).
///
/// Where variantlib 0.0.3 (the conformance vectors) is stricter than PEP 825 (17+ character
/// labels, files without `providers`, unknown sub-keys, non-null empty labels), PEP 825 wins.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vwheel/core/error.hpp"
#include "vwheel/variant/metadata.hpp"

namespace vwheel::metadata {

/// Which document a text is.
enum class DocumentKind {
  VariantJson,   ///< a wheel's `*.dist-info/variant.json`: exactly one variant
  VariantsJson,  ///< the index-level `{name}-{version}-variants.json`
  Pyproject,     ///< the `[variant]` table of `pyproject.toml` (as JSON: the table's content)
};

/// A document that could be used, and what in it does not conform to PEP 825/817.
struct ParsedDocument {
  variant::VariantMetadata metadata;
  std::vector<std::string> conformance_problems;  ///< one line each, naming the key; empty = conforming
};

/// How bad a finding of `vwheel validate` is.
///
/// * Error: breaks a MUST of the format version the document declares (a draft v0.0.x file is
///   judged by its draft, a v0.1.x file by PEP 825), or makes the document unusable.
/// * Warning: advice, or a rule that only a newer format version has (e.g. PEP 825's sorted
///   values or `null` label in a v0.0.x file, which the drafts never required).
enum class Severity { Error, Warning };

/// `"error"` or `"warning"`.
[[nodiscard]] std::string_view severity_name(Severity severity) noexcept;

/// One finding about a document, with where it is and which rule it breaks.
struct Finding {
  Severity severity = Severity::Error;
  std::string rule;      ///< a stable id, e.g. `values-unsorted`, `unknown-key`, `invalid`
  std::string pointer;   ///< RFC 6901 JSON pointer into the document (pyproject.toml: into its TOML as JSON)
  std::string location;  ///< the same place as a dotted key path, for people (`variants.l.ns.f`)
  std::string message;   ///< what is wrong, without the location
};

/// Everything wrong with a document: `errors` prevent its use, `conformance_problems` do not.
/// `findings` holds the same problems (errors first) with severities, rule ids and JSON pointers.
struct ValidationReport {
  std::vector<std::string> errors;
  std::vector<std::string> conformance_problems;
  std::vector<Finding> findings;

  /// True when there are no hard errors (conformance problems allowed).
  [[nodiscard]] bool usable() const noexcept { return errors.empty(); }
  /// True when there is nothing to report at all.
  [[nodiscard]] bool clean() const noexcept { return errors.empty() && conformance_problems.empty(); }
};

/// The schema URL variantlib writes (draft v0.0.3).
inline constexpr std::string_view kSchemaUrlDraft003 = "https://variants-schema.wheelnext.dev/v0.0.3.json";
/// The schema URL of PEP 825's format, v0.1.1.
inline constexpr std::string_view kSchemaUrlPep825 = "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json";
/// The schema URL of the Providers draft's format, v0.2.0 (PEP 850; the same draft was published
/// under `peps/826/` and `peps/9999/`, read alike).
inline constexpr std::string_view kSchemaUrlProviders = "https://variants-schema.wheelnext.dev/peps/850/v0.2.0.json";

/// The version in a schema URL whose last path segment is `v{major}.{minor}.{patch}.json`;
/// nullopt when there is none.
[[nodiscard]] std::optional<variant::SchemaVersion> parse_schema_version(std::string_view url);

/// Whether this library reads metadata of that version: 0.0.2, 0.0.3, and 0.1.0 or newer within
/// major version 0 (0.1.x read as PEP 825's format, 0.2.0 and newer minors as the Providers draft's).
[[nodiscard]] bool is_supported_schema(const variant::SchemaVersion& version) noexcept;

/// True for the draft formats (PEP 817 data model), i.e. versions below 0.1.0.
[[nodiscard]] bool is_draft_schema(const variant::SchemaVersion& version) noexcept;

/// Reads a JSON document of the given kind. `expected_label` (VariantJson only; ignored
/// otherwise) is the label from the wheel's file name, which the single variant must carry.
/// On failure the error's `message` is the first hard error and `details` the others.
[[nodiscard]] Result<ParsedDocument> parse_json_document(std::string_view text, DocumentKind kind,
                                                         std::optional<std::string_view> expected_label = {});

/// Every problem of a JSON document, hard errors and conformance problems separately.
[[nodiscard]] ValidationReport check_json_document(std::string_view text, DocumentKind kind,
                                                   std::optional<std::string_view> expected_label = {});

/// For `vwheel validate`: every problem, one line each (hard errors first, then conformance
/// problems); empty when the document is valid.
[[nodiscard]] std::vector<std::string> validate_json_document(std::string_view text, DocumentKind kind,
                                                              std::optional<std::string_view> expected_label = {});

/// Reads the `[variant]` table of a `pyproject.toml` text. No `[variant]` table: empty metadata
/// (valid). Key paths in messages start with `variant.`. The result's `variants` is always empty
/// (a `variants` table there is ignored and reported); `schema` is draft v0.0.3, `schema_url` empty.
[[nodiscard]] Result<ParsedDocument> parse_pyproject(std::string_view toml_text);

/// Every problem of a `pyproject.toml`'s `[variant]` table.
[[nodiscard]] ValidationReport check_pyproject(std::string_view toml_text);

/// For `vwheel validate`: every problem of a `pyproject.toml`'s `[variant]` table, one line each.
[[nodiscard]] std::vector<std::string> validate_pyproject(std::string_view toml_text);

/// PEP 825 rules a model must meet before it is written as a document of `kind` (see
/// `to_json_pep825`): a non-empty namespace list without repeats that lists every namespace the
/// variants use, `null` exactly for the variant without properties, and for VariantJson exactly one
/// variant. For Pyproject only the namespace list is checked. One line per problem; empty = fine.
[[nodiscard]] std::vector<std::string> conformance_problems(const variant::VariantMetadata& metadata,
                                                            DocumentKind kind);

/// The rules a model must meet before it is written in the Providers draft's format v0.2.0 (see
/// `to_json_v020`): PEP 825's rules above, except that `abi_dependency` is neither required nor
/// allowed in the namespace list (it is dropped on writing), plus a provider for every listed
/// namespace that v0.2.0 can express: an install-time one with non-empty `requires`, or an
/// ahead-of-time one with its static properties (its `requires` is then dropped); no `enable-if`.
[[nodiscard]] std::vector<std::string> conformance_problems_v020(const variant::VariantMetadata& metadata,
                                                                 DocumentKind kind);

}  // namespace vwheel::metadata

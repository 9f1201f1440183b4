// Reading a version's variant metadata from a Finder: the index-level `*-variants.json` (labels
// it lacks read from their wheels), else every wheel's `variant.json`.

#include <set>

#include <fmt/format.h>

#include "choose.hpp"
#include "vwheel/metadata/document.hpp"
#include "vwheel/metadata/merge.hpp"

namespace vwheel::plan::detail {
namespace {

/// A wheel's own `variant.json`, for its label (nullopt with a note in `why` when the wheel has
/// none or it does not parse).
Result<std::optional<variant::VariantMetadata>> wheel_variant_json(finder::Finder& finder, const finder::File& w,
                                                                  std::string& why) {
  auto text = finder.dist_info_member(w, "variant.json");
  if (!text) return fail(text.error());
  if (!*text) {
    why = fmt::format("{} has no variant.json", w.filename);
    return std::optional<variant::VariantMetadata>{};
  }
  auto doc = metadata::parse_json_document(**text, metadata::DocumentKind::VariantJson, *w.wheel->label);
  if (!doc) {
    why = fmt::format("{}: variant.json: {}", w.filename, doc.error().message);
    return std::optional<variant::VariantMetadata>{};
  }
  return std::optional<variant::VariantMetadata>{std::move(doc->metadata)};
}

}  // namespace

// One source's variant wheels of a version; see choose.hpp.
MetadataLoader finder_loader(finder::Finder& finder) {
  return [&finder](const finder::File* variants_json, const std::vector<const finder::File*>& wheels,
                   std::vector<std::string>& notes) -> Result<variant::VariantMetadata> {
    if (variants_json) {
      auto text = finder.text(*variants_json);
      if (!text) return fail(text.error());
      auto doc = metadata::parse_json_document(*text, metadata::DocumentKind::VariantsJson);
      if (!doc) return fail(doc.error().with_context(variants_json->location()));
      auto md = std::move(doc->metadata);
      std::set<std::string> seen;
      for (const auto* w : wheels) {
        const auto& label = *w->wheel->label;
        if (md.variants.contains(label) || !seen.insert(label).second) continue;
        std::string why;
        auto own = wheel_variant_json(finder, *w, why);
        if (!own) why = own.error().message;
        if (own && *own) {
          const variant::VariantMetadata both[] = {md, **own};
          auto merged = metadata::merge_all(both);
          if (merged) {
            md = std::move(*merged);
            notes.push_back(fmt::format("label {}: properties read from the wheel's variant.json, not in {}", label,
                                        variants_json->filename));
            continue;
          }
          why = fmt::format("{}: its variant.json disagrees with {}: {}", w->filename, variants_json->filename,
                            merged.error().message);
        }
        notes.push_back(fmt::format("label {}: not in {}, and not read from the wheel: {}", label,
                                    variants_json->filename, why));
      }
      return md;
    }
    // No index-level file: one wheel per label (PEP 825, step 5).
    std::vector<variant::VariantMetadata> parts;
    std::set<std::string> seen;
    for (const auto* w : wheels) {
      if (!seen.insert(*w->wheel->label).second) continue;
      auto text = finder.dist_info_member(*w, "variant.json");
      if (!text) return fail(text.error());
      if (!*text) return fail(fmt::format("{}: a variant wheel without `variant.json`", w->filename));
      auto doc = metadata::parse_json_document(**text, metadata::DocumentKind::VariantJson, *w->wheel->label);
      if (!doc) return fail(doc.error().with_context(w->filename));
      parts.push_back(std::move(doc->metadata));
    }
    auto merged = metadata::merge_all(parts);
    if (!merged) return fail(merged.error().with_context("variant.json of the wheels"));
    return merged;
  };
}

}  // namespace vwheel::plan::detail

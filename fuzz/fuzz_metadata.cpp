// libFuzzer target for the metadata component: the bytes are read as each JSON document kind and
// as pyproject.toml. Whatever parses must (1) agree with check_*(), (2) serialize and read back to
// the same content (draft v0.0.3 and PEP 825 writers), and (3) merge with itself unchanged.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "vwheel/metadata/document.hpp"
#include "vwheel/metadata/merge.hpp"
#include "vwheel/metadata/serialize.hpp"

namespace {

using vwheel::metadata::DocumentKind;
using vwheel::variant::VariantMetadata;

[[noreturn]] void die(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_metadata: %s\n%s\n", what, detail.c_str());
  std::abort();
}

bool same_content(const VariantMetadata& a, const VariantMetadata& b) {
  return a.namespace_priorities == b.namespace_priorities && a.feature_priorities == b.feature_priorities &&
         a.property_priorities == b.property_priorities && a.providers == b.providers &&
         a.static_properties == b.static_properties && a.variants == b.variants;
}

void round_trip(const VariantMetadata& md, DocumentKind kind) {
  const std::string draft = vwheel::metadata::to_json_draft003(md);
  auto again = vwheel::metadata::parse_json_document(draft, kind);
  if (!again) die("draft v0.0.3 output does not read back", again.error().message + "\n" + draft);
  if (!same_content(md, again->metadata)) die("draft v0.0.3 round trip changed the content", draft);
  if (vwheel::metadata::to_json_draft003(again->metadata) != draft) die("draft v0.0.3 output is not stable", draft);

  if (kind != DocumentKind::Pyproject) {
    const std::string pep825 = vwheel::metadata::to_json_pep825(md);
    auto back = vwheel::metadata::parse_json_document(pep825, kind);
    if (!back) die("PEP 825 output does not read back", back.error().message + "\n" + pep825);
    if (back->metadata.variants != md.variants || back->metadata.namespace_priorities != md.namespace_priorities) {
      die("PEP 825 round trip changed the content", pep825);
    }
  }

  VariantMetadata acc = md;
  if (auto r = vwheel::metadata::merge_into(acc, md); !r)
    die("merging a document with itself failed", r.error().message);
  if (!(acc == md)) die("merging a document with itself changed it", draft);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const auto kind : {DocumentKind::VariantJson, DocumentKind::VariantsJson, DocumentKind::Pyproject}) {
    auto parsed = vwheel::metadata::parse_json_document(text, kind);
    const auto report = vwheel::metadata::check_json_document(text, kind);
    if (parsed.has_value() != report.usable()) die("parse and check disagree", std::string(text));
    if (parsed) round_trip(parsed->metadata, kind);
  }
  auto pyproject = vwheel::metadata::parse_pyproject(text);
  if (pyproject.has_value() != vwheel::metadata::check_pyproject(text).usable()) {
    die("parse_pyproject and check_pyproject disagree", std::string(text));
  }
  if (pyproject) round_trip(pyproject->metadata, DocumentKind::Pyproject);
  return 0;
}

#include "verify.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "choose.hpp"
#include "vwheel/core/text.hpp"
#include "vwheel/pep440/version.hpp"
#include "vwheel/wheel/wheel.hpp"
#include "vwheel/wheel_name/names.hpp"
#include "vwheel/zip/zip.hpp"

namespace vwheel::plan::detail {
namespace {

std::string listed(const std::vector<std::string>& values) {
  return values.empty() ? std::string("none") : fmt::format("{}", fmt::join(values, ", "));
}

Result<void> verify_variant(const Selected& s, const wheel::Wheel& w) {
  if (!s.label) return {};
  const std::string index_file = s.variants_json_location.empty() ? "the index" : s.variants_json_location;
  auto doc = wheel::read_variant_json(w);
  if (!doc) return fail(doc.error().with_context(redact_url(s.wheel.location())));
  if (!*doc || (*doc)->metadata.variants.size() != 1 || (*doc)->metadata.variants.begin()->first != *s.label) {
    return fail(fmt::format("{}: the wheel's variant.json does not describe label `{}`, which {} gave it",
                            redact_url(s.wheel.location()), *s.label, index_file));
  }
  auto own = property_strings((*doc)->metadata.variants.begin()->second);
  auto said = s.properties;
  std::sort(own.begin(), own.end());
  std::sort(said.begin(), said.end());
  if (own == said) return {};
  return fail(fmt::format("{}: the wheel's variant.json gives label `{}` the properties [{}] but {} says [{}]; "
                          "refusing a wheel that is not the variant described there",
                          redact_url(s.wheel.location()), *s.label, listed(own), index_file, listed(said)));
}

bool same_version(const std::string& a, const std::string& b) {
  auto va = pep440::Version::parse(a);
  auto vb = pep440::Version::parse(b);
  if (va && vb) return *va == *vb;
  return ascii_trim(a) == ascii_trim(b);
}

Result<void> verify_metadata(const Selected& s, const wheel::Wheel& w) {
  if (!s.core_metadata) return {};
  const auto& used = *s.core_metadata;
  const std::string used_at = s.wheel.core_metadata ? redact_url(s.wheel.location()) + ".metadata"
                                                    : fmt::format("the METADATA read from {}", redact_url(s.wheel.location()));
  const std::string member = w.dist_info + "/METADATA";
  const auto* entry = w.archive.find(member);
  if (!entry) return fail(fmt::format("{}: the wheel has no {}", redact_url(s.wheel.location()), member));
  auto text = w.archive.read(*entry, std::uint64_t{16} << 20);
  if (!text) return fail(text.error().with_context(redact_url(s.wheel.location())));
  auto own = simple::parse_core_metadata(*text, fmt::format("{}: {}", redact_url(s.wheel.location()), member));
  if (!own) return fail(own.error());
  std::string differs;
  if (wheel_name::canonicalize_name(own->name) != wheel_name::canonicalize_name(used.name)) {
    differs = fmt::format("Name `{}` in the wheel, `{}` there", own->name, used.name);
  } else if (!same_version(own->version, used.version)) {
    differs = fmt::format("Version `{}` in the wheel, `{}` there", own->version, used.version);
  } else if (own->requires_python.value_or("") != used.requires_python.value_or("")) {
    differs = fmt::format("Requires-Python `{}` in the wheel, `{}` there", own->requires_python.value_or(""),
                          used.requires_python.value_or(""));
  } else {
    auto a = own->requires_dist;
    auto b = used.requires_dist;
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    if (a != b) {
      std::vector<std::string> only_wheel;
      std::vector<std::string> only_index;
      std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(only_wheel));
      std::set_difference(b.begin(), b.end(), a.begin(), a.end(), std::back_inserter(only_index));
      differs = fmt::format("Requires-Dist only in the wheel: [{}]; only there: [{}]", listed(only_wheel),
                            listed(only_index));
    }
  }
  if (differs.empty()) return {};
  return fail(fmt::format("{}: the wheel's METADATA differs from {}, which the resolution used: {}",
                          redact_url(s.wheel.location()), used_at, differs));
}

}  // namespace

Result<void> verify_wheel(const Selected& planned, const std::filesystem::path& path,
                          const std::optional<std::filesystem::path>& read_from) {
  if (!planned.label && !planned.core_metadata) return {};
  Result<wheel::Wheel> w = fail("not opened");
  if (read_from) {
    auto archive = zip::Archive::open(*read_from);
    if (!archive) return fail(archive.error().with_context(redact_url(planned.wheel.location())));
    w = wheel::open_wheel(path, std::move(*archive));
  } else {
    w = wheel::open_wheel(path);
  }
  if (!w) return fail(w.error().with_context(redact_url(planned.wheel.location())));
  if (auto ok = verify_variant(planned, *w); !ok) return ok;
  return verify_metadata(planned, *w);
}

}  // namespace vwheel::plan::detail

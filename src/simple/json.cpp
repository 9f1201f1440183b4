// JSON project pages (PEP 691 v1.x) and content-type dispatch.

#include <fmt/format.h>

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "core/json.hpp"
#include "simple/common.hpp"
#include "vwheel/core/text.hpp"
#include "vwheel/simple/project_page.hpp"

namespace vwheel::simple {
namespace {

using Json = nlohmann::json;

// A page lists every file of a project (tens of thousands for some), so only nesting is limited
// (64 levels, far more than any page has); repeated keys are refused like everywhere else, since
// which of two `hashes` an installer uses must not depend on its JSON parser.
constexpr JsonLimits kPageLimits{.max_depth = 64, .max_members = JsonLimits::unlimited};

Result<Json> parse_json(std::string_view body, std::string_view page_url) {
  auto parsed = parse_untrusted_json(body, kPageLimits);
  if (!parsed) return fail(fmt::format("{}: invalid JSON: {}", printable(page_url), parsed.error().message()));
  return std::move(*parsed);
}

// Whether `version` (`meta.api-version`, PEP 629 form `major.minor`) has major version 1.
bool major_is_one(std::string_view version) {
  const auto dot = version.find('.');
  if (version.substr(0, dot) != "1") return false;
  if (dot == std::string_view::npos) return true;
  const std::string_view minor = version.substr(dot + 1);
  if (minor.empty()) return false;
  for (char c : minor) {
    if (!is_ascii_digit(c)) return false;
  }
  return true;
}

class FileReader {
 public:
  FileReader(std::string_view page_url, const detail::Resolver& base, std::size_t index)
      : page_url_(page_url), base_(base), index_(index) {}

  [[nodiscard]] tl::unexpected<Error> error(std::string_view field, std::string_view expected) const {
    std::string where = fmt::format("{}: files[{}]", printable(page_url_), index_);
    if (!filename_.empty()) where += fmt::format(" (`{}`)", excerpt(filename_, 80));
    return fail(fmt::format("{}: `{}` {}", where, field, expected));
  }

  // A hashes object: lower-case algorithm -> lower-case hex.
  [[nodiscard]] Result<std::map<std::string, std::string>> hashes(const Json& j, std::string_view field) const {
    if (!j.is_object()) return error(field, "must be an object of hash name to hex digest");
    std::map<std::string, std::string> out;
    for (const auto& [key, value] : j.items()) {
      if (!detail::is_hash_name(key)) {
        return error(field, fmt::format("has an invalid hash name `{}`", excerpt(key, 40)));
      }
      if (!value.is_string() || !detail::is_hex_digest(value.get_ref<const std::string&>())) {
        return error(field, fmt::format("`{}` must be a hex digest", excerpt(key, 40)));
      }
      out.emplace(ascii_lower(key), ascii_lower(value.get_ref<const std::string&>()));
    }
    return out;
  }

  Result<FileLink> read(const Json& j) {
    if (!j.is_object()) return fail(fmt::format("{}: files[{}] is not an object", printable(page_url_), index_));
    FileLink link;
    const auto filename = j.find("filename");
    if (filename == j.end() || !filename->is_string()) return error("filename", "must be a string");
    filename_ = filename->get<std::string>();
    if (auto ok = detail::check_filename(filename_, page_url_); !ok) return fail(ok.error());
    link.filename = filename_;

    const auto url = j.find("url");
    if (url == j.end() || !url->is_string()) return error("url", "must be a string");
    const auto& href = url->get_ref<const std::string&>();
    if (href.size() > detail::kMaxUrl) return error("url", fmt::format("is longer than {} bytes", detail::kMaxUrl));
    const auto [target, fragment] = detail::split_fragment(href);
    auto resolved = base_.resolve(target);
    if (!resolved) return error("url", resolved.error().message);
    link.url = std::move(resolved->url);

    if (const auto h = j.find("hashes"); h != j.end()) {
      auto parsed = hashes(*h, "hashes");
      if (!parsed) return fail(parsed.error());
      link.hashes = std::move(*parsed);
    }
    if (link.hashes.empty() && fragment) link.hashes = detail::fragment_hashes(*fragment);

    // PEP 825: attributes on a `*-variants.json` entry are ignored, even malformed ones.
    const bool attributes = !is_variants_json_name(filename_);
    if (const auto rp = j.find("requires-python"); attributes && rp != j.end() && !rp->is_null()) {
      if (!rp->is_string()) return error("requires-python", "must be a string or null");
      const std::string_view v = ascii_trim(rp->get_ref<const std::string&>(), is_html_space);
      if (!v.empty()) link.requires_python = std::string(v);
    }
    if (const auto y = j.find("yanked"); attributes && y != j.end() && !y->is_null()) {
      if (y->is_boolean()) {
        if (y->get<bool>()) link.yanked = "";
      } else if (y->is_string()) {
        link.yanked = y->get<std::string>();
      } else {
        return error("yanked", "must be a boolean or a string");
      }
    }
    // PEP 714: `core-metadata` wins over the older `dist-info-metadata`.
    for (const char* key : {"core-metadata", "dist-info-metadata"}) {
      if (!attributes) break;
      const auto m = j.find(key);
      if (m == j.end() || m->is_null()) continue;
      if (m->is_boolean()) {
        if (m->get<bool>()) link.core_metadata.emplace();
      } else if (m->is_object()) {
        auto parsed = hashes(*m, key);
        if (!parsed) return fail(parsed.error());
        link.core_metadata = std::move(*parsed);
      } else {
        return error(key, "must be a boolean or an object of hashes");
      }
      break;
    }
    if (const auto s = j.find("size"); s != j.end() && !s->is_null()) {
      if (!s->is_number_unsigned()) return error("size", "must be a non-negative integer");
      link.size = s->get<std::uint64_t>();
    }
    if (const auto t = j.find("upload-time"); t != j.end() && !t->is_null()) {
      if (!t->is_string()) return error("upload-time", "must be a string or null");
      link.upload_time = t->get<std::string>();
    }
    return link;
  }

 private:
  std::string_view page_url_;
  const detail::Resolver& base_;
  std::size_t index_;
  std::string filename_;
};

Result<ProjectPage> read_page(const Json& doc, std::string_view page_url, const detail::Resolver& base) {
  const std::string url = printable(page_url);
  if (!doc.is_object()) return fail(fmt::format("{}: expected a JSON object", url));
  ProjectPage page;
  page.url = std::string(page_url);

  const auto meta = doc.find("meta");
  if (meta == doc.end() || !meta->is_object()) return fail(fmt::format("{}: missing `meta` object", url));
  const auto api = meta->find("api-version");
  if (api == meta->end() || !api->is_string()) return fail(fmt::format("{}: `meta.api-version` must be a string", url));
  const auto& api_version = api->get_ref<const std::string&>();
  if (!major_is_one(api_version)) {
    return fail(
        fmt::format("{}: unsupported `meta.api-version` `{}` (expected 1.x)", url, excerpt(api_version, 40)));
  }
  page.api_version = api_version;

  if (const auto name = doc.find("name"); name != doc.end()) {
    if (!name->is_string()) return fail(fmt::format("{}: `name` must be a string", url));
    page.name = name->get<std::string>();
  }
  if (const auto versions = doc.find("versions"); versions != doc.end()) {
    if (!versions->is_array()) return fail(fmt::format("{}: `versions` must be a list of strings", url));
    for (const auto& v : *versions) {
      if (!v.is_string()) return fail(fmt::format("{}: `versions` must be a list of strings", url));
      page.versions.push_back(v.get<std::string>());
    }
  }

  const auto files = doc.find("files");
  if (files == doc.end()) return fail(fmt::format("{}: missing `files`", url));
  if (!files->is_array()) return fail(fmt::format("{}: `files` is not a list", url));
  page.files.reserve(files->size());
  for (std::size_t i = 0; i < files->size(); ++i) {
    FileReader reader(page_url, base, i);
    auto link = reader.read((*files)[i]);
    if (!link) return fail(link.error());
    page.files.push_back(std::move(*link));
  }
  return page;
}

}  // namespace

Result<ProjectPage> parse_json_page(std::string_view body, std::string_view page_url) {
  auto base = detail::Resolver::make(page_url);
  if (!base) return fail(fmt::format("{}: {}", printable(page_url), base.error().message));
  auto doc = parse_json(body, page_url);
  if (!doc) return fail(doc.error());
  try {
    return read_page(*doc, page_url, *base);
  } catch (const Json::exception& e) {  // a type check missed above; still the page's fault
    return fail(fmt::format("{}: unexpected JSON content: {}", printable(page_url), excerpt(e.what(), 200)));
  }
}

Result<ProjectPage> parse_project_page(std::string_view body, std::string_view content_type,
                                       std::string_view page_url) {
  const std::string type = ascii_lower(ascii_trim(content_type.substr(0, content_type.find(';')), is_html_space));
  if (type.empty() || type == "text/html" || type == "application/vnd.pypi.simple.v1+html" ||
      type == "application/vnd.pypi.simple.latest+html") {
    return parse_html_page(body, page_url);
  }
  if (type == json_content_type || type == "application/vnd.pypi.simple.latest+json") {
    return parse_json_page(body, page_url);
  }
  return fail(fmt::format("{}: unsupported content type `{}` (expected {} or text/html)", printable(page_url),
                          excerpt(type, 80), json_content_type));
}

}  // namespace vwheel::simple

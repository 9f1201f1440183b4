#include "vwheel/api/mirror.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <map>
#include <set>
#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "plan/choose.hpp"
#include "plan/finder_options.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/core/hash.hpp"
#include "vwheel/core/parallel.hpp"
#include "vwheel/core/text.hpp"
#include "vwheel/finder/finder.hpp"
#include "vwheel/http/client.hpp"
#include "vwheel/wheel_name/names.hpp"

namespace vwheel::api {
namespace fs = std::filesystem;

namespace {

bool is_glob_char(char c) { return c == '*' || c == '?'; }

// PEP 503 normalization that keeps the glob characters (runs of `-_.` become one `-`).
std::string normalize_pattern(std::string_view name) {
  std::string out;
  bool sep = false;
  for (char c : name) {
    if (c == '-' || c == '_' || c == '.') {
      sep = true;
      continue;
    }
    if (sep && !out.empty()) out += '-';
    sep = false;
    out += ascii_lower(c);
  }
  return out;
}

// `*` any run of characters, `?` one; iterative with one backtrack point (linear enough for names).
bool glob_match(std::string_view pattern, std::string_view name) {
  std::size_t p = 0, n = 0, star = std::string_view::npos, mark = 0;
  while (n < name.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == name[n])) {
      ++p;
      ++n;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = n;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      n = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

}  // namespace

bool ProjectPattern::is_glob() const noexcept { return std::ranges::any_of(pattern, is_glob_char); }

bool ProjectPattern::matches(std::string_view name) const { return glob_match(pattern, name); }

Result<ProjectPattern> parse_project_pattern(std::string_view text) {
  const auto trimmed = ascii_trim(text);
  const auto end = trimmed.find_first_of("<>=!~ \t,");
  const auto name = trimmed.substr(0, end);
  const bool valid = !name.empty() && std::ranges::all_of(name, [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' || is_glob_char(c);
  });
  if (!valid) {
    return fail(with_kind(Error(fmt::format("--project `{}`: expected a project name or glob (letters, digits, `-_.*?`) "
                                            "and an optional version specifier, e.g. `torch>=2.8,<2.10` or `nvidia-*`",
                                            text)),
                          ErrorKind::usage));
  }
  ProjectPattern out;
  out.text = std::string(text);
  out.pattern = normalize_pattern(name);
  if (end != std::string_view::npos) {
    auto specs = pep440::SpecifierSet::parse(trimmed.substr(end));
    if (!specs) return fail(with_kind(Error(fmt::format("--project `{}`: {}", text, specs.error().message)), ErrorKind::usage));
    out.specifiers = std::move(*specs);
  }
  return out;
}

Result<variant::Property> parse_variant_filter(std::string_view text) {
  auto p = variant::parse_property(text);
  if (!p) {
    return fail(with_kind(Error(fmt::format("--variant-filter `{}`: {} (expected NAMESPACE :: FEATURE :: VALUE)", text,
                                            p.error().message)),
                          ErrorKind::usage));
  }
  return p;
}

Result<std::vector<std::string>> parse_project_list(std::string_view body, std::string_view content_type,
                                                    std::string_view url) {
  std::set<std::string> names;
  if (ascii_lower(content_type).find("json") != std::string::npos) {
    auto doc = nlohmann::json::parse(body, nullptr, false);
    if (doc.is_discarded() || !doc.is_object() || !doc.contains("projects") || !doc["projects"].is_array()) {
      return fail(fmt::format("{}: not a PEP 691 project list (expected an object with a `projects` list)", url));
    }
    for (const auto& p : doc["projects"]) {
      if (!p.is_object() || !p.contains("name") || !p["name"].is_string()) {
        return fail(fmt::format("{}: a `projects` entry without a string `name`", url));
      }
      names.insert(wheel_name::canonicalize_name(p["name"].get<std::string>()));
    }
  } else {
    // PEP 503: one anchor per project, its text the name. Only `<a ...>TEXT</a>` is read.
    std::size_t pos = 0;
    const std::string text = ascii_lower(body);
    while ((pos = text.find("<a", pos)) != std::string::npos) {
      const auto gt = text.find('>', pos);
      if (gt == std::string::npos) break;
      const auto close = text.find("</a", gt);
      if (close == std::string::npos) break;
      const auto name = ascii_trim(body.substr(gt + 1, close - gt - 1));
      if (!name.empty()) names.insert(wheel_name::canonicalize_name(name));
      pos = close;
    }
  }
  return std::vector<std::string>(names.begin(), names.end());
}

Result<std::vector<std::string>> select_projects(const std::vector<ProjectPattern>& patterns,
                                                 const std::vector<std::string>& available) {
  std::set<std::string> chosen;
  for (const auto& p : patterns) {
    if (!p.is_glob()) {
      chosen.insert(p.pattern);
      continue;
    }
    bool any = false;
    for (const auto& name : available) {
      if (p.matches(name)) {
        chosen.insert(name);
        any = true;
      }
    }
    if (!any) return fail(fmt::format("--project `{}` matches no project of the upstream index", p.text));
  }
  return std::vector<std::string>(chosen.begin(), chosen.end());
}

namespace {

// A file to have in the mirror's download folder.
struct Wanted {
  std::string url;
  std::string filename;
  std::optional<std::string> sha256;
  std::optional<std::uint64_t> size;
  std::optional<std::string> yanked;  // PEP 592: the reason, when the upstream yanked it
};

// What an earlier run downloaded and verified, by file name: a file whose size and mtime are
// unchanged is not hashed again (wheels of several GiB). And whether the upstream yanked it, as
// last seen: the site is built from every file of the folder, those of earlier runs too.
struct Record {
  std::string sha256;
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;
  std::optional<std::string> yanked;
};

std::map<std::string, Record> load_records(const fs::path& path) {
  std::map<std::string, Record> out;
  auto text = read_file(path);
  if (!text) return out;  // none yet, or unreadable: every file present is hashed once
  auto doc = nlohmann::json::parse(*text, nullptr, false);
  if (!doc.is_object() || !doc.contains("files") || !doc["files"].is_object()) return out;
  for (const auto& [name, r] : doc["files"].items()) {
    if (!r.is_object()) continue;
    out[name] = Record{r.value("sha256", ""), r.value("size", std::uint64_t{0}), r.value("mtime_ns", std::int64_t{0}), {}};
    if (r.contains("yanked") && r["yanked"].is_string()) out[name].yanked = r["yanked"].get<std::string>();
  }
  return out;
}

void save_records(const fs::path& path, const std::map<std::string, Record>& records) {
  nlohmann::json files = nlohmann::json::object();
  for (const auto& [name, r] : records) {
    files[name] = {{"sha256", r.sha256}, {"size", r.size}, {"mtime_ns", r.mtime_ns}};
    if (r.yanked) files[name]["yanked"] = *r.yanked;
  }
  if (auto ok = write_file_atomic(path, nlohmann::json{{"files", files}}.dump(1) + "\n"); !ok) {
    throw std::system_error(std::make_error_code(std::errc::io_error), ok.error().message);
  }
}

// Whether the file already in the folder is the one wanted (hashing it unless its record holds).
bool already_there(const fs::path& path, const Wanted& w, std::map<std::string, Record>& records) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return false;
  const auto size = fs::file_size(path, ec);
  if (ec || (w.size && size != *w.size)) return false;
  const auto mtime = fs::last_write_time(path, ec).time_since_epoch();
  const auto mtime_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(mtime).count();
  if (!w.sha256) return true;  // nothing to compare with: the name is all the upstream says
  if (auto it = records.find(w.filename);
      it != records.end() && it->second.size == size && it->second.mtime_ns == mtime_ns) {
    return it->second.sha256 == *w.sha256;
  }
  auto digest = sha256_file(path);
  if (!digest) return false;
  records[w.filename] = Record{digest->sha256, digest->size, digest->mtime_ns, w.yanked};
  return digest->sha256 == *w.sha256;
}

std::optional<std::string> sha256_of(const std::map<std::string, std::string>& hashes) {
  if (auto it = hashes.find("sha256"); it != hashes.end()) return ascii_lower(it->second);
  return std::nullopt;
}

// The selection of every --target profile, one machine each.
Result<std::vector<selection::Selection>> target_selections(const MirrorRequest& request) {
  std::vector<selection::Selection> out;
  for (const auto& profile : request.targets) {
    auto r = request.selection;
    r.profiles = {profile};
    auto s = make_selection(r, nullptr);
    if (!s) return fail(s.error());
    if (auto ok = require_environment_and_tags(*s); !ok) return fail(ok.error());
    out.push_back(std::move(*s));
  }
  return out;
}

// The files of one project version to mirror, by the filters.
struct VersionFiles {
  std::vector<const finder::File*> files;   // wheels and `*-variants.json`
  std::vector<const finder::File*> sdists;
};

class Mirror {
 public:
  Mirror(finder::Finder& finder, std::vector<variant::Property> filters, std::vector<selection::Selection> targets)
      : load_(plan::detail::finder_loader(finder)),
        filters_(std::move(filters)),
        targets_(std::move(targets)) {}

  // Adds the files of `version` of `name` that the filters keep to `wanted`.
  Result<void> add_version(const std::string& name, const std::string& version, const VersionFiles& v,
                           std::vector<Wanted>& wanted, MirrorReport& report) {
    std::vector<const finder::File*> wheels;
    const finder::File* variants_json = nullptr;
    for (const auto* f : v.files) {
      if (f->is_wheel()) {
        wheels.push_back(f);
      } else {
        variants_json = f;
      }
    }
    auto kept = wheels;
    if (!filters_.empty()) {
      auto k = by_variant_filter(name, version, variants_json, wheels);
      if (!k) return fail(k.error());
      kept = std::move(*k);
    }
    if (!targets_.empty()) {
      auto k = by_targets(name, version, variants_json, kept);
      if (!k) return fail(k.error());
      kept = std::move(*k);
    }
    const bool keep_sdists = targets_.empty();  // a target machine installs wheels
    report.files_skipped += wheels.size() - kept.size() + (keep_sdists ? 0 : v.sdists.size());
    const bool any_variant = std::ranges::any_of(kept, [](const auto* f) { return f->wheel->is_variant(); });
    if (kept.empty() && !keep_sdists) return {};
    ++report.versions;
    for (const auto* f : kept) {
      wanted.push_back({f->url, f->filename, f->sha256(), f->size, f->yanked});
      // PEP 658/714: the metadata file beside the wheel, checked by its own hash when given.
      if (f->core_metadata) {
        wanted.push_back({f->url + ".metadata", f->filename + ".metadata", sha256_of(*f->core_metadata), {}, {}});
      }
    }
    if (keep_sdists) {
      for (const auto* f : v.sdists) wanted.push_back({f->url, f->filename, f->sha256(), f->size, f->yanked});
    }
    if (variants_json && any_variant) {
      wanted.push_back({variants_json->url, variants_json->filename, variants_json->sha256(), variants_json->size, {}});
    }
    return {};
  }

 private:
  // Variant wheels with one of the filter properties, the null variant and non-variant wheels.
  Result<std::vector<const finder::File*>> by_variant_filter(const std::string& name, const std::string& version,
                                                             const finder::File* variants_json,
                                                             const std::vector<const finder::File*>& wheels) {
    std::vector<const finder::File*> variant_wheels;
    for (const auto* w : wheels) {
      if (w->wheel->is_variant()) variant_wheels.push_back(w);
    }
    std::vector<const finder::File*> out;
    std::optional<variant::VariantMetadata> metadata;
    if (!variant_wheels.empty()) {
      std::vector<std::string> notes;
      auto m = load_(variants_json, variant_wheels, notes);
      if (!m) return fail(Error(fmt::format("{} {}: {}", name, version, m.error().message)));
      metadata = std::move(*m);
    }
    for (const auto* w : wheels) {
      const auto& label = w->wheel->label;
      bool keep = !label || *label == variant::kNullLabel;
      if (!keep) {
        auto it = metadata->variants.find(*label);
        keep = it != metadata->variants.end() && std::ranges::any_of(filters_, [&](const variant::Property& p) {
                 return std::ranges::find(it->second, p) != it->second.end();
               });
      }
      if (keep) out.push_back(w);
    }
    return out;
  }

  // The wheel each target would choose among `wheels`, and the null variant.
  Result<std::vector<const finder::File*>> by_targets(const std::string& name, const std::string& version,
                                                      const finder::File* variants_json,
                                                      const std::vector<const finder::File*>& wheels) {
    std::set<const finder::File*> chosen;
    for (const auto* w : wheels) {
      if (w->wheel->label == variant::kNullLabel) chosen.insert(w);
    }
    plan::detail::ChooseRequest c;
    c.name = name;
    c.version = version;
    c.files = wheels;
    if (variants_json) c.files.push_back(variants_json);
    c.allow_yanked = true;  // a machine pinning the version would take it
    for (const auto& target : targets_) {
      std::string reason;
      auto choice = plan::detail::choose(c, target, load_, reason);
      if (!choice) return fail(Error(fmt::format("{} {}: {}", name, version, choice.error().message)));
      if (*choice && (*choice)->wheel) chosen.insert((*choice)->wheel);
    }
    std::vector<const finder::File*> out;
    for (const auto* w : wheels) {
      if (chosen.contains(w)) out.push_back(w);
    }
    return out;
  }

  plan::detail::MetadataLoader load_;
  std::vector<variant::Property> filters_;
  std::vector<selection::Selection> targets_;
};

// The upstream's project list (for the glob patterns).
Result<std::vector<std::string>> upstream_projects(http::Client& client, const std::string& upstream) {
  std::string url = upstream;
  if (!url.ends_with('/')) url += '/';
  auto page = client.get(http::Request(url, {"Accept: application/vnd.pypi.simple.v1+json, "
                                             "application/vnd.pypi.simple.v1+html;q=0.2, text/html;q=0.1"}));
  if (!page) return fail(page.error());
  return parse_project_list(page->body, page->content_type, redact_url(url));
}

}  // namespace

Result<MirrorReport> mirror_index(const MirrorRequest& request) {
  if (request.projects.empty()) {
    return fail(with_kind(Error("index mirror: at least one --project is required (a whole index is never mirrored)"),
                          ErrorKind::usage));
  }
  std::vector<ProjectPattern> patterns;
  for (const auto& p : request.projects) {
    auto parsed = parse_project_pattern(p);
    if (!parsed) return fail(parsed.error());
    patterns.push_back(std::move(*parsed));
  }
  std::vector<variant::Property> filters;
  for (const auto& f : request.variant_filters) {
    auto parsed = parse_variant_filter(f);
    if (!parsed) return fail(parsed.error());
    filters.push_back(std::move(*parsed));
  }
  auto targets = target_selections(request);
  if (!targets) return fail(targets.error());

  // The upstream's credentials are looked up as an installer's index's are (URL, .netrc, keyring,
  // named-index environment variables).
  auto sources = request.sources;
  if (sources.index_url.empty() && sources.indexes.empty()) {
    sources.index_url = request.upstream;
  } else {
    sources.extra_index_urls.push_back(request.upstream);
  }
  auto settings = make_settings(sources);
  // A mirror is run to catch up with the upstream: its pages are asked for again (conditionally)
  // even while a cached copy's max-age lasts.
  settings.http.refresh = true;
  auto client = http::Client::create(settings.http);
  if (!client) return fail(client.error());
  finder::Finder finder(*client, {{finder::Source::Kind::index, request.upstream}},
                        plan::detail::finder_options(settings));

  std::vector<std::string> available;
  if (std::ranges::any_of(patterns, [](const auto& p) { return p.is_glob(); })) {
    auto listed = upstream_projects(*client, request.upstream);
    if (!listed) return fail(listed.error());
    available = std::move(*listed);
  }
  auto names = select_projects(patterns, available);
  if (!names) return fail(with_kind(names.error(), ErrorKind::input));
  finder.prefetch(*names);

  MirrorReport report;
  Mirror mirror(finder, std::move(filters), std::move(*targets));
  std::vector<Wanted> wanted;
  for (const auto& name : *names) {
    auto files = finder.files(name);
    if (!files) return fail(files.error());
    const auto& sdists = finder.sdists(name);
    if ((*files)->empty() && sdists.empty()) {
      return fail(Error(fmt::format("--project {}: no such project (or no files) on {}", name, redact_url(request.upstream))));
    }
    // Versions any pattern naming this project admits (pre-releases too: a mirror takes what is asked).
    const auto admitted = [&](const pep440::Version& v) {
      return std::ranges::any_of(patterns, [&](const auto& p) { return p.matches(name) && p.specifiers.contains(v, true); });
    };
    std::map<pep440::Version, VersionFiles> versions;
    for (const auto& f : **files) {
      if (admitted(f.version)) versions[f.version].files.push_back(&f);
    }
    for (const auto& f : sdists) {
      if (admitted(f.version)) versions[f.version].sdists.push_back(&f);
    }
    if (versions.empty()) continue;
    ++report.projects;
    for (const auto& [version, v] : versions) {
      if (auto ok = mirror.add_version(name, version.to_string(), v, wanted, report); !ok) return fail(ok.error());
    }
  }
  for (const auto& w : finder.warnings()) report.warnings.push_back(w);

  // Into SITE/.vwheel/mirror/ (what `index build` reads), each file through `<file>.part`.
  const fs::path pool = request.site / ".vwheel" / "mirror";
  std::error_code ec;
  fs::create_directories(pool, ec);
  if (ec) throw std::system_error(ec, "cannot create " + pool.string());
  const fs::path records_path = pool / ".records.json";
  auto records = load_records(records_path);
  std::vector<http::DownloadRequest> downloads;
  std::vector<std::string> labels;
  std::vector<std::optional<std::string>> yanked;
  for (const auto& w : wanted) {
    if (already_there(pool / w.filename, w, records)) {
      records[w.filename].yanked = w.yanked;
      ++report.files_kept;
      continue;
    }
    downloads.emplace_back(w.url, pool / w.filename, w.sha256, w.size);
    labels.push_back(w.filename);
    yanked.push_back(w.yanked);
  }
  std::vector<Error> errors;
  if (!downloads.empty()) {
    http::ProgressDisplay display(labels, http::ProgressDisplay::style_for(request.quiet));
    auto results = client->download(
        downloads, [&](const http::Progress& p) { display.update(p); },
        [&](std::size_t i, const Result<http::Downloaded>& r) { display.done(i, r); });
    display.finish();
    for (std::size_t i = 0; i < results.size(); ++i) {
      if (!results[i]) {
        errors.push_back(results[i].error());
        // Nothing of a file that failed stays, its metadata neither (fetched again with it).
        fs::remove(pool / (labels[i] + ".metadata"), ec);
        records.erase(labels[i] + ".metadata");
        continue;
      }
      ++report.files_downloaded;
      report.bytes_downloaded += results[i]->size;
      const auto mtime = fs::last_write_time(results[i]->path, ec).time_since_epoch();
      records[labels[i]] = Record{results[i]->sha256, results[i]->size,
                                  std::chrono::duration_cast<std::chrono::nanoseconds>(mtime).count(), yanked[i]};
    }
  }
  save_records(records_path, records);
  if (!errors.empty()) {
    // The verified files stay for the next run; the pages are left as they were.
    auto first = errors.front();
    if (errors.size() > 1) first.message += fmt::format(" (and {} more failed download(s))", errors.size() - 1);
    return fail(first);
  }

  index::BuildOptions build;
  // The upstream's yanks (PEP 592) carry over, as `index build --yanked` lines.
  std::string yank_lines;
  for (const auto& [name, r] : records) {
    if (!r.yanked || !fs::exists(pool / name, ec)) continue;
    std::string reason = *r.yanked;
    std::ranges::replace_if(reason, [](char c) { return c == '\n' || c == '\r'; }, ' ');
    yank_lines += reason.empty() ? name + "\n" : fmt::format("{}: {}\n", name, reason);
  }
  if (auto ok = write_file_atomic(pool / ".yanked.txt", yank_lines); !ok) {
    throw std::system_error(std::make_error_code(std::errc::io_error), ok.error().message);
  }
  build.yanked = pool / ".yanked.txt";
  build.wheel_dir = pool;
  build.site = request.site;
  build.jobs = request.jobs == 0 ? default_jobs() : request.jobs;
  auto built = index::build_site(build);
  if (!built) return fail(built.error());
  report.build = std::move(*built);
  for (auto& w : report.build.warnings) report.warnings.push_back(std::move(w));
  report.build.warnings.clear();
  return report;
}

std::string format_mirror_summary(const MirrorReport& report, const fs::path& site) {
  return fmt::format(
      "vwheel: {}: mirrored {} project(s), {} version(s): downloaded {} file(s) ({}), kept {}, skipped {} by the "
      "filters; the index has {} project(s), {} file(s), {} variants.json\n",
      site.string(), report.projects, report.versions, report.files_downloaded, http::format_size(report.bytes_downloaded),
      report.files_kept, report.files_skipped, report.build.projects, report.build.files, report.build.variants_files);
}

}  // namespace vwheel::api

#include "vwheel/index/site.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <functional>
#include <map>
#include <set>
#include <system_error>

#include <fmt/format.h>

#include "index/builder.hpp"
#include "index/dist.hpp"
#include "index/files.hpp"
#include "index/pages.hpp"
#include "index/state.hpp"
#include "index/text.hpp"
#include "index/yanked.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/core/hash.hpp"
#include "vwheel/core/text.hpp"
#include "vwheel/core/parallel.hpp"
#include "vwheel/wheel/index_json.hpp"

namespace vwheel::index {
namespace fs = std::filesystem;
using namespace detail;

namespace {

Result<std::string> normalize_base_url(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  if (url.empty()) return url;
  const bool absolute = url.find("://") != std::string::npos || url.front() == '/';
  const bool clean = url.find_first_of(" \t\r\n\"'<>\\#?") == std::string::npos;
  if (!absolute || !clean) {
    return fail(
        fmt::format("--base-url `{}`: expected an absolute URL such as `https://example.org/pypi` "
                    "(no spaces, quotes, `#` or `?`)",
                    url));
  }
  return url;
}

}  // namespace

namespace detail {

// What decides whether the project list is rewritten: a digest of its HTML and JSON (libstdc++'s
// 64-bit murmur hashes and the lengths; SHA-256 took a tenth of a no-op rebuild of 10,000 wheels).
std::string page_digest(std::string_view html, std::string_view json) {
  const std::hash<std::string_view> h;
  return fmt::format("{:016x}{:016x}-{}-{}", h(html), h(json), html.size(), json.size());
}

Result<BuildReport> Builder::run() {
  auto base = normalize_base_url(options_.base_url);
  if (!base) return fail(base.error());
  base_url_ = std::move(*base);
  std::error_code ec;
  if (!fs::is_directory(options_.wheel_dir, ec)) {
    return fail(fmt::format("`{}` is not a directory", options_.wheel_dir.string()));
  }
  site_ = options_.site;
  fs::create_directories(site_ / ".vwheel");
  site_fd_ = open_dir(site_);
  wheel_dir_fd_ = open_dir(options_.wheel_dir);
  // One build of a SITE at a time; another waits here (e.g. `index build` while `index serve`
  // indexes an upload).
  const FileLock lock = FileLock::acquire(site_ / ".vwheel" / "lock");
  // A build killed before its renames left hidden temporaries; holding the lock, they are stale.
  remove_temporaries(site_);

  load_state();
  if (auto ok = load_yanked(); !ok) return fail(ok.error());
  if (auto ok = scan(); !ok) return fail(ok.error());
  if (auto ok = merge_variants(); !ok) return fail(ok.error());
  warn_variant_only_versions();
  apply_yanked();
  render_pages();

  // Nothing has changed in SITE so far; from here on only file-system failures stop the build.
  write_files();
  write_pages();
  remove_stale();
  save_state();
  return std::move(report_);
}

std::string Builder::file_url(const std::string& project, const std::string& filename) const {
  std::string url = base_url_.empty() ? "../.." : base_url_;
  url += "/files/";
  url += project;
  url += '/';
  // `!+` appear in wheel file names and are safe in a path; everything else is encoded, so a file
  // name is always one path segment.
  url += percent_encode(filename, "!+");
  return url;
}

void Builder::render_project(Project& p) const {
  struct Item {
    const pep440::Version* version;
    const std::string* filename;
    const Dist* dist;          // or
    const Variants* variants;  // this
  };
  std::vector<Item> items;
  items.reserve(p.dists.size() + p.variants.size());
  for (const std::size_t i : p.dists)
    items.push_back({&dists_[i].name.version, &dists_[i].filename, &dists_[i], nullptr});
  for (const std::size_t i : p.variants) {
    items.push_back({&variants_[i].version, &variants_[i].filename, nullptr, &variants_[i]});
  }
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    if (const auto c = *a.version <=> *b.version; c != 0) return c < 0;
    return *a.filename < *b.filename;
  });

  thread_local std::string inputs;
  inputs.assign(render_fingerprint_).append("\n").append(base_url_).append("\n").append(p.name);
  const auto add = [](std::string_view text) { inputs.append(text).push_back('\0'); };
  const auto add_optional = [&](const std::optional<std::string>& text) {
    if (text) {
      inputs.push_back('+');
      add(*text);
    } else {
      add("-");
    }
  };
  for (const auto& item : items) {
    inputs.push_back('\n');
    add(*item.filename);
    if (item.dist != nullptr) {
      const Dist& d = *item.dist;
      add(d.sha256);
      add(std::to_string(d.stat.size));
      add(std::to_string(d.stat.mtime_ns));
      add_optional(d.requires_python);
      add_optional(d.metadata_sha256);
      add_optional(d.yanked);
    } else {
      add(item.variants->sha256);
      add(std::to_string(item.variants->size));
    }
  }
  p.hash = fmt::format("{:016x}-{}", std::hash<std::string_view>{}(inputs), inputs.size());
  const auto old = old_.pages.find(p.name);
  p.write = old == old_.pages.end() || old->second != p.hash || !exists_in_site("simple/" + p.name + "/index.html") ||
            !exists_in_site("simple/" + p.name + "/index.json");
  if (!p.write) return;

  ProjectPage page;
  page.name = p.name;
  const pep440::Version* last = nullptr;
  for (const auto& item : items) {
    if (last == nullptr || *last != *item.version) page.versions.push_back(item.version->to_string());
    last = item.version;
    PageFile f;
    f.filename = *item.filename;
    f.url = file_url(p.name, *item.filename);
    if (item.dist != nullptr) {
      const Dist& d = *item.dist;
      f.sha256 = d.sha256;
      f.size = d.stat.size;
      f.requires_python = d.requires_python;
      f.core_metadata_sha256 = d.metadata_sha256;
      f.yanked = d.yanked;
      f.upload_time = format_upload_time(d.stat.mtime_ns);
    } else {
      f.sha256 = item.variants->sha256;
      f.size = item.variants->size;
    }
    page.files.push_back(std::move(f));
  }
  p.html = render_project_html(page);
  p.json = render_project_json(page);
}

bool Builder::exists_in_site(const std::string& relative) const {
  struct stat st {};
  return ::fstatat(site_fd_, relative.c_str(), &st, 0) == 0;
}

std::string Builder::render_fingerprint() {
  ProjectPage page;
  page.name = "p";
  page.versions = {"1"};
  PageFile f;
  f.filename = "p-1-py3-none-any.whl";
  f.url = "u";
  f.sha256 = "h";
  f.size = 1;
  f.requires_python = ">=3";
  f.core_metadata_sha256 = "m";
  f.yanked = "r";
  f.upload_time = "t";
  page.files.push_back(f);
  f.yanked = "";
  page.files.push_back(f);
  page.files.push_back(PageFile{"p-1.tar.gz", "u", "h", 1, {}, {}, {}, {}});
  const std::vector<std::string> projects = {"p"};
  const std::hash<std::string_view> h;
  return fmt::format("{:016x}{:016x}{:016x}", h(render_project_html(page)), h(render_project_json(page)),
                     h(render_root_html(projects, "x") + render_root_json(projects)));
}

void Builder::render_pages() {
  render_fingerprint_ = render_fingerprint();
  std::map<std::string, Project> by_name;
  for (std::size_t i = 0; i < dists_.size(); ++i) {
    if (dists_[i].dropped) continue;
    auto& p = by_name[dists_[i].name.project];
    p.dists.push_back(i);
    ++report_.files;
  }
  for (std::size_t i = 0; i < variants_.size(); ++i) by_name[variants_[i].project].variants.push_back(i);
  report_.variants_files = variants_.size();
  for (auto& [name, p] : by_name) {
    p.name = name;
    project_names_.push_back(name);
    projects_.push_back(std::move(p));
  }
  report_.projects = projects_.size();
  parallel_for(projects_.size(), jobs_, [&](std::size_t i) { render_project(projects_[i]); });

  root_html_ = render_root_html(project_names_, base_url_.empty() ? std::string() : base_url_ + "/simple/");
  root_json_ = render_root_json(project_names_);
  root_hash_ = page_digest(root_html_, root_json_);
  write_root_ = old_.root != root_hash_ || !exists_in_site("simple/index.html") || !exists_in_site("simple/index.json");
}

void Builder::write_files() {
  std::set<std::string> dirs;
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < dists_.size(); ++i) {
    if (dists_[i].dropped || !dists_[i].place) continue;
    todo.push_back(i);
    dirs.insert(dists_[i].name.project);
  }
  std::vector<std::size_t> variants_todo;
  for (std::size_t i = 0; i < variants_.size(); ++i) {
    if (!variants_[i].text) continue;
    variants_todo.push_back(i);
    dirs.insert(variants_[i].project);
  }
  for (const auto& p : dirs) fs::create_directories(files_dir(p));
  std::vector<char> copied(todo.size(), 0);
  parallel_for_rethrow(todo.size(), jobs_, [&](std::size_t k) {
    Dist& d = dists_[todo[k]];
    const fs::path target = files_dir(d.name.project) / d.filename;
    const Placed placed = place_file(options_.wheel_dir / d.filename, target, d.stat);
    d.site_inode = placed.inode;
    copied[k] = placed.copied ? 1 : 0;
    if (d.metadata) {
      fs::path meta = target;
      meta += kMetadataSuffix;
      write_atomic(meta, *d.metadata);
    }
  });
  parallel_for_rethrow(variants_todo.size(), jobs_, [&](std::size_t k) {
    const Variants& v = variants_[variants_todo[k]];
    write_atomic(files_dir(v.project) / v.filename, *v.text);
  });
  report_.files_placed = todo.size();
  report_.files_copied = static_cast<std::size_t>(std::count(copied.begin(), copied.end(), 1));
  report_.variants_written = variants_todo.size();
  std::vector<fs::path> written;
  for (const std::size_t i : todo) {
    const Dist& d = dists_[i];
    written.push_back(files_dir(d.name.project) / d.filename);
    if (d.metadata) written.push_back(files_dir(d.name.project) / (d.filename + std::string(kMetadataSuffix)));
  }
  for (const std::size_t i : variants_todo) written.push_back(files_dir(variants_[i].project) / variants_[i].filename);
  if (!written.empty()) {
    wrote_ = true;
    make_durable(written, site_);
  }
}

void Builder::write_pages() {
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < projects_.size(); ++i) {
    if (projects_[i].write) todo.push_back(i);
  }
  for (const std::size_t i : todo) fs::create_directories(pages_dir(projects_[i].name));
  parallel_for_rethrow(todo.size(), jobs_, [&](std::size_t k) {
    const Project& p = projects_[todo[k]];
    write_atomic(pages_dir(p.name) / "index.json", p.json);
    write_atomic(pages_dir(p.name) / "index.html", p.html);
  });
  report_.projects_written = todo.size();
  std::vector<fs::path> written;
  for (const std::size_t i : todo) {
    written.push_back(pages_dir(projects_[i].name) / "index.json");
    written.push_back(pages_dir(projects_[i].name) / "index.html");
  }
  if (!written.empty()) {
    wrote_ = true;
    make_durable(written, site_);
  }
  if (write_root_) {
    fs::create_directories(site_ / "simple");
    write_atomic(site_ / "simple" / "index.json", root_json_);
    write_atomic(site_ / "simple" / "index.html", root_html_);
    report_.root_written = true;
    wrote_ = true;
  }
}

void Builder::remove_stale() {
  std::set<std::string> current_files;
  std::set<std::string> current_projects(project_names_.begin(), project_names_.end());
  for (const auto& d : dists_) {
    if (!d.dropped) current_files.insert(d.filename);
  }
  std::set<std::string> touched;
  for (const auto& [name, old] : old_.files) {
    if (current_files.contains(name)) continue;
    const fs::path target = files_dir(old.project) / name;
    fs::path meta = target;
    meta += kMetadataSuffix;
    report_.files_removed += remove_file(target) ? 1 : 0;
    remove_file(meta);
    touched.insert(old.project);
  }
  std::set<std::string> current_variants;
  for (const auto& v : variants_) current_variants.insert(v.filename);
  for (const auto& [name, old] : old_.variants) {
    if (current_variants.contains(name)) continue;
    report_.files_removed += remove_file(files_dir(old.project) / name) ? 1 : 0;
    touched.insert(old.project);
  }
  for (const auto& [project, hash] : old_.pages) {
    if (current_projects.contains(project)) continue;
    remove_file(pages_dir(project) / "index.html");
    remove_file(pages_dir(project) / "index.json");
    remove_empty_dir(pages_dir(project));
    touched.insert(project);
  }
  for (const auto& project : touched) {
    if (!current_projects.contains(project)) remove_empty_dir(files_dir(project));
  }
  if (!touched.empty()) wrote_ = true;
}

bool Builder::state_unchanged() const {
  if (!old_valid_ || wrote_ || report_.files_hashed != 0 || old_.base_url != base_url_ ||
      old_.yanked_sha256 != yanked_sha256_ || old_.root != root_hash_) {
    return false;
  }
  const auto kept =
      static_cast<std::size_t>(std::count_if(dists_.begin(), dists_.end(), [](const Dist& d) { return !d.dropped; }));
  return old_.files.size() == kept && old_.variants.size() == variants_.size() && old_.pages.size() == projects_.size();
}

void Builder::save_state() {
  if (state_unchanged()) return;
  State state;
  state.base_url = base_url_;
  state.yanked_sha256 = yanked_sha256_;
  state.root = root_hash_;
  for (const auto& d : dists_) {
    if (d.dropped) continue;
    FileState f;
    f.project = d.name.project;
    f.stat = d.stat;
    f.sha256 = d.sha256;
    f.site_inode = d.site_inode;
    f.metadata_sha256 = d.metadata_sha256;
    f.metadata_size = d.metadata_size;
    f.requires_python = d.requires_python;
    state.files.emplace(d.filename, std::move(f));
  }
  for (const auto& v : variants_)
    state.variants.emplace(v.filename, VariantsState{v.project, v.inputs, v.sha256, v.size});
  for (const auto& p : projects_) state.pages.emplace(p.name, p.hash);
  const std::string text = serialize_state(state);
  if (state_file_ && text == state_file_->view()) return;
  if (write_root_) make_durable({site_ / "simple" / "index.json", site_ / "simple" / "index.html"}, site_);
  if (auto ok = write_file_atomic(state_path_, text); !ok) {
    throw std::system_error(std::make_error_code(std::errc::io_error), ok.error().message);
  }
}

}  // namespace detail

Result<BuildReport> build_site(const BuildOptions& options) { return Builder(options).run(); }

}  // namespace vwheel::index

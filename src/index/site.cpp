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

#include "index/dist.hpp"
#include "index/files.hpp"
#include "index/pages.hpp"
#include "index/state.hpp"
#include "index/text.hpp"
#include "index/yanked.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/core/hash.hpp"
#include "vwheel/core/parallel.hpp"
#include "vwheel/wheel/index_json.hpp"

namespace vwheel::index {
namespace fs = std::filesystem;
using namespace detail;

namespace {

constexpr std::string_view kMetadataSuffix = ".metadata";
constexpr std::string_view kVariantsSuffix = "-variants.json";

// One distribution file of WHEELDIR and what the index says about it.
struct Dist {
  std::string filename;
  DistName name;
  FileStat stat;  // of the source, as listed (then as hashed)
  std::string sha256;
  std::optional<std::string> metadata_sha256;
  std::uint64_t metadata_size = 0;
  std::optional<std::string> requires_python;
  std::uint64_t site_inode = 0;
  std::optional<std::string> metadata;  // extracted by this build: written to `<file>.metadata`
  bool hashed = false;                  // read by this build
  bool place = false;                   // to link (or copy) into SITE/files by this build
  std::optional<Error> error;
  bool not_regular = false;  // a directory or a broken link named like a distribution: ignored
  bool dropped = false;      // left out (not a regular file, or --skip-invalid)
  std::optional<std::string> yanked;
};

// One `{name}-{version}-variants.json`.
struct Variants {
  std::string filename;
  std::string project;
  pep440::Version version;
  std::vector<std::size_t> wheels;  // indices into the dists, sorted by file name
  std::string inputs;               // hash over the wheels' names and hashes
  std::string sha256;
  std::uint64_t size = 0;
  std::optional<std::string> text;  // built by this build: to write
  std::optional<Error> error;
};

// A project's two pages.
struct Project {
  std::string name;
  std::vector<std::size_t> dists;     // indices into the dists
  std::vector<std::size_t> variants;  // indices into the variants files
  std::string hash;                   // of what the pages show
  bool write = false;
  std::string html;  // rendered when `write`
  std::string json;
};

// Runs `fn(i)` for every `i` on `jobs` threads; rethrows the first exception any call threw.
template <class Fn>
void parallel_for_rethrow(std::size_t count, unsigned jobs, Fn&& fn) {
  std::vector<std::exception_ptr> errors(count);
  parallel_for(count, jobs, [&](std::size_t i) {
    try {
      fn(i);
    } catch (...) {
      errors[i] = std::current_exception();
    }
  });
  for (auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

// What decides whether the project list is rewritten: a digest of its HTML and JSON (libstdc++'s
// 64-bit murmur hashes and the lengths; SHA-256 took a tenth of a no-op rebuild of 10,000 wheels).
std::string page_digest(std::string_view html, std::string_view json) {
  const std::hash<std::string_view> h;
  return fmt::format("{:016x}{:016x}-{}-{}", h(html), h(json), html.size(), json.size());
}

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

// The names of the files directly in `dir` that may be distributions (`*.whl`, `*.tar.gz`, not
// hidden), sorted.
Result<std::vector<std::string>> list_candidates(const fs::path& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return fail(fmt::format("{}: cannot list: {}", dir.string(), std::strerror(errno)));
  std::vector<std::string> out;
  for (errno = 0; const dirent* e = ::readdir(d); errno = 0) {
    const std::string_view name = e->d_name;
    if (name.empty() || name.front() == '.' || !(name.ends_with(".whl") || name.ends_with(".tar.gz"))) continue;
    out.emplace_back(name);
  }
  const int err = errno;
  ::closedir(d);
  if (err != 0) return fail(fmt::format("{}: cannot list: {}", dir.string(), std::strerror(err)));
  std::sort(out.begin(), out.end());
  return out;
}

class Builder {
 public:
  explicit Builder(const BuildOptions& options) : options_(options), jobs_(std::max(1U, options.jobs)) {}

  Result<BuildReport> run() {
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

    load_state();
    if (auto ok = load_yanked(); !ok) return fail(ok.error());
    if (auto ok = scan(); !ok) return fail(ok.error());
    if (auto ok = merge_variants(); !ok) return fail(ok.error());
    apply_yanked();
    render_pages();

    // Nothing has changed in SITE so far; from here on only file-system failures stop the build.
    write_files();
    write_pages();
    remove_stale();
    save_state();
    return std::move(report_);
  }

 private:
  void load_state() {
    state_path_ = site_ / ".vwheel" / "state.json";
    auto mapped = MappedFile::open(state_path_);
    if (!mapped) return;
    state_file_.emplace(std::move(*mapped));
    auto state = parse_state(state_file_->view());
    if (!state) {
      report_.warnings.push_back(
          fmt::format("{}: {}, rebuilding everything", state_path_.string(), state.error().message));
      return;
    }
    old_ = std::move(*state);
    old_valid_ = true;
  }

  Result<void> load_yanked() {
    if (!options_.yanked) return {};
    auto text = read_file(*options_.yanked);
    if (!text) return fail(text.error());
    auto list = YankList::parse(*text, options_.yanked->string());
    if (!list) return fail(list.error());
    yanked_ = std::move(*list);
    yanked_sha256_ = sha256_hex(*text);
    return {};
  }

  [[nodiscard]] fs::path files_dir(const std::string& project) const { return site_ / "files" / project; }
  [[nodiscard]] fs::path pages_dir(const std::string& project) const { return site_ / "simple" / project; }

  // True when the previous build's record of `d` still holds: same source identity, and the
  // file and its metadata are still in SITE.
  bool reuse(Dist& d) const {
    const auto it = old_.files.find(d.filename);
    if (it == old_.files.end()) return false;
    const FileState& old = it->second;
    if (old.project != d.name.project || old.stat != d.stat) return false;
    thread_local std::string rel;
    rel.assign("files/").append(d.name.project).append("/").append(d.filename);
    struct stat st {};
    if (::fstatat(site_fd_, rel.c_str(), &st, 0) != 0 || static_cast<std::uint64_t>(st.st_ino) != old.site_inode ||
        static_cast<std::uint64_t>(st.st_size) != d.stat.size) {
      return false;
    }
    if (d.name.kind == DistKind::Wheel) {
      if (!old.metadata_sha256) return false;
      rel.append(kMetadataSuffix);
      if (::fstatat(site_fd_, rel.c_str(), &st, 0) != 0 ||
          static_cast<std::uint64_t>(st.st_size) != old.metadata_size) {
        return false;
      }
    }
    d.sha256 = old.sha256;
    d.site_inode = old.site_inode;
    d.metadata_sha256 = old.metadata_sha256;
    d.metadata_size = old.metadata_size;
    d.requires_python = old.requires_python;
    return true;
  }

  void process(Dist& d) const {
    struct stat st {};
    if (::fstatat(wheel_dir_fd_, d.filename.c_str(), &st, 0) != 0 || !S_ISREG(st.st_mode)) {
      d.not_regular = true;
      return;
    }
    d.stat = file_stat(st);
    auto name = identify(d.filename);
    if (!name) {
      d.error = name.error();
      return;
    }
    d.name = std::move(**name);
    if (reuse(d)) return;
    const fs::path source = options_.wheel_dir / d.filename;
    auto hashed = hash_file(source);
    if (!hashed) {
      d.error = hashed.error();
      return;
    }
    d.hashed = true;
    d.place = true;
    d.stat = hashed->stat;
    d.sha256 = std::move(hashed->sha256);
    if (d.name.kind != DistKind::Wheel) return;
    auto info = inspect_wheel(source, d.name);
    if (!info) {
      d.error = info.error();
      return;
    }
    d.metadata_sha256 = sha256_hex(info->metadata);
    d.metadata_size = info->metadata.size();
    d.requires_python = std::move(info->requires_python);
    d.metadata = std::move(info->metadata);
  }

  Result<void> scan() {
    auto names = list_candidates(options_.wheel_dir);
    if (!names) return fail(names.error());
    dists_.resize(names->size());
    for (std::size_t i = 0; i < names->size(); ++i) dists_[i].filename = std::move((*names)[i]);
    parallel_for(dists_.size(), jobs_, [&](std::size_t i) { process(dists_[i]); });
    std::vector<std::string> errors;
    for (auto& d : dists_) {
      if (d.not_regular) {
        report_.warnings.push_back(
            fmt::format("{}: not a regular file, skipped", (options_.wheel_dir / d.filename).string()));
        d.dropped = true;
        continue;
      }
      if (!d.error) {
        report_.files_hashed += d.hashed ? 1 : 0;
        continue;
      }
      d.dropped = true;
      if (options_.skip_invalid) {
        report_.warnings.push_back(d.error->message + " (skipped)");
      } else {
        errors.push_back(d.error->message);
      }
    }
    if (!errors.empty()) {
      return fail(Error(errors.front() + " (nothing in the site was changed; --skip-invalid skips such files)",
                        std::vector<std::string>(errors.begin() + 1, errors.end())));
    }
    return {};
  }

  void build_variants(Variants& v) const {
    if (const auto it = old_.variants.find(v.filename);
        it != old_.variants.end() && it->second.inputs == v.inputs && it->second.project == v.project) {
      struct stat st {};
      const std::string rel = "files/" + v.project + "/" + v.filename;
      if (::fstatat(site_fd_, rel.c_str(), &st, 0) == 0 && static_cast<std::uint64_t>(st.st_size) == it->second.size) {
        v.sha256 = it->second.sha256;
        v.size = it->second.size;
        return;
      }
    }
    std::vector<fs::path> paths;
    paths.reserve(v.wheels.size());
    for (const std::size_t i : v.wheels) paths.push_back(options_.wheel_dir / dists_[i].filename);
    wheel::IndexJsonOptions opts;
    opts.jobs = 1;
    auto result = wheel::build_index_json(paths, opts);
    if (!result) {
      v.error = result.error();
      return;
    }
    for (auto& f : result->files) {
      if (f.filename != v.filename) continue;
      v.sha256 = sha256_hex(f.text);
      v.size = f.text.size();
      v.text = std::move(f.text);
      return;
    }
    v.error = Error(fmt::format("{}: no variant metadata merged from {} wheel(s)", v.filename, paths.size()));
  }

  Result<void> merge_variants() {
    std::map<std::string, Variants> groups;
    for (std::size_t i = 0; i < dists_.size(); ++i) {
      const Dist& d = dists_[i];
      if (d.dropped || !d.name.variant_namever) continue;
      const std::string filename = *d.name.variant_namever + std::string(kVariantsSuffix);
      auto [it, fresh] = groups.try_emplace(filename);
      if (fresh) {
        it->second.filename = filename;
        it->second.project = d.name.project;
        it->second.version = d.name.version;
      }
      it->second.wheels.push_back(i);
    }
    for (auto& [filename, v] : groups) {
      if (!is_safe_filename(filename)) v.error = Error(fmt::format("{}: not a safe file name", filename));
      Sha256 sha;
      for (const std::size_t i : v.wheels) {
        sha.update(dists_[i].filename);
        sha.update(std::string_view("\0", 1));
        sha.update(dists_[i].sha256);
        sha.update("\n");
      }
      v.inputs = to_hex(sha.finish());
      variants_.push_back(std::move(v));
    }
    parallel_for(variants_.size(), jobs_, [&](std::size_t i) {
      if (!variants_[i].error) build_variants(variants_[i]);
    });
    std::vector<std::string> errors;
    std::vector<Variants> kept;
    for (auto& v : variants_) {
      if (!v.error) {
        kept.push_back(std::move(v));
        continue;
      }
      if (!options_.skip_invalid) {
        errors.push_back(v.error->message);
        errors.insert(errors.end(), v.error->details.begin(), v.error->details.end());
        continue;
      }
      report_.warnings.push_back(
          fmt::format("{} (its {} variant wheel(s) skipped)", v.error->message, v.wheels.size()));
      for (const std::size_t i : v.wheels) dists_[i].dropped = true;
    }
    if (!errors.empty()) {
      return fail(Error(errors.front() + " (nothing in the site was changed)",
                        std::vector<std::string>(errors.begin() + 1, errors.end())));
    }
    variants_ = std::move(kept);
    return {};
  }

  void apply_yanked() {
    if (!yanked_) return;
    for (auto& d : dists_) {
      if (d.dropped) continue;
      if (const YankEntry* e = yanked_->find(d.filename, d.name.project, d.name.version)) d.yanked = e->reason;
    }
    for (auto& w : yanked_->unused_warnings()) report_.warnings.push_back(std::move(w));
  }

  [[nodiscard]] std::string file_url(const std::string& project, const std::string& filename) const {
    std::string url = base_url_.empty() ? "../.." : base_url_;
    url += "/files/";
    url += project;
    url += '/';
    url += url_encode_segment(filename);
    return url;
  }

  // A project's pages are rendered and written only when their digest changes: a hash of
  // everything they show (and of how pages are rendered, `render_fingerprint_`), computed
  // without rendering them.
  void render_project(Project& p) const {
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

  [[nodiscard]] bool exists_in_site(const std::string& relative) const {
    struct stat st {};
    return ::fstatat(site_fd_, relative.c_str(), &st, 0) == 0;
  }

  // A digest of the pages of a sample project and project list: changes whenever the renderer
  // does, so that a new vwheel rewrites the pages an older one wrote.
  static std::string render_fingerprint() {
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

  void render_pages() {
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
    write_root_ =
        old_.root != root_hash_ || !exists_in_site("simple/index.html") || !exists_in_site("simple/index.json");
  }

  // The wheels, their metadata and the variants files, before any page names them.
  void write_files() {
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
    for (const std::size_t i : variants_todo)
      written.push_back(files_dir(variants_[i].project) / variants_[i].filename);
    if (!written.empty()) {
      wrote_ = true;
      make_durable(written, site_);
    }
  }

  // The project pages, then the project list.
  void write_pages() {
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

  // What the previous build wrote and this one does not list any more.
  void remove_stale() {
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

  // True when the new state would equal the old one: nothing re-hashed, placed, written or
  // removed, the same counts, the same options. (Reused records are copied unchanged.)
  [[nodiscard]] bool state_unchanged() const {
    if (!old_valid_ || wrote_ || report_.files_hashed != 0 || old_.base_url != base_url_ ||
        old_.yanked_sha256 != yanked_sha256_ || old_.root != root_hash_) {
      return false;
    }
    const auto kept =
        static_cast<std::size_t>(std::count_if(dists_.begin(), dists_.end(), [](const Dist& d) { return !d.dropped; }));
    return old_.files.size() == kept && old_.variants.size() == variants_.size() &&
           old_.pages.size() == projects_.size();
  }

  void save_state() {
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

  const BuildOptions& options_;
  unsigned jobs_;
  DirFd site_fd_;
  DirFd wheel_dir_fd_;
  fs::path site_;
  std::string base_url_;
  fs::path state_path_;
  std::optional<MappedFile> state_file_;
  State old_;
  bool old_valid_ = false;  // a state was read
  std::optional<YankList> yanked_;
  std::string yanked_sha256_;
  std::vector<Dist> dists_;
  std::vector<Variants> variants_;
  std::vector<Project> projects_;
  std::vector<std::string> project_names_;
  std::string root_html_;
  std::string root_json_;
  std::string root_hash_;
  std::string render_fingerprint_;
  bool write_root_ = false;
  bool wrote_ = false;
  BuildReport report_;
};

}  // namespace

Result<BuildReport> build_site(const BuildOptions& options) { return Builder(options).run(); }

}  // namespace vwheel::index

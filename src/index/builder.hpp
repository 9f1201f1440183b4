#pragma once
// Private to the index component: the state of one `build_site` run. builder_scan.cpp reads
// WHEELDIR and the previous build's state (what to hash, reuse, merge, yank); site.cpp renders and
// writes the pages and files and saves the new state.

#include <cstdint>
#include <exception>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "index/dist.hpp"
#include "index/files.hpp"
#include "index/state.hpp"
#include "index/yanked.hpp"
#include "vwheel/core/error.hpp"
#include "vwheel/core/parallel.hpp"
#include "vwheel/index/site.hpp"

namespace vwheel::index::detail {

inline constexpr std::string_view kMetadataSuffix = ".metadata";
inline constexpr std::string_view kVariantsSuffix = "-variants.json";

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

// What decides whether the project list is rewritten (see site.cpp).
[[nodiscard]] std::string page_digest(std::string_view html, std::string_view json);

// The names of the files directly in `dir` that may be distributions (`*.whl`, `*.tar.gz`, not
// hidden), sorted.
[[nodiscard]] Result<std::vector<std::string>> list_candidates(const std::filesystem::path& dir);

class Builder {
 public:
  explicit Builder(const BuildOptions& options) : options_(options), jobs_(std::max(1U, options.jobs)) {}

  Result<BuildReport> run();

 private:
  void load_state();

  Result<void> load_yanked();

  [[nodiscard]] std::filesystem::path files_dir(const std::string& project) const { return site_ / "files" / project; }
  [[nodiscard]] std::filesystem::path pages_dir(const std::string& project) const { return site_ / "simple" / project; }

  // True when the previous build's record of `d` still holds: same source identity, and the
  // file and its metadata are still in SITE.
  bool reuse(Dist& d) const;

  void process(Dist& d) const;

  Result<void> scan();

  void build_variants(Variants& v) const;

  Result<void> merge_variants();

  void apply_yanked();
  // Warns about each version with variant wheels but no other distribution: installers without
  // variant support ignore variant wheels, so they find nothing for it.
  void warn_variant_only_versions();

  [[nodiscard]] std::string file_url(const std::string& project, const std::string& filename) const;

  // A project's pages are rendered and written only when their digest changes: a hash of
  // everything they show (and of how pages are rendered, `render_fingerprint_`), computed
  // without rendering them.
  void render_project(Project& p) const;

  [[nodiscard]] bool exists_in_site(const std::string& relative) const;

  // A digest of the pages of a sample project and project list: changes whenever the renderer
  // does, so that a new vwheel rewrites the pages an older one wrote.
  static std::string render_fingerprint();

  void render_pages();

  // The wheels, their metadata and the variants files, before any page names them.
  void write_files();

  // The project pages, then the project list.
  void write_pages();

  // What the previous build wrote and this one does not list any more.
  void remove_stale();

  // True when the new state would equal the old one: nothing re-hashed, placed, written or
  // removed, the same counts, the same options. (Reused records are copied unchanged.)
  [[nodiscard]] bool state_unchanged() const;

  void save_state();

  const BuildOptions& options_;
  unsigned jobs_;
  DirFd site_fd_;
  DirFd wheel_dir_fd_;
  std::filesystem::path site_;
  std::string base_url_;
  std::filesystem::path state_path_;
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

}  // namespace vwheel::index::detail

#include "index/builder.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <functional>
#include <map>
#include <utility>
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

namespace vwheel::index::detail {
namespace fs = std::filesystem;

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

void Builder::load_state() {
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

Result<void> Builder::load_yanked() {
  if (!options_.yanked) return {};
  auto text = read_file(*options_.yanked);
  if (!text) return fail(text.error());
  auto list = YankList::parse(*text, options_.yanked->string());
  if (!list) return fail(list.error());
  yanked_ = std::move(*list);
  yanked_sha256_ = sha256_hex(*text);
  return {};
}

bool Builder::reuse(Dist& d) const {
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
    if (::fstatat(site_fd_, rel.c_str(), &st, 0) != 0 || static_cast<std::uint64_t>(st.st_size) != old.metadata_size) {
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

void Builder::process(Dist& d) const {
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

Result<void> Builder::scan() {
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

void Builder::build_variants(Variants& v) const {
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

Result<void> Builder::merge_variants() {
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
    report_.warnings.push_back(fmt::format("{} (its {} variant wheel(s) skipped)", v.error->message, v.wheels.size()));
    for (const std::size_t i : v.wheels) dists_[i].dropped = true;
  }
  if (!errors.empty()) {
    return fail(Error(errors.front() + " (nothing in the site was changed)",
                      std::vector<std::string>(errors.begin() + 1, errors.end())));
  }
  variants_ = std::move(kept);
  return {};
}

void Builder::warn_variant_only_versions() {
  struct Seen {
    std::string version_text;  // as in the first file name, for the message
    bool variant = false;
    bool plain = false;  // a non-variant wheel or an sdist
  };
  // By project and normalized version: `1.0` and `1.0.0` are one version to an installer.
  std::map<std::pair<std::string, std::string>, Seen> versions;
  for (const Dist& d : dists_) {
    if (d.dropped) continue;
    auto& seen = versions[{d.name.project, d.name.version.to_string()}];
    if (seen.version_text.empty()) seen.version_text = d.name.version_text;
    (d.name.variant_namever ? seen.variant : seen.plain) = true;
  }
  for (const auto& [key, seen] : versions) {
    if (!seen.variant || seen.plain) continue;
    report_.warnings.push_back(fmt::format(
        "{}: installers without variant support will find nothing for {} (it has only variant wheels; add a "
        "non-variant wheel or an sdist)",
        key.first, seen.version_text));
  }
}

void Builder::apply_yanked() {
  if (!yanked_) return;
  for (auto& d : dists_) {
    if (d.dropped) continue;
    if (const YankEntry* e = yanked_->find(d.filename, d.name.project, d.name.version)) d.yanked = e->reason;
  }
  for (auto& w : yanked_->unused_warnings()) report_.warnings.push_back(std::move(w));
}

}  // namespace vwheel::index::detail

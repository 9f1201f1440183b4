// Planning one wheel's install from its archive: the checks of its names, modes, sizes, WHEEL,
// METADATA and RECORD, and where each member goes. Running the plan is installer.cpp's.

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <fmt/format.h>

#include "digest.hpp"
#include "prepare.hpp"
#include "vwheel/install/layout.hpp"
#include "vwheel/pep440/version.hpp"
#include "vwheel/wheel/record.hpp"
#include "vwheel/wheel_name/names.hpp"

namespace vwheel::install::detail {
namespace fs = std::filesystem;

std::string abbreviated(std::string_view name) {
  constexpr std::size_t kShown = 32;
  if (name.size() <= 3 * kShown) return std::string(name);
  const auto continuation = [&](std::size_t i) { return (static_cast<unsigned char>(name[i]) & 0xC0) == 0x80; };
  // Cut between characters, not inside one's UTF-8 bytes.
  std::size_t head = kShown;
  while (head > 0 && continuation(head)) --head;
  std::size_t tail = name.size() - kShown;
  while (tail < name.size() && continuation(tail)) ++tail;
  return fmt::format("{}…{}", name.substr(0, head), name.substr(tail));
}

Result<void> check_member_length(std::string_view name) {
  if (name.size() >= kPathMax) {
    return fail(fmt::format("member `{}`: a name of {} bytes (a path has at most {} bytes)", abbreviated(name),
                            name.size(), kPathMax - 1));
  }
  std::size_t start = 0;
  while (start < name.size()) {
    const auto slash = std::min(name.find('/', start), name.size());
    if (slash - start > kNameMax) {
      return fail(fmt::format("member `{}`: a path component of {} bytes, `{}` (at most {} bytes expected)",
                              abbreviated(name), slash - start, abbreviated(name.substr(start, slash - start)),
                              kNameMax));
    }
    start = slash + 1;
  }
  return {};
}

namespace {

/// The member name a planned file comes from (its installer-written name for generated files).
std::string member_name(const Prepared& p, const PlannedFile& f) {
  if (f.entry == SIZE_MAX || f.key == p.root) return f.relative;
  const auto stem = p.dist_info.substr(0, p.dist_info.size() - std::string_view(".dist-info").size());
  return fmt::format("{}.data/{}/{}", stem, to_string(f.key), f.relative);
}

/// Each directory above `relative` (`/`-separated), the deepest first, until `fn` returns false.
template <class Fn>
void each_parent(std::string_view relative, Fn&& fn) {
  for (auto slash = relative.rfind('/'); slash != std::string_view::npos && slash > 0;
       slash = relative.rfind('/', slash - 1)) {
    if (!fn(relative.substr(0, slash))) return;
  }
}

}  // namespace

Result<void> check_member_paths(const Prepared& p) {
  constexpr auto kSchemes = std::size(kKeys);
  std::array<std::unordered_map<std::string_view, const PlannedFile*>, kSchemes> files;
  for (const auto& f : p.files) files[static_cast<std::size_t>(f.key)].emplace(f.relative, &f);
  // A directory is looked at once: the walk up from a file stops at the first one seen before.
  std::array<std::unordered_set<std::string_view>, kSchemes> dirs;
  for (const auto& f : p.files) {
    const auto k = static_cast<std::size_t>(f.key);
    const PlannedFile* file = nullptr;
    each_parent(f.relative, [&](std::string_view dir) {
      if (!dirs[k].insert(dir).second) return false;
      const auto it = files[k].find(dir);
      if (it != files[k].end()) file = it->second;
      return file == nullptr;
    });
    if (file != nullptr) {
      return fail(fmt::format("member `{}` is a file, but member `{}` is below it (expected a path to be a file or a "
                              "directory, not both)",
                              member_name(p, *file), member_name(p, f)));
    }
  }
  return {};
}

Result<void> check_path_lengths(const Environment& env, const Prepared& p) {
  std::array<std::size_t, std::size(kKeys)> room{};
  for (auto key : kKeys) {
    // The longer of its two homes, and the `/` after it.
    auto longest = scheme_dir(env, p, key).native().size();
    if (!p.staging.empty()) longest = std::max(longest, p.stage(key).native().size());
    room[static_cast<std::size_t>(key)] = longest + 1;
  }
  for (const auto& f : p.files) {
    const auto length = room[static_cast<std::size_t>(f.key)] + f.relative.size();
    if (length >= kPathMax) {
      const auto name = member_name(p, f);
      return fail(fmt::format("member `{}` ({} bytes): its path in the environment would be {} bytes long (a path has "
                              "at most {} bytes)",
                              abbreviated(name), name.size(), length, kPathMax - 1));
    }
  }
  return {};
}

Result<void> check_between_wheels(const Environment& env, const std::vector<RunWheel>& wheels) {
  struct Owner {
    std::size_t wheel = 0;
    const PlannedFile* file = nullptr;
  };
  // Each scheme directory by its real path: purelib and platlib are often one directory, spelled
  // the same or through a link, and the data directory holds the others.
  std::unordered_map<std::string, std::string> real_roots;
  const auto real_root = [&](const fs::path& dir) -> const std::string& {
    auto [it, added] = real_roots.try_emplace(dir.native());
    if (added) {
      std::error_code ec;
      auto real = fs::weakly_canonical(dir, ec);
      it->second = (ec ? dir.lexically_normal() : real).native();
      while (it->second.size() > 1 && it->second.back() == '/') it->second.pop_back();
    }
    return it->second;
  };
  std::unordered_map<std::string, Owner> files;
  std::unordered_map<std::string, Owner> dirs;
  const auto conflict = [&](const std::string& path, const Owner& file, const Owner& dir) {
    const auto& fw = wheels[file.wheel];
    const auto& dw = wheels[dir.wheel];
    const auto what = [](const RunWheel& w, const PlannedFile& f) {
      return fmt::format("member `{}`", member_name(*w.prepared, f));
    };
    if (file.wheel == dir.wheel) {
      return fail(fmt::format("{}: `{}` would be a file ({}) and a directory ({}); expected one or the other",
                              fw.label, path, what(fw, *file.file), what(dw, *dir.file)));
    }
    return fail(fmt::format("`{}` would be a file ({}, {}) and a directory ({}, {}); expected one or the other", path,
                            fw.label, what(fw, *file.file), dw.label, what(dw, *dir.file)));
  };
  std::string path;
  for (std::size_t w = 0; w < wheels.size(); ++w) {
    const auto& p = *wheels[w].prepared;
    for (const auto& f : p.files) {
      const Owner self{w, &f};
      path = real_root(scheme_dir(env, p, f.key));
      path += '/';
      path += f.relative;
      if (const auto d = dirs.find(path); d != dirs.end()) return conflict(path, self, d->second);
      files.try_emplace(path, self);  // the same file from two wheels: the later one wins, as with pip
      // Every directory above it once: the walk up stops at the first one seen before.
      for (auto slash = path.rfind('/'); slash != std::string::npos && slash > 0; slash = path.rfind('/', slash - 1)) {
        auto dir = path.substr(0, slash);
        if (const auto f2 = files.find(dir); f2 != files.end()) return conflict(dir, f2->second, self);
        if (!dirs.try_emplace(std::move(dir), self).second) break;
      }
    }
  }
  return {};
}

Result<void> plan(const wheel::Wheel& w, const InstallOptions& options, Prepared& p) {
  const auto& entries = w.archive.entries();
  // dist-info name must match the file name.
  const auto di_stem = w.dist_info.substr(0, w.dist_info.size() - 10);
  const auto dash = di_stem.find('-');
  if (dash == std::string::npos) return fail(fmt::format("`{}`: expected NAME-VERSION.dist-info", w.dist_info));
  if (wheel_name::canonicalize_name(di_stem.substr(0, dash)) != wheel_name::canonicalize_name(w.name.name) ||
      pep440::normalized_or_verbatim(di_stem.substr(dash + 1)) != pep440::normalized_or_verbatim(w.name.version)) {
    return fail(fmt::format("`{}` does not match the file name's {} {}", w.dist_info, w.name.name, w.name.version));
  }
  std::uint64_t total = 0;
  for (const auto& e : entries) {
    if (auto ok = check_member_name(e.name); !ok) return ok;
    if (auto ok = check_member_length(e.name); !ok) return ok;
    if (auto ok = check_member_mode(e.name, e.unix_mode()); !ok) return ok;
    total += e.uncompressed_size;
    if (total > options.limits.max_total_size) {
      return fail(fmt::format("members total more than {} bytes uncompressed (the limit; a zip bomb?)",
                              options.limits.max_total_size));
    }
    if (e.uncompressed_size > options.limits.ratio_min_size &&
        e.uncompressed_size / std::max<std::uint64_t>(e.compressed_size, 1) > options.limits.max_ratio) {
      return fail(fmt::format("member `{}`: compression ratio {}:1 above the limit {}:1 (a zip bomb?)", e.name,
                              e.uncompressed_size / std::max<std::uint64_t>(e.compressed_size, 1),
                              options.limits.max_ratio));
    }
  }
  auto read_small = [&](const std::string& name) -> Result<std::optional<std::string>> {
    const auto* e = w.archive.find(name);
    if (e == nullptr) return std::optional<std::string>();
    auto data = w.archive.read(*e, std::uint64_t{64} << 20);
    if (!data) return fail(data.error());
    return std::optional<std::string>(std::move(*data));
  };
  auto wheel_text = read_small(w.dist_info + "/WHEEL");
  if (!wheel_text) return fail(wheel_text.error());
  if (!*wheel_text) return fail(fmt::format("no `{}/WHEEL` file", w.dist_info));
  auto info = parse_wheel_info(**wheel_text, w.dist_info + "/WHEEL");
  if (!info) return fail(info.error());
  p.root = info->root_is_purelib ? SchemeKey::Purelib : SchemeKey::Platlib;
  if (info->version_minor > 0) {
    // The wheel spec: a newer minor version installs, with a warning (a newer major is refused).
    p.warnings.push_back(
        fmt::format("{}/WHEEL: `Wheel-Version: {}.{}` is newer than the 1.0 this installer knows; "
                    "installing it anyway",
                    w.dist_info, info->version_major, info->version_minor));
  }
  auto metadata_text = read_small(w.dist_info + "/METADATA");
  if (!metadata_text) return fail(metadata_text.error());
  if (!*metadata_text) return fail(fmt::format("no `{}/METADATA` file", w.dist_info));
  auto nv = parse_metadata_name_version(**metadata_text);
  p.name = nv.name.empty() ? w.name.name : nv.name;
  p.version = nv.version.empty() ? w.name.version : nv.version;
  if (wheel_name::canonicalize_name(p.name) != wheel_name::canonicalize_name(w.name.name)) {
    return fail(
        fmt::format("`{}/METADATA`: Name `{}` does not match the file name's `{}`", w.dist_info, p.name, w.name.name));
  }

  auto record_text = w.archive.read(entries[w.record_index], std::uint64_t{256} << 20);
  if (!record_text) return fail(record_text.error());
  auto rows = wheel::parse_record(*record_text);
  if (!rows) return fail(rows.error().with_context(w.dist_info + "/RECORD"));
  std::map<std::string_view, const wheel::RecordRow*> record;
  for (const auto& r : *rows) {
    // The same path twice is harmless only when both rows agree.
    const auto [it, added] = record.emplace(r.path, &r);
    if (!added && it->second->hash != r.hash) {
      return fail(fmt::format("RECORD lists `{}` twice with different hashes", r.path));
    }
  }
  const auto record_name = w.dist_info + "/RECORD";
  const auto data_dir = di_stem + ".data";
  std::set<std::pair<SchemeKey, std::string>> destinations;
  std::set<std::string_view> members;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const auto& e = entries[i];
    if (e.is_directory()) continue;
    members.insert(e.name);
    if (e.name == record_name || e.name == record_name + ".jws" || e.name == record_name + ".p7s") continue;
    auto it = record.find(e.name);
    if (it == record.end()) return fail(fmt::format("member `{}` is not listed in RECORD", e.name));
    const auto& row = *it->second;
    if (row.hash.empty()) return fail(fmt::format("member `{}`: RECORD has no hash for it", e.name));
    if (auto ok = detail::check_record_algorithm(row.hash); !ok) {
      return fail(ok.error().with_context(fmt::format("member `{}`", e.name)));
    }
    if (!row.size.empty() && row.size != std::to_string(e.uncompressed_size)) {
      return fail(fmt::format("member `{}`: size {} but RECORD says {}", e.name, e.uncompressed_size, row.size));
    }
    auto dest = map_member(e.name, data_dir, info->root_is_purelib);
    if (!dest) return fail(dest.error());
    if (!destinations.emplace(dest->key, dest->relative).second) {
      return fail(
          fmt::format("member `{}`: a second member installs to {}/{}", e.name, to_string(dest->key), dest->relative));
    }
    const auto mode = e.unix_mode();
    p.files.push_back({i, dest->key, dest->relative, row.hash, std::to_string(e.uncompressed_size),
                       (dest->key == SchemeKey::Scripts || (mode & 0111) != 0) ? 0755U : 0644U});
  }
  for (const auto& r : *rows) {
    if (r.path == record_name || r.path.ends_with("/RECORD.jws") || r.path.ends_with("/RECORD.p7s")) continue;
    if (!members.contains(r.path)) return fail(fmt::format("RECORD lists `{}`, which is not in the wheel", r.path));
  }
  // Before anything is written: `x` and `x/y` would fail in the staging directory.
  if (auto ok = check_member_paths(p); !ok) return ok;
  // entry points: checked now, written later.
  return {};
}

}  // namespace vwheel::install::detail

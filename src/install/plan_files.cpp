// Planning one wheel's install from its archive: the checks of its names, modes, sizes, WHEEL,
// METADATA and RECORD, and where each member goes. Running the plan is installer.cpp's.

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "detail.hpp"
#include "prepare.hpp"
#include "vwheel/install/layout.hpp"
#include "vwheel/pep440/version.hpp"
#include "vwheel/wheel/record.hpp"
#include "vwheel/wheel_name/names.hpp"

namespace vwheel::install::detail {

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
  // entry points: checked now, written later.
  return {};
}

}  // namespace vwheel::install::detail

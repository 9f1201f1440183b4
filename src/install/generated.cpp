// The files the installer writes for a staged wheel, beside its members: scripts' shebangs
// rewritten, entry-point launchers, INSTALLER, REQUESTED, direct_url.json, bytecode on request,
// and RECORD.

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "digest.hpp"
#include "place.hpp"
#include "installed.hpp"
#include "prepare.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/core/hash.hpp"
#include "vwheel/core/process.hpp"
#include "vwheel/install/install.hpp"
#include "vwheel/wheel/wheel.hpp"

namespace vwheel::install::detail {
namespace fs = std::filesystem;

Result<void> finish_staging(const wheel::Wheel& w, const Environment& env, const WheelRequest& request,
                            const std::string& archive_sha, Prepared& p) {
  for (auto& f : p.files) {
    if (f.key != SchemeKey::Scripts) continue;
    const auto path = p.stage(f.key) / f.relative;
    auto content = read_file(path);
    if (!content) return fail(content.error());
    if (auto rewritten = rewrite_shebang(*content, env.python)) {
      // Never modify in place: the staged file may be a hard link into the cache.
      fs::remove(path);
      if (auto ok = detail::write_new_file(path, *rewritten, 0755); !ok) return ok;
      f.hash = detail::record_sha256(*rewritten);
      f.size = std::to_string(rewritten->size());
    } else if (::chmod(path.c_str(), 0755) != 0) {
      return fail(fmt::format("{}: cannot make executable: {}", path.string(), std::strerror(errno)));
    }
  }
  std::vector<EntryPoint> entry_points;
  if (const auto* e = w.archive.find(w.dist_info + "/entry_points.txt")) {
    auto text = w.archive.read(*e, std::uint64_t{16} << 20);
    if (!text) return fail(text.error());
    auto eps = parse_entry_points(*text);
    if (!eps) return fail(eps.error().with_context(w.dist_info));
    // As pip: `pip3.7` in a wheel built on 3.7 is written as the running Python's `pip3.11`.
    entry_points = with_versioned_script_names(std::move(*eps), env.python_version);
  }
  auto add_generated = [&](SchemeKey key, const std::string& rel, const std::string& content,
                           unsigned mode) -> Result<void> {
    const auto path = p.stage(key) / rel;
    // The dist-info directory exists (METADATA is in it); a script's may not.
    if (key != p.root || !rel.starts_with(p.dist_info + "/")) {
      if (auto ok = detail::make_dir(path.parent_path()); !ok) return ok;
    }
    // Replaces a member of the same name (never written through: it may be a link into the cache).
    if (auto ok = detail::write_replacing(path, content, mode); !ok) return ok;
    std::erase_if(p.files, [&](const PlannedFile& f) { return f.key == key && f.relative == rel; });
    p.files.push_back({SIZE_MAX, key, rel, detail::record_sha256(content), std::to_string(content.size()), mode});
    return {};
  };
  // A launcher clashing with a member under the script's name (a directory there): the error
  // names both, not the staging path the write would fail on.
  for (const auto& ep : entry_points) {
    const auto group = [](const EntryPoint& e) { return e.gui ? "[gui_scripts]" : "[console_scripts]"; };
    for (const auto& f : p.files) {
      if (f.key == SchemeKey::Scripts && f.relative.starts_with(ep.name + "/")) {
        return fail(fmt::format("entry_points.txt: script `{}` in {} clashes with {}, which makes `{}` a directory",
                                ep.name, group(ep), file_label(p, f), ep.name));
      }
    }
  }
  for (const auto& ep : entry_points) {
    if (auto ok = add_generated(SchemeKey::Scripts, ep.name, make_launcher(ep, env.python), 0755); !ok) return ok;
  }
  if (auto ok = add_generated(p.root, p.dist_info + "/INSTALLER", "vwheel\n", 0644); !ok) return ok;
  if (request.requested) {
    if (auto ok = add_generated(p.root, p.dist_info + "/REQUESTED", "", 0644); !ok) return ok;
  }
  if (request.direct) {
    const auto direct = request.origin ? *request.origin
                                       : DirectUrl{file_url(fs::absolute(request.path).lexically_normal()), archive_sha};
    if (auto ok = add_generated(p.root, p.dist_info + "/direct_url.json", direct_url_json(direct), 0644); !ok) return ok;
  }
  return {};
}

Result<void> compile(const Environment& env, Prepared& p) {
  for (auto key : {SchemeKey::Purelib, SchemeKey::Platlib}) {
    std::vector<std::string> py;
    for (const auto& f : p.files) {
      if (f.key == key && f.relative.ends_with(".py")) py.push_back((p.stage(key) / f.relative).string());
    }
    if (py.empty()) continue;
    ProcessRequest req;
    req.argv = {env.python.string(),
                "-m",
                "compileall",
                "-q",
                "-s",
                p.stage(key).string(),
                "-p",
                scheme_dir(env, p, key).string()};
    req.argv.insert(req.argv.end(), py.begin(), py.end());
    req.env = current_environment();
    req.timeout = std::chrono::minutes(10);
    auto run = run_process(req);
    if (!run) return fail(run.error());
    if (run->exit_code != 0) return fail(fmt::format("compileall failed: {}", last_line(run->out + run->err)));
    std::set<fs::path> caches;
    for (const auto& f : py) caches.insert(fs::path(f).parent_path() / "__pycache__");
    for (const auto& c : caches) {
      std::error_code ec;
      for (fs::directory_iterator it(c, ec), end; !ec && it != end; it.increment(ec)) {
        if (it->path().extension() == ".pyc")
          p.extra_record.push_back(scheme_dir(env, p, key) / fs::relative(it->path(), p.stage(key)));
      }
    }
  }
  return {};
}

Result<void> write_record(const Environment& env, const Prepared& p) {
  const auto root = scheme_dir(env, p, p.root);
  std::string text;
  std::vector<std::pair<std::string, std::string>> lines;
  for (const auto& f : p.files) {
    const auto dest = (scheme_dir(env, p, f.key) / f.relative).lexically_normal();
    if (!is_within(dest, scheme_dir(env, p, f.key))) {
      return fail(fmt::format("`{}` would install outside {}", f.relative, scheme_dir(env, p, f.key).string()));
    }
    lines.emplace_back(relative_path(dest, root), fmt::format("{},{}", f.hash, f.size));
  }
  for (const auto& extra : p.extra_record) lines.emplace_back(relative_path(extra, root), ",");
  const auto record_rel = p.dist_info + "/RECORD";
  lines.emplace_back(record_rel, ",");
  std::sort(lines.begin(), lines.end());
  for (const auto& [path, rest] : lines) {
    const bool quote = path.find_first_of(",\"\n\r") != std::string::npos;
    if (quote) {
      std::string q = "\"";
      for (char c : path) {
        if (c == '"') q += '"';
        q += c;
      }
      text += q + "\"," + rest + "\n";
    } else {
      text += path + "," + rest + "\n";
    }
  }
  return detail::write_replacing(p.stage(p.root) / record_rel, text, 0644);
}

}  // namespace vwheel::install::detail

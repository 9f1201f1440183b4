#include <fmt/format.h>

#include "vwheel/core/fs.hpp"
#include "vwheel/plan/plan.hpp"
#include "vwheel/resolve/requirements_file.hpp"
#include "vwheel/wheel_name/names.hpp"

namespace vwheel::plan {
namespace fs = std::filesystem;

namespace {

Result<void> load_file(const fs::path& path, bool constraint, Requirements& out, Settings& settings, int depth) {
  if (depth > 16) return fail(fmt::format("{}: requirement files nested more than 16 deep", path.string()));
  auto text = read_file(path);
  if (!text) return fail(text.error());
  auto parsed = resolve::parse_requirements_file(*text, path.string());
  if (!parsed) return fail(parsed.error());
  for (auto& entry : parsed->requirements) {
    if (!entry.hashes.empty()) {
      auto& h = out.hashes[wheel_name::canonicalize_name(entry.requirement.name)];
      h.insert(h.end(), entry.hashes.begin(), entry.hashes.end());
    }
    (constraint ? out.constraints : out.roots).push_back(std::move(entry.requirement));
  }
  if (!parsed->index_urls.empty()) {
    std::erase_if(settings.sources, [](const finder::Source& s) { return s.kind == finder::Source::Kind::index; });
    settings.sources.insert(settings.sources.begin(), {finder::Source::Kind::index, parsed->index_urls.back()});
  }
  for (const auto& u : parsed->extra_index_urls) settings.sources.push_back({finder::Source::Kind::index, u});
  for (const auto& f : parsed->find_links) {
    auto location = f.find("://") == std::string::npos ? (path.parent_path() / f).string() : f;
    settings.sources.push_back({finder::Source::Kind::find_links, location});
  }
  if (parsed->no_index) {
    std::erase_if(settings.sources, [](const finder::Source& s) { return s.kind == finder::Source::Kind::index; });
  }
  settings.pre = settings.pre || parsed->pre;
  settings.require_hashes = settings.require_hashes || parsed->require_hashes;
  for (const auto& ref : parsed->references) {
    fs::path nested = fs::path(ref.path).is_absolute() ? fs::path(ref.path) : path.parent_path() / ref.path;
    const bool c = constraint || ref.kind == resolve::FileReference::Kind::constraint;
    if (auto ok = load_file(nested, c, out, settings, depth + 1); !ok) return ok;
  }
  return {};
}

}  // namespace

Result<void> load_requirements(const std::vector<std::string>& requirements, const std::vector<fs::path>& requirement_files,
                               const std::vector<fs::path>& constraint_files, Requirements& out, Settings& settings) {
  for (const auto& r : requirements) {
    auto parsed = markers::Requirement::parse(r);
    if (!parsed) return fail(parsed.error());
    out.roots.push_back(std::move(*parsed));
  }
  for (const auto& f : requirement_files) {
    if (auto ok = load_file(f, false, out, settings, 0); !ok) return ok;
  }
  for (const auto& f : constraint_files) {
    if (auto ok = load_file(f, true, out, settings, 0); !ok) return ok;
  }
  return {};
}

}  // namespace vwheel::plan

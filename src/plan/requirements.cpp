#include <fmt/format.h>

#include "vwheel/core/fs.hpp"
#include "vwheel/core/text.hpp"
#include "vwheel/plan/plan.hpp"
#include "vwheel/resolve/requirements_file.hpp"
#include "vwheel/wheel_name/names.hpp"

namespace vwheel::plan {
namespace fs = std::filesystem;

namespace {

/// The PATH of a `-e PATH`, `-ePATH`, `--editable PATH` or `--editable=PATH` line.
std::optional<std::string_view> editable_value(std::string_view line) {
  for (std::string_view option : {"--editable", "-e"}) {
    if (!line.starts_with(option)) continue;
    auto rest = line.substr(option.size());
    if (option == "--editable" && !rest.empty() && rest.front() != '=' && !is_ascii_space(rest.front())) return std::nullopt;
    if (option == "--editable" && rest.starts_with('=')) rest.remove_prefix(1);
    return ascii_trim(rest);
  }
  return std::nullopt;
}

/// Takes the lines of a requirements file that are local sources or direct references
/// (plan/sources.hpp), editable ones (`-e PATH`) included, out of `text` (left blank, so the parser's line numbers stay right) into
/// `out`, relative paths made relative to the file's folder. A continued line is the parser's.
Result<void> take_sources(std::string& text, const fs::path& file, bool constraint, Requirements& out) {
  std::size_t start = 0;
  std::size_t number = 0;
  bool continued = false;
  while (start < text.size()) {
    ++number;
    auto end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + start, end - start);
    const bool continues = line.ends_with('\\');
    // A comment starts at `#` at the line's start or after whitespace (a URL's `#sha256=` stays).
    for (std::size_t i = 0; i < line.size(); ++i) {
      if (line[i] == '#' && (i == 0 || is_ascii_space(line[i - 1]))) {
        line = line.substr(0, i);
        break;
      }
    }
    line = ascii_trim(line);
    if (!continued && !continues && editable_value(line)) {
      auto ref = parse_editable(*editable_value(line));
      if (!ref) return fail(ref.error().with_context(fmt::format("{}:{}", file.string(), number)));
      if (constraint) {
        return fail(fmt::format("{}:{}: `{}`: a constraint must name a project, not an editable path", file.string(),
                                number, ref->text));
      }
      if (fs::path(*ref->path).is_relative() && !ref->path->starts_with('~')) {
        ref->path = (file.parent_path() / *ref->path).lexically_normal().string();
      }
      out.sources.push_back(std::move(*ref));
      std::fill(text.begin() + static_cast<std::ptrdiff_t>(start), text.begin() + static_cast<std::ptrdiff_t>(end), ' ');
    } else if (!continued && !continues && !line.empty() && line.front() != '-') {
      auto ref = parse_source(line);
      if (!ref) return fail(ref.error().with_context(fmt::format("{}:{}", file.string(), number)));
      if (*ref) {
        // pip takes `name @ URL` constraints (the project comes from there if it is required),
        // never unnamed ones.
        if (constraint && !(*ref)->name) {
          return fail(fmt::format("{}:{}: `{}`: a constraint must name its project (`name @ URL`), not a path",
                                  file.string(), number, redact_url((*ref)->text)));
        }
        (*ref)->constraint = constraint;
        if ((*ref)->path && fs::path(*(*ref)->path).is_relative() && !(*ref)->path->starts_with('~')) {
          (*ref)->path = (file.parent_path() / *(*ref)->path).lexically_normal().string();
        }
        out.sources.push_back(std::move(**ref));
        std::fill(text.begin() + static_cast<std::ptrdiff_t>(start), text.begin() + static_cast<std::ptrdiff_t>(end), ' ');
      }
    }
    continued = continues;
    start = end + 1;
  }
  return {};
}

Result<void> load_file(const fs::path& path, bool constraint, Requirements& out, Settings& settings, int depth) {
  if (depth > 16) return fail(fmt::format("{}: requirement files nested more than 16 deep", path.string()));
  auto text = read_file(path);
  if (!text) return fail(text.error());
  if (auto ok = take_sources(*text, path, constraint, out); !ok) return ok;
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
    auto source = parse_source(r);
    if (!source) return fail(source.error());
    if (*source) {
      out.sources.push_back(std::move(**source));
      continue;
    }
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

// Which renames take a distribution's files out of an environment: whole directories where the
// environment has nothing else, one by one elsewhere.
//
// Why: an upgrade of a torch-shaped distribution (12,300 files in 300 directories) moved every
// file aside with its own journal line and rename, then moved the new version in file by file
// into the directories left behind: 24,600 renames and as many journal writes, 1.6-2.7 s; with
// the modules compiled, another 2.5 s went to listing each `__pycache__` once per module in it.

#include <algorithm>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "installed.hpp"
#include "vwheel/core/text.hpp"

namespace vwheel::install::detail {
namespace fs = std::filesystem;

namespace {

/// How deep below a top-level directory the walk goes; deeper trees are removed file by file.
constexpr int kMaxDepth = 64;
/// How many entries one removal looks at before it stops taking directories whole.
constexpr std::size_t kMaxEntries = 4'000'000;

struct Walk {
  const std::unordered_map<std::string, bool>& removing;  ///< path -> whether a compiled file
  /// The directories that hold a listed file, at any depth: the walk goes down only these, so a
  /// removal never lists the rest of a shared tree (a namespace package, a venv's `share/`).
  const std::unordered_set<std::string>& holding;
  std::size_t budget = kMaxEntries;
  /// The directories taken whole so far, each with how many of its files count (not compiled).
  std::vector<std::pair<fs::path, std::size_t>> whole;
};

struct Subtree {
  bool all = true;           ///< every file below is being removed
  std::size_t removing = 0;  ///< files below that are being removed
  std::size_t counted = 0;   ///< of those, the ones that are not compiled files
};

/// Walks `dir` (not following links); adds to `walk.whole` the topmost directories whose every
/// file is being removed and that hold at least one of them.
Subtree walk_tree(const fs::path& dir, Walk& walk, int depth) {
  if (depth > kMaxDepth) return {false, 0, 0};
  Subtree out;
  const auto whole_before = walk.whole.size();
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (walk.budget == 0) return {false, 0, 0};
    --walk.budget;
    const auto type = it->symlink_status(ec).type();
    if (ec) break;
    if (type == fs::file_type::directory && !walk.holding.contains(it->path().native())) {
      // Nothing listed below it: it can go with its parent only when it is empty.
      fs::directory_iterator inside(it->path(), ec);
      if (ec || inside != fs::directory_iterator()) out.all = false;
      ec.clear();
      continue;
    }
    if (type == fs::file_type::directory) {
      const auto sub = walk_tree(it->path(), walk, depth + 1);
      out.all = out.all && sub.all;
      out.removing += sub.removing;
      out.counted += sub.counted;
      continue;
    }
    const auto found = walk.removing.find(it->path().native());
    if (found == walk.removing.end()) {
      out.all = false;
    } else {
      ++out.removing;
      if (!found->second) ++out.counted;
    }
  }
  if (ec) out.all = false;  // an unreadable directory is not taken whole
  if (out.all && out.removing > 0) {
    walk.whole.resize(whole_before);  // it replaces the directories below it
    walk.whole.emplace_back(dir, out.counted);
  }
  return out;
}

}  // namespace

bool compiled_from(std::string_view name, std::string_view module) {
  if (!name.ends_with(".pyc") || name.size() <= module.size() + 5 || !name.starts_with(module) ||
      name[module.size()] != '.') {
    return false;
  }
  auto tag = name.substr(module.size() + 1, name.size() - module.size() - 1 - 4);  // TAG or TAG.opt-N
  if (const auto dot = tag.find('.'); dot != std::string_view::npos) {
    const auto opt = tag.substr(dot + 1);
    if (!opt.starts_with("opt-") || !is_ascii_digits(opt.substr(4))) return false;
    tag = tag.substr(0, dot);
  }
  return !tag.empty();
}

RemovalPlan plan_removal(const Environment& env, const std::vector<RemovedFile>& listed) {
  RemovalPlan plan;
  std::unordered_map<std::string, bool> removing;
  removing.reserve(listed.size());
  for (const auto& f : listed) removing.emplace(f.path.native(), f.compiled);

  // Never a scheme directory, the prefix, or a directory above one of them: the walk starts at
  // the directories just below the deepest scheme directory that holds a file (`torch/`, not
  // site-packages), so it never lists another distribution's tree.
  std::vector<std::string> bases;
  for (const auto* b : {&env.scheme.purelib, &env.scheme.platlib, &env.scheme.scripts, &env.scheme.headers,
                        &env.scheme.data, &env.prefix}) {
    auto n = b->lexically_normal().native();
    while (n.size() > 1 && n.back() == '/') n.pop_back();
    bases.push_back(std::move(n));
  }
  const auto is_base_or_above = [&](std::string_view dir) {
    return std::any_of(bases.begin(), bases.end(), [&](const std::string& b) { return normal_within(b, dir); });
  };
  std::set<std::string> tops;
  std::unordered_set<std::string> holding;
  std::string_view last_parent;  // files come by directory: most share the previous one's top
  for (const auto& f : listed) {
    const std::string_view path = f.path.native();
    const auto parent = path.substr(0, path.rfind('/'));
    if (!last_parent.empty() && parent == last_parent) continue;
    last_parent = parent;
    // Its directory and those above it (they are in already when one of them is).
    auto above = parent;
    while (!above.empty() && holding.emplace(above).second) above = above.substr(0, above.rfind('/'));
    const std::string* deepest = nullptr;
    for (const auto& b : bases) {
      if (path.size() > b.size() && normal_within(path, b) && (deepest == nullptr || b.size() > deepest->size())) {
        deepest = &b;
      }
    }
    if (deepest == nullptr) continue;
    // The first directory below it on the way to the file that is no base nor above one.
    for (auto slash = path.find('/', deepest->size() + 1); slash != std::string_view::npos;
         slash = path.find('/', slash + 1)) {
      const auto dir = path.substr(0, slash);
      if (!is_base_or_above(dir)) {
        tops.emplace(dir);
        break;
      }
    }
  }
  Walk walk{removing, holding, kMaxEntries, {}};
  for (const auto& top : tops) {
    std::error_code ec;
    // A link to a directory is not taken whole: moving the link would leave the files.
    if (fs::symlink_status(top, ec).type() == fs::file_type::directory) walk_tree(fs::path(top), walk, 0);
  }
  std::set<std::string, std::less<>> whole;
  for (auto& [dir, counted] : walk.whole) {
    whole.insert(dir.native());
    plan.counted += counted;
    plan.directories.push_back(std::move(dir));
  }
  const auto under_whole = [&](std::string_view path) {
    for (auto slash = path.rfind('/'); slash != std::string_view::npos && slash > 0;
         slash = path.rfind('/', slash - 1)) {
      if (whole.contains(path.substr(0, slash))) return true;
    }
    return false;
  };
  for (const auto& f : listed) {
    if (under_whole(f.path.native())) continue;
    std::error_code ec;
    const auto st = fs::symlink_status(f.path, ec);
    if (!fs::exists(st) || fs::is_directory(st)) continue;
    plan.files.push_back(f.path);
    if (!f.compiled) ++plan.counted;
  }
  return plan;
}

}  // namespace vwheel::install::detail

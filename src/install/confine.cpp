#include "confine.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include <fmt/format.h>

#include "installed.hpp"

namespace vwheel::install::detail {
namespace fs = std::filesystem;

Confinement::Confinement(const Environment& env) : prefix_(env.prefix) {
  for (const auto* dir : {&env.scheme.purelib, &env.scheme.platlib, &env.scheme.scripts, &env.scheme.headers,
                          &env.scheme.data, &env.prefix}) {
    if (auto real = real_path(*dir)) roots_.push_back(real->native());
  }
}

std::optional<fs::path> Confinement::real_path(const fs::path& path) {
  if (!path.is_absolute()) return std::nullopt;
  // The components that do not exist (innermost first): no link can be among them.
  std::vector<fs::path> missing;
  fs::path at = path;
  while (true) {
    if (at.filename().empty() && at.has_relative_path()) {
      at = at.parent_path();  // a trailing `/`
      continue;
    }
    if (char* resolved = ::realpath(at.c_str(), nullptr); resolved != nullptr) {
      fs::path out(resolved);
      std::free(resolved);
      for (auto it = missing.rbegin(); it != missing.rend(); ++it) out /= *it;
      return out.lexically_normal();
    }
    if (errno != ENOENT || !at.has_relative_path()) return std::nullopt;
    // There but not resolvable: a link to nothing, which a later run could point anywhere.
    struct stat st {};
    if (::lstat(at.c_str(), &st) == 0) return std::nullopt;
    missing.push_back(at.filename());
    at = at.parent_path();
  }
}

bool exists_no_follow(const fs::path& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

Result<void> Confinement::check(const fs::path& path) {
  const auto name = path.filename();
  if (!path.is_absolute() || name.empty() || name == "." || name == "..") {
    return fail(fmt::format("`{}` does not name an entry inside the environment {}", path.string(), prefix_.string()));
  }
  if (auto ok = check_dir(path.parent_path()); !ok) {
    return fail(fmt::format("`{}` is {}", path.string(), ok.error().message));
  }
  return {};
}

Result<void> Confinement::check_dir(const fs::path& dir) {
  auto [it, inserted] = real_.try_emplace(dir.native());
  if (inserted) {
    if (auto real = real_path(dir)) it->second = real->native();
  }
  const auto& real = it->second;
  if (!real) {
    return fail(fmt::format("not known to be inside the environment {}: `{}` cannot be resolved", prefix_.string(),
                            dir.string()));
  }
  if (std::any_of(roots_.begin(), roots_.end(), [&](const std::string& root) { return normal_within(*real, root); })) {
    return {};
  }
  return fail(fmt::format("outside the environment {}: `{}` is {}", prefix_.string(), dir.string(), *real));
}

}  // namespace vwheel::install::detail

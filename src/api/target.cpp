#include "vwheel/api/target.hpp"

#include <fmt/format.h>

#include "vwheel/core/fs.hpp"
#include "vwheel/provider/registry.hpp"
#include "vwheel/target/profile.hpp"

namespace vwheel::api {

Result<ResolvedTarget> resolve_target(const TargetRequest& request) {
  ResolvedTarget out;
  if (request.profile) {
    const auto file = request.profile->string();
    auto text = read_file(*request.profile);
    if (!text) return fail(text.error());
    auto profile = target::parse_target_profile(*text);
    if (!profile) return fail(profile.error().with_context(file));
    out.properties = std::move(profile->properties);
    out.environment = std::move(profile->environment);
    out.tags = std::move(profile->tags);
    out.description = fmt::format("target profile {}", file);
    return out;
  }
  out.machine = provider::detect_machine(provider::DetectOptions{!request.no_cache, std::nullopt});
  out.properties = out.machine.supported();
  out.environment = provider::host_marker_environment();
  out.description = "this machine (detected)";
  for (const auto& a : out.machine.answers) {
    for (const auto& note : a.detection.notes) out.notes.push_back(fmt::format("{}: {}", a.ns, note));
  }
  return out;
}

}  // namespace vwheel::api

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "choose.hpp"
#include "vwheel/wheel_name/names.hpp"

namespace vwheel::plan::detail {

std::string unmet_requirement(std::string_view name, std::string_view version, const std::optional<std::string>& label,
                              const markers::Requirement& r, std::string_view tail) {
  std::string what = r.name;
  if (!r.extras.empty()) what += fmt::format("[{}]", fmt::join(r.extras, ","));
  what += r.specifier.to_string();
  return fmt::format("{} {}{} requires {}, {}", name, version, label ? fmt::format(" [{}]", *label) : "", what, tail);
}

Result<void> check_complete(const Plan& plan, std::string_view tail) {
  std::map<std::string, const Selected*> by_name;
  for (const auto& s : plan.packages) by_name[s.name] = &s;
  for (const auto& s : plan.packages) {
    std::vector<std::string> contexts{""};
    contexts.insert(contexts.end(), s.extras.begin(), s.extras.end());
    for (const auto& text : s.requires_dist) {
      auto r = markers::Requirement::parse(text);
      if (!r) return fail(r.error().with_context(fmt::format("{} {}: requires-dist", s.name, s.version)));
      const auto name = wheel_name::canonicalize_name(r->name);
      if (name == s.name) continue;  // a self-reference (extras of itself)
      bool applies = false;
      for (const auto& extra : contexts) {
        auto env = s.environment;
        env.variables.insert_or_assign("extra", extra);
        auto v = r->applies_to(env);
        if (!v) return fail(v.error().with_context(fmt::format("{} {}", s.name, s.version)));
        if (*v) {
          applies = true;
          break;
        }
      }
      if (!applies) continue;
      auto it = by_name.find(name);
      bool met = it != by_name.end() && r->specifier.contains(it->second->version, true);
      if (met) {
        for (const auto& e : r->extras) {
          const auto& have = it->second->extras;
          met = met && std::find(have.begin(), have.end(), wheel_name::canonicalize_name(e)) != have.end();
        }
      }
      if (!met) return fail(unmet_requirement(s.name, s.version, s.label, *r, tail));
    }
  }
  return {};
}

}  // namespace vwheel::plan::detail

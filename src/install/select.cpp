#include "vwheel/install/select.hpp"

#include <fmt/format.h>

#include "vwheel/install/layout.hpp"
#include "vwheel/wheel/wheel.hpp"
#include "vwheel/wheel_name/wheel_name.hpp"

namespace vwheel::install {
namespace fs = std::filesystem;

namespace {

/// The `Requires-Python` of a wheel's METADATA ("" when absent).
Result<std::string> wheel_requires_python(const wheel::Wheel& w, const std::string& file) {
  const auto* e = w.archive.find(w.dist_info + "/METADATA");
  if (e == nullptr) return fail(fmt::format("{}: no `{}/METADATA` file", file, w.dist_info));
  auto text = w.archive.read(*e, std::uint64_t{64} << 20);
  if (!text) return fail(text.error().with_context(file));
  return header_value(*text, "Requires-Python").value_or("");
}

/// Whether the selection supports the wheel's variant (its own `variant.json`).
Result<void> check_variant(const wheel::Wheel& w, const std::string& file, const std::string& label,
                           const selection::Selection& selection) {
  auto doc = wheel::read_variant_json(w);
  if (!doc) return fail(doc.error());
  if (!*doc) return {};
  std::optional<markers::Environment> env;
  if (!selection.environment.empty()) env = selection.marker_environment();
  auto ranking = selection.rank((*doc)->metadata, env ? &*env : nullptr);
  if (!ranking) return fail(ranking.error().with_context(file));
  for (const auto& r : ranking->reports) {
    if (r.label != label || r.compatible) continue;
    return fail(fmt::format("{}: variant `{}` is not supported by {}: {} (--ignore-variant installs it anyway)", file,
                            label, selection.description, r.reason));
  }
  return {};
}

}  // namespace

Result<void> check_wheel(const fs::path& path, const selection::Selection& selection, bool ignore_variant) {
  const auto file = path.filename().string();
  auto name = wheel_name::parse_wheel_name(file);
  if (!name) return fail(name.error());
  if (!selection.tag_rank(*name)) {
    return fail(fmt::format("{}: none of its tags ({}-{}-{}) is supported by the {}", file, name->python_tag,
                            name->abi_tag, name->platform_tag, selection.from_profile ? "target profile" : "interpreter"));
  }
  const bool check_variant_too = name->is_variant() && !ignore_variant;
  if (!selection.python_version() && !check_variant_too) return {};
  auto w = wheel::open_wheel(path);
  if (!w) return fail(w.error());
  if (selection.python_version()) {
    auto rp = wheel_requires_python(*w, file);
    if (!rp) return fail(rp.error());
    if (auto ok = selection.check_requires_python(*rp, file); !ok) return ok;
  }
  if (!check_variant_too) return {};
  return check_variant(*w, file, *name->label, selection);
}

}  // namespace vwheel::install

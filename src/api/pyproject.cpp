#include "vwheel/api/pyproject.hpp"

#include <system_error>

#include <fmt/format.h>

#include "vwheel/core/fs.hpp"
#include "vwheel/metadata/document.hpp"

namespace vwheel::api {
namespace {

// Writes through a symbolic link to its target and keeps the target's permissions, so that an
// edit does not replace a linked or executable-bit-carrying file with a plain one.
Result<void> write_in_place(const std::filesystem::path& file, const std::string& text) {
  std::error_code ec;
  std::filesystem::path target = file;
  if (std::filesystem::is_symlink(target, ec)) {
    auto resolved = std::filesystem::canonical(target, ec);
    if (!ec) target = std::move(resolved);
  }
  const auto perms = std::filesystem::status(target, ec).permissions();
  const bool keep_perms = !ec;
  if (auto ok = write_file_atomic(target, text); !ok) return ok;
  if (keep_perms) std::filesystem::permissions(target, perms, ec);
  return {};
}

template <class Edit>
Result<PyprojectEditReport> edit_file(const PyprojectEdit& request, Edit&& edit) {
  auto before = read_file(request.file);
  if (!before) return fail(before.error());
  auto after = edit(*before);
  if (!after) return fail(after.error().with_context(request.file.string()));
  PyprojectEditReport report;
  report.file = request.file;
  report.dry_run = request.dry_run;
  report.changed = *after != *before;
  for (const auto& problem : metadata::check_pyproject(*after).conformance_problems) {
    report.warnings.push_back(fmt::format("{}: {}", request.file.string(), problem));
  }
  report.text = std::move(*after);
  if (!request.dry_run && report.changed) {
    if (auto ok = write_in_place(request.file, report.text); !ok) report.write_error = ok.error();
  }
  return report;
}

}  // namespace

Result<PyprojectEditReport> add_provider(const AddProviderRequest& request) {
  return edit_file(request.edit, [&](const std::string& text) { return metadata::add_provider(text, request.spec); });
}

Result<PyprojectEditReport> remove_provider(const RemoveProviderRequest& request) {
  return edit_file(request.edit, [&](const std::string& text) { return metadata::remove_provider(text, request.ns); });
}

std::string format_pyproject_edit(const PyprojectEditReport& report) {
  if (report.dry_run) return report.text;
  if (report.write_error) return {};
  return fmt::format("{} {}\n", report.changed ? "Wrote changes to" : "No changes to", report.file.string());
}

}  // namespace vwheel::api

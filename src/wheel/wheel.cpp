#include "vwheel/wheel/wheel.hpp"

#include <algorithm>
#include <system_error>

#include <fmt/format.h>

#include "vwheel/metadata/serialize.hpp"
#include "vwheel/wheel/record.hpp"

namespace vwheel::wheel {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kDistInfoSuffix = ".dist-info";

std::string display(const fs::path& p) { return p.filename().string(); }

Result<void> check_output_dir(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return fail(fmt::format("output directory `{}` does not exist", dir.string()));
  return {};
}

// The RECORD text with `variant.json`'s line replaced (`line`) or dropped (nullopt).
Result<std::string> rewritten_record(const Wheel& wheel, std::optional<std::string_view> line) {
  const auto& record = wheel.archive.entries()[wheel.record_index];
  auto text = wheel.archive.read(record);
  if (!text) return fail(text.error());
  auto out = replace_record_entry(*text, wheel.variant_json_path(), line);
  if (!out) return fail(out.error().with_context(fmt::format("{}: {}", display(wheel.path), record.name)));
  return out;
}

// A new member that looks like `RECORD` as the build tool wrote it: same time and method.
zip::NewMember like_record(const zip::Entry& record, std::string name, std::string data) {
  zip::NewMember m;
  m.name = std::move(name);
  m.data = std::move(data);
  m.method = record.method == static_cast<std::uint16_t>(zip::Method::Store) ? zip::Method::Store : zip::Method::Deflate;
  m.dos_time = record.dos_time;
  m.dos_date = record.dos_date;
  m.unix_mode = record.unix_mode() != 0 ? record.unix_mode() : 0100644;
  return m;
}

}  // namespace

std::optional<VariantJsonFormat> parse_variant_json_format(std::string_view text) noexcept {
  if (text == "v0.0.3") return VariantJsonFormat::Draft003;
  if (text == "v0.1.1") return VariantJsonFormat::Pep825;
  if (text == "v0.2.0") return VariantJsonFormat::Providers;
  return std::nullopt;
}

Result<Wheel> open_wheel(const fs::path& path) {
  const std::string file = display(path);
  auto name = wheel_name::parse_wheel_name(file);
  if (!name) return fail(name.error());
  auto archive = zip::Archive::open(path);
  if (!archive) {
    // The plainer message for the common mistakes, looked up only on failure (the hot path opens once).
    std::error_code ec;
    if (!fs::exists(path, ec)) return fail(fmt::format("{}: no such file", path.string()));
    if (fs::is_directory(path, ec)) return fail(fmt::format("{}: is a directory, expected a wheel file", path.string()));
    return fail(archive.error());
  }
  return open_wheel(path, std::move(*archive));
}

Result<Wheel> open_wheel(const fs::path& path, zip::Archive archive) {
  const std::string file = display(path);
  auto name = wheel_name::parse_wheel_name(file);
  if (!name) return fail(name.error());
  Wheel wheel{path, std::move(*name), std::move(archive), {}, 0, std::nullopt};
  std::vector<std::string_view> dist_infos;
  for (const auto& entry : wheel.archive.entries()) {
    const std::string_view n = entry.name;
    const auto slash = n.find('/');
    if (slash == std::string_view::npos) continue;
    const auto top = n.substr(0, slash);
    if (top.size() <= kDistInfoSuffix.size() || !top.ends_with(kDistInfoSuffix)) continue;
    if (std::find(dist_infos.begin(), dist_infos.end(), top) == dist_infos.end()) dist_infos.push_back(top);
  }
  if (dist_infos.empty()) return fail(fmt::format("{}: no `.dist-info` directory: not a wheel", file));
  if (dist_infos.size() > 1) {
    return fail(fmt::format("{}: {} `.dist-info` directories (`{}` and `{}`): expected exactly one", file,
                            dist_infos.size(), dist_infos[0], dist_infos[1]));
  }
  wheel.dist_info = std::string(dist_infos.front());
  const auto& entries = wheel.archive.entries();
  const std::string record = wheel.dist_info + "/RECORD";
  const std::string variant_json = wheel.variant_json_path();
  bool has_record = false;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].name == record) {
      wheel.record_index = i;
      has_record = true;
    } else if (entries[i].name == variant_json) {
      wheel.variant_json_index = i;
    }
  }
  if (!has_record) return fail(fmt::format("{}: no `{}`: not a valid wheel", file, record));
  return wheel;
}

Result<std::optional<metadata::ParsedDocument>> read_variant_json(const Wheel& wheel) {
  if (!wheel.variant_json_index) {
    if (!wheel.name.label) return std::optional<metadata::ParsedDocument>{};
    return fail(fmt::format("{}: variant label `{}` in the file name but no `{}`", display(wheel.path),
                            *wheel.name.label, wheel.variant_json_path()));
  }
  const auto& entry = wheel.archive.entries()[*wheel.variant_json_index];
  const std::string where = fmt::format("{}: {}", display(wheel.path), entry.name);
  auto text = wheel.archive.read(entry, std::uint64_t{16} << 20);
  if (!text) return fail(text.error());
  std::optional<std::string_view> label;
  if (wheel.name.label) label = *wheel.name.label;
  auto doc = metadata::parse_json_document(*text, metadata::DocumentKind::VariantJson, label);
  if (!doc) return fail(doc.error().with_context(where));
  return std::optional<metadata::ParsedDocument>(std::move(*doc));
}

Result<std::string> make_variant_json(const MakeVariantRequest& request, std::string& label) {
  auto md = metadata::make_dist_info_metadata(request.properties, request.pyproject, request.label);
  if (!md) return fail(md.error());
  label = md->variants.begin()->first;
  const bool providers = request.format == VariantJsonFormat::Providers;
  auto problems = providers ? metadata::conformance_problems_v020(*md, metadata::DocumentKind::VariantJson)
                            : metadata::conformance_problems(*md, metadata::DocumentKind::VariantJson);
  if (!problems.empty()) {
    return fail(Error(fmt::format("the variant.json for label `{}` would not conform to {}: {}", label,
                                  providers ? "format v0.2.0" : "PEP 825", problems.front()),
                      std::vector<std::string>(problems.begin() + 1, problems.end())));
  }
  std::string text = request.format == VariantJsonFormat::Draft003 ? metadata::to_json_draft003(*md)
                     : providers                                   ? metadata::to_json_v020(*md)
                                                                   : metadata::to_json_pep825(*md);
  auto check = metadata::parse_json_document(text, metadata::DocumentKind::VariantJson, label);
  if (!check) return fail(check.error().with_context(fmt::format("the variant.json for label `{}`", label)));
  return text;
}

Result<MadeVariant> make_variant(const MakeVariantRequest& request) {
  auto wheel = open_wheel(request.input);
  if (!wheel) return fail(wheel.error());
  if (auto ok = check_output_dir(request.output_dir); !ok) return fail(ok.error());

  MadeVariant made;
  auto json = make_variant_json(request, made.label);
  if (!json) return fail(json.error().with_context(display(request.input)));
  made.replaced_label = wheel->name.label;
  made.output = request.output_dir / fmt::format("{}-{}.whl", wheel->name.base_name(), made.label);

  // Rebuilding the same variant is fine; writing another variant under a taken label is not.
  std::error_code ec;
  if (fs::exists(made.output, ec) && !fs::equivalent(made.output, request.input, ec)) {
    if (auto existing = open_wheel(made.output); existing) {
      auto doc = read_variant_json(*existing);
      if (doc && *doc && (*doc)->metadata.variants.begin()->second != request.properties) {
        return fail(fmt::format("{}: label clash: `{}` already exists with other properties; remove it or choose "
                                "another --label",
                                display(request.input), made.output.string()));
      }
    }
  }

  const std::string vj_path = wheel->variant_json_path();
  auto record = rewritten_record(*wheel, record_line(vj_path, *json));
  if (!record) return fail(record.error());

  const auto& entries = wheel->archive.entries();
  const auto& record_entry = entries[wheel->record_index];
  zip::WritePlan plan;
  plan.members.reserve(entries.size() + 1);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (wheel->variant_json_index && i == *wheel->variant_json_index) continue;
    if (i == wheel->record_index) {
      plan.members.emplace_back(like_record(record_entry, vj_path, std::move(*json)));
      plan.members.emplace_back(like_record(record_entry, record_entry.name, std::move(*record)));
    } else {
      plan.members.emplace_back(i);
    }
  }
  if (auto ok = zip::write_archive(&wheel->archive, plan, made.output); !ok) return fail(ok.error());
  return made;
}

Result<std::optional<fs::path>> unmake_variant(const fs::path& input, const fs::path& output_dir) {
  auto wheel = open_wheel(input);
  if (!wheel) return fail(wheel.error());
  if (!wheel->name.label) return std::optional<fs::path>{};
  if (auto ok = check_output_dir(output_dir); !ok) return fail(ok.error());
  if (auto doc = read_variant_json(*wheel); !doc) return fail(doc.error());
  auto record = rewritten_record(*wheel, std::nullopt);
  if (!record) return fail(record.error());

  const auto& entries = wheel->archive.entries();
  zip::WritePlan plan;
  plan.members.reserve(entries.size());
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (i == *wheel->variant_json_index) continue;
    if (i == wheel->record_index) {
      plan.members.emplace_back(like_record(entries[i], entries[i].name, std::move(*record)));
    } else {
      plan.members.emplace_back(i);
    }
  }
  fs::path output = output_dir / (wheel->name.base_name() + ".whl");
  if (auto ok = zip::write_archive(&wheel->archive, plan, output); !ok) return fail(ok.error());
  return std::optional<fs::path>(std::move(output));
}

}  // namespace vwheel::wheel

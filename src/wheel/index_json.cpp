#include "vwheel/wheel/index_json.hpp"

#include <algorithm>
#include <map>
#include <system_error>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "vwheel/core/fs.hpp"
#include "vwheel/core/parallel.hpp"
#include "vwheel/metadata/merge.hpp"
#include "vwheel/metadata/serialize.hpp"

namespace vwheel::wheel {
namespace fs = std::filesystem;

namespace {

// What one wheel contributes.
struct Loaded {
  std::string filename;
  std::string namever;
  std::optional<variant::VariantMetadata> metadata;  // set for a readable variant wheel
  bool variant = false;
  std::optional<Error> error;
  std::uint64_t bytes_read = 0;
  std::uint64_t size = 0;
};

Loaded load(const fs::path& path) {
  Loaded out;
  out.filename = path.filename().string();
  auto wheel = open_wheel(path);
  if (!wheel) {
    // A non-variant wheel is skipped without looking inside, whatever its content.
    auto name = wheel_name::parse_wheel_name(out.filename);
    if (name && !name->is_variant()) return out;
    out.variant = true;
    out.error = wheel.error();
    return out;
  }
  out.size = wheel->archive.file_size();
  out.namever = wheel->name.namever();
  out.variant = wheel->name.is_variant();
  if (out.variant) {
    auto doc = read_variant_json(*wheel);
    if (!doc) {
      out.error = doc.error();
    } else {
      out.metadata = std::move((*doc)->metadata);  // a labelled wheel always has one (read_variant_json)
    }
  }
  out.bytes_read = wheel->archive.bytes_read();
  return out;
}

VariantJsonFormat auto_format(const std::vector<const variant::VariantMetadata*>& inputs) {
  // Inputs of one version are all v0.2.x or none is (merge_into refuses to mix them).
  for (const auto* md : inputs) {
    if (variant::is_providers_schema(md->schema)) return VariantJsonFormat::Providers;
  }
  for (const auto* md : inputs) {
    if (metadata::is_draft_schema(md->schema)) return VariantJsonFormat::Draft003;
  }
  return VariantJsonFormat::Pep825;
}

Result<std::string> serialize(const variant::VariantMetadata& merged, VariantJsonFormat format,
                              const std::string& filename) {
  if (format == VariantJsonFormat::Draft003) return metadata::to_json_draft003(merged);
  if (format == VariantJsonFormat::Providers) {
    auto problems = metadata::conformance_problems_v020(merged, metadata::DocumentKind::VariantsJson);
    if (!problems.empty()) {
      return fail(fmt::format("{}: the merged metadata cannot be written as format v0.2.0: {}", filename,
                              problems.front()));
    }
    return metadata::to_json_v020(merged);
  }
  auto problems = metadata::conformance_problems(merged, metadata::DocumentKind::VariantsJson);
  if (!problems.empty()) {
    return fail(fmt::format("{}: the merged metadata does not conform to PEP 825: {}", filename, problems.front()));
  }
  return metadata::to_json_pep825(merged);
}

// Labels whose property sets are equal: PEP 825 expects one label per variant.
void warn_shared_properties(const variant::VariantMetadata& md, const std::string& namever,
                            std::vector<std::string>& warnings) {
  std::map<variant::PropertySet, std::vector<std::string>> by_properties;
  for (const auto& [label, props] : md.variants) by_properties[props].push_back(label);
  for (const auto& [props, labels] : by_properties) {
    if (labels.size() < 2) continue;
    warnings.push_back(fmt::format("{}: labels {} have the same properties: one variant under several labels",
                                   namever, fmt::format("`{}`", fmt::join(labels, "`, `"))));
  }
}

}  // namespace

Result<std::vector<fs::path>> list_wheels(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return fail(fmt::format("`{}` is not a directory", dir.string()));
  std::vector<fs::path> wheels;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() == ".whl" && it->is_regular_file(ec)) wheels.push_back(it->path());
  }
  if (ec) return fail(fmt::format("{}: cannot list: {}", dir.string(), ec.message()));
  std::sort(wheels.begin(), wheels.end(),
            [](const fs::path& a, const fs::path& b) { return a.filename() < b.filename(); });
  return wheels;
}

Result<IndexJsonResult> build_index_json(std::span<const fs::path> wheels, const IndexJsonOptions& options) {
  std::vector<fs::path> sorted(wheels.begin(), wheels.end());
  std::sort(sorted.begin(), sorted.end(), [](const fs::path& a, const fs::path& b) {
    return a.filename() != b.filename() ? a.filename() < b.filename() : a < b;
  });
  std::vector<Loaded> loaded(sorted.size());
  parallel_for(sorted.size(), options.jobs, [&](std::size_t i) { loaded[i] = load(sorted[i]); });

  IndexJsonResult result;
  std::vector<std::string> errors;
  std::map<std::string, std::vector<const Loaded*>> groups;
  for (const auto& w : loaded) {
    result.bytes_read += w.bytes_read;
    result.bytes_total += w.size;
    if (w.error) {
      (options.skip_invalid ? result.warnings : errors).push_back(w.error->message + (options.skip_invalid ? " (skipped)" : ""));
      continue;
    }
    if (!w.variant) {
      result.notes.push_back(fmt::format("{}: not a variant wheel, skipped", w.filename));
      continue;
    }
    groups[w.namever].push_back(&w);
  }

  for (const auto& [namever, members] : groups) {
    variant::VariantMetadata merged = *members.front()->metadata;
    std::vector<const variant::VariantMetadata*> inputs{&*members.front()->metadata};
    IndexJsonFile file{namever + "-variants.json", {}, {members.front()->filename}};
    bool ok = true;
    for (std::size_t k = 1; k < members.size(); ++k) {
      const auto& md = *members[k]->metadata;
      auto merge = metadata::merge_into(merged, md);
      if (merge) {
        inputs.push_back(&md);
        file.wheels.push_back(members[k]->filename);
        continue;
      }
      ok = false;
      // Name the earlier wheel it disagrees with, when one alone does.
      std::string other = fmt::format("the wheels before it ({})", fmt::join(file.wheels, ", "));
      for (std::size_t j = 0; j < k; ++j) {
        auto probe = *members[j]->metadata;
        if (!metadata::merge_into(probe, md)) {
          other = members[j]->filename;
          break;
        }
      }
      errors.push_back(fmt::format("{}: conflicts with {}: {}", members[k]->filename, other, merge.error().message));
    }
    if (!ok) continue;
    warn_shared_properties(merged, namever, result.warnings);
    auto text = serialize(merged, options.format.value_or(auto_format(inputs)), file.filename);
    if (!text) {
      errors.push_back(text.error().message);
      continue;
    }
    file.text = std::move(*text);
    result.variant_wheels += file.wheels.size();
    result.files.push_back(std::move(file));
  }
  if (!errors.empty()) {
    return fail(Error(errors.front(), std::vector<std::string>(errors.begin() + 1, errors.end())));
  }
  return result;
}

Result<IndexJsonFile> add_wheel_to_index_json(const fs::path& wheel_path, const std::optional<fs::path>& input,
                                              std::optional<VariantJsonFormat> format) {
  auto wheel = open_wheel(wheel_path);
  if (!wheel) return fail(wheel.error());
  const std::string file = wheel_path.filename().string();
  if (!wheel->name.is_variant()) return fail(fmt::format("{}: not a variant wheel (no variant label in its name)", file));
  auto doc = read_variant_json(*wheel);
  if (!doc) return fail(doc.error());
  IndexJsonFile out{wheel->name.namever() + "-variants.json", {}, {file}};
  variant::VariantMetadata merged = std::move((*doc)->metadata);
  std::vector<const variant::VariantMetadata*> inputs;
  std::optional<variant::VariantMetadata> existing;
  if (input) {
    const std::string in_name = input->filename().string();
    if (in_name.ends_with("-variants.json") && in_name != out.filename) {
      return fail(fmt::format("{}: belongs to `{}`, not to `{}`", file, out.filename, in_name));
    }
    auto text = read_file(*input);
    if (!text) return fail(text.error());
    auto parsed = metadata::parse_json_document(*text, metadata::DocumentKind::VariantsJson);
    if (!parsed) return fail(parsed.error().with_context(input->string()));
    existing = std::move(parsed->metadata);
    auto merge = metadata::merge_into(*existing, merged);
    if (!merge) return fail(fmt::format("{}: conflicts with {}: {}", file, input->string(), merge.error().message));
    inputs.push_back(&*existing);
  }
  const variant::VariantMetadata& result = existing ? *existing : merged;
  inputs.push_back(&merged);
  auto text = serialize(result, format.value_or(auto_format(inputs)), out.filename);
  if (!text) return fail(text.error());
  out.text = std::move(*text);
  return out;
}

}  // namespace vwheel::wheel

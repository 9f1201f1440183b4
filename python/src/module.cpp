// vwheel._vwheel: the engine for Python. Each function converts its arguments to C++ values, runs
// the api-layer call (the same the CLI command runs) with the GIL released, and turns a failure into
// a vwheel.Error subclass carrying the CLI's one-line message. The Python package (vwheel/__init__.py)
// gives these the public signatures; JSON documents cross the boundary as text, read there by `json`.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <filesystem>
#include <map>
#include <new>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "vwheel/api/index.hpp"
#include "vwheel/api/label.hpp"
#include "vwheel/api/maintain.hpp"
#include "vwheel/api/platform.hpp"
#include "vwheel/api/rank.hpp"
#include "vwheel/api/selection.hpp"
#include "vwheel/api/validate.hpp"
#include "vwheel/core/error.hpp"
#include "vwheel/markers/marker.hpp"
#include "vwheel/metadata/document.hpp"
#include "vwheel/metadata/merge.hpp"
#include "vwheel/metadata/serialize.hpp"
#include "vwheel/provider/registry.hpp"
#include "vwheel/wheel/wheel.hpp"

namespace py = pybind11;
using namespace vwheel;

namespace {

using Path = std::filesystem::path;

/// Raises the vwheel.Error subclass for `error` (the GIL must be held).
[[noreturn]] void raise_error(const Error& error) {
  const char* name = "InputError";
  if (error.kind == ErrorKind::environment) name = "EnvironmentFailure";
  if (error.kind == ErrorKind::usage) name = "UsageError";
  py::object cls = py::module_::import("vwheel._errors").attr(name);
  py::object exc = cls(error.message, error.details);
  PyErr_SetObject(cls.ptr(), exc.ptr());
  throw py::error_already_set();
}

/// Runs `call` (returning a Result) without the GIL and returns its value, or raises its error. Exceptions of the
/// engine (environmental failures: I/O, memory) become EnvironmentFailure with the message the
/// CLI prints, as its boundary does.
template <class F>
auto engine(F&& call) {
  std::optional<Error> failure;
  using R = decltype(call());
  std::optional<R> result;
  {
    py::gil_scoped_release release;
    try {
      result.emplace(call());
    } catch (const std::bad_alloc&) {
      failure = with_kind(Error("out of memory"), ErrorKind::environment);
    } catch (const std::exception& e) {
      failure = with_kind(Error(e.what()), ErrorKind::environment);
    }
  }
  if (failure) raise_error(*failure);
  if (!result->has_value()) raise_error(result->error());
  return std::move(**result);
}

/// The selection options every choosing function takes (the CLI's --target, --config,
/// --enable-optional-provider(s), --no-cache).
struct Selection {
  std::vector<Path> targets;
  std::optional<Path> config;
  bool enable_all_optional = false;
  std::vector<std::string> enabled_optional;
  bool no_cache = false;

  [[nodiscard]] api::SelectionRequest request() const {
    api::SelectionRequest req;
    req.profiles = targets;
    req.config = config;
    req.enable_all_optional = enable_all_optional;
    req.enabled_optional = enabled_optional;
    req.no_cache = no_cache;
    return req;
  }
};

wheel::VariantJsonFormat format_of(const std::string& name) {
  auto format = wheel::parse_variant_json_format(name);
  if (!format) raise_error(Error(fmt::format("format `{}`: expected v0.0.3, v0.1.1 or v0.2.0", name)));
  return *format;
}

std::string to_json(const variant::VariantMetadata& metadata, wheel::VariantJsonFormat format) {
  switch (format) {
    case wheel::VariantJsonFormat::Pep825:
      return metadata::to_json_pep825(metadata);
    case wheel::VariantJsonFormat::Providers:
      return metadata::to_json_v020(metadata);
    case wheel::VariantJsonFormat::Draft003:
      break;
  }
  return metadata::to_json_draft003(metadata);
}

metadata::DocumentKind kind_of(const std::string& kind) {
  if (kind == "variant.json") return metadata::DocumentKind::VariantJson;
  if (kind == "variants.json") return metadata::DocumentKind::VariantsJson;
  if (kind == "pyproject") return metadata::DocumentKind::Pyproject;
  raise_error(Error(fmt::format("kind `{}`: expected variant.json, variants.json or pyproject", kind)));
}

std::vector<std::string> rank_file(const Path& file, const Selection& selection) {
  auto report = engine([&] { return api::rank(api::RankRequest{file, selection.request()}); });
  return report.ranking.order;
}

std::vector<std::string> rank_text(const std::string& text, const std::string& source, const Selection& sel) {
  auto report = engine([&]() -> Result<api::RankReport> {
    auto doc = metadata::parse_json_document(text, metadata::DocumentKind::VariantsJson);
    if (!doc) return fail(doc.error().with_context(source));
    auto selection = api::make_selection(sel.request(), nullptr);
    if (!selection) return fail(selection.error());
    return api::rank_metadata(doc->metadata, source, "", *selection);
  });
  return report.ranking.order;
}

std::string label(const std::vector<std::string>& properties, const std::optional<std::string>& custom) {
  return engine([&] { return api::make_label(api::LabelRequest{properties, custom}); }).label;
}

std::string analyze_platform(const std::vector<std::string>& namespaces, bool no_cache, bool with_interpreter,
                             const std::optional<Path>& python) {
  api::PlatformRequest req;
  req.no_cache = no_cache;
  req.namespaces = namespaces;
  req.with_interpreter = with_interpreter;
  req.python = python;
  auto report = engine([&] { return api::analyze_platform(req); });
  return api::format_platform_profile(report);
}

using FindingTuple = std::tuple<std::string, std::string, std::string, std::string, std::string, std::string>;

std::vector<FindingTuple> validate(const Path& path) {
  auto findings = engine([&] { return api::validate_file(path); });
  std::vector<FindingTuple> out;
  for (const auto& f : findings) {
    out.emplace_back(f.file.string(), std::string(metadata::severity_name(f.finding.severity)), f.finding.rule,
                     f.finding.pointer, f.finding.location, f.finding.message);
  }
  return out;
}

/// Reads a variant.json / *-variants.json text and writes it back normalized in `format`.
std::pair<std::string, std::vector<std::string>> read_document(const std::string& text, const std::string& kind,
                                                               const std::string& source, const std::string& format) {
  auto k = kind_of(kind);
  auto f = format_of(format);
  auto doc = engine([&]() -> Result<metadata::ParsedDocument> {
    auto parsed = metadata::parse_json_document(text, k);
    if (!parsed) return fail(parsed.error().with_context(source));
    return parsed;
  });
  return {to_json(doc.metadata, f), doc.conformance_problems};
}

std::string merge(const std::vector<std::string>& texts, const std::string& format) {
  auto f = format_of(format);
  auto merged = engine([&]() -> Result<variant::VariantMetadata> {
    std::vector<variant::VariantMetadata> inputs;
    for (std::size_t i = 0; i < texts.size(); ++i) {
      auto doc = metadata::parse_json_document(texts[i], metadata::DocumentKind::VariantsJson);
      if (!doc) return fail(doc.error().with_context(fmt::format("document {}", i + 1)));
      inputs.push_back(std::move(doc->metadata));
    }
    return metadata::merge_all(inputs);
  });
  return to_json(merged, f);
}

std::pair<std::string, std::vector<std::string>> read_pyproject(const std::string& toml_text, const std::string& source) {
  auto doc = engine([&]() -> Result<metadata::ParsedDocument> {
    auto parsed = metadata::parse_pyproject(toml_text);
    if (!parsed) return fail(parsed.error().with_context(source));
    return parsed;
  });
  return {metadata::to_json_draft003(doc.metadata), doc.conformance_problems};
}

bool evaluate_marker(const std::string& text, const std::map<std::string, std::string>& environment,
                     const std::optional<std::string>& variant_label, const std::vector<std::string>& properties) {
  return engine([&]() -> Result<bool> {
    auto marker = markers::Marker::parse(text);
    if (!marker) return fail(marker.error());
    markers::Environment env;
    env.variables.insert(environment.begin(), environment.end());
    env.variant_label = variant_label.value_or("");
    for (const auto& p : properties) {
      auto canonical = markers::normalize_variant_text(p);
      auto last = canonical.rfind(" :: ");
      auto first = canonical.find(" :: ");
      if (first == std::string::npos || first == last) {
        return fail(fmt::format("variant property `{}`: expected `namespace :: feature :: value`", p));
      }
      env.variant_namespaces.insert(canonical.substr(0, first));
      env.variant_features.insert(canonical.substr(0, last));
      env.variant_properties.insert(std::move(canonical));
    }
    return marker->evaluate(env);
  });
}

std::string analyze_wheel(const std::vector<Path>& wheels, const Selection& selection) {
  api::AnalyzeRequest req;
  req.wheels = wheels;
  req.selection = selection.request();
  auto report = engine([&] { return api::analyze_wheels(req); });
  return api::format_analyze_json(report);
}

std::vector<Path> make_variant(const std::vector<Path>& wheels, const Path& output_dir,
                               const std::vector<std::string>& properties, bool null_variant,
                               const std::optional<std::string>& custom_label, const std::optional<Path>& pyproject,
                               const std::string& format, bool skip_validation, unsigned jobs) {
  api::MakeVariantsRequest req;
  req.inputs = wheels;
  req.output_dir = output_dir;
  req.properties = properties;
  req.null_variant = null_variant;
  req.label = custom_label;
  req.pyproject = pyproject;
  req.format = format_of(format);
  req.validation.skip = skip_validation;
  req.jobs = jobs == 0 ? 1 : jobs;
  auto report = engine([&] { return api::make_variants(req); });
  std::vector<Path> out;
  for (const auto& r : report.results) {
    if (!r) raise_error(r.error());
    out.push_back(r->output);
  }
  return out;
}

std::vector<Path> generate_index_json(const Path& dir, const std::optional<Path>& output_dir,
                                      const std::optional<std::string>& format, bool skip_invalid) {
  api::GenerateIndexJsonRequest req;
  req.dir = dir;
  req.output_dir = output_dir;
  if (format) req.format = format_of(*format);
  req.skip_invalid = skip_invalid;
  req.jobs = 1;
  auto report = engine([&] { return api::generate_index_json(req); });
  if (report.write_error) raise_error(*report.write_error);
  return report.written;
}

using ConfigTuple = std::tuple<std::string, std::vector<std::string>, bool>;

/// Every property the native providers know (their `all_configs`), per namespace.
std::map<std::string, std::vector<ConfigTuple>> native_configs() {
  std::map<std::string, std::vector<ConfigTuple>> out;
  for (const auto& provider : provider::native_providers()) {
    auto& configs = out[std::string(provider->ns())];
    for (auto& c : provider->all_configs()) configs.emplace_back(c.name, c.values, c.multi_value);
  }
  return out;
}

}  // namespace

PYBIND11_MODULE(_vwheel, m) {
  m.doc() = "The vwheel engine (libvwheel); use the functions of the `vwheel` package.";
  m.attr("__version__") = VWHEEL_VERSION;
  m.def("label", &label, py::arg("properties"), py::arg("label") = py::none());
  py::class_<Selection>(m, "Selection")
      .def(py::init<>())
      .def_readwrite("targets", &Selection::targets)
      .def_readwrite("config", &Selection::config)
      .def_readwrite("enable_all_optional", &Selection::enable_all_optional)
      .def_readwrite("enabled_optional", &Selection::enabled_optional)
      .def_readwrite("no_cache", &Selection::no_cache);
  m.def("rank_file", &rank_file, py::arg("path"), py::arg("selection"));
  m.def("rank_text", &rank_text, py::arg("text"), py::arg("source"), py::arg("selection"));
  m.def("analyze_platform", &analyze_platform, py::arg("namespaces"), py::arg("no_cache"),
        py::arg("with_interpreter"), py::arg("python"));
  m.def("validate", &validate, py::arg("path"));
  m.def("read_document", &read_document, py::arg("text"), py::arg("kind"), py::arg("source"), py::arg("format"));
  m.def("merge", &merge, py::arg("texts"), py::arg("format"));
  m.def("read_pyproject", &read_pyproject, py::arg("toml_text"), py::arg("source"));
  m.def("evaluate_marker", &evaluate_marker, py::arg("marker"), py::arg("environment"), py::arg("variant_label"),
        py::arg("properties"));
  m.def("analyze_wheel", &analyze_wheel, py::arg("wheels"), py::arg("selection"));
  m.def("make_variant", &make_variant, py::arg("wheels"), py::arg("output_dir"), py::arg("properties"),
        py::arg("null_variant"), py::arg("label"), py::arg("pyproject"), py::arg("format"),
        py::arg("skip_validation"), py::arg("jobs"));
  m.def("native_configs", &native_configs);
  m.def("generate_index_json", &generate_index_json, py::arg("dir"), py::arg("output_dir"), py::arg("format"),
        py::arg("skip_invalid"));
}

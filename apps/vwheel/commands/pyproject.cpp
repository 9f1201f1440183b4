// `vwheel pyproject add-provider|remove-provider|validate [-f pyproject.toml]`: edit the [variant]
// table of a pyproject.toml in place, keeping everything else byte for byte (the edit and its
// safe write are vwheel/api/pyproject.hpp), or check it.
//
// * add-provider NS [--requires REQ]... [--plugin-api API] [--enable-if MARKER]
//   [--optional|--no-optional] [--install-time|--aot] [--static FEATURE=V1,V2]... [--priority N]
//   [--dry-run]: adds the provider or updates the keys given; `--static` implies `--aot`.
// * remove-provider NS [--dry-run]: removes the provider and every priority / static entry of NS.
// * validate: prints every problem as `FILE: problem` (hard errors first, then conformance
//   problems), like `vwheel validate FILE`; exit 1 when there is any, 0 when clean.
//
// An edit writes the file atomically and prints `Wrote changes to FILE` (`No changes to FILE` when
// the text would stay the same; nothing is written then). `--dry-run` prints the new text instead.
// A symbolic link is followed and the file's permissions are kept. Conformance problems left in the
// result are printed as warnings. On error the file is unchanged,
// one line goes to stderr and the exit code is 1 (2 for a malformed option).

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "command.hpp"
#include "vwheel/api/pyproject.hpp"
#include "vwheel/api/validate.hpp"
#include "vwheel/core/text.hpp"

namespace vwheel::cli {
namespace {

// `FEATURE=V1,V2,...` -> (feature, values).
Result<std::pair<std::string, std::vector<std::string>>> parse_static(std::string_view text) {
  const auto eq = text.find('=');
  if (eq == std::string_view::npos) {
    return fail(fmt::format("--static \"{}\": expected FEATURE=VALUE[,VALUE...]", text));
  }
  std::pair<std::string, std::vector<std::string>> out{std::string(ascii_trim(text.substr(0, eq), is_space_or_tab)),
                                                       {}};
  std::string_view rest = text.substr(eq + 1);
  for (;;) {
    const auto comma = rest.find(',');
    const auto item = ascii_trim(rest.substr(0, comma), is_space_or_tab);
    if (item.empty()) return fail(fmt::format("--static \"{}\": empty value; expected FEATURE=VALUE[,VALUE...]", text));
    out.second.emplace_back(item);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return out;
}

// Prints what the edit did; warns about conformance problems left.
int finish_edit(const Result<api::PyprojectEditReport>& report) {
  if (!report) {
    report_error(report.error());
    return kUserError;
  }
  for (const auto& w : report->warnings) report_warning(w);
  if (report->write_error) {
    report_error(*report->write_error);
    return kEnvironment;
  }
  fmt::print("{}", api::format_pyproject_edit(*report));
  return kOk;
}

void add_add_provider(CLI::App& parent, Dispatch& dispatch) {
  struct Options {
    std::string file = "pyproject.toml";
    bool dry_run = false;
    std::string ns;
    std::vector<std::string> requires_list;
    std::string plugin_api;
    std::string enable_if;
    bool optional = false;
    bool no_optional = false;
    bool install_time = false;
    bool aot = false;
    std::vector<std::string> statics;
    std::size_t priority = 0;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = parent.add_subcommand(
      "add-provider", "Add a variant provider to [variant], or update the keys given of an existing one");
  cmd->add_option("namespace", o->ns, "The provider's namespace ([a-z0-9_]+)")->required();
  cmd->add_option("-f,--file", o->file, "The pyproject.toml to edit (default: ./pyproject.toml)");
  cmd->add_flag("--dry-run", o->dry_run, "Print the edited file to stdout instead of writing it");
  cmd->add_option("--requires", o->requires_list,
                  "A PEP 508 requirement that installs the provider plugin (repeatable; replaces the whole "
                  "`requires` list)")
      ->allow_extra_args(false);
  auto* plugin_api = cmd->add_option("--plugin-api", o->plugin_api, "The plugin's object reference, `module:attr`");
  auto* enable_if =
      cmd->add_option("--enable-if", o->enable_if, "Environment marker: use the provider only where true");
  auto* optional = cmd->add_flag("--optional", o->optional, "Mark the provider optional (optional = true)");
  cmd->add_flag("--no-optional", o->no_optional, "Mark the provider required (optional = false)")->excludes(optional);
  auto* install_time =
      cmd->add_flag("--install-time", o->install_time, "An install-time provider (install-time = true)");
  cmd->add_flag("--aot", o->aot, "An ahead-of-time provider (install-time = false)")->excludes(install_time);
  cmd->add_option("--static", o->statics,
                  "FEATURE=V1,V2: static property values (most preferred first) of an ahead-of-time provider "
                  "without a plugin, in [variant.static-properties.NS] (repeatable; implies --aot)")
      ->allow_extra_args(false);
  auto* priority = cmd->add_option("--priority", o->priority,
                                   "0-based position in default-priorities.namespace (0 = highest priority); "
                                   "default: append a new namespace, keep a listed one where it is")
                       ->check(CLI::NonNegativeNumber);
  cmd->callback([o, plugin_api, enable_if, priority, &dispatch] {
    const bool has_plugin_api = plugin_api->count() > 0;
    const bool has_enable_if = enable_if->count() > 0;
    const bool has_priority = priority->count() > 0;
    dispatch.action = [o, has_plugin_api, has_enable_if, has_priority]() -> int {
      api::AddProviderRequest req;
      req.edit.file = o->file;
      req.edit.dry_run = o->dry_run;
      auto& spec = req.spec;
      spec.ns = o->ns;
      spec.requires_ = o->requires_list;
      if (has_plugin_api) spec.plugin_api = o->plugin_api;
      if (has_enable_if) spec.enable_if = o->enable_if;
      if (o->optional) spec.optional = true;
      if (o->no_optional) spec.optional = false;
      if (o->install_time) spec.install_time = true;
      if (o->aot) spec.install_time = false;
      if (has_priority) spec.priority = o->priority;
      for (const auto& s : o->statics) {
        auto parsed = parse_static(s);
        if (!parsed) {
          report_error(parsed.error());
          return kUsage;
        }
        spec.static_properties.push_back(std::move(*parsed));
      }
      return finish_edit(api::add_provider(req));
    };
  });
}

void add_remove_provider(CLI::App& parent, Dispatch& dispatch) {
  struct Options {
    std::string file = "pyproject.toml";
    bool dry_run = false;
    std::string ns;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = parent.add_subcommand(
      "remove-provider",
      "Remove a variant provider: its table, its namespace list entry, its static properties and priorities");
  cmd->add_option("namespace", o->ns, "The provider's namespace")->required();
  cmd->add_option("-f,--file", o->file, "The pyproject.toml to edit (default: ./pyproject.toml)");
  cmd->add_flag("--dry-run", o->dry_run, "Print the edited file to stdout instead of writing it");
  cmd->callback([o, &dispatch] {
    dispatch.action = [o]() -> int {
      api::RemoveProviderRequest req;
      req.edit.file = o->file;
      req.edit.dry_run = o->dry_run;
      req.ns = o->ns;
      return finish_edit(api::remove_provider(req));
    };
  });
}

void add_validate(CLI::App& parent, Dispatch& dispatch) {
  auto file = std::make_shared<std::string>("pyproject.toml");
  CLI::App* cmd = parent.add_subcommand(
      "validate", "Check the [variant] table; one line per finding (like `vwheel validate`), exit 1 on errors");
  cmd->add_option("-f,--file", *file, "The pyproject.toml to check (default: ./pyproject.toml)");
  cmd->callback([file, &dispatch] {
    dispatch.action = [file]() -> int {
      auto problems = api::validate_file(*file, metadata::DocumentKind::Pyproject);
      if (!problems) {
        report_error(problems.error());
        return kUserError;
      }
      bool has_error = false;
      for (const auto& p : *problems) {
        fmt::print("{}\n", api::format_finding(p));
        has_error = has_error || p.finding.severity == metadata::Severity::Error;
      }
      return has_error ? kUserError : kOk;
    };
  });
}

}  // namespace

void add_pyproject_command(CLI::App& app, Dispatch& dispatch) {
  CLI::App* cmd = app.add_subcommand(
      "pyproject", "Edit or check the [variant] table of a pyproject.toml, keeping the rest of the file as it is");
  cmd->require_subcommand(1);
  add_add_provider(*cmd, dispatch);
  add_remove_provider(*cmd, dispatch);
  add_validate(*cmd, dispatch);
}

}  // namespace vwheel::cli

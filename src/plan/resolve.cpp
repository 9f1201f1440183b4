#include <algorithm>
#include <atomic>
#include <optional>
#include <set>
#include <system_error>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "choose.hpp"
#include "client_for.hpp"
#include "finder_options.hpp"
#include "index_provider.hpp"
#include "local_provider.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/core/hash.hpp"
#include "vwheel/core/text.hpp"
#include "vwheel/metadata/document.hpp"
#include "vwheel/metadata/merge.hpp"
#include "vwheel/plan/plan.hpp"
#include "vwheel/resolve/resolver.hpp"
#include "vwheel/simple/core_metadata.hpp"
#include "vwheel/wheel_name/names.hpp"


namespace vwheel::plan {
namespace fs = std::filesystem;
using detail::IndexProvider;
using detail::kPython;
using detail::pinned_versions;

namespace {

std::vector<std::string> allowed_hashes(const Requirements& requirements, const std::string& name) {
  std::vector<std::string> out;
  if (auto it = requirements.hashes.find(name); it != requirements.hashes.end()) {
    for (const auto& h : it->second) {
      if (h.starts_with("sha256:")) out.push_back(h.substr(7));
    }
  }
  return out;
}

/// The projects every resolution of `requirements` looks up first (not the local wheels').
std::vector<std::string> root_names(const Requirements& requirements) {
  std::vector<std::string> names;
  for (const auto& r : detail::without_local(requirements.roots, requirements.local_wheels)) names.push_back(r.name);
  return names;
}

/// The plan entry of a local source's wheel.
Result<Selected> local_selected(const LocalWheel& w, const resolve::Pin& pin, const selection::Selection& target) {
  auto name = wheel_name::parse_wheel_name(w.path.filename().string());
  if (!name) return fail(name.error().with_context(w.path.string()));
  Selected s;
  s.name = pin.name;
  s.version = pin.version.to_string();
  s.wheel.filename = w.path.filename().string();
  s.wheel.path = w.path;
  if (w.sha256) s.wheel.hashes["sha256"] = *w.sha256;
  s.wheel.version = pin.version;
  s.wheel.wheel = std::move(*name);
  s.why = fmt::format("from {}{}", w.origin.vcs ? w.origin.vcs->vcs + "+" : "", redact_url(w.origin.url));
  s.requested = pin.requested;
  s.required_by = pin.required_by;
  s.extras = pin.extras;
  s.requires_dist = w.metadata.requires_dist;
  s.requires_python = w.metadata.requires_python;
  s.environment = target.marker_environment();
  s.origin = w.origin;
  return s;
}

Result<Plan> resolve_once(const Requirements& requirements, const Settings& settings,
                          const selection::Selection& target, finder::Finder& finder) {
  const auto pinned = pinned_versions(requirements);
  IndexProvider provider(finder, target, pinned, false);
  provider.set_preferred(&settings.preferred);
  if (settings.sdist_metadata)
    provider.set_sdists(&settings.formats, &settings.sdist_metadata, &settings.sdist_prefetch);
  finder.prefetch(root_names(requirements));
  provider.prefetch_metadata(detail::without_local(requirements.roots, requirements.local_wheels),
                             target.marker_environment());
  detail::LocalProvider local(provider, requirements.local_wheels, target.marker_environment());
  resolve::Options options;
  options.pre = settings.pre;
  options.no_deps = settings.no_deps;
  auto resolution =
      resolve::resolve(local, requirements.roots, requirements.constraints, target.marker_environment(), options);
  if (!resolution) return fail(resolution.error());
  Plan plan;
  plan.target = target.description;
  plan.warnings = resolution->warnings;
  plan.warnings.insert(plan.warnings.end(), finder.warnings().begin(), finder.warnings().end());
  for (const auto& [url, answer] : finder.head_answers()) {
    if (answer) plan.head_answers.emplace(url, *answer);
  }
  for (const auto& pin : resolution->pins) {
    if (pin.name == kPython) continue;
    if (const auto* w = local.local(pin.name)) {
      auto s = local_selected(*w, pin, target);
      if (!s) return fail(s.error());
      plan.packages.push_back(std::move(*s));
      continue;
    }
    const auto version = pin.version.to_string();
    const auto* c = provider.choice_of(pin.name, version);
    if (!c) {
      // --no-deps roots are never asked for dependencies: choose now.
      auto deps = provider.dependencies(pin.name, pin.version);
      if (!deps) return fail(deps.error());
      c = provider.choice_of(pin.name, version);
      if (!c) return fail(fmt::format("{} {}: no wheel chosen", pin.name, version));
    }
    plan.uses_abi_dependency = plan.uses_abi_dependency || c->uses_abi_dependency;
    Selected s;
    s.name = pin.name;
    // (An sdist's version is its file name's, as the finder parsed it.)
    s.version = c->wheel->is_wheel() ? c->wheel->wheel->version : version;
    s.wheel = *c->wheel;
    s.label = c->label;
    s.properties = detail::property_strings(c->properties);
    s.why = c->why;
    s.other_variants = c->others;
    s.requested = pin.requested;
    s.required_by = pin.required_by;
    s.extras = pin.extras;
    s.variants_json = c->metadata;
    s.requires_dist = provider.requires_dist_of(pin.name, version);
    s.requires_python = provider.requires_python_of(pin.name, version);
    s.explain = c->explain;
    s.environment = c->environment;
    if (c->label) s.compatible_labels.push_back(*c->label);
    for (const auto& o : c->others) {
      if (o.reason.starts_with("compatible")) s.compatible_labels.push_back(o.label);
    }
    // An sdist's metadata is compared with the wheel it builds by the builder, not the fetch.
    if (const auto* md = provider.metadata_read(*c->wheel); md && c->wheel->is_wheel()) s.core_metadata = *md;
    for (const auto* f : provider.files_of(pin.name, pin.version)) {
      if (f->is_wheel() && f->source == c->wheel->source) s.all_wheels.push_back(*f);
      if (!f->is_wheel() && f->source == c->wheel->source) {
        s.variants_json_location = f->location();
        s.variants_json_file = *f;
      }
    }
    for (const auto& f : finder.sdists(pin.name)) {
      if (f.source == c->wheel->source && f.version == pin.version && !f.yanked) {
        s.sdist = f;
        break;
      }
    }
    s.allowed_sha256 = allowed_hashes(requirements, pin.name);
    if (settings.require_hashes) {
      if (s.allowed_sha256.empty()) {
        return fail(fmt::format("--require-hashes: no sha256 --hash given for {} {} ({})", pin.name, version,
                                s.wheel.filename));
      }
    }
    if (!s.allowed_sha256.empty()) {
      if (auto sha = s.wheel.sha256(); sha && std::find(s.allowed_sha256.begin(), s.allowed_sha256.end(), *sha) ==
                                                  s.allowed_sha256.end()) {
        return fail(fmt::format("{}: the index's sha256 {} is not among the --hash values given for {}", s.wheel.filename,
                                *sha, pin.name));
      }
    }
    plan.packages.push_back(std::move(s));
  }
  plan.requests = finder.requests();
  // Never an incomplete environment: every requirement of every chosen wheel is in the plan.
  if (!settings.no_deps) {
    if (auto ok = detail::check_complete(plan, "which the resolution does not contain"); !ok) return fail(ok.error());
  }
  return plan;
}

}  // namespace

// A cold install used to ask the index only after the interpreter had answered (tens of ms of
// Python starting), though the roots' pages and their variant metadata do not depend on it.
// Measured: see the README (bench/find_links_latency.sh and bench/cold_start.sh).
struct HeadStart::State {
  State(http::Client c, const Settings& settings, std::shared_ptr<std::atomic<bool>> flag)
      : cancel(std::move(flag)),
        client(std::move(c)),
        finder(client, settings.sources, detail::finder_options(settings)) {}
  void wait() noexcept {
    if (thread.joinable()) thread.join();
  }
  std::shared_ptr<std::atomic<bool>> cancel;
  http::Client client;
  finder::Finder finder;
  std::thread thread;
};

std::unique_ptr<HeadStart> HeadStart::start(const Requirements& requirements, const Settings& settings) {
  if (!starts_with_request(requirements, settings)) return nullptr;
  auto cancel = std::make_shared<std::atomic<bool>>(false);
  auto options = settings.http;
  options.cancel = cancel;
  auto client = http::Client::create(options);
  if (!client) return nullptr;
  auto state = std::make_unique<State>(std::move(*client), settings, std::move(cancel));
  try {
    state->thread = std::thread([s = state.get(), names = root_names(requirements)] {
      try {
        s->finder.prefetch(names);
      } catch (...) {
        // Out of memory or the like: the resolution fetches what is missing, and reports.
      }
    });
  } catch (const std::system_error&) {
    // No thread to be had: the resolution fetches it all itself.
  }
  return std::unique_ptr<HeadStart>(new HeadStart(std::move(state)));
}

HeadStart::HeadStart(std::unique_ptr<State> state) : state_(std::move(state)) {}

HeadStart::~HeadStart() {
  state_->cancel->store(true);  // (when finder() was taken, the thread is over already)
  state_->wait();
}

finder::Finder& HeadStart::finder() {
  state_->wait();
  return state_->finder;
}

http::Client& HeadStart::client() {
  state_->wait();
  return state_->client;
}

Result<Plan> resolve_plan(const Requirements& requirements, const Settings& settings,
                          const selection::Selection& target, HeadStart* head) {
  std::optional<http::Client> own;
  auto made = detail::client_for(head, settings, own);
  if (!made) return fail(made.error());
  http::Client* client = *made;
  std::optional<finder::Finder> fresh;
  auto& finder = head ? head->finder() : fresh.emplace(*client, settings.sources, detail::finder_options(settings));
  auto plan = resolve_once(requirements, settings, target, finder);
  if (!plan) return plan;
  // The abi_dependency namespace matches the versions being installed: when a chosen variant uses
  // it, rank again with the resolved versions in place of the installed ones.
  if (!plan->uses_abi_dependency) return plan;
  selection::Selection again = target;
  std::map<std::string, std::string> versions;
  for (const auto& [n, v] : target.abi_dependencies) versions[wheel_name::canonicalize_name(n)] = v;
  for (const auto& p : plan->packages) versions[p.name] = p.version;
  again.abi_dependencies.assign(versions.begin(), versions.end());
  finder::Finder second(*client, settings.sources, detail::finder_options(settings));
  return resolve_once(requirements, settings, again, second);
}

}  // namespace vwheel::plan

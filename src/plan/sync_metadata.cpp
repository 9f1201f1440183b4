// The Requires-Dist reader `vwheel sync` gives plan_from_lock: the finder's way of reading a
// wheel's METADATA, so that a remote wheel costs range requests (and its answer is cached), not a
// download.

#include <memory>
#include <optional>

#include "finder_options.hpp"
#include "vwheel/http/client.hpp"
#include "vwheel/plan/plan.hpp"
#include "vwheel/simple/core_metadata.hpp"

namespace vwheel::plan {

RequiresDistReader lock_requires_reader(const Settings& settings) {
  // Made on the first call: a lock that needs no narrowing makes no client at all.
  struct State {
    std::optional<http::Client> client;
    std::optional<finder::Finder> finder;
  };
  auto state = std::make_shared<State>();
  return [state, settings](const finder::File& wheel) -> Result<std::vector<std::string>> {
    if (!state->finder) {
      auto client = http::Client::create(settings.http);
      if (!client) return fail(client.error());
      state->client.emplace(std::move(*client));
      state->finder.emplace(*state->client, std::vector<finder::Source>{}, detail::finder_options(settings));
    }
    auto text = state->finder->core_metadata(wheel);
    if (!text) return fail(text.error());
    auto md = simple::parse_core_metadata(*text, wheel.filename + ": METADATA");
    if (!md) return fail(md.error());
    return std::move(md->requires_dist);
  };
}

}  // namespace vwheel::plan

#pragma once
// Private to the plan component: the HTTP client a resolution or a lock goes on with.

#include <optional>

#include "vwheel/http/client.hpp"
#include "vwheel/plan/plan.hpp"

namespace vwheel::plan::detail {

/// `head`'s client (once its fetching is done) when given, else a new one made with
/// `settings.http` and kept in `own`.
inline Result<http::Client*> client_for(HeadStart* head, const Settings& settings, std::optional<http::Client>& own) {
  if (head) return &head->client();
  auto made = http::Client::create(settings.http);
  if (!made) return fail(made.error());
  return &own.emplace(std::move(*made));
}

}  // namespace vwheel::plan::detail

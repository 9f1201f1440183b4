#pragma once
// Private to the plan component: the options every finder of a resolution or a lock is made with.

#include "vwheel/finder/finder.hpp"
#include "vwheel/plan/plan.hpp"

namespace vwheel::plan::detail {

/// The cache directory, and the download of whole wheels whose server ignores range requests
/// (finder::FinderOptions::download) to where fetch_wheels and the lock's hashing look for
/// downloads: `<cache>/archives/<sha256>/` when the index gave the sha256 (verified while it
/// arrives), else `<cache>/archives/url-<...>/` with the record of its origin (origin.hpp). Such a
/// wheel is then fetched once, to be read and installed (or hashed).
[[nodiscard]] finder::FinderOptions finder_options(const Settings& settings);

}  // namespace vwheel::plan::detail

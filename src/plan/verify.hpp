#pragma once
// Private to the plan component: checking a fetched wheel against what the index said about it.

#include <filesystem>
#include <optional>

#include "vwheel/core/error.hpp"
#include "vwheel/plan/plan.hpp"

namespace vwheel::plan::detail {

// The index is not trusted over the wheel: the wheel at `path` (downloaded, cached or local) must
// carry the variant the plan chose it for (its `variant.json` gives the planned label the planned
// properties) and the core metadata the resolution used (Name, Version, Requires-Python and
// Requires-Dist of its METADATA equal to the `.metadata` read). The error is one line naming the
// wheel's URL, the index file and what differs. `read_from`, when given, is the file to read
// (the skeleton kept in the unpacked-wheel cache in place of the archive at `path`).
[[nodiscard]] Result<void> verify_wheel(const Selected& planned, const std::filesystem::path& path,
                                        const std::optional<std::filesystem::path>& read_from = std::nullopt);

}  // namespace vwheel::plan::detail

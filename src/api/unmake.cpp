#include <exception>

#include <fmt/format.h>

#include "vwheel/api/maintain.hpp"
#include "vwheel/core/parallel.hpp"

namespace vwheel::api {

UnmakeVariantsReport unmake_variants(const UnmakeVariantsRequest& request) {
  const auto& inputs = request.inputs;
  UnmakeVariantsReport report;
  report.results.assign(inputs.size(), fail("not processed"));
  parallel_for(inputs.size(), request.jobs == 0 ? default_jobs() : request.jobs, [&](std::size_t i) {
    // An exception must not escape a worker thread; it becomes this input's error.
    try {
      report.results[i] = wheel::unmake_variant(inputs[i], request.output_dir);
    } catch (const std::exception& e) {
      report.results[i] = fail(fmt::format("{}: {}", inputs[i].string(), e.what()));
    }
  });
  return report;
}

}  // namespace vwheel::api

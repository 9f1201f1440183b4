// How every vwheel executable reports problems on stderr.

#include <fmt/format.h>

#include "command.hpp"

namespace vwheel::cli {

void report_error(const Error& error) {
  fmt::print(stderr, "vwheel: error: {}\n", error.message);
  for (const auto& detail : error.details) fmt::print(stderr, "vwheel: error: {}\n", detail);
}

void report_explained_error(const Error& error) {
  fmt::print(stderr, "vwheel: error: {}\n", error.message);
  for (const auto& detail : error.details) fmt::print(stderr, "  {}\n", detail);
}

void report_warning(const std::string& message) { fmt::print(stderr, "vwheel: warning: {}\n", message); }

}  // namespace vwheel::cli

// `vwheel analyze-wheel` (stub until implemented).

#include "../command.hpp"

namespace vwheel::cli {

void add_analyze_wheel_command(CLI::App& /*app*/, Dispatch& /*dispatch*/) {}

}  // namespace vwheel::cli

// `vwheel add-wheel-to-index-json` (stub until implemented).

#include "../command.hpp"

namespace vwheel::cli {

void add_add_wheel_to_index_json_command(CLI::App& /*app*/, Dispatch& /*dispatch*/) {}

}  // namespace vwheel::cli

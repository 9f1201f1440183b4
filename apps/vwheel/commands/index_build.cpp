// `vwheel index build` (stub until implemented).

#include "../command.hpp"

namespace vwheel::cli {

void add_index_build_command(CLI::App& /*index*/, Dispatch& /*dispatch*/) {}

}  // namespace vwheel::cli

// `vwheel index serve` (stub until implemented).

#include "../command.hpp"

namespace vwheel::cli {

void add_index_serve_command(CLI::App& /*index*/, Dispatch& /*dispatch*/) {}

}  // namespace vwheel::cli

// `vwheel unmake-variant` (stub until implemented).

#include "../command.hpp"

namespace vwheel::cli {

void add_unmake_variant_command(CLI::App& /*app*/, Dispatch& /*dispatch*/) {}

}  // namespace vwheel::cli

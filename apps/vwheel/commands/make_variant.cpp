// `vwheel make-variant` (stub until implemented).

#include "../command.hpp"

namespace vwheel::cli {

void add_make_variant_command(CLI::App& /*app*/, Dispatch& /*dispatch*/) {}

}  // namespace vwheel::cli

// `vwheel pyproject` (stub until implemented).

#include "../command.hpp"

namespace vwheel::cli {

void add_pyproject_command(CLI::App& /*app*/, Dispatch& /*dispatch*/) {}

}  // namespace vwheel::cli

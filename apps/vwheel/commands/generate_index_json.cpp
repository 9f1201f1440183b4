// `vwheel generate-index-json` (stub until implemented).

#include "../command.hpp"

namespace vwheel::cli {

void add_generate_index_json_command(CLI::App& /*app*/, Dispatch& /*dispatch*/) {}

}  // namespace vwheel::cli

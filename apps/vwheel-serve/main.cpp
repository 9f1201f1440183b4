// vwheel-serve: `vwheel index serve`, as its own executable (see
// apps/vwheel/commands/index_serve.cpp for why). `vwheel index serve ARGS` runs
// `vwheel-serve serve ARGS`.

#include <cstdio>
#include <exception>

#include <fmt/format.h>

#include "command.hpp"

int main(int argc, char** argv) {
  using namespace vwheel::cli;
  CLI::App app{"vwheel index serve: serve a variant-aware package index", "vwheel index"};
  app.require_subcommand(1);
  Dispatch dispatch;
  add_index_serve_command(app, dispatch);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return exit_for(app, e);
    fmt::print(stderr, "vwheel: error: {}\n", e.what());
    fmt::print(stderr, "Run `vwheel index serve --help` for usage.\n");
    return kUsage;
  }
  try {
    return dispatch.action ? dispatch.action() : kUsage;
  } catch (const std::exception& e) {
    fmt::print(stderr, "vwheel: error: {}\n", e.what());
  }
  return kEnvironment;
}

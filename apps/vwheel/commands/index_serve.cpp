// `vwheel index serve ...`: runs the `vwheel-serve` executable next to this one with the same
// arguments. The HTTP server lives there so that its libraries (cpp-httplib, OpenSSL, brotli)
// are not loaded by every short vwheel command (they tripled `vwheel label`'s start-up time).

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "../command.hpp"

namespace vwheel::cli {

namespace {

std::filesystem::path server_executable() {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  const auto dir = ec ? std::filesystem::path(".") : self.parent_path();
  return dir / "vwheel-serve";
}

}  // namespace

void add_index_serve_command(CLI::App& index, Dispatch& dispatch) {
  auto args = std::make_shared<std::vector<std::string>>();
  CLI::App* cmd = index.add_subcommand(
      "serve",
      "Serve a built index SITE (or a folder of wheels, indexed on start and after each upload) over HTTP: PEP "
      "503/691 pages with content negotiation, ETag/If-None-Match, Range requests, and `twine upload` with "
      "--upload-token; --read-auth (users who may read), --tls-cert/--tls-key (HTTPS), or --upstream URL (a caching "
      "proxy of another index) (run `vwheel index serve --help` for the options)");
  cmd->set_help_flag();  // --help goes to vwheel-serve, which knows the options
  cmd->prefix_command();
  cmd->allow_extras();
  cmd->callback([cmd, args, &dispatch] {
    *args = cmd->remaining();
    dispatch.action = [args]() -> int {
      const auto exe = server_executable();
      std::vector<std::string> argv_text{"vwheel index", "serve"};
      argv_text.insert(argv_text.end(), args->begin(), args->end());
      std::vector<char*> argv;
      for (auto& a : argv_text) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(exe.c_str(), argv.data());
      report_error(Error(fmt::format("cannot run {}: {} (`cmake --install` and the Debian package put it next to "
                                     "vwheel; the Python wheel does not carry the server)",
                                     exe.string(), std::strerror(errno))));
      return kEnvironment;
    };
  });
}

}  // namespace vwheel::cli

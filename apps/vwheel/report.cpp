// How every vwheel executable reports problems on stderr.

#include <sstream>

#include <fmt/format.h>

#include "command.hpp"
#include "vwheel/core/interrupt.hpp"
#include "vwheel/core/text.hpp"

namespace vwheel::cli {

// Every message goes through `printable`: a value echoed from user input (a label, a file name, a
// header) may hold a newline or a terminal escape, and one error must stay one line. And through
// `redact_url`: a URL in it may carry credentials (a lock's `url`, an `--index-url`), whichever
// component made the message.
void report_error(const Error& error) {
  if (interrupted()) return;  // run_interruptible() says it in one line
  fmt::print(stderr, "vwheel: error: {}\n", printable(redact_url(error.message)));
  for (const auto& detail : error.details) fmt::print(stderr, "vwheel: error: {}\n", printable(redact_url(detail)));
}

void report_explained_error(const Error& error) {
  if (interrupted()) return;
  fmt::print(stderr, "vwheel: error: {}\n", printable(redact_url(error.message)));
  for (const auto& detail : error.details) fmt::print(stderr, "  {}\n", printable(redact_url(detail)));
}

int report_failure(const Error& error) {
  if (error.explained) {
    report_explained_error(error);
  } else {
    report_error(error);
  }
  switch (error.kind) {
    case ErrorKind::usage:
      return kUsage;
    case ErrorKind::environment:
      return kEnvironment;
    case ErrorKind::input:
      break;
  }
  return kUserError;
}

void report_warning(const std::string& message) { fmt::print(stderr, "vwheel: warning: {}\n", redact_url(message)); }

int exit_for(const CLI::App& app, const CLI::Error& error) {
  std::ostringstream out;
  std::ostringstream err;
  const int code = app.exit(error, out, err);
  fmt::print(stdout, "{}", out.view());
  fmt::print(stderr, "{}", err.view());
  return code;
}

}  // namespace vwheel::cli

#pragma once
/// \file
/// The error type of libvwheel. Every function that parses or validates user input returns
/// `vwheel::Result<T>`; exceptions are reserved for environmental failures (I/O, out of memory)
/// and are caught at the CLI boundary.

#include <string>
#include <utility>
#include <vector>

#include <tl/expected.hpp>

namespace vwheel {

/// What kind of failure an error is, for the exit code: bad input (1), a bad command line (2),
/// or the environment (3: I/O, a missing interpreter, out of memory).
enum class ErrorKind : unsigned char { input, usage, environment };

/// A user-facing error: one line that names the file, field and value at fault and what was
/// expected. `details` holds further problems when one input had several (e.g. `vwheel validate`).
struct Error {
  std::string message;               ///< one line, no trailing newline
  std::vector<std::string> details;  ///< additional one-line problems, possibly empty
  ErrorKind kind = ErrorKind::input;
  /// `details` explain `message` (a resolution conflict's derivation) rather than list more problems.
  bool explained = false;

  Error() = default;
  explicit Error(std::string msg) : message(std::move(msg)) {}
  Error(std::string msg, std::vector<std::string> more)
      : message(std::move(msg)), details(std::move(more)) {}

  /// Returns a copy whose message is prefixed with `context + ": "` (e.g. a file name).
  [[nodiscard]] Error with_context(const std::string& context) const {
    Error e = *this;
    e.message = context + ": " + e.message;
    return e;
  }
};

/// `error` as another kind (e.g. a file the user named could not be written: environment).
[[nodiscard]] inline Error with_kind(Error error, ErrorKind kind) {
  error.kind = kind;
  return error;
}

/// The result of an operation that can fail on bad input.
template <class T>
using Result = tl::expected<T, Error>;

/// Shorthand to return an error: `return vwheel::fail("field `x`: expected ...");`
inline tl::unexpected<Error> fail(std::string message) {
  return tl::unexpected<Error>(Error(std::move(message)));
}

/// Shorthand to forward an existing error.
inline tl::unexpected<Error> fail(Error error) { return tl::unexpected<Error>(std::move(error)); }

}  // namespace vwheel

#pragma once
/// \file
/// How a use case that can fail in two ways says which: bad input (the user can fix the
/// request) or the environment (a file could not be written, an interpreter could not be run).
/// The CLI maps the two to different exit codes.

#include <utility>

#include <tl/expected.hpp>

#include "vwheel/core/error.hpp"

namespace vwheel::api {

/// A failed use case: the error, and whether the environment (not the input) is at fault.
struct Failure {
  Error error;
  bool environmental = false;
};

/// The result of a use case whose failures are either the input's or the environment's.
template <class T>
using Outcome = tl::expected<T, Failure>;

/// Shorthand for a failure caused by the input.
inline tl::unexpected<Failure> input_failure(Error error) { return tl::unexpected<Failure>(Failure{std::move(error), false}); }

/// Shorthand for a failure caused by the environment.
inline tl::unexpected<Failure> environment_failure(Error error) {
  return tl::unexpected<Failure>(Failure{std::move(error), true});
}

}  // namespace vwheel::api

#pragma once
// Private: the PEP 508 tokenizer/parser shared by Marker::parse and Requirement::parse. Errors
// name the whole source text and a 1-based column.

#include "vwheel/core/text.hpp"
#include <cstddef>
#include <string>
#include <string_view>

#include "vwheel/core/error.hpp"
#include "vwheel/markers/marker.hpp"

namespace vwheel::markers {

/// PEP 503 normalization (lowercase, runs of `-_.` → `-`); a private copy so that markers does
/// not depend on wheel_name.
std::string canonicalize_extra(std::string_view name);

using vwheel::printable;

class MarkerParser {
 public:
  MarkerParser(std::string_view source, std::string_view what) : src_(source), what_(what) {}

  /// Parses a marker starting at the current position; stops before the first token that
  /// cannot continue it (the caller checks what follows).
  Result<Marker> parse_marker();

  [[nodiscard]] tl::unexpected<Error> error(std::string_view message, std::size_t at) const;
  void skip_ws() noexcept;
  [[nodiscard]] bool at_end() const noexcept { return pos_ >= src_.size(); }
  [[nodiscard]] char peek() const noexcept { return pos_ < src_.size() ? src_[pos_] : '\0'; }
  [[nodiscard]] std::size_t pos() const noexcept { return pos_; }
  void advance(std::size_t n = 1) noexcept { pos_ += n; }
  [[nodiscard]] std::string_view source() const noexcept { return src_; }
  /// The run of `[A-Za-z0-9._]` at the current position (possibly empty).
  [[nodiscard]] std::string_view peek_word() const noexcept;
  /// A PEP 508 identifier at the current position (`[A-Za-z0-9]` then `[A-Za-z0-9._-]*`, ending
  /// in an alphanumeric), or empty.
  [[nodiscard]] std::string_view peek_identifier() const noexcept;

 private:
  Result<std::size_t> parse_or(Marker& m, int depth);
  Result<std::size_t> parse_and(Marker& m, int depth);
  Result<std::size_t> parse_atom(Marker& m, int depth);
  Result<std::size_t> parse_item(Marker& m);
  Result<Marker::Operand> parse_operand();
  bool peek_keyword(std::string_view word) const noexcept;

  std::string_view src_;
  std::string_view what_;
  std::size_t pos_ = 0;
};

}  // namespace vwheel::markers

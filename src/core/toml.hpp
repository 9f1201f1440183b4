#pragma once
// toml++, included the one way vwheel includes it.
//
// toml++ 3.3.0 asserts (debug builds) or assumes (release builds with clang: undefined
// behaviour) that a table header starts with a key character, which hostile input breaks
// (fuzz_metadata found `[~a]`; seed fuzz/corpus/fuzz_metadata/regress-toml-table-header.toml).
// With TOML_ASSERT a no-op and NDEBUG undefined while the header is read, that check becomes
// neither an abort nor an assumption, and the parser reports the error it already detects.

#ifdef NDEBUG
#undef NDEBUG
#define VWHEEL_TOML_RESTORE_NDEBUG
#endif
#define TOML_ASSERT(expr) static_assert(true)
#include <toml++/toml.h>
#ifdef VWHEEL_TOML_RESTORE_NDEBUG
#define NDEBUG
#undef VWHEEL_TOML_RESTORE_NDEBUG
#endif

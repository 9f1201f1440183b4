#pragma once
// CLI11 without the standard streams' start-up cost. Every file of the CLI includes this header
// instead of <CLI/CLI.hpp>.
//
// Why: CLI11 2.1 includes <iostream>, and in GCC 12's libstdc++ every translation unit that
// includes <iostream> holds a static std::ios_base::Init, whose constructor builds the eight
// standard streams at each process start, before main(). vwheel never writes through std::cout
// or std::cerr (its output goes through fmt to stdio), so that was only start-up time: 5 page
// faults of `vwheel label`'s 103, and in one hyperfine run (300 runs each, 2-core VM, kernel
// 6.18) `label` 3.74 -> 3.60 ms and `rank` of torch's file 5.71 -> 5.28 ms. (The classic locale
// is still built: CLI11 trims option names with std::isspace(c, std::locale()).)
//
// How: <iostream>'s include guard is defined first, with <iostream>'s declarations of the four
// narrow stream objects (CLI11 names std::cout and std::cerr as default arguments of App::exit)
// but not its static initializer. Nothing in the CLI may use these objects: they are never
// constructed. exit_for() (report.cpp) hands App::exit string streams of its own instead.
#include <istream>
#include <ostream>

#if defined(__GLIBCXX__)  // libstdc++; other libraries get <iostream> as CLI11 includes it
#ifdef _GLIBCXX_IOSTREAM
#error "<iostream> was included before cli11.hpp: its static initializer would run at every start"
#endif
#define _GLIBCXX_IOSTREAM 1
namespace std {
extern istream cin;
extern ostream cout;
extern ostream cerr;
extern ostream clog;
}  // namespace std
#endif

#include <CLI/CLI.hpp>

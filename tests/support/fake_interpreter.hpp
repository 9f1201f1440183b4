#pragma once
// A made-up interpreter description (no Python runs): /opt/python/bin/python3 of the given full
// version on Linux, with two tags.

#include <string>

#include "vwheel/python/interpreter.hpp"

namespace vwheel::test_support {

inline python::Interpreter fake_interpreter(const std::string& full_version) {
  python::Interpreter i;
  i.executable = "/opt/python/bin/python3";
  i.environment = {{"python_full_version", full_version},
                   {"python_version", full_version.substr(0, full_version.rfind('.'))},
                   {"sys_platform", "linux"}};
  i.tags = {"cp311-cp311-linux_x86_64", "py3-none-any"};
  return i;
}

}  // namespace vwheel::test_support

#pragma once
// Pieces of the Python provider runner that are tested on their own. Private to src/provider/.

#include <string>
#include <string_view>
#include <vector>

#include "vwheel/core/error.hpp"
#include "vwheel/provider/python.hpp"
#include "vwheel/python/interpreter.hpp"
#include "vwheel/variant/property.hpp"

namespace vwheel::provider::python_detail {

/// The loader run in the provider's environment: `python -I -B loader.py OBJECT_REFERENCE METHOD`.
/// It imports the object, calls it when callable (a class is instantiated), checks the plugin
/// API's attributes, calls the method and writes
/// `{"namespace": ..., "configs": [{"name": ..., "values": [...], "multi_value": ...}, ...],
/// "all_properties_compatible": bool}` to
/// the standard output it started with (what the plugin prints goes to standard error). On
/// failure it prints the traceback and, as the last line of standard error, one line saying
/// what failed, and exits with status 1.
[[nodiscard]] std::string_view loader_script() noexcept;

/// Validates the loader's answer for namespace `ns`: the reported namespace, then each config
/// (`name` a feature name, `values` a non-empty list of unique feature values, `multi_value` a
/// bool or absent = false), names unique. `get_all_configs()` must not be empty. Errors name
/// the namespace, method, field and value.
[[nodiscard]] Result<std::vector<variant::FeatureConfig>> parse_answer(std::string_view ns, ProviderMethod method,
                                                                       std::string_view json_text);

/// What identifies the interpreter that makes an environment: `IMPLEMENTATION X.Y.Z RELEASELEVEL
/// ABIFLAGS REALPATH` (e.g. `cpython 3.11.7 final  /usr/bin/python3.11`), the real path being
/// where its `sys.executable` resolves to (a pyenv shim's real interpreter).
[[nodiscard]] std::string interpreter_identity(const python::Interpreter& interpreter);

/// What identifies a virtual environment: a format version, the interpreter's identity (its
/// implementation, version and real path) and the sorted requirements, one per line.
[[nodiscard]] std::string venv_key(std::string_view interpreter_identity, std::vector<std::string> requirements);

/// The folder name of the environment for `key`: `venv-` and 16 hex digits of a hash of it.
[[nodiscard]] std::string venv_dir_name(std::string_view key);

}  // namespace vwheel::provider::python_detail

// The Python side of the provider runner (see python_detail.hpp). Written for vwheel from the
// plugin API of PEP 817; it talks to vwheel through argv, standard output and the exit status.

#include "provider/python_detail.hpp"

namespace vwheel::provider::python_detail {
namespace {

constexpr std::string_view kLoader = R"PY(# vwheel: runs one method of a variant provider plugin (PEP 817 plugin API).
# usage: python -I -B loader.py OBJECT_REFERENCE METHOD
import importlib
import json
import os
import sys
import traceback

REQUIRED = ("namespace", "get_all_configs", "get_supported_configs")


def one_line(text):
    return " ".join(str(text).split())


def describe(exc):
    message = one_line(exc)
    return type(exc).__name__ + (": " + message if message else "")


def give_up(message, show_traceback=True):
    try:
        if show_traceback:
            traceback.print_exc()
        sys.stderr.write(one_line(message) + "\n")
        sys.stderr.flush()
    finally:
        os._exit(1)


def stand_in(value):
    # json.dumps' fallback: vwheel reports the field as invalid, naming this text.
    return "<" + type(value).__name__ + " object>"


def config_entry(item):
    entry = {}
    for field in ("name", "values", "multi_value"):
        if not hasattr(item, field):
            continue
        value = getattr(item, field)
        if field == "values" and isinstance(value, (list, tuple)):
            value = list(value)
        entry[field] = value
    return entry


def main():
    reference, method = sys.argv[1], sys.argv[2]
    answer_fd = os.dup(1)
    # From here on, whatever the plugin prints lands on standard error.
    os.dup2(2, 1)

    try:
        module_name, _, attributes = reference.partition(":")
        target = importlib.import_module(module_name)
        for name in filter(None, attributes.split(".")):
            target = getattr(target, name)
    except BaseException as exc:
        give_up("cannot load " + repr(reference) + ": " + describe(exc))
    if callable(target):
        try:
            target = target()
        except BaseException as exc:
            give_up("cannot instantiate " + repr(reference) + ": " + describe(exc))
    missing = [name for name in REQUIRED if not hasattr(target, name)]
    if missing:
        give_up(repr(reference) + " is not a variant provider plugin (missing: " + ", ".join(missing) + ")", False)

    try:
        namespace = target.namespace
        result = getattr(target, method)()
        if isinstance(result, list):
            configs = [config_entry(item) for item in result]
        else:
            configs = "<" + type(result).__name__ + ">"
    except BaseException as exc:
        give_up(method + "() raised " + describe(exc))

    try:
        # The Building draft: only a plugin that declares every valid property compatible may
        # fill static-properties at build time.
        compatible = getattr(target, "all_properties_compatible", False) is True
        text = json.dumps({"namespace": namespace, "configs": configs, "all_properties_compatible": compatible},
                          default=stand_in, allow_nan=False, ensure_ascii=True)
    except BaseException as exc:
        give_up(method + "() returned data that cannot be written as JSON: " + describe(exc))
    sys.stdout.flush()
    sys.stderr.flush()
    data = memoryview(text.encode("ascii"))
    while data:
        data = data[os.write(answer_fd, data):]
    os.close(answer_fd)


main()
)PY";

}  // namespace

std::string_view loader_script() noexcept { return kLoader; }

}  // namespace vwheel::provider::python_detail

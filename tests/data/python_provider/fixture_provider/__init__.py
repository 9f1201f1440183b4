"""A variant provider for vwheel's tests (namespace ``fictional_hw``).

The module itself is a plugin (module-level ``namespace`` and functions); the classes and objects
below are further plugins, one per behaviour the tests check. Importing the module appends a line
to the file named by ``$VWHEEL_TEST_PROVIDER_MARKER`` when it is set, else to
``$HOME/provider-marker`` when ``$HOME/.provider-marker-enabled`` exists (vwheel passes the
provider only PATH, HOME and LANG): proof that code ran.
"""

import os
import subprocess
import sys
import time
from dataclasses import dataclass, field

_MARKER = os.environ.get("VWHEEL_TEST_PROVIDER_MARKER")
_HOME = os.environ.get("HOME", "")
if not _MARKER and _HOME and os.path.exists(os.path.join(_HOME, ".provider-marker-enabled")):
    _MARKER = os.path.join(_HOME, "provider-marker")
if _MARKER:
    with open(_MARKER, "a", encoding="utf-8") as marker:
        marker.write("imported by " + sys.executable + "\n")


@dataclass
class Config:
    name: str
    values: list = field(default_factory=list)
    multi_value: bool = False


namespace = "fictional_hw"
is_aot_plugin = False


def get_all_configs():
    return [
        Config("gpu", ["narf", "poit", "zort"], True),
        Config("min_version", ["1", "2", "3", "4"]),
    ]


def get_supported_configs():
    return [
        Config("min_version", ["3", "2", "1"]),
        Config("gpu", ["zort", "narf"], True),
    ]


class GoodPlugin:
    """A class: the loader instantiates it, so plain methods work."""

    namespace = "fictional_hw"

    def get_all_configs(self):
        return get_all_configs()

    def get_supported_configs(self):
        return get_supported_configs()


class _StaticPlugin:
    namespace = "fictional_hw"
    get_all_configs = staticmethod(get_all_configs)
    get_supported_configs = staticmethod(get_supported_configs)

    def __call__(self):
        return self


static_plugin = _StaticPlugin()


class _Answering:
    """Base of the misbehaving plugins: get_supported_configs() returns ``answer()``."""

    namespace = "fictional_hw"

    def get_all_configs(self):
        return get_all_configs()

    def get_supported_configs(self):
        return self.answer()


class InvalidValue(_Answering):
    def answer(self):
        return [Config("gpu", ["zort", "Narf"], True)]


class InvalidName(_Answering):
    def answer(self):
        return [Config("GPU", ["zort"])]


class DuplicateFeature(_Answering):
    def answer(self):
        return [Config("gpu", ["zort"]), Config("gpu", ["narf"])]


class DuplicateValue(_Answering):
    def answer(self):
        return [Config("gpu", ["zort", "zort"])]


class EmptyValues(_Answering):
    def answer(self):
        return [Config("gpu", [])]


class NumberValue(_Answering):
    def answer(self):
        return [Config("min_version", [3])]


class BadMultiValue(_Answering):
    def answer(self):
        return [Config("gpu", ["zort"], "yes")]


class NotAList(_Answering):
    def answer(self):
        return {"gpu": ["zort"]}


class MissingValues(_Answering):
    def answer(self):
        class NoValues:
            name = "gpu"

        return [NoValues()]


class NoMultiValue(_Answering):
    """Configs without ``multi_value`` read as single-valued."""

    def answer(self):
        class Plain:
            name = "gpu"
            values = ("zort",)

        return [Plain()]


class WrongNamespace(GoodPlugin):
    namespace = "other_hw"


class Raiser(_Answering):
    def answer(self):
        raise RuntimeError("fixture provider exploded")


class Sleeper(_Answering):
    def answer(self):
        time.sleep(60)
        return get_supported_configs()


class Noisy(_Answering):
    def answer(self):
        print("provider chatter on stdout")
        sys.stdout.flush()
        os.write(1, b"more chatter, written to fd 1\n")
        return get_supported_configs()


class Flood(_Answering):
    def answer(self):
        return [Config("gpu", ["v%d" % i for i in range(200000)], True)]


class Straggler(_Answering):
    """Leaves a background process behind, holding the output pipes open."""

    def answer(self):
        child = subprocess.Popen(["sleep", "60"], stdout=sys.stderr, stderr=sys.stderr)
        with open(os.environ["VWHEEL_TEST_PROVIDER_PIDFILE"], "w", encoding="utf-8") as f:
            f.write(str(child.pid))
        return get_supported_configs()


class Introspect(_Answering):
    """Reports what the provider process sees."""

    def answer(self):
        names = sorted(n.lower() for n in os.environ if n.replace("_", "").isalnum())
        return [
            Config("env", names, True),
            Config("isolated", [str(sys.flags.isolated)]),
            Config("cwd_files", sorted(os.listdir(os.getcwd())), True),
            Config("in_venv", [str(int(sys.prefix != sys.base_prefix))]),
        ]


class MissingMethods:
    namespace = "fictional_hw"


class BrokenInit:
    def __init__(self):
        raise ValueError("cannot build the plugin")

"""vwheel: Python wheel variants (PEP 825/817), the engine of the ``vwheel`` command in-process.

Every function runs libvwheel's code (the same the command runs) with the GIL released, and raises
a :class:`vwheel.Error` subclass carrying the command's one-line message on failure.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any, NamedTuple, Union

from . import _vwheel
from ._errors import EnvironmentFailure, Error, InputError, UsageError

__version__: str = _vwheel.__version__

__all__ = [
    "Error",
    "InputError",
    "UsageError",
    "EnvironmentFailure",
    "Finding",
    "label",
    "rank",
    "analyze_platform",
    "validate",
    "read_variants_json",
    "read_variant_json",
    "merge",
    "write",
    "read_pyproject",
    "evaluate_marker",
    "analyze_wheel",
    "make_variant",
    "generate_index_json",
    "__version__",
]

StrPath = Union[str, "os.PathLike[str]"]

_FORMATS = ("v0.0.3", "v0.1.1", "v0.2.0")


class Finding(NamedTuple):
    """One problem ``vwheel validate`` reports about a file."""

    file: str
    severity: str  # "error" or "warning"
    rule: str  # a stable id, e.g. "values-unsorted"
    pointer: str  # RFC 6901 JSON pointer into the document
    location: str  # the same place as a dotted key path
    message: str


def _paths(value: StrPath | Mapping[str, Any] | Sequence[StrPath | Mapping[str, Any]] | None,
           stack: ExitStack) -> list[str]:
    """Target profiles as file names; a dict is written to a temporary file the engine reads."""
    if value is None:
        return []
    items = value if isinstance(value, (list, tuple)) else [value]
    out = []
    for item in items:
        if isinstance(item, Mapping):
            tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="vwheel-"))
            path = os.path.join(tmp, "target.json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump(item, f)
            out.append(path)
        else:
            out.append(os.fspath(item))
    return out


def _selection(target, config, enable_optional_providers, no_cache, stack: ExitStack) -> Any:
    sel = _vwheel.Selection()
    sel.targets = _paths(target, stack)
    sel.config = _optional_path(config)
    if isinstance(enable_optional_providers, bool):
        sel.enable_all_optional = enable_optional_providers
    else:
        sel.enabled_optional = list(enable_optional_providers)
    sel.no_cache = no_cache
    return sel


def _optional_path(value: StrPath | None) -> str | None:
    return None if value is None else os.fspath(value)


def label(properties: Iterable[str], label: str | None = None) -> str:
    """The label of the variant with these properties (``vwheel label -p ...``).

    ``properties`` are ``"namespace :: feature :: value"`` texts (none: the null variant,
    ``"null"``); without ``label`` the result is the 8-hex hash of the property set, with one the
    custom label is validated and returned.
    """
    return _vwheel.label(list(properties), label)


def rank(
    variants_json: StrPath | Mapping[str, Any],
    target: StrPath | Mapping[str, Any] | Sequence[StrPath | Mapping[str, Any]] | None = None,
    config: StrPath | None = None,
    *,
    enable_optional_providers: bool | Iterable[str] = False,
    no_cache: bool = False,
) -> list[str]:
    """The labels of a ``*-variants.json`` that the target supports, best first.

    Exactly what ``vwheel rank VARIANTS_JSON --target TARGET [--config CONFIG]`` prints.
    ``variants_json`` is a file or its content as a dict; ``target`` a target profile (a file, a
    dict, or several laid over each other), or ``None`` for this machine (detected);
    ``config`` a ``variants.toml``; ``enable_optional_providers`` enables every optional provider
    (``True``) or those of the listed namespaces.  With a dict, labels are not completed from the wheels beside
    the file (there is no file), and ``--variant`` choices do not apply (there is no project name).
    """
    with ExitStack() as stack:
        sel = _selection(target, config, enable_optional_providers, no_cache, stack)
        if isinstance(variants_json, Mapping):
            return _vwheel.rank_text(json.dumps(variants_json), "<dict>", sel)
        return _vwheel.rank_file(os.fspath(variants_json), sel)


def analyze_platform(
    namespaces: Iterable[str] = (),
    *,
    no_cache: bool = False,
    python: StrPath | None = None,
    with_interpreter: bool | None = None,
) -> dict[str, Any]:
    """This machine's target profile, as ``vwheel analyze-platform --json`` prints it.

    ``namespaces`` limits detection to those namespaces. The interpreter's ``environment`` and
    ``tags`` are included (as the command does) when no namespace is given, unless
    ``with_interpreter`` says otherwise; ``python`` names the interpreter to ask.
    """
    names = list(namespaces)
    if with_interpreter is None:
        with_interpreter = not names
    return json.loads(_vwheel.analyze_platform(names, no_cache, with_interpreter, _optional_path(python)))


def validate(path: StrPath) -> list[Finding]:
    """Every problem of a ``variant.json``, ``*-variants.json`` or ``pyproject.toml``.

    The findings of ``vwheel validate --json PATH``; an empty list means the file is valid. An
    unreadable file raises.
    """
    return [Finding(*f) for f in _vwheel.validate(os.fspath(path))]


def _read_document(source: StrPath | Mapping[str, Any] | str, kind: str, format: str) -> dict[str, Any]:
    if isinstance(source, Mapping):
        text, name = json.dumps(source), "<dict>"
    else:
        name = os.fspath(source)
        try:
            text = Path(name).read_text(encoding="utf-8")
        except OSError as e:
            raise EnvironmentFailure(f"{name}: {e.strerror or e}") from e
    normalized, _ = _vwheel.read_document(text, kind, name, format)
    return json.loads(normalized)


def read_variants_json(source: StrPath | Mapping[str, Any], *, format: str = "v0.0.3") -> dict[str, Any]:
    """Reads an index-level ``{name}-{version}-variants.json`` (a file or a dict), checks it, and
    returns it normalized in ``format`` (``v0.0.3``, ``v0.1.1`` or ``v0.2.0``)."""
    return _read_document(source, "variants.json", format)


def read_variant_json(source: StrPath | Mapping[str, Any], *, format: str = "v0.0.3") -> dict[str, Any]:
    """Reads a wheel's ``*.dist-info/variant.json`` (a file or a dict), checks it (exactly one
    variant), and returns it normalized in ``format``."""
    return _read_document(source, "variant.json", format)


def merge(documents: Iterable[StrPath | Mapping[str, Any]], *, format: str = "v0.0.3") -> dict[str, Any]:
    """Merges ``variant.json``/``*-variants.json`` documents (files or dicts) into one, as
    ``vwheel generate-index-json`` merges a version's wheels; conflicting priorities or a label
    with two property sets raise :class:`InputError`."""
    texts = []
    for d in documents:
        if isinstance(d, Mapping):
            texts.append(json.dumps(d))
        else:
            texts.append(Path(os.fspath(d)).read_text(encoding="utf-8"))
    return json.loads(_vwheel.merge(texts, format))


def write(document: Mapping[str, Any], path: StrPath, *, format: str = "v0.0.3") -> Path:
    """Checks ``document`` (a ``variant.json`` or ``*-variants.json``) and writes it to ``path`` in
    ``format``, as vwheel writes these files; returns the path."""
    normalized, _ = _vwheel.read_document(json.dumps(document), "variants.json", "<dict>", format)
    out = Path(os.fspath(path))
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(normalized, encoding="utf-8")
    os.replace(tmp, out)
    return out


def read_pyproject(path: StrPath = "pyproject.toml") -> dict[str, Any]:
    """The ``[variant]`` table of a ``pyproject.toml``, checked, as the JSON object of a v0.0.3
    ``variant.json`` without variants (``{}`` priorities/providers when the table is absent)."""
    name = os.fspath(path)
    try:
        text = Path(name).read_text(encoding="utf-8")
    except OSError as e:
        raise EnvironmentFailure(f"{name}: {e.strerror or e}") from e
    normalized, _ = _vwheel.read_pyproject(text, name)
    return json.loads(normalized)


def evaluate_marker(
    marker: str,
    environment: Mapping[str, str] | None = None,
    variant: Iterable[str] = (),
    *,
    variant_label: str | None = None,
) -> bool:
    """Evaluates a PEP 508 marker with PEP 825's variant markers.

    ``environment`` holds the marker variables (``python_version``, ``sys_platform``, ...,
    ``extra``); a variable the marker uses and the environment lacks is an error. ``variant`` is
    the property set of the variant wheel (``"ns :: feature :: value"`` texts), from which
    ``variant_properties``, ``variant_features`` and ``variant_namespaces`` are made;
    ``variant_label`` its label (``""`` for a non-variant wheel).
    """
    return _vwheel.evaluate_marker(marker, dict(environment or {}), variant_label, list(variant))


def analyze_wheel(
    wheels: StrPath | Sequence[StrPath],
    target: StrPath | Mapping[str, Any] | Sequence[StrPath | Mapping[str, Any]] | None = None,
    config: StrPath | None = None,
    *,
    enable_optional_providers: bool | Iterable[str] = False,
    no_cache: bool = False,
) -> dict[str, Any]:
    """What ``vwheel analyze-wheel --json`` says of these wheels: their ``variant.json``, label,
    properties and whether (and how well) the target (``None``: this machine) supports them."""
    paths = [os.fspath(wheels)] if isinstance(wheels, (str, os.PathLike)) else [os.fspath(w) for w in wheels]
    with ExitStack() as stack:
        sel = _selection(target, config, enable_optional_providers, no_cache, stack)
        return json.loads(_vwheel.analyze_wheel(paths, sel))


def make_variant(
    wheel: StrPath | Sequence[StrPath],
    out_dir: StrPath,
    properties: Iterable[str] = (),
    *,
    label: str | None = None,
    null: bool = False,
    pyproject: StrPath | None = None,
    format: str = "v0.0.3",
    skip_provider_validation: bool = False,
    jobs: int = 1,
) -> list[Path]:
    """Turns wheels into variant wheels in ``out_dir`` (``vwheel make-variant``): adds
    ``*.dist-info/variant.json`` with these properties (or the null variant with ``null=True``)
    and its RECORD line; returns the written wheels."""
    inputs = [os.fspath(wheel)] if isinstance(wheel, (str, os.PathLike)) else [os.fspath(w) for w in wheel]
    if format not in _FORMATS:
        raise UsageError(f"format `{format}`: expected one of {', '.join(_FORMATS)}")
    written = _vwheel.make_variant(inputs, os.fspath(out_dir), list(properties), null, label,
                                   _optional_path(pyproject), format, skip_provider_validation, jobs)
    return [Path(p) for p in written]


def generate_index_json(
    dir: StrPath,
    output_dir: StrPath | None = None,
    *,
    format: str | None = None,
    skip_invalid: bool = False,
) -> list[Path]:
    """Writes one ``{name}-{version}-variants.json`` per package version of the variant wheels in
    ``dir`` (into ``output_dir``, default ``dir``), as ``vwheel generate-index-json``; returns the
    written files."""
    written = _vwheel.generate_index_json(os.fspath(dir), _optional_path(output_dir), format, skip_invalid)
    return [Path(p) for p in written]

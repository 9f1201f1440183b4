"""variantlib's public API (``variantlib.api`` and the classes backends use) on the vwheel engine.

A caller switches by changing one import::

    from vwheel.compat.variantlib import get_variants_by_priority, VariantPyProjectToml

Signatures, argument types and results follow variantlib 0.0.3. Deliberate differences (see
python/README.md): providers are vwheel's native providers (no plugin is installed or run, so
``venv_python_executable`` is accepted and ignored); a target profile or configuration can be
passed where vwheel's own API takes them; ranking follows PEP 825 where variantlib predates it;
error messages are vwheel's (the exceptions are still ``ValidationError``, a ``ValueError``).
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .. import _vwheel
from .._errors import Error, InputError

__all__ = [
    "ValidationError",
    "VariantProperty",
    "VariantFeature",
    "VariantDescription",
    "VariantValidationResult",
    "VariantFeatureConfig",
    "ProviderConfig",
    "ProviderInfo",
    "VariantInfo",
    "VariantsJson",
    "VariantPyProjectToml",
    "VARIANT_LABEL_LENGTH",
    "NULL_VARIANT_LABEL",
    "get_variants_by_priority",
    "check_variant_supported",
    "validate_variant",
    "make_variant_dist_info",
    "get_variant_environment_dict",
    "get_variant_label",
]

VARIANT_LABEL_LENGTH = 16
NULL_VARIANT_LABEL = "null"

_PROPERTY = re.compile(r"\s*([a-z0-9_]+)\s*::\s*([a-z0-9_]+)\s*::\s*([a-z0-9_.]+)\s*")
_FEATURE = re.compile(r"\s*([a-z0-9_]+)\s*::\s*([a-z0-9_]+)\s*")


class ValidationError(InputError):
    """variantlib's ``ValidationError`` (a ``ValueError``), raised with vwheel's message."""


def _engine(call, *args):
    """Runs an engine call, turning its input errors into ValidationError."""
    try:
        return call(*args)
    except ValidationError:
        raise
    except InputError as e:
        raise ValidationError(e.message, e.details) from e


@dataclass(frozen=True, order=True)
class VariantFeature:
    namespace: str
    feature: str

    def to_str(self) -> str:
        return f"{self.namespace} :: {self.feature}"

    @classmethod
    def from_str(cls, text: str) -> VariantFeature:
        m = _FEATURE.fullmatch(text)
        if not m:
            raise ValidationError(f"invalid variant feature `{text}`: expected `namespace :: feature`")
        return cls(m.group(1), m.group(2))


@dataclass(frozen=True, order=True)
class VariantProperty:
    namespace: str
    feature: str
    value: str

    def to_str(self) -> str:
        return f"{self.namespace} :: {self.feature} :: {self.value}"

    @classmethod
    def from_str(cls, text: str) -> VariantProperty:
        m = _PROPERTY.fullmatch(text)
        if not m:
            raise ValidationError(f"invalid variant property `{text}`: expected `namespace :: feature :: value`")
        return cls(m.group(1), m.group(2), m.group(3))

    @property
    def feature_object(self) -> VariantFeature:
        return VariantFeature(self.namespace, self.feature)


class VariantDescription:
    """A variant: its properties (sorted on construction) and its label (default: the hash)."""

    def __init__(self, properties: Iterable[VariantProperty] = (), label: str | None = None) -> None:
        props = sorted(properties)
        if len(set(props)) != len(props):
            dup = next(p for i, p in enumerate(props) if p in props[i + 1:])
            raise ValidationError(f"Duplicate value found: `{(dup.namespace, dup.feature, dup.value)}` in list.")
        self.properties: list[VariantProperty] = props
        self._label = _engine(_vwheel.label, [p.to_str() for p in props], label)

    @property
    def label(self) -> str:
        return self._label

    @property
    def hexdigest(self) -> str:
        return _vwheel.label([p.to_str() for p in self.properties], None) if self.properties else "e3b0c442"

    def is_null_variant(self) -> bool:
        return not self.properties

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, VariantDescription) and self.properties == other.properties
                and self.label == other.label)

    def __hash__(self) -> int:
        return hash((tuple(self.properties), self.label))

    def __repr__(self) -> str:
        return f"VariantDescription(properties={self.properties!r}, label={self.label!r})"


@dataclass
class VariantFeatureConfig:
    name: str
    values: list[str]
    multi_value: bool = False


@dataclass
class ProviderConfig:
    namespace: str
    configs: list[VariantFeatureConfig]

    def to_list_of_properties(self) -> list[VariantProperty]:
        return [VariantProperty(self.namespace, c.name, v) for c in self.configs for v in c.values]


@dataclass(frozen=True)
class VariantValidationResult:
    results: dict[VariantProperty, bool | None]
    multi_value_violations: frozenset[VariantFeature] = frozenset()

    def is_valid(self, allow_unknown_plugins: bool = True) -> bool:
        if self.multi_value_violations or False in self.results.values():
            return False
        return allow_unknown_plugins or None not in self.results.values()

    @property
    def invalid_properties(self) -> list[VariantProperty]:
        return [p for p, ok in self.results.items() if ok is False]

    @property
    def unknown_properties(self) -> list[VariantProperty]:
        return [p for p, ok in self.results.items() if ok is None]


@dataclass
class ProviderInfo:
    plugin_api: str | None = None
    enable_if: str | None = None
    install_time: bool = True
    optional: bool = False
    requires: list[str] = field(default_factory=list)
    static_properties: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class VariantInfo:
    """The priorities and providers shared by a project's variants (pyproject.toml's [variant])."""

    namespace_priorities: list[str] = field(default_factory=list)
    feature_priorities: dict[str, list[str]] = field(default_factory=dict)
    property_priorities: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    providers: dict[str, ProviderInfo] = field(default_factory=dict)

    def _load(self, doc: Mapping[str, Any]) -> None:
        prio = doc.get("default-priorities", {})
        self.namespace_priorities = list(prio.get("namespace", []))
        self.feature_priorities = {k: list(v) for k, v in prio.get("feature", {}).items()}
        self.property_priorities = {ns: {f: list(v) for f, v in fs.items()}
                                    for ns, fs in prio.get("property", {}).items()}
        self.providers = {
            ns: ProviderInfo(
                plugin_api=p.get("plugin-api"),
                enable_if=p.get("enable-if"),
                install_time=p.get("install-time", True),
                optional=p.get("optional", False),
                requires=list(p.get("requires", [])),
                static_properties={f: list(v) for f, v in p.get("static-properties", {}).items()},
            )
            for ns, p in doc.get("providers", {}).items()
        }

    def _to_dict(self) -> dict[str, Any]:
        prio: dict[str, Any] = {"namespace": list(self.namespace_priorities)}
        if self.feature_priorities:
            prio["feature"] = self.feature_priorities
        if self.property_priorities:
            prio["property"] = self.property_priorities
        providers = {}
        for ns, p in self.providers.items():
            d: dict[str, Any] = {}
            if p.enable_if is not None:
                d["enable-if"] = p.enable_if
            if not p.install_time:
                d["install-time"] = False
            if p.optional:
                d["optional"] = True
            if p.plugin_api is not None:
                d["plugin-api"] = p.plugin_api
            if p.requires:
                d["requires"] = list(p.requires)
            if p.static_properties:
                d["static-properties"] = p.static_properties
            providers[ns] = d
        return {"$schema": "https://variants-schema.wheelnext.dev/v0.0.3.json",
                "default-priorities": prio, "providers": providers}


def _description(label: str, props: Mapping[str, Mapping[str, list[str]]]) -> VariantDescription:
    """A variant of a file the engine has read: its label is kept as the file has it (older drafts
    label the null variant `00000000`, which a new label may not be)."""
    desc = VariantDescription([VariantProperty(ns, f, v) for ns, fs in props.items() for f, vs in fs.items()
                               for v in vs])
    desc._label = label
    return desc


class VariantsJson(VariantInfo):
    """An index-level ``*-variants.json`` (or a wheel's ``variant.json``), read by the engine."""

    def __init__(self, data: Mapping[str, Any] | VariantInfo) -> None:
        super().__init__()
        if isinstance(data, VariantInfo):
            self.__dict__.update({k: v for k, v in vars(data).items() if k != "variants"})
            self.variants: dict[str, VariantDescription] = dict(getattr(data, "variants", {}))
            return
        normalized, _ = _engine(_vwheel.read_document, json.dumps(data), "variants.json", "<variants.json>", "v0.0.3")
        doc = json.loads(normalized)
        self._load(doc)
        self.variants = {label: _description(label, props) for label, props in doc.get("variants", {}).items()}

    def to_dict(self) -> dict[str, Any]:
        d = self._to_dict()
        d["variants"] = {
            label: _properties_dict(desc.properties) for label, desc in self.variants.items()
        }
        return d

    def to_str(self) -> str:
        normalized, _ = _engine(_vwheel.read_document, json.dumps(self.to_dict()), "variants.json", "<variants.json>",
                                "v0.0.3")
        return normalized


def _properties_dict(properties: Iterable[VariantProperty]) -> dict[str, dict[str, list[str]]]:
    out: dict[str, dict[str, list[str]]] = {}
    for p in properties:
        out.setdefault(p.namespace, {}).setdefault(p.feature, []).append(p.value)
    return out


class VariantPyProjectToml(VariantInfo):
    """The ``[variant]`` table of a ``pyproject.toml`` (as a dict from ``tomllib``, or a file)."""

    def __init__(self, toml_data: Mapping[str, Any] | VariantInfo) -> None:
        super().__init__()
        if isinstance(toml_data, VariantInfo):
            self.__dict__.update({k: v for k, v in vars(toml_data).items() if k != "variants"})
            return
        table = toml_data.get("variant", {})
        normalized, _ = _engine(_vwheel.read_document, json.dumps(table), "pyproject", "pyproject.toml", "v0.0.3")
        self._load(json.loads(normalized))

    @classmethod
    def from_path(cls, path: pathlib.Path) -> VariantPyProjectToml:
        name = os.fspath(path)
        text = pathlib.Path(name).read_text(encoding="utf-8")
        normalized, _ = _engine(_vwheel.read_pyproject, text, name)
        self = cls({})
        self._load(json.loads(normalized))
        return self


def _variants_json_text(info: VariantInfo, variants: Mapping[str, VariantDescription]) -> str:
    doc = info._to_dict()
    doc["variants"] = {label: _properties_dict(v.properties) for label, v in variants.items()}
    return json.dumps(doc)


def _selection(enable_optional_plugins: bool | list[str], target: Any = None) -> Any:
    sel = _vwheel.Selection()
    if target is not None:
        sel.targets = [os.fspath(t) for t in (target if isinstance(target, (list, tuple)) else [target])]
    if isinstance(enable_optional_plugins, bool):
        sel.enable_all_optional = enable_optional_plugins
    else:
        sel.enabled_optional = list(enable_optional_plugins)
    return sel


def get_variants_by_priority(
    *,
    variants_json: Mapping[str, Any] | VariantsJson,
    venv_python_executable: str | pathlib.Path | None = None,
    enable_optional_plugins: bool | list[str] = False,
    target: str | os.PathLike[str] | list[str | os.PathLike[str]] | None = None,
) -> list[str]:
    """The labels this machine supports, best first (vwheel's ``rank`` with native providers).

    ``target`` (vwheel's addition): target profile files describing another machine."""
    del venv_python_executable  # no plugin runs: the providers are vwheel's own
    text = variants_json.to_str() if isinstance(variants_json, VariantsJson) else json.dumps(variants_json)
    return _engine(_vwheel.rank_text, text, "<variants.json>", _selection(enable_optional_plugins, target))


def check_variant_supported(
    *,
    vdesc: VariantDescription | None = None,
    variant_info: VariantInfo,
    venv_python_executable: str | pathlib.Path | None = None,
    enable_optional_plugins: bool | list[str] = False,
) -> bool:
    """True when this machine supports the variant (``vdesc``, or the one variant of a VariantsJson)."""
    del venv_python_executable
    if vdesc is None:
        if not isinstance(variant_info, VariantsJson):
            raise TypeError("vdesc or variant_info=VariantsJson(...) must be provided")
        if len(variant_info.variants) != 1:
            raise ValueError("variant_info=VariantsJson(...) must describe exactly one variant")
        vdesc = next(iter(variant_info.variants.values()))
    info = VariantInfo(**{k: v for k, v in vars(variant_info).items() if k != "variants"})
    # Namespaces of the variant that the shared info does not list are appended (PEP 825 requires
    # every used namespace in the list; variantlib checks none of this here).
    for p in vdesc.properties:
        if p.namespace not in info.namespace_priorities:
            info.namespace_priorities.append(p.namespace)
    text = _variants_json_text(info, {vdesc.label: vdesc})
    return vdesc.label in _engine(_vwheel.rank_text, text, "<variant>", _selection(enable_optional_plugins))


def validate_variant(
    variant_desc: VariantDescription,
    variant_info: VariantInfo,
    venv_python_executable: str | pathlib.Path | None = None,
) -> VariantValidationResult:
    """Checks every property against what its provider knows: the pyproject's static properties
    of ahead-of-time providers, else vwheel's native provider. ``None``: no provider knows the
    namespace (a Python plugin vwheel does not run)."""
    del venv_python_executable
    native = {ns: {name: (values, multi) for name, values, multi in configs}
              for ns, configs in _vwheel.native_configs().items()}
    for ns, p in variant_info.providers.items():
        if not p.install_time and p.static_properties:
            native[ns] = {f: (values, False) for f, values in p.static_properties.items()}
    results: dict[VariantProperty, bool | None] = {
        prop: None if prop.namespace not in native
        else prop.value in native[prop.namespace].get(prop.feature, ([], False))[0]
        for prop in variant_desc.properties
    }
    counts: dict[VariantFeature, int] = {}
    for prop in variant_desc.properties:
        counts[prop.feature_object] = counts.get(prop.feature_object, 0) + 1
    violations = {feat for feat, n in counts.items()
                  if n > 1 and feat.namespace in native and feat.feature in native[feat.namespace]
                  and not native[feat.namespace][feat.feature][1]}
    return VariantValidationResult(results=results, multi_value_violations=frozenset(violations))


def make_variant_dist_info(
    vdesc: VariantDescription,
    variant_info: VariantInfo | None = None,
    variant_label: str | None = None,
    expand_aot_plugin_properties: bool = True,
    venv_python_executable: str | pathlib.Path | None = None,
) -> str:
    """The text of ``*.dist-info/variant.json`` for this variant (v0.0.3, byte-identical to
    variantlib's for the same input). ``expand_aot_plugin_properties`` is accepted and ignored:
    ahead-of-time providers' static properties come from ``variant_info`` as given."""
    del expand_aot_plugin_properties, venv_python_executable
    if variant_label is not None:
        warnings.warn("Passing variant_label is deprecated, provide VariantDescription() with label instead",
                      DeprecationWarning, stacklevel=2)
        vdesc = VariantDescription(vdesc.properties, label=variant_label)
    info = variant_info if variant_info is not None else VariantInfo()
    normalized, _ = _engine(_vwheel.read_document, _variants_json_text(info, {vdesc.label: vdesc}), "variant.json",
                            "<variant.json>", "v0.0.3")
    return normalized


def get_variant_environment_dict(
    variant_desc: VariantDescription,
    variant_label: str | None = None,
) -> dict[str, set[str] | str]:
    """The variant marker variables (PEP 825) of a variant, for ``packaging``'s Marker.evaluate()."""
    env: dict[str, set[str] | str] = {
        "variant_namespaces": {p.namespace for p in variant_desc.properties},
        "variant_features": {p.feature_object.to_str() for p in variant_desc.properties},
        "variant_properties": {p.to_str() for p in variant_desc.properties},
        "variant_label": variant_desc.label,
    }
    if variant_label is not None:
        warnings.warn("Passing variant_label is deprecated, provide VariantDescription() with label instead",
                      DeprecationWarning, stacklevel=2)
        env["variant_label"] = variant_label
    return env


def get_variant_label(variant_desc: VariantDescription, custom_label: str | None = None) -> str:
    """The variant's label; a ``custom_label`` is validated (the engine's rules) and returned."""
    if custom_label is None:
        return variant_desc.label
    return _engine(_vwheel.label, [p.to_str() for p in variant_desc.properties], custom_label)

"""Schema v0.2.0 (the Providers draft, PEP 850) end to end: make-variant --format v0.2.0,
generate-index-json, validate, rank and install from the result; mixing formats in one version."""

import json
import shutil
import sys
import zipfile
from pathlib import Path

import pytest

from wheelfactory import make_wheel

PY = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable
SCHEMA_850 = "https://variants-schema.wheelnext.dev/peps/850/v0.2.0.json"

PYPROJECT = """\
[project]
name = "pkg"

[variant.default-priorities]
namespace = ["x86_64", "blas"]

[variant.providers.x86_64]
requires = ["provider-variant-x86-64"]
plugin-api = "provider_variant_x86_64.plugin:X8664Plugin"

[variant.providers.blas]
install-time = false

[variant.static-properties.blas]
library = ["openblas", "mkl"]
"""

PROVIDERS = {
    "blas": {"static-properties": {"library": ["openblas", "mkl"]}},
    "x86_64": {"plugin-api": "provider_variant_x86_64.plugin:X8664Plugin", "requires": ["provider-variant-x86-64"]},
}


@pytest.fixture
def project(tmp_path):
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    (tmp_path / "in").mkdir()
    (tmp_path / "out").mkdir()
    return tmp_path


def variant_json(wheel):
    with zipfile.ZipFile(wheel) as zf:
        name = next(n for n in zf.namelist() if n.endswith(".dist-info/variant.json"))
        return zf.read(name).decode()


def make_set(vwheel, project, fmt="v0.2.0"):
    src = make_wheel(project / "in", "pkg-1.0-py3-none-any.whl", {"pkg/__init__.py": b"VALUE = 1\n"})
    made = {}
    for label, props in (("v2", ["x86_64::level::v2"]), ("v3", ["x86_64::level::v3"]),
                         ("mkl", ["blas::library::mkl"]), ("openblas", ["blas::library::openblas"]), (None, [])):
        args = [a for p in props for a in ("-p", p)] + (["--label", label] if label else ["--null"])
        r = vwheel("make-variant", src, "-o", project / "out", "--format", fmt, *args, cwd=project)
        assert r.rc == 0, r.err
        made[label or "null"] = Path(r.out.strip())
    return made


def test_make_variant_writes_v020(vwheel, project):
    made = make_set(vwheel, project)
    text = variant_json(made["mkl"])
    assert text.endswith("}\n")
    assert json.loads(text) == {
        "$schema": SCHEMA_850,
        "default-priorities": {"namespace": ["x86_64", "blas"]},
        "providers": PROVIDERS,
        "variants": {"mkl": {"blas": {"library": ["mkl"]}}},
    }
    # Only the 0.2.0 keys: no PEP 817 leftovers.
    assert "install-time" not in text and "enable-if" not in text and "static-properties\": {\n" in text


def test_generate_index_json_validate_rank_and_install(vwheel, project, tmp_path):
    made = make_set(vwheel, project)
    shutil.copy(project / "in" / "pkg-1.0-py3-none-any.whl", project / "out")
    r = vwheel("generate-index-json", project / "out")
    assert r.rc == 0, r.err
    index_json = project / "out" / "pkg-1.0-variants.json"
    auto = index_json.read_bytes()
    doc = json.loads(auto)
    assert doc["$schema"] == SCHEMA_850
    assert doc["providers"] == PROVIDERS
    assert sorted(doc["variants"]) == ["mkl", "null", "openblas", "v2", "v3"]

    explicit = tmp_path / "explicit"
    explicit.mkdir()
    r = vwheel("generate-index-json", project / "out", "-o", explicit, "--format", "v0.2.0")
    assert r.rc == 0, r.err
    assert (explicit / "pkg-1.0-variants.json").read_bytes() == auto

    extracted = []
    for label, wheel in made.items():
        (tmp_path / label).mkdir()
        extracted.append(tmp_path / label / "variant.json")
        extracted[-1].write_text(variant_json(wheel))
    r = vwheel("validate", index_json, *extracted, "--json")
    assert r.rc == 0, r.out + r.err
    assert json.loads(r.out) == []

    profile = tmp_path / "v3.json"
    profile.write_text(json.dumps({"properties": {"x86_64": [{"name": "level", "values": ["v3", "v2", "v1"]}]}}))
    r = vwheel("rank", index_json, "--target", profile)
    assert r.rc == 0, r.err
    # x86_64 first (namespace priority), then the static blas values in written preference order.
    assert r.out.split() == ["v3", "v2", "openblas", "mkl", "null"]

    r = vwheel("venv", tmp_path / "venv", "--python", PY)
    assert r.rc == 0, r.err
    python = tmp_path / "venv" / "bin" / "python"
    r = vwheel("install", "--find-links", project / "out", "pkg", "--python", python, "--target", profile)
    assert r.rc == 0, r.err
    r = vwheel("list", "--json", "--python", python)
    assert r.rc == 0, r.err
    installed = {d["name"].lower(): d for d in json.loads(r.out)}
    assert installed["pkg"]["variant"] == "v3"


def test_mixing_v003_and_v020_in_one_version_names_both_wheels(vwheel, project):
    src = make_wheel(project / "in", "pkg-1.0-py3-none-any.whl", {"pkg/__init__.py": b""})
    r = vwheel("make-variant", src, "-o", project / "out", "--format", "v0.0.3", "-p", "x86_64::level::v2",
               "--label", "v2", cwd=project)
    assert r.rc == 0, r.err
    r = vwheel("make-variant", src, "-o", project / "out", "--format", "v0.2.0", "-p", "x86_64::level::v3",
               "--label", "v3", cwd=project)
    assert r.rc == 0, r.err
    r = vwheel("generate-index-json", project / "out")
    assert r.rc == 1
    assert "pkg-1.0-py3-none-any-v2.whl" in r.err and "pkg-1.0-py3-none-any-v3.whl" in r.err
    assert "0.0.3" in r.err and "0.2.0" in r.err
    assert not list((project / "out").glob("*.json"))


def test_validate_severities_for_v020(vwheel, tmp_path):
    base = {"$schema": SCHEMA_850, "default-priorities": {"namespace": ["a"]},
            "providers": {"a": {"requires": ["a-plugin"]}}, "variants": {"x": {"a": {"f": ["1"]}}}}
    clean = tmp_path / "clean-1.0-variants.json"
    clean.write_text(json.dumps(base))
    warn = tmp_path / "warn-1.0-variants.json"
    warn.write_text(json.dumps({**base, "variants": {"x": {"a": {"f": ["2", "1"]}}}}))
    err = tmp_path / "err-1.0-variants.json"
    err.write_text(json.dumps({**base, "default-priorities": {"namespace": ["a", "abi_dependency"]}}))

    assert vwheel("validate", clean).rc == 0
    r = vwheel("validate", warn)
    assert r.rc == 0 and "warning" in r.out + r.err and "values-unsorted" in r.out + r.err
    assert vwheel("validate", "--strict", warn).rc == 1
    r = vwheel("validate", err, "--json")
    assert r.rc == 1
    findings = json.loads(r.out)
    assert [(f["severity"], f["rule"], f["pointer"]) for f in findings] == [
        ("error", "abi-dependency-reserved", "/default-priorities/namespace")]


def test_generate_index_json_accepts_abi_dependency_without_a_provider(vwheel, tmp_path):
    """abi_dependency is matched against installed distributions: a draft file listing it with no
    provider entry is fine (it used to be reported as a namespace without a provider)."""
    vj = {"$schema": "https://variants-schema.wheelnext.dev/v0.0.3.json",
          "default-priorities": {"namespace": ["a", "abi_dependency"]},
          "providers": {"a": {"requires": ["a-plugin"]}},
          "variants": {"t29": {"a": {"f": ["1"]}, "abi_dependency": {"torch": ["2.9"]}}}}
    make_wheel(tmp_path, "pkg-1.0-py3-none-any-t29.whl", {"pkg/__init__.py": b""}, variant_json=vj)
    r = vwheel("generate-index-json", tmp_path)
    assert r.rc == 0, r.err
    assert "abi_dependency" not in r.err
    # Accepted, and kept: the variant's abi_dependency property and the namespace's priority.
    doc = json.loads((tmp_path / "pkg-1.0-variants.json").read_text())
    assert doc["variants"] == {"t29": {"a": {"f": ["1"]}, "abi_dependency": {"torch": ["2.9"]}}}, doc
    assert doc["default-priorities"]["namespace"] == ["a", "abi_dependency"], doc
    r = vwheel("validate", tmp_path / "pkg-1.0-variants.json")
    assert r.rc == 0 and "abi_dependency" not in r.out + r.err, r.out + r.err

"""The vwheel package's functions, checked against the vwheel command on the same inputs."""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path

import pytest

import vwheel
from conftest import ROOT, make_wheel


def cli_error(proc) -> str:
    """The one line the command printed after `vwheel: error: `."""
    lines = [line for line in proc.stderr.splitlines() if line.startswith("vwheel: error: ")]
    assert lines, proc.stderr
    return lines[0][len("vwheel: error: "):]


def real_variants_files(shared: Path) -> list[Path]:
    files = sorted((shared / "data" / "real-variants").rglob("*-variants.json"))
    assert len(files) >= 200, f"expected the real *-variants.json files under {shared}/data/real-variants"
    return files


# ---- label ----

def test_label_equals_the_vectors_and_the_cli(shared, cli):
    cases = json.loads((shared / "vectors" / "hash_labels.json").read_text())["cases"]
    for case in cases:
        assert vwheel.label(case["properties"]) == case["label"], case
    for case in cases[:40]:  # the command once per case is slow; the vectors cover the rest
        args = [a for p in case["properties"] for a in ("-p", p)]
        assert vwheel.label(case["properties"]) == cli("label", *args).stdout.strip(), case


def test_custom_label_and_its_error_as_the_cli(cli):
    assert vwheel.label(["a :: b :: c"], label="gpu") == "gpu"
    with pytest.raises(vwheel.InputError) as e:
        vwheel.label(["a :: b :: c"], label="UPPER")
    proc = cli("label", "-p", "a :: b :: c", "--label", "UPPER", check=False)
    assert proc.returncode == 1
    assert str(e.value) == cli_error(proc)
    assert e.value.kind == "input"


# ---- rank ----

def test_rank_equals_the_cli_on_every_real_variants_file(shared, cli, profiles):
    files = real_variants_files(shared)
    for f in files:
        for target in [None, *profiles]:
            args = ["rank", f] + (["--target", target] if target else [])
            proc = cli(*args, check=False)
            if proc.returncode == 0:
                assert vwheel.rank(f, target) == proc.stdout.splitlines(), (f, target)
            else:
                with pytest.raises(vwheel.Error) as e:
                    vwheel.rank(f, target)
                assert str(e.value) == cli_error(proc), (f, target)


def test_rank_of_a_dict_equals_the_file(shared, profiles):
    f = next(p for p in real_variants_files(shared) if p.name.startswith("torch-"))
    doc = json.loads(f.read_text())
    for target in profiles:
        assert vwheel.rank(doc, target) == vwheel.rank(f, target)
        assert vwheel.rank(doc, json.loads(target.read_text())) == vwheel.rank(f, target)


def resolver_profile(case: dict, environment: dict) -> dict:
    properties = {ns: [dict(name=c["name"], values=c["values"], multi_value=c.get("multi_value", False))
                       for c in plugin["supported_configs"]]
                  for ns, plugin in case["input"]["plugins"].items()}
    return {"properties": properties, "environment": environment}


def test_rank_equals_the_cli_on_the_resolver_vectors(shared, cli, tmp_path):
    doc = json.loads((shared / "vectors" / "resolver.json").read_text())
    env = doc["meta"]["marker_environment"]
    for case in doc["cases"]:
        variants = tmp_path / "p-1.0-variants.json"
        variants.write_text(json.dumps(case["input"]["variants_json"]))
        profile = tmp_path / "target.json"
        profile.write_text(json.dumps(resolver_profile(case, env)))
        optional = case["input"]["enable_optional_plugins"]
        args = ["rank", variants, "--target", profile]
        if optional is True:
            args.append("--enable-optional-providers")
        elif optional:
            args += [a for ns in optional for a in ("--enable-optional-provider", ns)]
        proc = cli(*args, check=False)
        if proc.returncode == 0:
            got = vwheel.rank(variants, profile, enable_optional_providers=optional)
            assert got == proc.stdout.splitlines(), case["id"]
            assert vwheel.rank(case["input"]["variants_json"], profile, enable_optional_providers=optional) == got
        else:
            with pytest.raises(vwheel.Error) as e:
                vwheel.rank(variants, profile, enable_optional_providers=optional)
            assert str(e.value) == cli_error(proc), case["id"]
            assert e.value.kind == {1: "input", 2: "usage", 3: "environment"}[proc.returncode]


def test_rank_errors_are_the_clis(cli, tmp_path):
    missing = tmp_path / "none-1.0-variants.json"
    with pytest.raises(vwheel.InputError) as e:
        vwheel.rank(missing)
    assert str(e.value) == cli_error(cli("rank", missing, check=False))
    bad = tmp_path / "bad-1.0-variants.json"
    bad.write_text('{"variants": 3}')
    with pytest.raises(vwheel.InputError) as e:
        vwheel.rank(bad)
    proc = cli("rank", bad, check=False)
    assert proc.returncode == 1 and str(e.value) == cli_error(proc)
    assert isinstance(e.value, ValueError) and e.value.message == str(e.value)


def test_rank_releases_the_gil(tmp_path):
    # With a switch interval far longer than the test, a thread holds the GIL until it gives it up
    # itself: the main loop gives it up at every time.sleep(0), the ranking thread only where the
    # engine releases it (the wrapper does no I/O with files given by path). So the counter can
    # advance between `before` and `after` only if the rank call released the GIL.
    variants = {f"v{i}": {"x86_64": {"level": [f"v{i % 4 + 1}"]}, "nvidia": {"sm_arch": [f"{i}_real"]}}
                for i in range(1000)}
    doc = tmp_path / "big-1.0-variants.json"
    doc.write_text(json.dumps({
        "$schema": "https://variants-schema.wheelnext.dev/v0.0.3.json",
        "default-priorities": {"namespace": ["x86_64", "nvidia"]},
        "providers": {"x86_64": {"requires": ["p"]}, "nvidia": {"requires": ["q"]}},
        "variants": variants}))
    target = tmp_path / "target.json"
    target.write_text(json.dumps({"properties": {
        "x86_64": [{"name": "level", "values": ["v3", "v2", "v1"]}],
        "nvidia": [{"name": "sm_arch", "values": [f"{i}_real" for i in range(0, 1000, 2)], "multi_value": True}]}}))
    counter = 0
    done = threading.Event()
    advanced = []

    def ranker():
        for _ in range(3):
            before = counter
            result = vwheel.rank(doc, target)
            advanced.append(counter - before)
            assert len(result) == 500
        done.set()

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1000.0)
    try:
        t = threading.Thread(target=ranker)
        t.start()
        while not done.is_set():
            counter += 1
            time.sleep(0)
        t.join()
    finally:
        sys.setswitchinterval(interval)
    assert len(advanced) == 3
    assert all(n > 0 for n in advanced), f"the main thread never ran during a rank call: {advanced}"


# ---- analyze_platform ----

def test_analyze_platform_is_the_json_profile(cli):
    got = vwheel.analyze_platform(["x86_64"], no_cache=True)
    expected = json.loads(cli("analyze-platform", "--json", "--namespace", "x86_64", "--no-cache").stdout)
    assert got == expected
    assert "x86_64" in got["properties"] or os.uname().machine != "x86_64"


# ---- markers ----

def test_evaluate_marker_with_variant_markers():
    env = {"python_version": "3.11", "sys_platform": "linux"}
    props = ["nvidia :: sm_arch :: 90_real", "nvidia::cuda_version_lower_bound::12.8"]
    assert vwheel.evaluate_marker('"nvidia :: sm_arch :: 90_real" in variant_properties', env, props)
    assert vwheel.evaluate_marker('"nvidia :: sm_arch" in variant_features and "nvidia" in variant_namespaces',
                                  env, props)
    assert not vwheel.evaluate_marker('"x86_64" in variant_namespaces', env, props)
    assert vwheel.evaluate_marker('variant_label == "cu128" and python_version >= "3.9"', env, props,
                                  variant_label="cu128")
    assert not vwheel.evaluate_marker('variant_label == "cu128"', env, [])
    with pytest.raises(vwheel.InputError, match="variant_properties"):
        vwheel.evaluate_marker('variant_properties == "a"', env)
    with pytest.raises(vwheel.InputError, match="platform_machine"):
        vwheel.evaluate_marker('platform_machine == "x86_64"', env)


# ---- documents ----

def test_validate_finds_what_the_cli_finds(shared, cli):
    files = real_variants_files(shared)
    for f in files[:60]:
        expected = json.loads(cli("validate", "--json", f, check=False).stdout)
        got = vwheel.validate(f)
        assert [(g.severity, g.rule, g.pointer, g.message) for g in got] == \
            [(e["severity"], e["rule"], e["pointer"], e["message"]) for e in expected], f


def test_read_merge_write_variants_json(shared, tmp_path):
    f = next(p for p in real_variants_files(shared) if p.name.startswith("torch-"))
    doc = vwheel.read_variants_json(f)
    assert doc["variants"] and doc["$schema"].endswith("v0.0.3.json")
    pep825 = vwheel.read_variants_json(f, format="v0.1.1")
    assert pep825["variants"].keys() == doc["variants"].keys()
    out = vwheel.write(doc, tmp_path / "t-1.0-variants.json")
    assert vwheel.read_variants_json(out) == doc
    assert vwheel.rank(out) == vwheel.rank(f)
    one = {**doc, "variants": dict(list(doc["variants"].items())[:1])}
    two = {**doc, "variants": dict(list(doc["variants"].items())[1:])}
    assert vwheel.merge([one, two])["variants"] == doc["variants"]
    clash = {**doc, "variants": {next(iter(doc["variants"])): {"nvidia": {"sm_arch": ["1_real"]}}}}
    with pytest.raises(vwheel.InputError):
        vwheel.merge([one, clash])
    with pytest.raises(vwheel.InputError):
        vwheel.read_variants_json({"variants": []})


def test_read_pyproject(tmp_path):
    p = tmp_path / "pyproject.toml"
    p.write_text('[project]\nname = "x"\n[variant.default-priorities]\nnamespace = ["x86_64"]\n'
                 '[variant.providers.x86_64]\nrequires = ["provider-variant-x86-64"]\n')
    table = vwheel.read_pyproject(p)
    assert table["default-priorities"]["namespace"] == ["x86_64"]
    assert table["providers"]["x86_64"]["requires"] == ["provider-variant-x86-64"]
    p.write_text('[variant.default-priorities]\nnamespace = "x86_64"\n')
    with pytest.raises(vwheel.InputError, match="namespace"):
        vwheel.read_pyproject(p)
    with pytest.raises(vwheel.EnvironmentFailure):
        vwheel.read_pyproject(tmp_path / "missing.toml")


# ---- wheels ----

def test_make_variant_analyze_and_index_json_as_the_cli(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no ./pyproject.toml
    wheel = make_wheel(tmp_path)
    (tmp_path / "py").mkdir()
    (tmp_path / "cli").mkdir()
    props = ["x86_64 :: level :: v3"]
    made = vwheel.make_variant(wheel, tmp_path / "py", props, skip_provider_validation=True)
    cli("make-variant", wheel, "-o", tmp_path / "cli", "-p", props[0], "--skip-provider-validation")
    assert [p.name for p in made] == [p.name for p in (tmp_path / "cli").glob("*.whl")]
    assert made[0].read_bytes() == (tmp_path / "cli" / made[0].name).read_bytes()
    assert made[0].name.endswith(f"-{vwheel.label(props)}.whl")

    profile = ROOT / "examples" / "profiles" / "x86_64-v3.json"
    analysis = vwheel.analyze_wheel(made[0], profile)
    assert analysis == json.loads(cli("analyze-wheel", "--json", made[0], "--target", profile).stdout)

    written = vwheel.generate_index_json(tmp_path / "py")
    assert [p.name for p in written] == ["demo-1.0-variants.json"]
    assert vwheel.rank(written[0], profile) == [vwheel.label(props)]

    with pytest.raises(vwheel.Error) as e:
        vwheel.make_variant(tmp_path / "missing.whl", tmp_path / "py", props)
    proc = cli("make-variant", tmp_path / "missing.whl", "-o", tmp_path / "py", "-p", props[0], check=False)
    assert str(e.value) == cli_error(proc)


def test_version_is_the_projects():
    import re
    m = re.search(r"project\(vwheel VERSION ([0-9.]+)", (ROOT / "CMakeLists.txt").read_text())
    assert vwheel.__version__ == m.group(1)

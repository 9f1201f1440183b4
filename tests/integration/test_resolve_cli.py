"""`vwheel install` resolving from --find-links directories: the `abi_dependency` namespace of
PEP 817 (a variant built against one version of another package is chosen for the version being
installed alongside), requirement files with hashes, constraints and conflict explanations."""
import hashlib
import json
import subprocess

import pytest

from wheelfactory import make_wheel


def venv_python(vwheel, path):
    assert vwheel("venv", path).rc == 0
    return path / "bin" / "python"


def variant(vwheel, src, out, label, *props):
    args = ["make-variant", src, "-o", out, "--label", label]
    for p in props:
        args += ["-p", p]
    r = vwheel(*args)
    assert r.rc == 0, r.err


@pytest.fixture
def links(vwheel, tmp_path):
    src, links = tmp_path / "src", tmp_path / "links"
    src.mkdir()
    links.mkdir()
    for v in ("2.8.0", "2.9.1"):
        make_wheel(links, f"torchlike-{v}-py3-none-any.whl")
    plain = make_wheel(src, "ext-1.0-py3-none-any.whl")
    variant(vwheel, plain, links, "t28", "abi_dependency :: torchlike :: 2.8")
    variant(vwheel, plain, links, "t29", "abi_dependency :: torchlike :: 2.9")
    make_wheel(links, "ext-1.0-py3-none-any.whl")  # the non-variant build
    return links


def chosen(out, name):
    for line in out.splitlines():
        if line.startswith(f"{name} "):
            return line
    raise AssertionError(f"no choice line for {name}: {out}")


@pytest.mark.parametrize("torch,label", [("2.8.0", "t28"), ("2.9.1", "t29")])
def test_abi_dependency_follows_the_version_installed_alongside(vwheel, links, tmp_path, torch, label):
    py = venv_python(vwheel, tmp_path / "venv")
    r = vwheel("install", f"torchlike=={torch}", "ext", "--find-links", links, "--python", py)
    assert r.rc == 0, r.err
    assert f"ext-1.0-py3-none-any-{label}.whl" in chosen(r.out, "ext"), r.out
    listed = {d["name"]: d for d in json.loads(vwheel("list", "--json", "--python", py).out)}
    assert listed["ext"]["variant"] == label


def test_abi_dependency_without_the_dependency_is_the_non_variant_wheel(vwheel, links, tmp_path):
    py = venv_python(vwheel, tmp_path / "venv")
    r = vwheel("install", "ext", "--find-links", links, "--python", py, "--dry-run")
    assert r.rc == 0, r.err
    assert "ext-1.0-py3-none-any.whl (non-variant)" in chosen(r.out, "ext"), r.out


def test_abi_dependency_values_are_release_numbers(vwheel, tmp_path):
    plain = make_wheel(tmp_path, "ext-1.0-py3-none-any.whl")
    r = vwheel("make-variant", plain, "-o", tmp_path / "out", "-p", "abi_dependency :: torchlike :: 2.8.1.4")
    assert r.rc == 1 and "up to three numbers" in r.err, r.err


def test_requirement_file_hashes_and_constraints(vwheel, links, tmp_path):
    py = venv_python(vwheel, tmp_path / "venv")
    wheel = links / "torchlike-2.8.0-py3-none-any.whl"
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    reqs = tmp_path / "requirements.txt"
    reqs.write_text(f"# pinned\ntorchlike==2.8.0 \\\n    --hash=sha256:{digest}\n")
    r = vwheel("install", "-r", reqs, "--find-links", links, "--python", py, "--require-hashes")
    assert r.rc == 0, r.err
    assert "installed torchlike 2.8.0" in r.out
    # A wrong hash installs nothing.
    py2 = venv_python(vwheel, tmp_path / "venv2")
    reqs.write_text(f"torchlike==2.8.0 --hash=sha256:{'0' * 64}\n")
    r = vwheel("install", "-r", reqs, "--find-links", links, "--python", py2, "--require-hashes")
    assert r.rc == 1 and "sha256" in r.err, r.err
    assert json.loads(vwheel("list", "--json", "--python", py2).out) == []
    # --require-hashes without a hash for a package is refused before anything is fetched.
    reqs.write_text("torchlike\n")
    r = vwheel("install", "-r", reqs, "--find-links", links, "--python", py2, "--require-hashes")
    assert r.rc == 1 and "--require-hashes" in r.err, r.err
    # A constraint restricts a version without requiring the package.
    cons = tmp_path / "constraints.txt"
    cons.write_text("torchlike<2.9\nnot-needed==1.0\n")
    r = vwheel("install", "torchlike", "-c", cons, "--find-links", links, "--python", py2, "--dry-run")
    assert r.rc == 0, r.err
    assert "torchlike 2.8.0" in r.out and "not-needed" not in r.out, r.out


def test_conflict_is_explained(vwheel, links, tmp_path):
    py = venv_python(vwheel, tmp_path / "venv")
    r = vwheel("install", "torchlike>=2.9", "torchlike<2.9", "--find-links", links, "--python", py)
    assert r.rc == 1
    first = r.err.splitlines()[0]
    assert first.startswith("vwheel: error: cannot resolve") and "torchlike" in first, r.err


def abi_profile(tmp_path, *values):
    p = tmp_path / "machine.json"
    p.write_text(json.dumps({"properties": {"abi_dependency": [
        {"name": "torchlike", "values": list(values), "multi_value": True}]}}))
    return p


def test_a_profile_states_abi_dependency_and_the_option_overrides_it(vwheel, links, tmp_path):
    """A target profile's abi_dependency properties are what the machine has installed (as
    `analyze-platform --json` would describe it): they choose the variant without torchlike being
    installed here; --abi-dependency overrides them; the rank explanation names the namespace."""
    py = venv_python(vwheel, tmp_path / "venv")
    profile = abi_profile(tmp_path, "2", "2.9", "2.9.1")
    r = vwheel("install", "ext", "--find-links", links, "--python", py, "--target", profile, "--dry-run")
    assert r.rc == 0, r.err
    assert "ext-1.0-py3-none-any-t29.whl" in chosen(r.out, "ext"), r.out
    r = vwheel("install", "ext", "--find-links", links, "--python", py, "--target", profile, "--dry-run",
               "--abi-dependency", "torchlike==2.8.0")
    assert r.rc == 0, r.err
    assert "ext-1.0-py3-none-any-t28.whl" in chosen(r.out, "ext"), r.out
    assert vwheel("generate-index-json", links).rc == 0
    r = vwheel("rank", links / "ext-1.0-variants.json", "--target", profile, "--explain")
    assert r.rc == 0, r.err
    assert "abi_dependency (from installed distributions):" in r.out and "torchlike: 2 > 2.9 > 2.9.1" in r.out, r.out
    assert r.out.splitlines()[-1] == "An installer would choose `t29`.", r.out


def test_a_profile_abi_dependency_that_is_no_release_is_an_error(vwheel, links, tmp_path):
    py = venv_python(vwheel, tmp_path / "venv")
    profile = abi_profile(tmp_path, "2.9", "2.9.x")
    r = vwheel("install", "ext", "--find-links", links, "--python", py, "--target", profile, "--dry-run")
    assert r.rc == 1 and r.err.count("\n") == 1, r.err
    assert r.err.startswith(f"vwheel: error: {profile}: properties.abi_dependency: feature `torchlike`: value `2.9.x`: "), r.err

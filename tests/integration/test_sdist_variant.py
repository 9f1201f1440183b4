"""`vwheel install NAME` of an sdist whose pyproject.toml has a `[variant]` table: built as the
variant the target ranks best among those the project declares (the null variant when none fits),
the same wheel `vwheel build --variant LABEL` of the tree makes, kept in the cache under its label,
and named by --explain.
"""
import json
import subprocess
import zipfile
from pathlib import Path

PY = "/usr/bin/python3"  # Debian's interpreter: python3-setuptools, python3-wheel (scripts/bootstrap)

PROJECT = """\
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "vdemo"
version = "1.0"

[tool.setuptools]
py-modules = ["vdemo"]

[variant.default-priorities]
namespace = ["x86_64"]

[variant.providers.x86_64]
requires = ["provider-variant-x86-64 >=0.0.1"]
plugin-api = "provider_variant_x86_64.plugin:X8664Plugin"

[variant.variants.v1]
x86_64.level = ["v1"]

[variant.variants.v3]
x86_64.level = ["v3"]
"""


def project_and_sdist(vwheel, tmp_path):
    proj = tmp_path / "vdemo"
    proj.mkdir()
    (proj / "pyproject.toml").write_text(PROJECT)
    (proj / "vdemo.py").write_text("VALUE = 'vdemo'\n")
    links = tmp_path / "links"
    r = vwheel("build", "--sdist", proj, "-o", links, "--no-isolation", "--python", PY)
    assert r.rc == 0, r.err
    for w in links.glob("*.whl"):
        w.unlink()  # only the sdist: the installer must build it
    assert [p.name for p in links.iterdir() if p.suffix != ".json"] == ["vdemo-1.0.tar.gz"], list(links.iterdir())
    return proj, links


def profile(tmp_path, levels):
    path = tmp_path / f"profile-{'-'.join(levels)}.json"
    path.write_text(json.dumps({"properties": {"x86_64": [{"name": "level", "values": levels, "multi_value": False}]}}))
    return path


def venv(path: Path) -> Path:
    subprocess.run([PY, "-m", "venv", "--without-pip", "--system-site-packages", str(path)], check=True)
    return path / "bin" / "python"


def variant_json(wheel: Path) -> dict:
    with zipfile.ZipFile(wheel) as z:
        name = next(n for n in z.namelist() if n.endswith(".dist-info/variant.json"))
        return json.loads(z.read(name))


def built_wheels(tmp_path):
    return sorted((tmp_path / "cache" / "vwheel" / "built-wheels").glob("*/*.whl"))


def install(vwheel, python, links, target, *more):
    return vwheel("install", "--python", python, "--no-index", "--find-links", links, "--no-build-isolation",
                  "--target", target, *more, "vdemo")


def test_an_sdist_with_variants_is_built_as_the_best_variant_for_the_target(vwheel, tmp_path):
    proj, links = project_and_sdist(vwheel, tmp_path)
    python = venv(tmp_path / "venv")
    r = install(vwheel, python, links, profile(tmp_path, ["v3", "v2", "v1"]), "--explain")
    assert r.rc == 0, r.err
    assert ("no compatible wheel: vdemo-1.0.tar.gz is built as variant v3 (the best of its 2 variants for "
            "target profile") in r.out, r.out
    built = built_wheels(tmp_path)
    assert [w.name for w in built] == ["vdemo-1.0-py3-none-any-v3.whl"], built
    listed = vwheel("list", "--python", python)
    assert listed.rc == 0, listed.err
    assert any("vdemo" in line and "v3" in line for line in listed.out.splitlines()), listed.out
    # The same wheel `vwheel build --variant v3` of the tree makes.
    dist = tmp_path / "dist"
    r = vwheel("build", proj, "-o", dist, "--variant", "v3", "--no-isolation", "--python", PY)
    assert r.rc == 0, r.err
    direct = sorted(dist.glob("*.whl"))
    assert [w.name for w in direct] == [built[0].name], direct
    assert variant_json(direct[0]) == variant_json(built[0])


def test_each_target_gets_its_own_variant_and_the_null_variant_when_none_fits(vwheel, tmp_path):
    _, links = project_and_sdist(vwheel, tmp_path)
    python = venv(tmp_path / "venv")
    r = install(vwheel, python, links, profile(tmp_path, ["v1"]))
    assert r.rc == 0, r.err
    r = install(vwheel, python, links, profile(tmp_path, ["v2"]), "--force-reinstall", "--explain")
    assert r.rc == 0, r.err
    assert "vdemo-1.0.tar.gz is built as the null variant (none of its 2 variants fits target profile" in r.out, r.out
    # One built wheel per label: the cache key has it.
    assert sorted(w.name for w in built_wheels(tmp_path)) == sorted(["vdemo-1.0-py3-none-any-v1.whl",
                                                               "vdemo-1.0-py3-none-any-null.whl"])


def test_another_target_replaces_the_installed_variant_and_the_same_one_keeps_it(vwheel, tmp_path):
    _, links = project_and_sdist(vwheel, tmp_path)
    python = venv(tmp_path / "venv")
    assert install(vwheel, python, links, profile(tmp_path, ["v1"])).rc == 0
    # Version 1.0 is installed, as variant v1: a v3 machine's install builds and installs v3.
    r = install(vwheel, python, links, profile(tmp_path, ["v3", "v2", "v1"]))
    assert r.rc == 0, r.err
    listed = vwheel("list", "--python", python)
    assert any("vdemo" in line and "v3 (x86_64 :: level :: v3)" in line for line in listed.out.splitlines()), listed.out
    r = install(vwheel, python, links, profile(tmp_path, ["v3", "v2", "v1"]))
    assert r.rc == 0, r.err
    assert "installed vdemo" not in r.out, r.out

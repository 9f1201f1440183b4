"""`vwheel sync` follows PEP 751's installer rules, each checked with a hand-written lock (as
another tool would write it: no `[tool]` tables): the top-level `requires-python` and
`environments`, a package's own `requires-python`, an unknown minor `lock-version`, the `extras` /
`dependency_groups` marker variables, one project listed twice with markers that leave one entry,
`dependencies` edges without versions, and each file's `size`."""
import hashlib

import pytest

from conftest import ROOT
from example_site import make_venv, norm, tree
from wheelfactory import make_wheel

NO_GPU = ROOT / "examples" / "profiles" / "no-gpu.json"  # Linux, Python 3.12


@pytest.fixture
def wheels(tmp_path):
    d = tmp_path / "wheels"
    d.mkdir()
    return {(n, v): make_wheel(d, f"{n}-{v}-py3-none-any.whl") for n, v in
            [("app", "1.0"), ("dep", "1.0"), ("dep", "2.0"), ("devtool", "1.0")]}


def entry(wheels, name, version, size=None, **keys):
    path = wheels[(name, version)]
    data = path.read_bytes()
    lines = ["[[packages]]", f'name = "{name}"', f'version = "{version}"']
    for k, v in keys.items():
        lines.append(f"{k.replace('_', '-')} = {v}")
    lines.append(f'wheels = [{{ name = "{path.name}", path = "{path}", size = {size or len(data)}, '
                 f'hashes = {{ sha256 = "{hashlib.sha256(data).hexdigest()}" }} }}]')
    return "\n".join(lines) + "\n"


def lock_text(header, *entries):
    return 'lock-version = "1.0"\ncreated-by = "hand"\n' + header + "\n" + "\n".join(entries)


def installed(vwheel, python):
    import json
    r = vwheel("list", "--json", "--python", python)
    assert r.rc == 0, r.err
    return {norm(d["name"]): d["version"] for d in json.loads(r.out)}


@pytest.fixture
def venv(vwheel, tmp_path):
    return make_venv(vwheel, tmp_path / "venv")


def sync(vwheel, tmp_path, venv, text):
    path = tmp_path / "pylock.toml"
    path.write_text(text)
    return vwheel("sync", path, "--python", venv, "--target", NO_GPU)


def test_a_plain_lock_with_edges_and_a_project_listed_twice(vwheel, wheels, venv, tmp_path):
    text = lock_text(
        "",
        entry(wheels, "app", "1.0", dependencies='[{ name = "dep" }]'),
        entry(wheels, "dep", "1.0", marker='"sys_platform == \\"linux\\""'),
        entry(wheels, "dep", "2.0", marker='"sys_platform == \\"win32\\""'),
        entry(wheels, "devtool", "1.0", marker='"\\"dev\\" in dependency_groups"'))
    r = sync(vwheel, tmp_path, venv, text)
    assert r.rc == 0, r.err
    assert installed(vwheel, venv) == {"app": "1.0", "dep": "1.0"}
    # default-groups puts "dev" in dependency_groups; `extras` is a set too
    text = text.replace('created-by = "hand"\n', 'created-by = "hand"\ndefault-groups = ["dev"]\n')
    text = text.replace('"\\"dev\\" in dependency_groups"', '"\\"dev\\" in dependency_groups and \\"x\\" not in extras"')
    r = sync(vwheel, tmp_path, venv, text)
    assert r.rc == 0, r.err
    assert installed(vwheel, venv) == {"app": "1.0", "dep": "1.0", "devtool": "1.0"}


@pytest.mark.parametrize("header,entry_keys,message", [
    ('requires-python = ">=3.99"', {}, "Requires-Python `>=3.99` excludes Python 3.12"),
    ('environments = ["sys_platform == \\"win32\\""]', {}, "none of the lock's `environments` matches"),
    ("", {"requires_python": '">=3.99"'}, "package `app` 1.0: Requires-Python `>=3.99` excludes Python 3.12"),
    ("", {"size": 7}, "bytes, but the expected size is 7"),
])
def test_installer_rules_refuse_before_anything_changes(vwheel, wheels, venv, tmp_path, header, entry_keys, message):
    before = tree(venv)
    r = sync(vwheel, tmp_path, venv, lock_text(header, entry(wheels, "app", "1.0", **entry_keys)))
    assert r.rc == 1, (r.out, r.err)
    assert message in r.err, r.err
    assert len(r.err.strip().splitlines()) == 1, r.err
    assert tree(venv) == before


def test_matching_environments_and_requires_python_are_accepted(vwheel, wheels, venv, tmp_path):
    header = 'requires-python = ">=3.9"\nenvironments = ["sys_platform == \\"win32\\"", "sys_platform == \\"linux\\""]'
    r = sync(vwheel, tmp_path, venv, lock_text(header, entry(wheels, "app", "1.0", requires_python='">=3.9"')))
    assert r.rc == 0, r.err
    assert installed(vwheel, venv) == {"app": "1.0"}


def test_an_unknown_minor_lock_version_warns(vwheel, wheels, venv, tmp_path):
    text = lock_text("", entry(wheels, "app", "1.0")).replace('lock-version = "1.0"', 'lock-version = "1.3"')
    r = sync(vwheel, tmp_path, venv, text)
    assert r.rc == 0, r.err
    assert "lock-version `1.3`" in r.err and "warning" in r.err, r.err
    assert installed(vwheel, venv) == {"app": "1.0"}

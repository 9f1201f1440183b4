"""`vwheel sync` of locks shaped as other tools write them (issue 51): packages that depend on each
other with no `[tool.vwheel] requirements` (sphinx <-> sphinxcontrib-* in real locks) are all
installed; a sync never empties an environment from a lock with packages; an entry without a
source, or with an sdist that does not build, and a wheel that is not the variant the lock's `variants-json` says, are named as such."""
import tomllib

from example_site import make_venv, tree
from test_index_build import SCHEMA, make_dist, sha256
from test_lock_forks import installed
from test_lock_sync import dump_toml
from test_verify_download import v2_profile


def wheel_entry(path):
    return {"name": path.name, "path": path.name, "hashes": {"sha256": sha256(path)}}


def package(name, version, wheels=(), deps=(), **more):
    entry = {"name": name, "version": version}
    if deps:
        entry["dependencies"] = [{"name": d, "version": "1.0"} for d in deps]
    if wheels:
        entry["wheels"] = [wheel_entry(w) for w in wheels]
    entry.update(more)
    return entry


def write_lock(directory, packages):
    path = directory / "pylock.toml"
    path.write_text(dump_toml({"lock-version": "1.0", "created-by": "hand", "packages": packages}))
    return path


def test_a_lock_whose_packages_depend_on_each_other_installs_them_all(vwheel, tmp_path):
    links = tmp_path / "links"
    links.mkdir()
    a = make_dist(links, "a-1.0-py3-none-any.whl", metadata_extra="Requires-Dist: b\n")
    b = make_dist(links, "b-1.0-py3-none-any.whl", metadata_extra="Requires-Dist: a\n")
    venv = make_venv(vwheel, tmp_path / "venv")
    # As other tools write it: `dependencies` edges, no [tool.vwheel] requirements. The cycle a <-> b
    # leaves no entry that no edge names (the old rule for roots): sync uninstalled everything.
    lock = write_lock(links, [package("a", "1.0", [a], ["b"]), package("b", "1.0", [b], ["a"])])
    r = vwheel("sync", lock, "--python", venv)
    assert r.rc == 0, (r.out, r.err)
    assert installed(vwheel, venv) == {"a": ("1.0", ""), "b": ("1.0", "")}
    # The same from `vwheel lock` with its own requirements taken out.
    r = vwheel("lock", "a", "--no-index", "--find-links", links, "--python", venv, "-o", tmp_path / "made.toml")
    assert r.rc == 0, r.err
    doc = tomllib.loads((tmp_path / "made.toml").read_text())
    assert {p["name"] for p in doc["packages"]} == {"a", "b"}
    doc.pop("tool", None)
    (tmp_path / "made.toml").write_text(dump_toml(doc))
    r = vwheel("uninstall", "a", "b", "--python", venv)
    assert r.rc == 0, r.err
    r = vwheel("sync", tmp_path / "made.toml", "--python", venv)
    assert r.rc == 0, (r.out, r.err)
    assert installed(vwheel, venv) == {"a": ("1.0", ""), "b": ("1.0", "")}


def test_a_sync_never_empties_the_environment_from_a_lock_with_packages(vwheel, tmp_path):
    links = tmp_path / "links"
    links.mkdir()
    a = make_dist(links, "a-1.0-py3-none-any.whl")
    venv = make_venv(vwheel, tmp_path / "venv")
    r = vwheel("install", a, "--python", venv)
    assert r.rc == 0, r.err
    before = tree(venv)
    lock = write_lock(links, [package("a", "1.0", [a], marker='sys_platform == "win32"')])
    r = vwheel("sync", lock, "--python", venv)
    assert r.rc == 1, (r.out, r.err)
    assert r.err.strip().endswith(
        "pylock.toml: none of the lock's 1 package applies to this machine (detected): every package's `marker` is "
        "false there; refusing to empty the environment"), r.err
    assert tree(venv) == before


def test_an_entry_without_a_source_or_with_a_bad_one_is_named(vwheel, tmp_path):
    links = tmp_path / "links"
    links.mkdir()
    a = make_dist(links, "a-1.0-py3-none-any.whl")
    sdist = links / "s-1.0.tar.gz"
    sdist.write_bytes(b"not really")
    venv = make_venv(vwheel, tmp_path / "venv")
    # An sdist is built when an entry has no wheels (PEP 751); this one is no archive.
    only_sdist = package("s", "1.0", sdist={"name": sdist.name, "path": sdist.name,
                                            "hashes": {"sha256": sha256(sdist)}})
    lock = write_lock(links, [package("a", "1.0", [a]), only_sdist])
    r = vwheel("sync", lock, "--python", venv)
    assert r.rc == 1, (r.out, r.err)
    assert len(r.err.strip().splitlines()) == 1, r.err
    assert f"{lock} packages[1].sdist (s 1.0)" in r.err, r.err
    # A dependency with no source at all, below a root.
    lock = write_lock(links, [package("a", "1.0", [a], ["v"]), package("v", "1.0")])
    r = vwheel("sync", lock, "--python", venv)
    assert r.rc == 1, (r.out, r.err)
    assert r.err.strip().endswith(
        "pylock.toml: packages[1] (v 1.0) has no wheels and no other source (PEP 751 wants one)"), r.err
    assert installed(vwheel, venv) == {}


def test_a_wheel_of_another_variant_than_the_lock_says_is_refused(vwheel, tmp_path):
    links = tmp_path / "links"
    links.mkdir()
    # The wheel's own variant.json gives x1 level v3; the lock says v1 (which a v2 machine supports).
    wheel = make_dist(links, "vpkg-1.0-py3-none-any-x1.whl", variant={"x1": {"x86_64": {"level": ["v3"]}}})
    variants = {"$schema": SCHEMA, "default-priorities": {"namespace": ["x86_64"]},
                "variants": {"x1": {"x86_64": {"level": ["v1"]}}}}
    lock = write_lock(links, [package("vpkg", "1.0", [wheel], **{"variants-json": variants})])
    venv = make_venv(vwheel, tmp_path / "venv")
    r = vwheel("sync", lock, "--python", venv, "--target", v2_profile(tmp_path))
    assert r.rc == 1, (r.out, r.err)
    line = r.err.strip().splitlines()[-1]
    assert ("the wheel's variant.json gives label `x1` the properties [x86_64 :: level :: v3] but "
            f"{lock} packages[0].variants-json says [x86_64 :: level :: v1]; refusing a wheel that is not the "
            "variant described there") in line, line
    assert "index" not in line, line
    assert installed(vwheel, venv) == {}

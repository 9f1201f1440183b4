"""Issue 52: a universal lock that every PEP 751 installer reads the same.

For each scenario (wheels made here into a --find-links directory, packse-style), `vwheel lock`
writes one universal lock (no --target); then in each of the 12 environments of
`profiles_matrix` (3 platforms x CPython 3.10/3.12/3.13 and PyPy 3.10) the independent reader
`pep751_reader` (PEP 751's installation steps, tomllib + packaging, no vwheel code) must install
exactly what `vwheel export --target PROFILE` selects, and `vwheel sync --target PROFILE --dry-run`
would install: the same names, versions and wheel files.

"""
import json
import os
import subprocess
import tomllib
import zipfile

import pytest

import pep751_reader as reader
from profiles_matrix import matrix
from test_lock_forks import links  # noqa: F401 (a fixture)
from wheelfactory import make_wheel, record_hash

MATRIX = matrix()
ENV = {e.name: e for e in MATRIX}


def run_vwheel(vwheel_bin, home, *args, cwd=None):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home / "home"),
           "XDG_CACHE_HOME": str(home / "cache"), "XDG_CONFIG_HOME": str(home / "config"), "LANG": "C.UTF-8"}
    return subprocess.run([str(vwheel_bin), *map(str, args)], capture_output=True, text=True, env=env,
                          cwd=cwd or home, timeout=300)


def wheel(directory, filename, requires=(), requires_python=None):
    """A wheel from wheelfactory, with `Requires-Python` added to its METADATA (and RECORD)."""
    path = make_wheel(directory, filename, requires=requires)
    if requires_python is None:
        return path
    with zipfile.ZipFile(path) as zf:
        members = [(info, zf.read(info)) for info in zf.infolist()]
    lines = []
    with zipfile.ZipFile(path, "w") as zf:
        for info, data in members:
            if info.filename.endswith(".dist-info/METADATA"):
                data = data.replace(b"\nVersion: ", f"\nRequires-Python: {requires_python}\nVersion: ".encode(), 1)
            if info.filename.endswith(".dist-info/RECORD"):
                data = ("".join(lines) + f"{info.filename},,\n").encode()
            else:
                lines.append(f"{info.filename},{record_hash(data)},{len(data)}\n")
            zf.writestr(info, data)
    return path


# ---- scenarios: (wheels to make, root requirements) ----

def scenario_platform_roots(where):
    """(i) The issue's example: `a` needs c>=2 on Linux, d on macOS, e on Windows; `b` has a
    different version range per platform."""
    wheel(where, "a-1.0-py3-none-any.whl",
          requires=['c>=2; sys_platform == "linux"', 'd; sys_platform == "darwin"', 'e; sys_platform == "win32"'])
    for version in ("1.5", "2.1"):
        wheel(where, f"b-{version}-py3-none-any.whl")
    for name, version in (("c", "1.0"), ("c", "2.0"), ("d", "1.0"), ("e", "1.0")):
        wheel(where, f"{name}-{version}-py3-none-any.whl")
    return ["a", 'b>=2; sys_platform == "linux"', 'b<2; sys_platform == "darwin"']


def scenario_old_python(where):
    """(ii) A dependency only on Python < 3.11 whose newest version requires Python >= 3.12: the
    lock must hold the older version, for Python 3.10 only."""
    wheel(where, "app-1.0-py3-none-any.whl", requires=['backport; python_version < "3.11"'])
    wheel(where, "backport-1.0-py3-none-any.whl", requires_python=">=3.8")
    wheel(where, "backport-2.0-py3-none-any.whl", requires_python=">=3.12")
    return ["app"]


def scenario_pypy_only(where):
    """(iii) A dependency only on PyPy, another only on CPython."""
    wheel(where, "app-1.0-py3-none-any.whl",
          requires=['pypyhelper; implementation_name == "pypy"', 'cext; implementation_name == "cpython"'])
    wheel(where, "pypyhelper-1.0-py3-none-any.whl")
    wheel(where, "cext-1.0-py3-none-any.whl")
    return ["app"]


def scenario_platform_wheels(where):
    """(iv) One package with only platform wheels: Windows AMD64, macOS arm64, manylinux x86_64,
    and a CPython 3.13 manylinux wheel that CPython 3.13 on Linux must prefer."""
    for tag in ("py3-none-win_amd64", "py3-none-macosx_11_0_arm64",
                "py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64", "cp313-cp313-manylinux_2_28_x86_64"):
        wheel(where, f"native-1.0-{tag}.whl")
    return ["native"]


SCENARIOS = {
    "platform-roots": scenario_platform_roots,
    "old-python": scenario_old_python,
    "pypy-only": scenario_pypy_only,
    "platform-wheels": scenario_platform_wheels,
}


@pytest.fixture(scope="module")
def profiles(tmp_path_factory):
    d = tmp_path_factory.mktemp("profiles")
    return {e.name: e.write_profile(d) for e in MATRIX}


_locks = {}


@pytest.fixture
def scenario_lock(vwheel_bin, tmp_path_factory):
    """scenario name -> its universal lock (made once per session)."""

    def make(name):
        if name not in _locks:
            d = tmp_path_factory.mktemp(name)
            where = d / "links"
            where.mkdir()
            roots = SCENARIOS[name](where)
            r = run_vwheel(vwheel_bin, d, "lock", *roots, "--no-index", "-f", where, "-o", d / "pylock.toml")
            assert r.returncode == 0, r.stderr
            _locks[name] = d / "pylock.toml"
        return _locks[name]

    return make


# ---- comparing the reader with vwheel export ----

def parse_export(text):
    """name -> (version, file name) from `vwheel export`'s requirements.txt: `name==version \\`
    lines, their `--hash=` lines, and a `# FILE` comment naming the wheel."""
    out, current = {}, None
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("--hash"):
            continue
        if stripped.startswith("#"):
            if current is not None and out[current][1] is None:
                out[current] = (out[current][0], stripped[1:].strip())
            continue
        requirement = stripped.rstrip("\\").strip()
        name, sep, version = requirement.partition("==")
        assert sep, f"an export line that is not name==version: {line!r}"
        current = reader.canonicalize_name(name)
        out[current] = (version.strip(), None)
    return out


def export(vwheel_bin, home, lock, profile, *flags):
    """What vwheel selects for the target profile: (name -> (version, file), None) or (None, error)."""
    r = run_vwheel(vwheel_bin, home, "export", lock, "--target", profile, *flags)
    if r.returncode != 0:
        return None, f"vwheel export failed ({r.returncode}): {r.stderr.strip()}"
    return parse_export(r.stdout), None


def synced(vwheel_bin, home, lock, profile, *flags):
    """What `vwheel sync --dry-run` would install for the target profile (its --report), into an
    empty virtual environment made once per home: (name -> (version, file), None) or (None, error)."""
    python = home / "sync-venv" / "bin" / "python"
    if not python.exists():
        r = run_vwheel(vwheel_bin, home, "venv", home / "sync-venv", "--python", "/usr/bin/python3")
        assert r.returncode == 0, r.stderr
    report = home / "sync-report.json"
    r = run_vwheel(vwheel_bin, home, "sync", lock, "--python", python, "--target", profile, "--dry-run", "--report",
                   report, *flags)
    if r.returncode != 0:
        return None, f"vwheel sync failed ({r.returncode}): {r.stderr.strip()}"
    return {p["name"]: (p["version"], p["wheel"]) for p in json.loads(report.read_text())["install"]}, None


def read(lock, environment, extras=frozenset(), dependency_groups=None):
    """The reader's set (name -> (version, file), built entries left out), or (None, error)."""
    try:
        chosen = reader.install_set(lock, environment.environment, environment.tags, extras, dependency_groups)
    except reader.LockError as e:
        return None, f"{type(e).__name__}: {e}"
    return {name: v for name, v in chosen.items() if v[1] is not None}, None


def compare(vwheel_bin, home, lock, profiles, environments, extras=frozenset(), dependency_groups=None, flags=()):
    """The environments where reader, export and sync disagree (a list of messages), and how many
    environments were compared."""
    problems, compared = [], 0
    for e in environments:
        compared += 1
        mine, my_error = read(lock, e, extras, dependency_groups)
        theirs, their_error = export(vwheel_bin, home, lock, profiles[e.name], *flags)
        # `vwheel sync` makes the same choice as export (the same PEP 751 steps): checked as well.
        synced_set, sync_error = synced(vwheel_bin, home, lock, profiles[e.name], *flags)
        if (synced_set, bool(sync_error)) != (theirs, bool(their_error)):
            problems.append(f"{e.name}: vwheel sync {synced_set or sync_error} != vwheel export {theirs or their_error}")
        if my_error and their_error:
            continue  # both refuse (e.g. a requires-python the environment misses)
        if mine != theirs:
            problems.append(f"{e.name}: reader {mine or my_error} != vwheel export {theirs or their_error}")
    return problems, compared


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_every_environment_narrows_to_one_entry_and_reader_equals_export(vwheel_bin, scenario_lock, profiles,
                                                                         tmp_path, name):
    lock = scenario_lock(name)
    ambiguous = {e.name: reader.ambiguous_names(lock, e.environment) for e in MATRIX}
    assert {k: v for k, v in ambiguous.items() if v} == {}
    problems, compared = compare(vwheel_bin, tmp_path, lock, profiles, MATRIX)
    assert problems == [] and compared == len(MATRIX)


def test_the_issue_example_picks_per_platform(vwheel_bin, scenario_lock, profiles, tmp_path):
    """What vwheel selects in the issue's example is right in itself (the reader must match it)."""
    lock = scenario_lock("platform-roots")
    picks = {e: export(vwheel_bin, tmp_path, lock, profiles[e])[0] for e in ("linux-cp312", "macos-pp310",
                                                                           "windows-cp313")}
    assert {n: v for n, (v, _) in picks["linux-cp312"].items()} == {"a": "1.0", "b": "2.1", "c": "2.0"}
    assert {n: v for n, (v, _) in picks["macos-pp310"].items()} == {"a": "1.0", "b": "1.5", "d": "1.0"}
    assert {n: v for n, (v, _) in picks["windows-cp313"].items()} == {"a": "1.0", "e": "1.0"}


def test_platform_wheels_choose_by_tag_priority(vwheel_bin, scenario_lock, profiles, tmp_path):
    lock = scenario_lock("platform-wheels")
    expected = {"linux-cp312": "native-1.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
                "linux-cp313": "native-1.0-cp313-cp313-manylinux_2_28_x86_64.whl",
                "macos-cp310": "native-1.0-py3-none-macosx_11_0_arm64.whl",
                "windows-pp310": "native-1.0-py3-none-win_amd64.whl"}
    for name, filename in expected.items():
        assert read(lock, ENV[name]) == ({"native": ("1.0", filename)}, None), name
        assert export(vwheel_bin, tmp_path, lock, profiles[name]) == ({"native": ("1.0", filename)}, None), name


# ---- (v) a project: dependencies, an extra, dependency groups ----

PYPROJECT = """\
[project]
name = "proj"
version = "0.1"
requires-python = ">=3.10"
dependencies = ["base", 'winhelper; sys_platform == "win32"']

[project.optional-dependencies]
cpu = ["cpukernels"]

[dependency-groups]
dev = ["devtool"]
test = [{include-group = "dev"}, "testtool"]
"""

# (extras, dependency_groups given the lock's default groups `D`, export flags, expected names)
PROJECT_SELECTIONS = {
    "default": (set(), lambda d: d, [], {"base"}),
    "extra-cpu": ({"cpu"}, lambda d: d, ["--extra", "cpu"], {"base", "cpukernels"}),
    "group-dev": (set(), lambda d: d | {"dev"}, ["--group", "dev"], {"base", "devtool"}),
    "only-group-test": (set(), lambda d: {"test"}, ["--only-group", "test"], {"devtool", "testtool"}),
    "no-default-groups": (set(), lambda d: set(), ["--no-default-groups"], set()),
}


@pytest.fixture
def project_lock(vwheel_bin, tmp_path):
    where = tmp_path / "links"
    where.mkdir()
    for name in ("base", "winhelper", "cpukernels", "devtool", "testtool"):
        wheel(where, f"{name}-1.0-py3-none-any.whl", requires_python=">=3.8")
    project = tmp_path / "proj"
    project.mkdir()
    (project / "pyproject.toml").write_text(PYPROJECT)
    (project / "proj").mkdir()
    (project / "proj" / "__init__.py").write_text("")
    r = run_vwheel(vwheel_bin, tmp_path, "lock", "--no-index", "-f", where, "-o", project / "pylock.toml",
                   cwd=project)
    assert r.returncode == 0, r.stderr
    return project / "pylock.toml"


@pytest.mark.parametrize("selection", list(PROJECT_SELECTIONS))
def test_project_extras_and_groups_read_the_same(vwheel_bin, project_lock, profiles, tmp_path, selection):
    doc = tomllib.loads(project_lock.read_text())
    assert doc["extras"] == ["cpu"] and sorted(doc["dependency-groups"]) == ["dev", "test"]
    extras, groups, flags, expected = PROJECT_SELECTIONS[selection]
    groups = frozenset(groups(set(doc.get("default-groups", []))))
    problems, compared = compare(vwheel_bin, tmp_path, project_lock, profiles, MATRIX, frozenset(extras), groups,
                                 flags)
    assert problems == [] and compared == len(MATRIX)
    linux, _ = read(project_lock, ENV["linux-cp312"], frozenset(extras), groups)
    windows, _ = read(project_lock, ENV["windows-cp312"], frozenset(extras), groups)
    assert set(linux) == expected
    assert set(windows) == expected | ({"winhelper"} if "base" in expected else set())


def test_pypy_only_dependency_reads_per_implementation(scenario_lock):
    lock = scenario_lock("pypy-only")
    for e in MATRIX:
        names = set(read(lock, e)[0] or {})
        assert names == ({"app", "pypyhelper"} if e.environment["implementation_name"] == "pypy"
                         else {"app", "cext"}), e.name


def test_old_python_dependency_reads_per_python(scenario_lock):
    lock = scenario_lock("old-python")
    for e in MATRIX:
        chosen = read(lock, e)[0] or {}
        if e.environment["python_version"] == "3.10":
            assert chosen.get("backport", (None,))[0] == "1.0", e.name
        else:
            assert "backport" not in chosen, e.name


# ---- credentials in the index URL never reach the lock or the cache ----

def test_a_lock_from_an_index_with_credentials_holds_no_password_and_reads_the_same(vwheel_bin, profiles, tmp_path):
    from test_credentials import PASSWORD, AuthServer, files_with_password
    wheels, site = tmp_path / "wheels", tmp_path / "site"
    wheels.mkdir()
    wheel(wheels, "secretpkg-1.0-py3-none-any.whl")
    r = run_vwheel(vwheel_bin, tmp_path, "index", "build", wheels, "-o", site)
    assert r.returncode == 0, r.stderr
    server = AuthServer(site)
    try:
        lock, cache = tmp_path / "pylock.toml", tmp_path / "cache-dir"
        r = run_vwheel(vwheel_bin, tmp_path, "lock", "secretpkg", "--index-url", server.url(), "--cache-dir", cache,
                       "-o", lock)
        assert r.returncode == 0, r.stderr
    finally:
        server.stop()
    assert PASSWORD not in lock.read_text()
    assert files_with_password(cache) == [] and files_with_password(tmp_path / "cache") == []
    problems, compared = compare(vwheel_bin, tmp_path, lock, profiles, MATRIX)
    assert problems == [] and compared == len(MATRIX)
    assert read(lock, ENV["windows-pp310"]) == ({"secretpkg": ("1.0", "secretpkg-1.0-py3-none-any.whl")}, None)


# ---- the torch-shaped lock (test_lock_forks): variant forks and a variant-unaware reader ----

@pytest.fixture(scope="module")
def torch_links(links):  # noqa: F811 (test_lock_forks' find-links directory of the torch-shaped index)
    return links


def test_a_variant_unaware_reader_of_the_universal_torch_lock_meets_the_nvidia_ambiguity(vwheel_bin, torch_links,
                                                                                         tmp_path):
    """The universal lock holds three versions of every nv-lib* (one per CUDA variant of torch);
    PEP 825 forbids variant markers in packages.marker, so in every environment where torch is
    installed they share a marker and a variant-unaware reader (this one) raises the ambiguity
    error. Such an installer needs a `vwheel lock --target` lock (next test)."""
    from test_lock_forks import NV
    from example_site import PY
    lock = tmp_path / "pylock.toml"
    r = run_vwheel(vwheel_bin, tmp_path, "lock", "torch", "torchvision", "--no-index", "-f", torch_links, "-o", lock,
                   "--python", PY)
    assert r.returncode == 0, r.stderr
    for e in MATRIX:
        assert set(NV) <= set(reader.ambiguous_names(lock, e.environment)), e.name
        with pytest.raises(reader.Ambiguity):
            reader.install_set(lock, e.environment, e.tags)


@pytest.mark.parametrize("gpu", ["no-gpu", "cuda12.8-sm90"])
def test_a_one_machine_torch_lock_reads_one_entry_per_name_and_the_same_set(vwheel_bin, torch_links, tmp_path, gpu):
    from test_lock_forks import cuda
    machine = ENV["linux-cp312"]
    profile = machine.profile()
    profile["properties"] = {} if gpu == "no-gpu" else cuda("12.8", 90)
    target = tmp_path / "target.json"
    target.write_text(json.dumps(profile))
    lock = tmp_path / "pylock.toml"
    r = run_vwheel(vwheel_bin, tmp_path, "lock", "torch", "torchvision", "--no-index", "-f", torch_links, "-o", lock,
                   "--target", target)
    assert r.returncode == 0, r.stderr
    entries = reader.applicable_entries(lock, machine.environment)
    assert {n: len(v) for n, v in entries.items() if len(v) != 1} == {}
    names = [p["name"] for p in tomllib.loads(lock.read_text())["packages"]]
    assert len(names) == len(set(names))
    theirs, error = export(vwheel_bin, tmp_path, lock, target)
    assert error is None, error
    if gpu == "no-gpu":
        assert read(lock, machine) == (theirs, None)
        assert theirs["torch"][1].endswith("-null.whl"), theirs["torch"]
    else:
        # The reader is variant-unaware: it never takes torch's cu128 variant wheel, which is the
        # only torch wheel this machine's lock holds, and the nv-lib* entries hold only variant
        # wheels: it has no wheel to install for them (NoSource), though the versions agree.
        with pytest.raises(reader.NoSource):
            reader.install_set(lock, machine.environment, machine.tags)
        versions = {n: v[0]["version"] for n, v in entries.items()}
        assert versions == {n: v for n, (v, _) in theirs.items()}
        assert "-cu128" in theirs["torch"][1], theirs["torch"]


# ---- the reader itself: each MUST-error of PEP 751's installation steps ----

def _entry(name, version, marker=None, requires_python=None, wheels=("py3-none-any",)):
    entry = {"name": name, "version": version,
             "wheels": [{"name": f"{name}-{version}-{tag}.whl", "hashes": {"sha256": "0" * 64}} for tag in wheels]}
    if marker:
        entry["marker"] = marker
    if requires_python:
        entry["requires-python"] = requires_python
    return entry


@pytest.mark.parametrize("doc,error", [
    ({"lock-version": "2.0", "packages": []}, reader.UnsupportedLockVersion),
    ({"lock-version": "1.0", "requires-python": ">=3.11", "packages": []}, reader.LockRequiresPython),
    ({"lock-version": "1.0", "environments": ["sys_platform == 'win32'"], "packages": []},
     reader.NoEnvironmentMatches),
    ({"lock-version": "1.0", "packages": [_entry("x", "1", requires_python=">=3.11")]}, reader.PackageRequiresPython),
    ({"lock-version": "1.0", "packages": [_entry("x", "1"), _entry("X", "2", marker="os_name == 'posix'")]},
     reader.Ambiguity),
    ({"lock-version": "1.0", "packages": [_entry("x", "1", wheels=("cp313-cp313-win_amd64", "py3-none-any-cu128"))]},
     reader.NoSource),
    ({"lock-version": "1.0", "packages": [dict(_entry("x", "1"), directory={"path": "."})]},
     reader.ConflictingSources),
])
def test_the_reader_raises_each_must_error(doc, error):
    with pytest.raises(error):
        reader.install_set(doc, ENV["linux-cp310"].environment, ENV["linux-cp310"].tags)


def test_the_reader_evaluates_lock_markers_with_extras_and_groups():
    doc = {"lock-version": "1.1", "default-groups": ["default"], "packages": [
        _entry("base", "1", marker="'default' in dependency_groups"),
        _entry("cpu", "1", marker="'cpu' in extras and platform_machine == 'x86_64'"),
        _entry("dev", "1", marker="'dev' in dependency_groups or 'test' in dependency_groups"),
        _entry("old", "1", marker="python_full_version < '3.11' and implementation_name == 'cpython'"),
        _entry("null", "1", wheels=("py3-none-any", "py3-none-any-null", "py3-none-any-cu128")),
    ]}
    linux = ENV["linux-cp310"]
    names = set(reader.install_set(doc, linux.environment, linux.tags))
    assert names == {"base", "old", "null"}
    names = set(reader.install_set(doc, linux.environment, linux.tags, frozenset({"CPU"}), frozenset({"test"})))
    assert names == {"cpu", "dev", "old", "null"}
    # The null variant sorts before the wheel without a label (PEP 825); other labels are skipped.
    assert reader.install_set(doc, linux.environment, linux.tags)["null"] == ("1", "null-1-py3-none-any-null.whl")

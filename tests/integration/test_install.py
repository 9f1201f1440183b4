"""vwheel install/uninstall/list/show/venv against real virtual environments and the real pip."""
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from wheelfactory import make_wheel, record_hash
from snapshot import tree

PY = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable


@pytest.fixture(scope="module")
def pip_venv(tmp_path_factory):
    """One venv with pip for the whole module (creating one takes seconds)."""
    d = tmp_path_factory.mktemp("pipvenv") / "venv"
    subprocess.run([PY, "-m", "venv", str(d)], check=True)
    return d


def pip(venv, *args):
    env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INDEX="1")
    return subprocess.run([str(venv / "bin" / "python"), "-m", "pip", *args], capture_output=True, text=True, env=env)


def site_packages(venv):
    return next((venv / "lib").glob("python3*/site-packages"))


def tool_wheel(directory, name="vwdemo", version="1.0"):
    return _tool_wheel_with_entry_points(directory, name, version)


def _tool_wheel_with_entry_points(directory, name, version):
    files = {
        f"{name}/__init__.py": f"VERSION = '{version}'\n".encode(),
        f"{name}/cli.py": b"def main():\n    print('hello from cli')\n    return 0\n",
        f"{name}-{version}.dist-info/entry_points.txt": f"[console_scripts]\n{name}-cli = {name}.cli:main\n".encode(),
    }
    return make_wheel(directory, f"{name}-{version}-py3-none-any.whl", files,
                      scripts={"rawtool": b"#!python\nprint('raw tool')\n"})


def test_install_visible_to_pip_and_removed_by_pip(vwheel, pip_venv, tmp_path):
    before = tree(pip_venv)
    w = tool_wheel(tmp_path)
    r = vwheel("install", w, "--python", pip_venv / "bin" / "python")
    assert r.rc == 0, r.err
    assert "installed vwdemo 1.0" in r.out
    # pip sees it.
    listed = json.loads(pip(pip_venv, "list", "--format=json").stdout)
    assert {"name": "vwdemo", "version": "1.0"} in listed
    show = pip(pip_venv, "show", "vwdemo").stdout
    assert "Version: 1.0" in show
    sp = site_packages(pip_venv)
    assert (sp / "vwdemo-1.0.dist-info" / "INSTALLER").read_text() == "vwheel\n"
    direct = json.loads((sp / "vwdemo-1.0.dist-info" / "direct_url.json").read_text())
    assert direct["url"].startswith("file:///") and "sha256" in direct["archive_info"]["hashes"]
    # Scripts run.
    out = subprocess.run([str(pip_venv / "bin" / "vwdemo-cli")], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout == "hello from cli\n"
    out = subprocess.run([str(pip_venv / "bin" / "rawtool")], capture_output=True, text=True)
    assert out.stdout == "raw tool\n"
    # RECORD uses pip's relative script paths.
    record = (sp / "vwdemo-1.0.dist-info" / "RECORD").read_text()
    assert "../../../bin/vwdemo-cli,sha256=" in record
    # vwheel list / show.
    r = vwheel("list", "--json", "--python", pip_venv / "bin" / "python")
    assert r.rc == 0, r.err
    entry = [d for d in json.loads(r.out) if d["name"] == "vwdemo"][0]
    assert entry["installer"] == "vwheel"
    r = vwheel("show", "vwdemo", "--python", pip_venv / "bin" / "python")
    assert r.rc == 0 and "Installer: vwheel" in r.out and "Files:" in r.out
    # pip uninstalls it cleanly.
    u = pip(pip_venv, "uninstall", "-y", "vwdemo")
    assert u.returncode == 0, u.stderr
    assert tree(pip_venv) == before


def test_vwheel_uninstalls_what_pip_installed(vwheel, pip_venv, tmp_path):
    before = tree(pip_venv)
    w = tool_wheel(tmp_path, name="pipdemo")
    r = pip(pip_venv, "install", "--no-index", str(w))
    assert r.returncode == 0, r.stderr
    assert (pip_venv / "bin" / "pipdemo-cli").exists()
    r = vwheel("uninstall", "pipdemo", "--python", pip_venv / "bin" / "python")
    assert r.rc == 0, r.err
    assert tree(pip_venv) == before


def test_upgrade_and_compile(vwheel, pip_venv, tmp_path):
    py = pip_venv / "bin" / "python"
    assert vwheel("install", tool_wheel(tmp_path, "updemo", "1.0"), "--python", py).rc == 0
    (tmp_path / "v2").mkdir()
    r = vwheel("install", tool_wheel(tmp_path / "v2", "updemo", "2.0"), "--python", py, "--compile")
    assert r.rc == 0, r.err
    assert "replacing 1.0" in r.out
    sp = site_packages(pip_venv)
    assert not (sp / "updemo-1.0.dist-info").exists()
    record = (sp / "updemo-2.0.dist-info" / "RECORD").read_text()
    assert ".pyc," in record
    assert list((sp / "updemo" / "__pycache__").glob("*.pyc"))
    out = subprocess.run([str(py), "-c", "import updemo; print(updemo.VERSION)"], capture_output=True, text=True)
    assert out.stdout.strip() == "2.0"
    assert pip(pip_venv, "uninstall", "-y", "updemo").returncode == 0
    assert not (sp / "updemo").exists()


def test_uninstall_takes_compiled_files_and_leaves_what_is_not_the_packages(vwheel, pip_venv, tmp_path):
    """The package directory goes aside whole only when everything in it is the package's: its
    modules compiled at every optimization level go with it; a file someone added stays, with
    its directory, and the package's other files still go."""
    py = pip_venv / "bin" / "python"
    before = tree(pip_venv)
    files = {"cmp/__init__.py": b"X = 1\n", "cmp/sub/__init__.py": b"", "cmp/sub/mod.py": b"Y = 2\n",
             "cmp/keep/__init__.py": b""}
    w = make_wheel(tmp_path, "cmp-1.0-py3-none-any.whl", files)
    assert vwheel("install", w, "--python", py).rc == 0
    sp = site_packages(pip_venv)
    for level in ("", "-O", "-OO"):
        cmd = [str(py)] + ([level] if level else []) + ["-m", "compileall", "-q", str(sp / "cmp")]
        subprocess.run(cmd, check=True)
    pycs = sorted(p.name for p in (sp / "cmp" / "sub" / "__pycache__").iterdir())
    assert any(".opt-1." in n for n in pycs) and any(".opt-2." in n for n in pycs), pycs
    (sp / "cmp" / "keep" / "notes.txt").write_text("mine\n")
    r = vwheel("uninstall", "cmp", "--python", py)
    assert r.rc == 0, r.err
    assert "uninstalled cmp 1.0 (5 files)" in r.out, r.out
    left = tree(pip_venv)
    added = {k: v for k, v in left.items() if k not in before}
    keep = str((sp / "cmp" / "keep").relative_to(pip_venv))
    assert added == {str((sp / "cmp").relative_to(pip_venv)): "<dir>", keep: "<dir>", keep + "/notes.txt": b"mine\n"}, added
    assert not list((sp / "cmp").rglob("*.pyc")), list((sp / "cmp").rglob("*"))
    (sp / "cmp" / "keep" / "notes.txt").unlink()
    (sp / "cmp" / "keep").rmdir()
    (sp / "cmp").rmdir()
    assert tree(pip_venv) == before


def hostile(tmp_path, kind):
    name = f"evil_{kind}"
    path = tmp_path / f"{name}-1.0-py3-none-any.whl"
    di = f"{name}-1.0.dist-info"
    members = [(f"{name}/__init__.py", b"x = 1\n", 0o100644)]
    if kind == "slip":
        members.append(("../../../../escaped.py", b"pwned\n", 0o100644))
    elif kind == "absolute":
        members.append((str(tmp_path / "absolute.py"), b"pwned\n", 0o100644))
    elif kind == "symlink":
        members.append((f"{name}/link", b"/etc/passwd", 0o120777))
    elif kind == "bomb":
        members.append((f"{name}/zeros.bin", b"\0" * (64 << 20), 0o100644))
    members.append((f"{di}/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n".encode(), 0o100644))
    members.append((f"{di}/WHEEL", b"Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n", 0o100644))
    lines = []
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for mpath, data, mode in members:
            info = zipfile.ZipInfo(mpath)
            info.external_attr = mode << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)
            h = record_hash(b"tampered" if kind == "hash" and mpath.endswith("__init__.py") else data)
            lines.append(f"{mpath},{h},{len(data)}\n")
        if kind == "duplicate":
            info = zipfile.ZipInfo(f"{name}/__init__.py")
            zf.writestr(info, b"x = 2\n")
        lines.append(f"{di}/RECORD,,\n")
        zf.writestr(f"{di}/RECORD", "".join(lines))
    return path


@pytest.mark.parametrize("kind", ["slip", "absolute", "symlink", "hash", "duplicate", "bomb"])
def test_hostile_wheels_refused(vwheel, pip_venv, tmp_path, kind):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        w = hostile(tmp_path, kind)
    before = tree(pip_venv)
    outside_before = sorted(p.name for p in tmp_path.parent.iterdir())
    r = vwheel("install", w, "--python", pip_venv / "bin" / "python")
    assert r.rc == 1, (r.out, r.err)
    assert r.err.startswith("vwheel: error: ") and r.err.count("\n") == 1, r.err
    assert tree(pip_venv) == before
    assert not (tmp_path / "absolute.py").exists()
    assert sorted(p.name for p in tmp_path.parent.iterdir()) == outside_before
    assert not list(pip_venv.parent.rglob("escaped.py"))


CPU_VARIANT = {
    "$schema": "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json",
    "default-priorities": {"namespace": ["x86_64"]},
    "providers": {"x86_64": {"requires": ["provider-variant-x86-64 >=0.0.1"], "plugin-api": "provider_variant_x86_64.plugin:X8664Plugin"}},
}


def variant_wheel(directory, label, props):
    vj = json.loads(json.dumps(CPU_VARIANT))
    vj["variants"] = {label: {"x86_64": {"level": props}} if props else {}}
    return make_wheel(directory, f"vpkg-1.0-py3-none-any-{label}.whl", {"vpkg/__init__.py": f"L = '{label}'\n".encode()},
                      variant_json=vj)


@pytest.fixture
def target_profile(tmp_path):
    p = tmp_path / "target.json"
    p.write_text(json.dumps({"properties": {"x86_64": [{"name": "level", "values": ["v2", "v1"], "multi_value": False}]}}))
    return p


def test_variant_refused_with_reason_and_find_links_choice(vwheel, tmp_path, target_profile):
    venv = tmp_path / "venv"
    r = vwheel("venv", venv, "--python", PY)
    assert r.rc == 0, r.err
    py = venv / "bin" / "python"
    links = tmp_path / "links"
    links.mkdir()
    v4 = variant_wheel(links, "v4", ["v4"])
    variant_wheel(links, "v2", ["v2"])
    variant_wheel(links, "v1", ["v1"])
    variant_wheel(links, "null", None)
    before = tree(venv)
    r = vwheel("install", v4, "--python", py, "--target", target_profile)
    assert r.rc == 1, (r.out, r.err)
    assert r.err == (f"vwheel: error: {v4.name}: variant `v4` is not supported by target profile {target_profile}: "
                     "`x86_64 :: level` needs v4; the target supports v2, v1 (--ignore-variant installs it anyway)\n"), r.err
    assert tree(venv) == before
    r = vwheel("install", "vpkg", "--find-links", links, "--python", py, "--target", target_profile)
    assert r.rc == 0, r.err
    assert "vpkg 1.0: vpkg-1.0-py3-none-any-v2.whl (variant v2: x86_64 :: level :: v2)" in r.out
    r = vwheel("list", "--json", "--python", py)
    entry = [d for d in json.loads(r.out) if d["name"] == "vpkg"][0]
    assert entry["variant"] == "v2" and entry["variant_properties"] == ["x86_64 :: level :: v2"]
    # --ignore-variant overrides the check.
    r = vwheel("install", v4, "--python", py, "--target", target_profile, "--ignore-variant", "--force-reinstall")
    assert r.rc == 0, r.err


def custom_wheel(directory, name, version="1.0", files=None, metadata_extra="", algorithm="sha256"):
    """A wheel whose METADATA carries `metadata_extra` headers and whose RECORD uses `algorithm`."""
    import base64
    import hashlib
    di = f"{name}-{version}.dist-info"
    members = dict(files or {f"{name}/__init__.py": b"VALUE = 1\n"})
    members[f"{di}/METADATA"] = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n{metadata_extra}".encode()
    members[f"{di}/WHEEL"] = b"Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    path = Path(directory) / f"{name}-{version}-py3-none-any.whl"
    lines = []
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for mpath, data in members.items():
            zf.writestr(mpath, data)
            digest = base64.urlsafe_b64encode(hashlib.new(algorithm, data).digest()).rstrip(b"=").decode()
            lines.append(f"{mpath},{algorithm}={digest},{len(data)}\n")
        lines.append(f"{di}/RECORD,,\n")
        zf.writestr(f"{di}/RECORD", "".join(lines))
    return path


def verify_records(sp):
    """Every installed file listed with a hash in a RECORD exists and has that hash."""
    import base64
    import csv
    import hashlib
    checked = 0
    for record in sp.glob("*.dist-info/RECORD"):
        for row in csv.reader(record.read_text().splitlines()):
            if not row or not row[1]:
                continue
            algo, _, digest = row[1].partition("=")
            data = (sp / row[0]).read_bytes()
            assert base64.urlsafe_b64encode(hashlib.new(algo, data).digest()).rstrip(b"=").decode() == digest, row
            assert int(row[2]) == len(data), row
            checked += 1
    return checked


def test_sha384_and_sha512_records_accepted_md5_refused(vwheel, tmp_path):
    venv = tmp_path / "venv"
    assert vwheel("venv", venv, "--python", PY).rc == 0
    py = venv / "bin" / "python"
    for algo in ("sha384", "sha512"):
        w = custom_wheel(tmp_path, f"strong{algo}", algorithm=algo)
        r = vwheel("install", w, "--python", py)
        assert r.rc == 0, r.err
        record = (site_packages(venv) / f"strong{algo}-1.0.dist-info" / "RECORD").read_text()
        assert f"strong{algo}/__init__.py,{algo}=" in record
    assert verify_records(site_packages(venv)) >= 6
    before = tree(venv)
    for algo in ("md5", "sha1"):
        w = custom_wheel(tmp_path, f"weak{algo}", algorithm=algo)
        r = vwheel("install", w, "--python", py)
        assert r.rc != 0
        assert f"{algo} is too weak" in r.err, r.err
    assert tree(venv) == before


def test_requires_python_checked_against_the_target_profile(vwheel, tmp_path):
    venv = tmp_path / "venv"
    assert vwheel("venv", venv, "--python", PY).rc == 0
    py = venv / "bin" / "python"
    links = tmp_path / "links"
    links.mkdir()
    old = custom_wheel(links, "rpy", "1.0", metadata_extra="Requires-Python: >=3.6\n")
    new = custom_wheel(links, "rpy", "2.0", metadata_extra="Requires-Python: >=3.99\n")
    profile = tmp_path / "target.json"
    profile.write_text(json.dumps({"properties": {}, "environment": {"python_version": "3.8"},
                                   "tags": ["py3-none-any"]}))
    before = tree(venv)
    r = vwheel("install", new, "--python", py, "--target", profile)
    assert r.rc != 0
    assert "Requires-Python `>=3.99` excludes Python 3.8 (of the target profile" in r.err, r.err
    assert tree(venv) == before
    r = vwheel("install", old, "--python", py, "--target", profile)
    assert r.rc == 0, r.err
    assert (site_packages(venv) / "rpy-1.0.dist-info").is_dir()
    # Resolving from --find-links: Requires-Python (read from METADATA, the directory has no
    # index page to say it) takes part in resolution, so the newest version that fits is chosen.
    r = vwheel("install", "rpy", "--find-links", links, "--python", py, "--target", profile, "--dry-run")
    assert r.rc == 0, r.err
    assert "rpy 1.0: rpy-1.0-py3-none-any.whl" in r.out, r.out
    r = vwheel("install", "rpy==2.0", "--find-links", links, "--python", py, "--target", profile, "--dry-run")
    assert r.rc == 1 and "python" in r.err and ">=3.99" in r.err, r.err
    # A target profile on Python 3.5 excludes both.
    profile.write_text(json.dumps({"properties": {}, "environment": {"python_version": "3.5"}}))
    r = vwheel("install", old, "--python", py, "--target", profile, "--force-reinstall")
    assert r.rc != 0 and "excludes Python 3.5" in r.err, r.err


def test_two_processes_contend_for_the_environment_lock(vwheel_bin, tmp_path):
    import fcntl
    import select
    import time
    env = dict(PATH=os.environ.get("PATH", "/usr/bin:/bin"), HOME=str(tmp_path / "home"),
               XDG_CACHE_HOME=str(tmp_path / "cache"), LANG="C.UTF-8")
    subprocess.run([str(vwheel_bin), "venv", str(tmp_path / "venv"), "--python", PY], check=True, env=env)
    venv = tmp_path / "venv"
    py = venv / "bin" / "python"
    sp = site_packages(venv)
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    batch = [[make_wheel(wheels, f"lk{b}x{i:02d}-1.0-py3-none-any.whl",
                         {f"lk{b}x{i:02d}/__init__.py": f"V = {i}\n".encode() * 50}) for i in range(25)] for b in (0, 1)]

    # 1. The lock held from outside: vwheel says it waits, installs nothing meanwhile, then finishes.
    # The lock lives beside pyvenv.cfg, not in site-packages (where no RECORD lists it).
    with open(venv / ".vwheel.lock", "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        proc = subprocess.Popen([str(vwheel_bin), "install", "--python", str(py), *map(str, batch[0])], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = ""
        deadline = time.time() + 30
        while "waiting for the lock" not in line and time.time() < deadline:
            ready, _, _ = select.select([proc.stderr], [], [], 1)
            if ready:
                line += proc.stderr.readline()
        assert f"waiting for the lock on {venv} held by another process" in line, line
        time.sleep(0.3)
        assert proc.poll() is None, "vwheel did not wait for the lock"
        assert not list(sp.glob("lk0x*.dist-info")), "vwheel installed while another process held the lock"
        fcntl.flock(lock, fcntl.LOCK_UN)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert len(list(sp.glob("lk0x*.dist-info"))) == 25

    # 2. Two vwheel runs at once (the second batch, and a reinstall of the first): both succeed,
    # one after the other, and nothing is lost.
    procs = [subprocess.Popen([str(vwheel_bin), "install", "--python", str(py), *map(str, batch[1])], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True),
             subprocess.Popen([str(vwheel_bin), "install", "--force-reinstall", "--python", str(py),
                               *map(str, batch[0])], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)]
    results = [p.communicate(timeout=120) for p in procs]
    for p, (out, err) in zip(procs, results):
        assert p.returncode == 0, err
        assert out.count("installed lk") == 25, out
    names = sorted(d.name for d in sp.glob("lk*.dist-info"))
    assert names == sorted([f"lk{b}x{i:02d}-1.0.dist-info" for b in (0, 1) for i in range(25)])
    assert not list(sp.glob(".vwheel*")), "a staging directory or lock file was left in site-packages"
    assert verify_records(sp) >= 50 * 2
    for b in (0, 1):
        for i in range(25):
            assert (sp / f"lk{b}x{i:02d}" / "__init__.py").read_text() == f"V = {i}\n" * 50

"""`vwheel download`: the files an install would take for several target profiles, saved into a folder
from the example index (examples/make_example_index.py) served by `vwheel index serve`, then installed
from that folder alone (`--no-index --find-links DIR --offline`), for each profile; from a lock too."""
import re
import shutil

from example_site import PROFILES, assert_installed, example, make_venv, wheel_file
from served import start_serve

TARGETS = ["cuda12.8-sm90", "x86_64-v3"]


def profile(name):
    return PROFILES / f"{name}.json"


def wheel_requests(log):
    return re.findall(r'"GET (\S+\.whl) ', log.read_text())


def saved(out):
    """{file: 'saved' | 'already there:'} from the summary lines."""
    return {m.group(2): m.group(1) for m in re.finditer(r"^(saved|already there:) (\S+) \(", out, re.M)}


def offline_install(vwheel, tmp_path, folder, name, *args):
    python = make_venv(vwheel, tmp_path / f"venv-{name}")
    r = vwheel("install", "torch", *args, "--no-index", "--offline", "--find-links", folder, "--python", python,
               "--target", profile(name))
    assert r.rc == 0, (r.out, r.err)
    assert_installed(vwheel, python, example.EXPECTED[name])


def test_download_for_two_targets_then_install_offline(vwheel, example_index, tmp_path):
    served = start_serve(tmp_path, example_index / "site")
    try:
        folder = tmp_path / "dl"
        args = ["download", "torch", "-d", folder, "--index-url", served.index_url]
        for name in TARGETS:
            args += ["--target", profile(name)]
        r = vwheel(*args)
        assert r.rc == 0, (r.out, r.err)
        files = sorted(p.name for p in folder.iterdir())
        # The union of both targets' wheels, and the variants.json of each variant wheel's version.
        for name in TARGETS:
            for project, label in example.EXPECTED[name]["variants"].items():
                assert wheel_file(project, label) in files
            for project in example.EXPECTED[name]["installed"]:
                assert any(f.startswith(example.dist_name(project) + "-") for f in files), project
        assert "torch-2.13.0-variants.json" in files and "numpy-2.3.2-variants.json" in files
        assert wheel_file("torch", "rocm72") not in files and wheel_file("torch") not in files
        assert not [f for f in files if f.endswith(".part")]
        assert set(saved(r.out)) == set(files) and set(saved(r.out).values()) == {"saved"}, r.out
        assert re.search(rf"^{len(files)} files in .*: {len(files)} saved \(.*\), 0 already there$", r.out, re.M)
        first = wheel_requests(served.log)
        assert len(first) == len([f for f in files if f.endswith(".whl")])

        # Again: everything is there with its sha256, nothing is fetched.
        r = vwheel(*args)
        assert r.rc == 0, r.err
        assert set(saved(r.out).values()) == {"already there:"}, r.out
        assert wheel_requests(served.log) == first

        # A damaged file is fetched again; -q prints nothing.
        damaged = folder / wheel_file("torch", "cu128")
        good = damaged.read_bytes()
        damaged.write_bytes(b"not a wheel")
        r = vwheel(*args, "-q")
        assert r.rc == 0 and r.out == "", (r.out, r.err)
        assert damaged.read_bytes() == good
        assert wheel_requests(served.log) == first + [f"/files/torch/{damaged.name}"]
    finally:
        served.stop()

    # Offline, from the folder alone, each profile gets its own variants.
    for name in TARGETS:
        offline_install(vwheel, tmp_path, folder, name)

    # `vwheel index build` turns the folder into a static index that installs the same.
    site = tmp_path / "site"
    r = vwheel("index", "build", folder, "-o", site)
    assert r.rc == 0, r.err
    python = make_venv(vwheel, tmp_path / "venv-site")
    static = start_serve(tmp_path, site, log_name="static.log")
    try:
        r = vwheel("install", "torch", "--index-url", static.index_url, "--python", python,
                   "--target", profile("x86_64-v3"))
        assert r.rc == 0, (r.out, r.err)
    finally:
        static.stop()
    assert_installed(vwheel, python, example.EXPECTED["x86_64-v3"])


def test_download_from_a_lock(vwheel, index, tmp_path):
    args = ["lock", "torch", "--index-url", index.index_url, "-o", tmp_path / "pylock.toml"]
    for name in TARGETS:
        args += ["--target", profile(name)]
    r = vwheel(*args)
    assert r.rc == 0, (r.out, r.err)
    folder = tmp_path / "from-lock"
    r = vwheel("download", "--lock", tmp_path / "pylock.toml", "-d", folder, "--target", profile("x86_64-v3"))
    assert r.rc == 0, (r.out, r.err)
    files = sorted(p.name for p in folder.iterdir())
    # Only what that target installs: its torch and numpy, not the CUDA target's.
    assert wheel_file("torch", "x86_64_v3") in files and wheel_file("numpy", "x86_64_v3") in files
    assert wheel_file("torch", "cu128") not in files and not [f for f in files if f.startswith("nvidia")]
    assert "torch-2.13.0-variants.json" in files
    offline_install(vwheel, tmp_path, folder, "x86_64-v3")
    # `vwheel sync --download-only` is the same, for the one machine its options describe.
    r = vwheel("sync", "--download-only", tmp_path / "pylock.toml", "-d", tmp_path / "synced", "--target",
               profile("x86_64-v3"))
    assert r.rc == 0, (r.out, r.err)
    assert sorted(p.name for p in (tmp_path / "synced").iterdir()) == files
    assert re.search(rf"^{len(files)} files in .*: {len(files)} saved", r.out, re.M), r.out


def test_download_needs_something_to_download(vwheel, tmp_path):
    r = vwheel("download", "-d", tmp_path / "dl", "--no-index")
    assert r.rc == 2, (r.out, r.err)
    assert "nothing to download" in r.err
    r = vwheel("download", "torch", "--lock", tmp_path / "pylock.toml", "-d", tmp_path / "dl")
    assert r.rc == 2 and "--lock" in r.err, r.err
    r = vwheel("sync", "--download-only", tmp_path / "pylock.toml")
    assert r.rc == 2 and "-d DIR" in r.err, r.err


def test_download_from_find_links_copies_the_files(vwheel, example_index, tmp_path):
    """Local files are copied (checked the same way); the variants.json of a find-links folder too."""
    source = tmp_path / "wheels"
    shutil.copytree(example_index / "wheels", source)
    for f in (example_index / "variants").glob("torch-*-variants.json"):
        shutil.copy(f, source / f.name)
    folder = tmp_path / "dl"
    r = vwheel("download", "torch", "--no-index", "--find-links", source, "-d", folder, "--target",
               profile("cuda12.8-sm90"))
    assert r.rc == 0, (r.out, r.err)
    files = sorted(p.name for p in folder.iterdir())
    assert wheel_file("torch", "cu128") in files and "torch-2.13.0-variants.json" in files
    assert (folder / wheel_file("torch", "cu128")).read_bytes() == (source / wheel_file("torch", "cu128")).read_bytes()
    assert not [f for f in files if f.endswith(".part")]
    offline_install(vwheel, tmp_path, folder, "cuda12.8-sm90")


def test_download_checks_the_requirement_files_hash(vwheel, example_index, tmp_path):
    """A find-links folder gives no sha256: the `--hash` of the requirements file is what is checked."""
    import hashlib
    name = wheel_file("mpmath")
    good = hashlib.sha256((example_index / "wheels" / name).read_bytes()).hexdigest()
    for digest, rc in (("0" * 64, 1), (good, 0)):
        (tmp_path / "req.txt").write_text(f"mpmath==1.3.0 --hash=sha256:{digest}\n")
        r = vwheel("download", "-r", tmp_path / "req.txt", "--no-deps", "--no-index", "--find-links",
                   example_index / "wheels", "-d", tmp_path / "dl", "--target", profile("x86_64-v3"))
        assert r.rc == rc, (r.out, r.err)
        assert (tmp_path / "dl" / name).exists() == (rc == 0)
        assert not list((tmp_path / "dl").glob("*.part"))
        if rc:
            assert name in r.err and "0" * 64 in r.err and good in r.err, r.err

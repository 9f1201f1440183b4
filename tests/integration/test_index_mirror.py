"""`vwheel index mirror`: an offline cluster's mirror of chosen projects of an upstream index. The
upstream is the example index (examples/make_example_index.py: torch 2.12.0 and 2.13.0 with CUDA
12.6/12.8/13.0, ROCm, x86-64-v3 and null variants, `*-variants.json`, nvidia-* dependencies) served by
`vwheel index serve` (or faultserver.py, to corrupt or hold a file); the mirror is served by nginx with
docs/index-and-server.md's configuration and installed from for several target profiles."""
import json
import os
import re
import signal
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import _bin
from example_site import PROFILES, choice_lines, make_venv, wheel_file
from faultserver import FaultServer
from served import clean_env, serve  # noqa: F401 (serve is a fixture)
from test_index_build import NGINX, NGINX_CONF, documented_nginx_config, free_port
from wheelfactory import make_wheel

CUDA128 = PROFILES / "cuda12.8-sm90.json"
NO_GPU = PROFILES / "no-gpu.json"
DEPS = ["filelock", "typing-extensions", "numpy", "sympy", "mpmath"]  # what torch needs besides nvidia-*
CUDA_FILTERS = ["--variant-filter", "nvidia :: cuda_version_lower_bound :: 12.8",
                "--variant-filter", "nvidia :: cuda_version_lower_bound :: 12.6"]
SUMMARY = re.compile(r"vwheel: .+: mirrored (\d+) project\(s\), (\d+) version\(s\): downloaded (\d+) file\(s\) \(.+\), "
                     r"kept (\d+), skipped (\d+) by the filters; the index has (\d+) project\(s\), (\d+) file\(s\), "
                     r"(\d+) variants.json\n")


def cuda126_profile(tmp_path):
    """The CUDA 12.8 machine with a CUDA 12.6 driver: cu128 (and cu130) need more, cu126 fits."""
    profile = json.loads(CUDA128.read_text())
    for feature in profile["properties"]["nvidia"]:
        if feature["name"] == "cuda_version_lower_bound":
            feature["values"] = [v for v in feature["values"] if v not in ("12.8", "12.7")]
    path = tmp_path / "cuda12.6-sm90.json"
    path.write_text(json.dumps(profile))
    return path


def summary(r):
    m = SUMMARY.fullmatch(r.err.splitlines(keepends=True)[-1])  # after a `Downloaded FILE` line each
    assert m, r.err
    keys = ["projects", "versions", "downloaded", "kept", "skipped", "index_projects", "index_files", "variants"]
    return dict(zip(keys, map(int, m.groups())))


def files_of(site, project):
    d = site / "files" / project
    return sorted(p.name for p in d.iterdir()) if d.is_dir() else []


def every_byte(site):
    return b"".join(p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file())


@pytest.fixture
def nginx(tmp_path):
    """nginx(site): serves SITE with the documented configuration; returns its simple URL."""
    if not NGINX.exists():
        pytest.skip(f"{NGINX} is not installed (apt-get install nginx-light)")
    procs = []

    def start(site):
        ngx = tmp_path / f"nginx{len(procs)}"
        ngx.mkdir()
        port = free_port()
        body = documented_nginx_config().replace("listen 80;", f"listen 127.0.0.1:{port};").replace("/srv/pypi", str(site))
        (ngx / "nginx.conf").write_text(NGINX_CONF.format(tmp=ngx, body=body))
        proc = subprocess.Popen([str(NGINX), "-e", "stderr", "-p", str(ngx), "-c", str(ngx / "nginx.conf"),
                                 "-g", "daemon off;"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        procs.append(proc)
        url = f"http://127.0.0.1:{port}/simple/"
        deadline = time.time() + 10
        while True:
            try:
                urllib.request.urlopen(url, timeout=1).read()
                return url
            except OSError:
                if proc.poll() is not None or time.time() > deadline:
                    pytest.fail(f"nginx did not start: {proc.stderr.read().decode() if proc.poll() is not None else ''}")
                time.sleep(0.05)

    yield start
    for p in procs:
        p.terminate()
        p.wait(timeout=10)


def test_filtered_mirror_serves_three_machines(vwheel, index, nginx, tmp_path):
    site = tmp_path / "mirror"
    # Credentials in the upstream URL (the server ignores them) reach neither SITE nor a message.
    upstream = index.index_url.replace("http://", "http://mirror-user:s3cret-token@")
    projects = ["--project", "torch", "--project", "nvidia-*"] + [a for d in DEPS for a in ("--project", d)]
    r = vwheel("index", "mirror", upstream, "-o", site, *projects, *CUDA_FILTERS)
    assert r.rc == 0, r.err
    s = summary(r)
    assert "s3cret" not in r.err and b"s3cret" not in every_byte(site)
    # torch: the CUDA 12.6/12.8 builds, the null variant and the non-variant wheel of both versions;
    # not cu130, rocm72, x86_64_v3 (nor numpy's x86-64 levels).
    torch = files_of(site, "torch")
    wheels = [f for f in torch if f.endswith(".whl")]
    assert sorted(wheels) == sorted([
        "torch-2.12.0-py3-none-any.whl", "torch-2.12.0-py3-none-any-cu126.whl", "torch-2.12.0-py3-none-any-null.whl",
        "torch-2.13.0-py3-none-any.whl", "torch-2.13.0-py3-none-any-cu126.whl", "torch-2.13.0-py3-none-any-cu128.whl",
        "torch-2.13.0-py3-none-any-null.whl"]), torch
    # Beside each wheel its PEP 658 metadata, and each version's `*-variants.json`.
    assert all(f"{w}.metadata" in torch for w in wheels), torch
    assert {"torch-2.12.0-variants.json", "torch-2.13.0-variants.json"} <= set(torch)
    variants = json.loads((site / "files" / "torch" / "torch-2.13.0-variants.json").read_text())["variants"]
    assert sorted(variants) == ["cu126", "cu128", "null"]
    assert not any(re.search(r"x86_64_v\d", f) for f in files_of(site, "numpy"))
    # `nvidia-*` is matched against the upstream's project list.
    for p in ["nvidia-cublas-cu12", "nvidia-cudnn-cu12", "nvidia-cudnn-cu13"]:
        assert files_of(site, p), p
    assert not files_of(site, "rocm-runtime")
    assert s["projects"] == 1 + 3 + len(DEPS) and s["skipped"] == 3 + 3, s  # torch 2.13.0's and numpy 2.3.2's
    assert (site / "simple" / "torch" / "index.html").is_file() and (site / "simple" / "index.json").is_file()

    # A second run downloads nothing and rewrites nothing.
    before = {p: p.stat().st_mtime_ns for p in site.rglob("*") if p.is_file() and ".vwheel" not in p.parts}
    r2 = vwheel("index", "mirror", upstream, "-o", site, *projects, *CUDA_FILTERS)
    assert r2.rc == 0, r2.err
    s2 = summary(r2)
    assert s2["downloaded"] == 0 and s2["kept"] == s["downloaded"], (s, s2)
    assert {p: p.stat().st_mtime_ns for p in before} == before
    assert vwheel("index", "mirror", upstream, "-o", site, *projects, *CUDA_FILTERS, "-q").err == ""

    # Served by nginx, the mirror installs what each machine chooses.
    url = nginx(site)
    for profile, label in [(CUDA128, "cu128"), (cuda126_profile(tmp_path), "cu126"), (NO_GPU, "null")]:
        venv = make_venv(vwheel, tmp_path / f"venv-{label}")
        r = vwheel("install", "torch", "--index-url", url, "--python", venv, "--target", profile)
        assert r.rc == 0, (profile, r.out, r.err)
        version, wheel, _ = choice_lines(r.out)["torch"]
        assert (version, wheel) == ("2.13.0", wheel_file("torch", label)), r.out


def test_target_mirror_has_only_the_chosen_wheels(vwheel, index, tmp_path):
    site = tmp_path / "mirror"
    r = vwheel("index", "mirror", index.index_url, "-o", site, "--project", "torch", "--target", CUDA128,
               "--target", NO_GPU)
    assert r.rc == 0, r.err
    wheels = [f for f in files_of(site, "torch") if f.endswith(".whl")]
    # 2.12.0: the CUDA machine takes cu126; 2.13.0: cu128; the CPU machine the null variant of both.
    assert sorted(wheels) == sorted([
        "torch-2.12.0-py3-none-any-cu126.whl", "torch-2.12.0-py3-none-any-null.whl",
        "torch-2.13.0-py3-none-any-cu128.whl", "torch-2.13.0-py3-none-any-null.whl"]), wheels
    # A version specifier narrows the versions.
    site2 = tmp_path / "mirror2"
    r = vwheel("index", "mirror", index.index_url, "-o", site2, "--project", "torch>=2.13,<2.14", "--target", NO_GPU)
    assert r.rc == 0, r.err
    assert [f for f in files_of(site2, "torch") if f.endswith(".whl")] == ["torch-2.13.0-py3-none-any-null.whl"]


def test_hash_mismatch_is_one_line_and_keeps_nothing(vwheel, example_index, tmp_path):
    cu128 = "torch-2.13.0-py3-none-any-cu128.whl"
    with FaultServer(example_index / "site") as server:
        server.fault(f"*/{cu128}", "corrupt")
        site = tmp_path / "mirror"
        r = vwheel("index", "mirror", server.base + "/simple/", "-o", site, "--project", "torch>=2.13",
                   "--variant-filter", "nvidia :: cuda_version_lower_bound :: 12.8", "-q")
    assert r.rc != 0
    lines = r.err.strip().splitlines()
    assert len(lines) == 1, r.err
    expected = re.search(r"sha256=([0-9a-f]{64})", (example_index / "site" / "simple" / "torch" / "index.html")
                         .read_text().split(cu128 + "#")[1]).group(1)
    assert lines[0].startswith("vwheel: error: ") and f"/files/torch/{cu128}" in lines[0], r.err
    assert f"expected {expected}" in lines[0] and re.search(r"got [0-9a-f]{64}", lines[0]), r.err
    assert not list(site.rglob(f"{cu128}*"))  # nor its metadata, nor a temporary file
    assert (site / ".vwheel" / "mirror" / "torch-2.13.0-py3-none-any-null.whl").is_file()  # the others stay
    assert not (site / "simple").exists()  # no pages for a mirror that is not complete


def test_killed_mirror_is_completed_by_a_rerun(vwheel, example_index, tmp_path):
    cu128 = "torch-2.13.0-py3-none-any-cu128.whl"
    site = tmp_path / "mirror"
    args = ["index", "mirror", None, "-o", site, "--project", "torch>=2.13", "--variant-filter",
            "nvidia :: cuda_version_lower_bound :: 12.8", "-q"]
    with FaultServer(example_index / "site") as server:
        args[2] = server.base + "/simple/"
        fault = server.fault(f"*/{cu128}", "pause", times=1)
        proc = subprocess.Popen([str(_bin()), *map(str, args)], env=clean_env(tmp_path), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        assert fault.arrived.wait(60), "the download never started"
        # The wheel is on its way, into its temporary file (half of it sent): kill -9 now.
        part = site / ".vwheel" / "mirror" / f"{cu128}.part"
        deadline = time.time() + 10
        while not part.exists() and time.time() < deadline:
            time.sleep(0.05)
        assert part.exists()
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        fault.release()
        assert not (site / ".vwheel" / "mirror" / cu128).exists() and not (site / "simple").exists()
        r = vwheel(*args[:-1])
    assert r.rc == 0, r.err
    assert summary(r)["downloaded"] >= 1
    served = (example_index / "site" / "files" / "torch" / cu128).read_bytes()
    assert (site / "files" / "torch" / cu128).read_bytes() == served
    assert not list(site.rglob("*.part"))


def test_leftover_temporary_file_is_completed(vwheel, index, tmp_path):
    site = tmp_path / "mirror"
    args = ["index", "mirror", index.index_url, "-o", site, "--project", "nvidia-cudnn-cu12"]
    assert vwheel(*args).rc == 0
    pool = site / ".vwheel" / "mirror"
    wheel = next(pool.glob("*.whl"))
    data = wheel.read_bytes()
    wheel.unlink()
    Path(f"{wheel}.part").write_bytes(data[: len(data) // 2])
    r = vwheel(*args)
    assert r.rc == 0, r.err
    assert summary(r)["downloaded"] == 1
    assert wheel.read_bytes() == data and not Path(f"{wheel}.part").exists()
    assert (site / "files" / "nvidia-cudnn-cu12" / wheel.name).read_bytes() == data


def test_a_file_changed_or_yanked_upstream_is_updated(vwheel, serve, tmp_path):
    """An upstream that rebuilt a wheel under the same name: the re-run replaces it, and only it."""
    wheels, upstream = tmp_path / "wheels", tmp_path / "upstream"
    wheels.mkdir()
    make_wheel(wheels, "demo-1.0-py3-none-any.whl", {"demo/__init__.py": b"V = 1\n"})
    make_wheel(wheels, "demo-2.0-py3-none-any.whl", {"demo/__init__.py": b"V = 2\n"})
    assert vwheel("index", "build", wheels, "-o", upstream, "-q").rc == 0
    server = serve(upstream)
    site = tmp_path / "mirror"
    args = ["index", "mirror", server.index_url, "-o", site, "--project", "demo"]
    assert summary(vwheel(*args))["downloaded"] == 4  # two wheels and their metadata
    make_wheel(wheels, "demo-2.0-py3-none-any.whl", {"demo/__init__.py": b"V = 'two'\n"})
    assert vwheel("index", "build", wheels, "-o", upstream, "-q").rc == 0
    s = summary(vwheel(*args))
    assert (s["downloaded"], s["kept"]) == (1, 3), s  # METADATA is the same
    assert (site / "files" / "demo" / "demo-2.0-py3-none-any.whl").read_bytes() == \
        (wheels / "demo-2.0-py3-none-any.whl").read_bytes()
    # The upstream's yanks (PEP 592) carry over, and so does taking one back.
    (tmp_path / "yanked.txt").write_text("demo-1.0-py3-none-any.whl: broken build\n")
    assert vwheel("index", "build", wheels, "-o", upstream, "-q", "--yanked", tmp_path / "yanked.txt").rc == 0
    assert summary(vwheel(*args))["downloaded"] == 0

    def yanked():
        page = json.loads((site / "simple" / "demo" / "index.json").read_text())
        return {f["filename"]: f.get("yanked", False) for f in page["files"] if f["filename"].endswith(".whl")}

    assert yanked() == {"demo-1.0-py3-none-any.whl": "broken build", "demo-2.0-py3-none-any.whl": False}
    assert vwheel("index", "build", wheels, "-o", upstream, "-q").rc == 0
    assert vwheel(*args).rc == 0
    assert yanked() == {"demo-1.0-py3-none-any.whl": False, "demo-2.0-py3-none-any.whl": False}


@pytest.mark.parametrize("args, message", [
    ([], "--project is required"),
    (["--project", "torch>>2"], "--project `torch>>2`"),
    (["--project", "no/such"], "--project `no/such`: expected a project name or glob"),
    (["--project", "torch", "--variant-filter", "nvidia:cuda"], "--variant-filter `nvidia:cuda`"),
])
def test_bad_command_lines_are_one_line(vwheel, tmp_path, args, message):
    r = vwheel("index", "mirror", "http://127.0.0.1:9/simple/", "-o", tmp_path / "m", *args)
    assert r.rc == 2, r.err
    assert message in r.err.splitlines()[0], r.err
    assert not (tmp_path / "m").exists()


def test_a_glob_matching_nothing_is_an_error(vwheel, index, tmp_path):
    r = vwheel("index", "mirror", index.index_url, "-o", tmp_path / "m", "--project", "cuda-*")
    assert r.rc == 1 and r.err == "vwheel: error: --project `cuda-*` matches no project of the upstream index\n", r.err


def test_credentials_reach_the_upstream_and_nothing_else(vwheel, tmp_path):
    """An upstream that answers 401 without Basic credentials: they come from the URL, from the
    named index's environment variables or from .netrc, and are in no file of SITE or the cache
    and in no message."""
    from test_credentials import PASSWORD, USER, WHEEL, AuthServer, files_with_password

    wheels, upstream = tmp_path / "wheels", tmp_path / "upstream"
    wheels.mkdir()
    make_wheel(wheels, WHEEL, {"secretpkg/__init__.py": b"VALUE = 'secret'\n"})
    assert vwheel("index", "build", wheels, "-o", upstream, "-q").rc == 0
    server = AuthServer(upstream)
    try:
        plain = server.url(auth=False)
        runs = [
            ([server.url()], {}),
            (["--index", f"corp={plain}", plain], {"VWHEEL_INDEX_CORP_USERNAME": USER, "VWHEEL_INDEX_CORP_PASSWORD": PASSWORD}),
            ([plain], {"NETRC": str(tmp_path / "netrc")}),
        ]
        (tmp_path / "netrc").write_text(f"machine 127.0.0.1 login {USER} password {PASSWORD}\n")
        for i, (args, env) in enumerate(runs):
            site = tmp_path / f"mirror{i}"
            r = vwheel("index", "mirror", *args, "-o", site, "--project", "secretpkg", env=env)
            assert r.rc == 0, (args, r.err)
            assert PASSWORD not in r.err
            assert (site / "files" / "secretpkg" / WHEEL).read_bytes() == (wheels / WHEEL).read_bytes()
            assert files_with_password(site) == [] and files_with_password(tmp_path / "cache") == []
        wrong = server.url().replace(PASSWORD, "wrong-pass")
        r = vwheel("index", "mirror", wrong, "-o", tmp_path / "m", "--project", "secretpkg")
        assert r.rc != 0 and "wrong-pass" not in r.err and f"{USER}:****@" in r.err, r.err
    finally:
        server.stop()

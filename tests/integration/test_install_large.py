"""Installing a wheel whose members are larger than the installer's memory budget: the content
arrives byte-identical, RECORD is verified, the process's peak memory stays bounded, and a corrupt
big member fails cleanly. (Functional checks only; the timings are in bench/.)"""
import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from served import start_serve

PY = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable
GIB = 1 << 30
MIB = 1 << 20
# The installer's buffers are bounded by 64 MiB whatever the members' sizes; the rest is the
# binary, the archive's directory and the allocator. Before streaming, a 1 GiB member cost 2 GiB.
RSS_BOUND = 256 * MIB


def b64(digest):
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def page_run(size, seed):
    """`size` bytes that deflate about 200:1 (under the installer's 1000:1 zip-bomb limit): each
    MiB starts with 4 KiB of pseudo-random bytes and is zeros after."""
    noise = hashlib.shake_256(f"seed{seed}".encode())
    for start in range(0, size, MIB):
        n = min(MIB, size - start)
        head = noise.digest(start // MIB * 4096 + 4096)[-4096:]
        chunk = head + bytes(MIB - 4096)
        yield chunk[:n]


def write_big_member(zf, name, size, seed, algorithm):
    """Streams a member of `size` bytes into `zf`; returns (hash for RECORD, sha256 hex)."""
    h = hashlib.new(algorithm)
    sha = hashlib.sha256()
    info = zipfile.ZipInfo(name, date_time=(2024, 5, 6, 7, 8, 10))
    info.external_attr = 0o100644 << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    with zf.open(info, "w", force_zip64=True) as out:
        for chunk in page_run(size, seed):
            h.update(chunk)
            sha.update(chunk)
            out.write(chunk)
    return f"{algorithm}={b64(h.digest())}", sha.hexdigest()


def make_big_wheel(directory, members):
    """`bigpkg-1.0-py3-none-any.whl` with a small module and `members` (name -> (size, algorithm)).
    Returns the path and {name: sha256 hex}."""
    path = Path(directory) / "bigpkg-1.0-py3-none-any.whl"
    lines, digests = [], {}
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
        small = {
            "bigpkg/__init__.py": b"VALUE = 1\n",
            "bigpkg-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: bigpkg\nVersion: 1.0\n",
            "bigpkg-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        }
        for name, data in small.items():
            zf.writestr(name, data)
            lines.append(f"{name},sha256={b64(hashlib.sha256(data).digest())},{len(data)}\n")
        for seed, (name, (size, algorithm)) in enumerate(members.items()):
            record, digests[name] = write_big_member(zf, name, size, seed, algorithm)
            lines.append(f"{name},{record},{size}\n")
        lines.append("bigpkg-1.0.dist-info/RECORD,,\n")
        zf.writestr("bigpkg-1.0.dist-info/RECORD", "".join(lines))
    return path, digests


# Starts vwheel from a small Python process of its own and reports its exit code and peak RSS.
# A child started by pytest itself (vfork, or fork: the same at exec) inherits pytest's peak RSS
# as its starting ru_maxrss: after the tests before it, vwheel's 19 MiB read as 191 MiB. vwheel's
# environment goes to it alone (LD_DEBUG must list vwheel's libraries, not Python's).
_MEASURE = r"""
import json, os, resource, sys
limit, env, argv = int(sys.argv[1]), json.loads(sys.argv[2]), sys.argv[3:]
pid = os.fork()
if pid == 0:
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    if limit:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    os.execve(argv[0], argv, env)
_, status, usage = os.wait4(pid, 0)
print(os.waitstatus_to_exitcode(status), usage.ru_maxrss)
"""


def run_measured(vwheel_bin, args, tmp_path, address_space=None, extra_env=None):
    """Runs vwheel (under an address-space limit when given, as `ulimit -v` sets); returns (exit
    code, stderr, peak RSS in bytes) of vwheel alone."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path / "home"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "LANG": "C.UTF-8",
        **(extra_env or {}),
    }
    with open(tmp_path / "stderr.txt", "wb") as err:
        out = subprocess.run([sys.executable, "-I", "-c", _MEASURE, str(address_space or 0), json.dumps(env),
                              str(vwheel_bin), *map(str, args)], stdout=subprocess.PIPE, stderr=err,
                             env={"PATH": env["PATH"]}, check=True).stdout
    code, maxrss = out.split()
    return int(code), (tmp_path / "stderr.txt").read_text(), int(maxrss) * 1024


def file_sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(4 * MIB):
            h.update(chunk)
    return h.hexdigest()


@pytest.fixture
def venv(tmp_path):
    d = tmp_path / "venv"
    subprocess.run([PY, "-m", "venv", "--without-pip", str(d)], check=True)
    yield d
    shutil.rmtree(d, ignore_errors=True)  # a GiB: not kept among pytest's last runs


def site_packages(venv):
    return next((venv / "lib").glob("python3*/site-packages"))


def test_member_larger_than_the_memory_budget(vwheel_bin, venv, tmp_path):
    members = {
        "bigpkg/huge.bin": (GIB, "sha256"),         # streamed, far above the 64 MiB budget
        "bigpkg/medium.so": (40 * MIB + 17, "sha512"),  # streamed, RECORD in sha512
        "bigpkg/small.so": (3 * MIB, "sha384"),     # inflated whole, RECORD in sha384
    }
    wheel, digests = make_big_wheel(tmp_path, members)
    try:
        # Under `ulimit -v` 1 GiB as well: the member alone could not be held in memory.
        rc, err, rss = run_measured(vwheel_bin, ["install", wheel, "--python", venv / "bin" / "python"], tmp_path,
                                    address_space=GIB)
        assert rc == 0, err
        sp = site_packages(venv)
        for name, (size, _) in members.items():
            installed = sp / name
            assert installed.stat().st_size == size, name
            assert file_sha256(installed) == digests[name], name
        record = (sp / "bigpkg-1.0.dist-info" / "RECORD").read_text()
        assert "bigpkg/medium.so,sha512=" in record and "bigpkg/small.so,sha384=" in record
        assert rss < RSS_BOUND, f"peak RSS {rss / MIB:.0f} MiB"
    finally:
        wheel.unlink(missing_ok=True)
        shutil.rmtree(tmp_path / "cache", ignore_errors=True)  # the unpacked GiB: not kept among pytest's runs


def test_memory_does_not_grow_with_the_workers(vwheel_bin, tmp_path):
    """32 members of 7 MiB, each inflated whole: 16 workers may hold more of them at once than 2,
    but never more than the 64 MiB budget (with buffers from malloc, each worker's arena kept its
    own: 125 MiB against 24)."""
    members = {f"bigpkg/m{i:02}.so": (7 * MIB + i * 4096, "sha256") for i in range(32)}
    wheel, digests = make_big_wheel(tmp_path, members)
    peaks = {}
    for jobs in (2, 16):
        venv = tmp_path / f"venv{jobs}"
        subprocess.run([PY, "-m", "venv", "--without-pip", str(venv)], check=True)
        rc, err, peaks[jobs] = run_measured(vwheel_bin, ["install", "-j", jobs, "--no-cache", wheel,
                                                         "--python", venv / "bin" / "python"], tmp_path)
        assert rc == 0, err
        installed = site_packages(venv) / "bigpkg" / "m31.so"
        assert file_sha256(installed) == digests["bigpkg/m31.so"]
        shutil.rmtree(venv)
    assert peaks[16] < peaks[2] + 64 * MIB, f"peak RSS {peaks[2] / MIB:.0f} MiB with 2 workers, {peaks[16] / MIB:.0f} with 16"


def test_large_members_inflate_with_isal_and_without_it(vwheel_bin, tmp_path):
    # Members too large to inflate whole are streamed with ISA-L's inflate, libisal.so.2 loaded on
    # the first one (LD_DEBUG=files lists what ld.so loads); where it cannot be loaded (a file of
    # that name that is no library comes first on LD_LIBRARY_PATH), zlib's inflate gives the same
    # files. Short commands load neither it nor libm nor a shared libdeflate.
    wheel, digests = make_big_wheel(tmp_path, {"bigpkg/lib.so": (40 * MIB + 5, "sha256")})
    fake = tmp_path / "fakelib"
    fake.mkdir()
    (fake / "libisal.so.2").write_bytes(b"not a shared library\n")
    for name, extra in (("isal", {}), ("zlib", {"LD_LIBRARY_PATH": str(fake)})):
        venv = tmp_path / f"venv-{name}"
        subprocess.run([PY, "-m", "venv", "--without-pip", str(venv)], check=True)
        rc, err, _ = run_measured(vwheel_bin, ["install", "--no-cache", wheel, "--python", venv / "bin" / "python"],
                                  tmp_path, extra_env={"LD_DEBUG": "files", **extra})
        assert rc == 0, err[-2000:]
        assert any("file=libisal.so.2" in l and "dynamically loaded by" in l for l in err.splitlines()), name
        initialized = any("calling init:" in l and "libisal.so.2" in l for l in err.splitlines())
        assert initialized == (name == "isal"), name
        installed = site_packages(venv) / "bigpkg" / "lib.so"
        assert file_sha256(installed) == digests["bigpkg/lib.so"], name
    rc, err, _ = run_measured(vwheel_bin, ["label", "-p", "x86_64::level::v3"], tmp_path, extra_env={"LD_DEBUG": "files"})
    assert rc == 0, err
    opened = {l.split("file=")[1].split()[0] for l in err.splitlines() if "file=" in l}
    assert opened == {"libc.so.6"}, opened


def test_corrupt_byte_in_a_big_member(vwheel_bin, venv, tmp_path):
    wheel, _ = make_big_wheel(tmp_path, {"bigpkg/huge.bin": (256 * MIB, "sha256")})
    try:
        with zipfile.ZipFile(wheel) as zf:
            info = zf.getinfo("bigpkg/huge.bin")
        data = bytearray(wheel.read_bytes())
        with open(wheel, "rb") as f:
            f.seek(info.header_offset + 26)
            name_len, extra_len = int.from_bytes(f.read(2), "little"), int.from_bytes(f.read(2), "little")
        middle = info.header_offset + 30 + name_len + extra_len + info.compress_size // 2
        data[middle] ^= 0x5A
        wheel.write_bytes(bytes(data))
        before = sorted(p.relative_to(venv) for p in venv.rglob("*"))
        rc, err, _ = run_measured(vwheel_bin, ["install", wheel, "--python", venv / "bin" / "python"], tmp_path)
        assert rc == 1, err
        assert "bigpkg-1.0-py3-none-any.whl" in err and "bigpkg/huge.bin" in err, err
        assert len(err.strip().splitlines()) == 1, err
        # Nothing installed, no staging left, nothing cached.
        after = sorted(p.relative_to(venv) for p in venv.rglob("*") if ".vwheel.lock" not in p.name)
        assert after == [p for p in before if ".vwheel.lock" not in p.name]
        cache = tmp_path / "cache"
        leftovers = [p for p in cache.rglob("*") if p.is_file()] if cache.exists() else []
        assert not [p for p in leftovers if "unpacked" in p.parts], leftovers
    finally:
        wheel.unlink(missing_ok=True)


def corrupt_the_middle(wheel, member):
    """Flips a byte halfway through `member`'s deflate data."""
    with zipfile.ZipFile(wheel) as zf:
        info = zf.getinfo(member)
    with open(wheel, "r+b") as f:
        f.seek(info.header_offset + 26)
        name_len, extra_len = int.from_bytes(f.read(2), "little"), int.from_bytes(f.read(2), "little")
        f.seek(info.header_offset + 30 + name_len + extra_len + info.compress_size // 2)
        byte = f.read(1)[0]
        f.seek(-1, os.SEEK_CUR)
        f.write(bytes([byte ^ 0x5A]))


def test_corrupt_gib_member_from_an_index_leaves_no_trace(vwheel_bin, venv, tmp_path):
    # The index's hash is of the corrupt file: the download verifies, the member does not. The
    # install fails naming the member, nothing is installed, and the cache keeps neither an
    # unpacked entry nor the archive (a known-bad wheel is no use to a later run).
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    wheel, _ = make_big_wheel(wheels, {"bigpkg/huge.bin": (GIB, "sha256")})
    corrupt_the_middle(wheel, "bigpkg/huge.bin")
    rc, err, _ = run_measured(vwheel_bin, ["index", "build", wheels, "-o", tmp_path / "site", "--quiet"], tmp_path)
    assert rc == 0, err
    wheel.unlink()
    served = start_serve(tmp_path, tmp_path / "site")
    try:
        cache = tmp_path / "vwcache"
        before = sorted(p.relative_to(venv) for p in venv.rglob("*") if ".vwheel.lock" not in p.name)
        rc, err, rss = run_measured(vwheel_bin, ["install", "-q", "--no-deps", "--index-url", served.index_url,
                                                 "--cache-dir", cache, "--python", venv / "bin" / "python", "bigpkg"],
                                    tmp_path)
        assert rc == 1, err
        assert "bigpkg-1.0-py3-none-any.whl" in err and "bigpkg/huge.bin" in err, err
        assert len(err.strip().splitlines()) == 1, err
        assert rss < RSS_BOUND, f"peak RSS {rss / MIB:.0f} MiB"
        after = sorted(p.relative_to(venv) for p in venv.rglob("*") if ".vwheel.lock" not in p.name)
        assert after == before
        left = [p.relative_to(cache) for p in cache.rglob("*") if p.is_file()]
        assert not [p for p in left if p.parts[0] in ("unpacked", "archives")], left
    finally:
        served.stop()


class _Sparse:
    """A file wrapper that leaves a hole for every all-zero write: a wheel with hundreds of MiB of
    stored zeros costs no disk space and little time to make."""

    def __init__(self, f):
        self._f = f

    def write(self, b):
        if len(b) >= 4096 and b.count(0) == len(b):
            self._f.seek(len(b), os.SEEK_CUR)
            return len(b)
        return self._f.write(b)

    def __getattr__(self, name):
        return getattr(self._f, name)


def make_sparse_wheel(directory, size):
    """`zeropkg-1.0-py3-none-any.whl` whose member `zeropkg/zeros.bin` is `size` stored zeros: a
    file of `size` bytes and more on disk. Returns (path, RECORD hash of the member)."""
    path = Path(directory) / "zeropkg-1.0-py3-none-any.whl"
    zeros = bytes(MIB)
    member = hashlib.sha256()
    lines = []
    with open(path, "w+b") as raw, zipfile.ZipFile(_Sparse(raw), "w") as zf:
        small = {
            "zeropkg/__init__.py": b"VALUE = 1\n",
            "zeropkg-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: zeropkg\nVersion: 1.0\n",
            "zeropkg-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        }
        for name, data in small.items():
            zf.writestr(name, data)
            lines.append(f"{name},sha256={b64(hashlib.sha256(data).digest())},{len(data)}\n")
        info = zipfile.ZipInfo("zeropkg/zeros.bin", date_time=(2024, 5, 6, 7, 8, 10))
        info.external_attr = 0o100644 << 16
        info.compress_type = zipfile.ZIP_STORED
        info.file_size = size
        with zf.open(info, "w") as out:
            for start in range(0, size, MIB):
                chunk = zeros[: min(MIB, size - start)]
                member.update(chunk)
                out.write(chunk)
        record = f"sha256={b64(member.digest())}"
        lines.append(f"zeropkg/zeros.bin,{record},{size}\n")
        lines.append("zeropkg-1.0.dist-info/RECORD,,\n")
        zf.writestr("zeropkg-1.0.dist-info/RECORD", "".join(lines))
    return path, record


def test_local_wheel_with_a_hash_is_verified_in_bounded_memory(vwheel_bin, venv, tmp_path):
    # A --find-links wheel with a --hash is checked before it is installed. The check streams it:
    # reading it whole would need more address space than the limit below allows, where the
    # install itself (bounded buffers) fits.
    size = 600 * MIB
    limit = 400 * MIB
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    wheel, record = make_sparse_wheel(wheels, size)
    try:
        assert wheel.stat().st_size > size > limit
        reqs = tmp_path / "requirements.txt"
        args = ["install", "-q", "--no-deps", "--no-index", "--find-links", wheels, "-r", reqs, "-j", "2",
                "--no-cache", "--python", venv / "bin" / "python"]
        sp = site_packages(venv)
        # A wrong hash fails, naming the wheel, and installs nothing.
        reqs.write_text(f"zeropkg==1.0 --hash=sha256:{'0' * 64}\n")
        rc, err, _ = run_measured(vwheel_bin, args, tmp_path, address_space=limit)
        assert rc == 1, err
        assert "zeropkg-1.0-py3-none-any.whl" in err and "does not match" in err, err
        assert len(err.strip().splitlines()) == 1, err
        assert not (sp / "zeropkg").exists()
        # The right one installs it, under the same limit.
        reqs.write_text(f"zeropkg==1.0 --hash=sha256:{file_sha256(wheel)}\n")
        rc, err, _ = run_measured(vwheel_bin, args, tmp_path, address_space=limit)
        assert rc == 0, err
        installed = sp / "zeropkg" / "zeros.bin"
        assert installed.stat().st_size == size
        assert f"zeropkg/zeros.bin,{record},{size}\n" in (sp / "zeropkg-1.0.dist-info" / "RECORD").read_text()
        h = hashlib.sha256()
        with open(installed, "rb") as f:
            while chunk := f.read(4 * MIB):
                h.update(chunk)
        assert f"sha256={b64(h.digest())}" == record
    finally:
        wheel.unlink(missing_ok=True)
        shutil.rmtree(tmp_path / "cache", ignore_errors=True)


def _file_size_limit(limit):
    """preexec_fn: `ulimit -f` as a batch system sets it, with SIGXFSZ's default action (pytest's
    Python ignores it, and an ignored signal stays ignored across exec)."""
    import resource
    import signal

    def apply():
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


def test_file_size_limit_is_an_error_and_leaves_nothing(vwheel_bin, venv, tmp_path):
    # A member larger than `ulimit -f`: the write fails (EFBIG) instead of SIGXFSZ killing vwheel
    # halfway; one line naming the wheel and the reason, exit 3 (the environment's error, as a
    # full disk), nothing installed, nothing unpacked left in the cache, and the same install
    # without the limit then works. From a local file and, with the download written to disk
    # (--keep-archives), from an index; then a download that is itself over the limit.
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    wheel, digests = make_big_wheel(wheels, {"bigpkg/lib.so": (40 * MIB, "sha256")})
    noise = os.urandom(3 * MIB)  # stored: a 3 MiB download
    with zipfile.ZipFile(wheels / "rndpkg-1.0-py3-none-any.whl", "w") as zf:
        files = {"rndpkg/noise.bin": noise,
                 "rndpkg-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: rndpkg\nVersion: 1.0\n",
                 "rndpkg-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
        for name, data in files.items():
            zf.writestr(name, data)
        zf.writestr("rndpkg-1.0.dist-info/RECORD", "".join(
            f"{n},sha256={b64(hashlib.sha256(d).digest())},{len(d)}\n" for n, d in files.items())
            + "rndpkg-1.0.dist-info/RECORD,,\n")
    rc, err, _ = run_measured(vwheel_bin, ["index", "build", wheels, "-o", tmp_path / "site", "--quiet"], tmp_path)
    assert rc == 0, err
    assert wheel.stat().st_size < 16 * MIB  # the tree, not the download, goes over the limit
    served = start_serve(tmp_path, tmp_path / "site")
    try:
        cache = tmp_path / "vwcache"
        py = venv / "bin" / "python"
        before = sorted(p.relative_to(venv) for p in venv.rglob("*") if ".vwheel.lock" not in p.name)
        for args in ([wheel], ["--keep-archives", "--no-deps", "--index-url", served.index_url, "bigpkg"]):
            run = subprocess.run([vwheel_bin, "install", "-q", "--cache-dir", cache, "--python", py, *args],
                                 capture_output=True, text=True, preexec_fn=_file_size_limit(16 * MIB))
            assert run.returncode == 3, (args, run.returncode, run.stderr)  # the environment's, not the input's
            assert "bigpkg-1.0-py3-none-any.whl" in run.stderr and "File too large" in run.stderr, run.stderr
            assert len(run.stderr.strip().splitlines()) == 1, run.stderr
            after = sorted(p.relative_to(venv) for p in venv.rglob("*") if ".vwheel.lock" not in p.name)
            assert after == before, args
            left = [p.relative_to(cache) for p in cache.rglob("*") if p.is_file()]
            assert not [p for p in left if p.parts[0] == "unpacked"], left
            # The download itself was written whole and verified: kept (the limit failed the tree).
            for p in (cache / "archives").rglob("*"):
                assert p.is_dir() or file_sha256(p) == file_sha256(wheel), p
        # The download itself over the limit: the same, naming its URL; no part file is left.
        run = subprocess.run([vwheel_bin, "install", "-q", "--keep-archives", "--cache-dir", cache, "--python", py,
                              "--no-deps", "--index-url", served.index_url, "rndpkg"],
                             capture_output=True, text=True, preexec_fn=_file_size_limit(1 * MIB))
        assert run.returncode == 3, (run.returncode, run.stderr)
        assert "/rndpkg-1.0-py3-none-any.whl: cannot write" in run.stderr and "File too large" in run.stderr, run.stderr
        assert len(run.stderr.strip().splitlines()) == 1, run.stderr
        assert not [p for p in (cache / "archives").rglob("rndpkg*")], list((cache / "archives").rglob("*"))
        assert not list(site_packages(venv).glob("rndpkg*"))
        run = subprocess.run([vwheel_bin, "install", "-q", "--cache-dir", cache, "--python", py, "--no-deps",
                              "--index-url", served.index_url, "bigpkg", "rndpkg"], capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        assert file_sha256(site_packages(venv) / "bigpkg" / "lib.so") == digests["bigpkg/lib.so"]
        assert (site_packages(venv) / "rndpkg" / "noise.bin").read_bytes() == noise
    finally:
        served.stop()

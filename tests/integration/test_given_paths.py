"""Every file vwheel reads by a path it was given must be a regular file: a FIFO (or a directory,
a device) named by a lock entry's `path` or `file://` url, given as a wheel or `-r` file on the
command line, lying in a `--find-links` directory, or given as a profile, a configuration or a
variants json, is refused at once with one line naming it: exit 1, never a hang in open(2).

Each run has a short timeout of its own: a FIFO without a writer blocks a reading open() for
ever, so a regression fails the test instead of hanging the suite."""
import hashlib
import os
import subprocess

import pytest

from conftest import ROOT
from example_site import make_venv
from wheelfactory import make_wheel

NO_GPU = ROOT / "examples" / "profiles" / "no-gpu.json"  # Linux, Python 3.12
WHEEL = "app-1.0-py3-none-any.whl"


@pytest.fixture
def run(vwheel_bin, tmp_path):
    """Runs vwheel with a clean environment; a hang fails the test (subprocess.TimeoutExpired)."""

    def go(*args):
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path / "home"),
               "XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_CONFIG_HOME": str(tmp_path / "config"),
               "LANG": "C.UTF-8"}
        return subprocess.run([str(vwheel_bin), *map(str, args)], capture_output=True, text=True, env=env,
                              cwd=tmp_path, timeout=60, stdin=subprocess.DEVNULL)

    return go


@pytest.fixture
def venv(vwheel, tmp_path):
    return make_venv(vwheel, tmp_path / "venv")


def fifo(path):
    os.mkfifo(path)
    return path


def refused(r, path, what="a FIFO"):
    """One line on stderr naming `path` and what it is, exit 1."""
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    assert f"{path}: is {what}, expected a regular file" in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr


def lock_for(tmp_path, location_key, location):
    """A lock of `app` 1.0 whose wheel entry points at `location`, with the sha256 of a real wheel
    of that name (so that only the file's kind is wrong)."""
    (tmp_path / "real").mkdir()
    data = make_wheel(tmp_path / "real", WHEEL).read_bytes()
    lock = tmp_path / "pylock.toml"
    lock.write_text('lock-version = "1.0"\ncreated-by = "hand"\n\n[[packages]]\nname = "app"\nversion = "1.0"\n'
                    f'wheels = [{{ name = "{WHEEL}", {location_key} = "{location}", size = {len(data)}, '
                    f'hashes = {{ sha256 = "{hashlib.sha256(data).hexdigest()}" }} }}]\n')
    return lock


def test_sync_refuses_a_lock_path_that_is_a_fifo(run, venv, tmp_path):
    (tmp_path / "pipe").mkdir()
    pipe = fifo(tmp_path / "pipe" / WHEEL)
    lock = lock_for(tmp_path, "path", pipe)
    refused(run("sync", lock, "--python", venv, "--target", NO_GPU), pipe)


def test_sync_refuses_a_lock_file_url_that_is_a_fifo(run, venv, tmp_path):
    (tmp_path / "pipe").mkdir()
    pipe = fifo(tmp_path / "pipe" / WHEEL)
    lock = lock_for(tmp_path, "url", pipe.as_uri())
    refused(run("sync", lock, "--python", venv, "--target", NO_GPU), pipe)


def test_sync_refuses_a_lock_path_that_is_a_directory(run, venv, tmp_path):
    (tmp_path / "dir" / WHEEL).mkdir(parents=True)
    lock = lock_for(tmp_path, "path", tmp_path / "dir" / WHEEL)
    refused(run("sync", lock, "--python", venv, "--target", NO_GPU), tmp_path / "dir" / WHEEL, "a directory")


def test_install_names_a_wheel_argument_that_is_a_fifo(run, venv, tmp_path):
    # Not "invalid requirement": the name is a wheel's, and the file is there, but a FIFO.
    pipe = fifo(tmp_path / "x-1.0-py3-none-any.whl")
    refused(run("install", pipe, "--python", venv), pipe)


def test_install_refuses_a_fifo_in_a_find_links_directory(run, venv, tmp_path):
    links = tmp_path / "links"
    links.mkdir()
    pipe = fifo(links / WHEEL)
    refused(run("install", "app", "--no-index", "--find-links", links, "--python", venv), pipe)


def test_install_refuses_a_requirements_file_that_is_a_fifo(run, venv, tmp_path):
    pipe = fifo(tmp_path / "requirements.txt")
    refused(run("install", "-r", pipe, "--python", venv), pipe)
    refused(run("install", "app", "-c", pipe, "--python", venv), pipe)


def test_a_profile_a_configuration_and_a_variants_json_that_are_fifos(run, tmp_path):
    pipe = fifo(tmp_path / "given.json")
    refused(run("rank", pipe, "--target", NO_GPU), pipe)
    variants = ROOT / "examples" / "torch-2.9.0-variants.json"
    refused(run("rank", variants, "--target", pipe), pipe)
    refused(run("rank", variants, "--target", NO_GPU, "--config", pipe), pipe)

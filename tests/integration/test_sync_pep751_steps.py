"""`vwheel sync` and `vwheel export` follow PEP 751's installation steps with hand-written locks (as
another tool writes them): `extras` / `dependency_groups` markers chosen with --extra, --all-extras,
--group, --no-default-groups and --only-group; unknown names and conflicting options; two
applicable entries of one name refused before anything is installed."""
import pytest

from example_site import tree
from test_lock_pep751 import NO_GPU, entry, installed, lock_text, venv, wheels  # noqa: F401 (fixtures)

HEADER = 'extras = ["cpu"]\ndependency-groups = ["dev"]\ndefault-groups = ["default"]'


def grouped(wheels):
    return lock_text(HEADER,
                     entry(wheels, "app", "1.0", marker='"\'default\' in dependency_groups"'),
                     entry(wheels, "dep", "1.0", marker='"\'cpu\' in extras"'),
                     entry(wheels, "devtool", "1.0", marker='"\'dev\' in dependency_groups"'))


@pytest.mark.parametrize("args,expected", [
    ((), {"app"}),
    (("--extra", "cpu"), {"app", "dep"}),
    (("--all-extras", "--group", "dev"), {"app", "dep", "devtool"}),
    (("--no-default-groups", "--extra", "cpu"), {"dep"}),
    (("--only-group", "dev"), {"devtool"}),
])
def test_extras_and_groups_decide_the_markers(vwheel, wheels, venv, tmp_path, args, expected):  # noqa: F811
    lock = tmp_path / "pylock.toml"
    lock.write_text(grouped(wheels))
    r = vwheel("sync", lock, "--python", venv, "--target", NO_GPU, *args)
    assert r.rc == 0, r.err
    assert set(installed(vwheel, venv)) == expected
    r = vwheel("export", lock, "--target", NO_GPU, "--python", venv, *args)
    assert r.rc == 0, r.err
    assert {line.split("==")[0] for line in r.out.splitlines() if "==" in line} == expected


def test_an_unknown_extra_or_group_is_one_line(vwheel, wheels, venv, tmp_path):  # noqa: F811
    lock = tmp_path / "pylock.toml"
    lock.write_text(grouped(wheels))
    r = vwheel("sync", lock, "--python", venv, "--target", NO_GPU, "--extra", "gpu")
    assert r.rc == 1 and r.err.strip().endswith("extra `gpu` is not among the lock's `extras` (cpu)"), r.err
    r = vwheel("sync", lock, "--python", venv, "--target", NO_GPU, "--group", "docs")
    assert r.rc == 1 and "dependency group `docs` is not among" in r.err, r.err
    assert len(r.err.strip().splitlines()) == 1


@pytest.mark.parametrize("args", [("--all-extras", "--extra", "cpu"), ("--only-group", "dev", "--group", "dev"),
                                  ("--only-group", "dev", "--no-default-groups")])
def test_conflicting_options_are_command_line_errors(vwheel, wheels, tmp_path, args):
    lock = tmp_path / "pylock.toml"
    lock.write_text(grouped(wheels))
    assert vwheel("sync", lock, "--target", NO_GPU, *args).rc == 2
    assert vwheel("export", lock, "--target", NO_GPU, *args).rc == 2


def test_two_applicable_entries_are_refused_and_nothing_is_installed(vwheel, wheels, venv, tmp_path):  # noqa: F811
    lock = tmp_path / "pylock.toml"
    lock.write_text(lock_text("", entry(wheels, "app", "1.0", dependencies='[{ name = "dep", version = "1.0" }]'),
                              entry(wheels, "dep", "1.0"), entry(wheels, "dep", "2.0")))
    before = tree(venv)
    r = vwheel("sync", lock, "--python", venv, "--target", NO_GPU)
    assert r.rc == 1, (r.out, r.err)
    assert "package `dep` has 2 entries that apply to" in r.err, r.err
    assert r.err.strip().endswith("(versions 1.0, 2.0) and nothing tells them apart; a lock must leave at most one "
                                  "per name (PEP 751)"), r.err
    assert len(r.err.strip().splitlines()) == 1
    assert tree(venv) == before

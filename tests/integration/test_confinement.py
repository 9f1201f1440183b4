"""Nothing is created, renamed or removed outside the environment: the real path (links resolved)
of the directory holding each entry an uninstall, an upgrade, an install or a recovery acts on must
be inside one of the environment's scheme directories. A RECORD line or a journal step that names
anything else refuses the run (exit 1, one line), and nothing changes."""
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from wheelfactory import make_wheel
from snapshot import tree

PY = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable


@pytest.fixture
def venv(tmp_path):
    d = tmp_path / "venv"
    subprocess.run([PY, "-m", "venv", "--without-pip", str(d)], check=True)
    return d


def site_packages(venv):
    return next((venv / "lib").glob("python3*/site-packages"))


def one_line(err):
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def test_uninstall_refuses_a_file_in_a_package_directory_linked_to_a_checkout(vwheel, venv, tmp_path):
    py = venv / "bin" / "python"
    w = make_wheel(tmp_path, "vwlinked-1.0-py3-none-any.whl",
                   {"vwlinked/__init__.py": b"", "linked/y.txt": b"checkout's\n"})
    assert vwheel("install", w, "--python", py).rc == 0
    # The development set-up: the directory in site-packages is a link to a checkout.
    sp = site_packages(venv)
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    shutil.move(sp / "linked", checkout / "linked")
    (sp / "linked").symlink_to(checkout / "linked")
    before = tree(venv)

    r = vwheel("uninstall", "vwlinked", "--python", py)
    assert r.rc == 1, r.err
    line = one_line(r.err)
    assert "RECORD line `linked/y.txt`" in line and f"outside the environment {venv}" in line, line
    assert (checkout / "linked" / "y.txt").read_bytes() == b"checkout's\n"
    assert tree(venv) == before  # nothing removed, not even the files inside
    assert [p.name for p in venv.glob(".vwheel-journal")] == []

    # An upgrade would remove it too, and write the new version's file there: refused before anything moves.
    w2 = make_wheel(tmp_path, "vwlinked-2.0-py3-none-any.whl",
                    {"vwlinked/__init__.py": b"", "linked/y.txt": b"new\n"})
    r = vwheel("install", w2, "--python", py)
    assert r.rc == 1, r.err
    assert f"outside the environment {venv}" in one_line(r.err), r.err
    assert (checkout / "linked" / "y.txt").read_bytes() == b"checkout's\n"
    assert tree(venv) == before

    # With the link gone, what RECORD names there is not there, and the rest is uninstalled.
    (sp / "linked").unlink()
    r = vwheel("uninstall", "vwlinked", "--python", py)
    assert r.rc == 0, r.err
    assert not (sp / "vwlinked").exists()
    assert (checkout / "linked" / "y.txt").exists()


def test_a_symlinked_site_packages_is_still_the_environment(vwheel, venv, tmp_path):
    py = venv / "bin" / "python"
    sp = site_packages(venv)
    disk = tmp_path / "disk"
    disk.mkdir()
    shutil.move(sp, disk / "site-packages")
    sp.symlink_to(disk / "site-packages")
    w = make_wheel(tmp_path, "vwdisk-1.0-py3-none-any.whl", {"vwdisk/__init__.py": b"", "vwdisk/sub/m.py": b""})
    r = vwheel("install", w, "--python", py)
    assert r.rc == 0, r.err
    assert (disk / "site-packages" / "vwdisk" / "sub" / "m.py").exists()
    r = vwheel("uninstall", "vwdisk", "--python", py)
    assert r.rc == 0, r.err
    assert not (disk / "site-packages" / "vwdisk").exists()


def journal_cases(sp, run, outside):
    """(journal steps, what the error names): each would act outside the environment."""
    return {
        "mkdir": (f"mkdir\t{outside}\n", "`mkdir` step"),
        "aside-path": (f"aside\t{outside}/victim.txt\t{run}/backup/0\n", "`aside` step"),
        "aside-backup": (f"aside\t{sp}/taken.txt\t{outside}/victim.txt\n", "`aside` step"),
        "place": (f"place\t{run}/0-purelib/x\t{outside}/victim.txt\n", "`place` step"),
        "prune": (f"prune\t{outside}/empty\ncommit\n", "`prune` step"),
    }


@pytest.mark.parametrize("case", ["mkdir", "aside-path", "aside-backup", "place", "prune"])
@pytest.mark.parametrize("command", ["repair", "install", "uninstall"])
def test_a_journal_naming_a_path_outside_is_refused_and_nothing_is_touched(vwheel, venv, tmp_path, case, command):
    py = venv / "bin" / "python"
    sp = site_packages(venv)
    run = sp / ".vwheel-tmp-1"
    outside = tmp_path / "xyz-outside"
    outside.mkdir()
    (outside / "victim.txt").write_text("keep me\n")
    (outside / "empty").mkdir()
    # What each step's undo would act on, so that a build that acts is seen acting.
    (run / "backup").mkdir(parents=True)
    (run / "backup" / "0").write_text("backup\n")
    steps, what = journal_cases(sp, run, outside)[case]
    journal = venv / ".vwheel-journal"
    journal.write_text(f"vwheel-journal\t1\t{run}\n{steps}")
    before = tree(venv)
    args = {"repair": ["repair"],
            "install": ["install", make_wheel(tmp_path, "vwj-1.0-py3-none-any.whl", {"vwj/__init__.py": b""})],
            "uninstall": ["uninstall", "vwj"]}[command]

    r = vwheel(*args, "--python", py)
    assert r.rc == 1, r.err
    line = one_line(r.err)
    assert str(journal) in line and what in line and "nothing was undone" in line, line
    assert (outside / "victim.txt").read_text() == "keep me\n"
    assert (outside / "empty").is_dir()
    assert tree(venv) == before  # the journal and the run directory with its backup are kept

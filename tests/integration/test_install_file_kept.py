"""`vwheel install FILE.whl` checks what stays installed as an install from an index does (issue
51): a wheel file that would break an installed distribution's requirement is refused with one line
naming it, before anything changes; `--no-deps` installs it with a warning instead."""
from example_site import make_venv, tree
from test_index_build import make_dist
from test_lock_forks import installed


def test_a_wheel_file_that_breaks_an_installed_pin_is_refused_unless_no_deps(vwheel, tmp_path):
    links = tmp_path / "links"
    links.mkdir()
    pinner = make_dist(links, "pinner-1.0-py3-none-any.whl", metadata_extra="Requires-Dist: pinned==1.0\n")
    pinned1 = make_dist(links, "pinned-1.0-py3-none-any.whl")
    pinned2 = make_dist(links, "pinned-2.0-py3-none-any.whl")
    venv = make_venv(vwheel, tmp_path / "venv")
    r = vwheel("install", pinner, pinned1, "--python", venv)
    assert r.rc == 0, r.err
    before = tree(venv)
    for dry_run in ([], ["--dry-run"]):
        r = vwheel("install", pinned2, "--python", venv, *dry_run)
        assert r.rc == 1, (r.out, r.err)
        assert r.err.strip() == ("vwheel: error: pinner 1.0 requires pinned==1.0, but this run would install pinned 2.0 "
                                 "(--no-deps installs it all the same)"), r.err
        assert tree(venv) == before
    # The same version again, or the pin's owner replaced in the same run, breaks nothing.
    r = vwheel("install", pinned1, "--python", venv, "--force-reinstall")
    assert r.rc == 0, r.err
    r = vwheel("install", pinner, pinned2, "--python", venv, "--dry-run")
    assert r.rc == 0, r.err
    r = vwheel("install", pinned2, "--python", venv, "--no-deps")
    assert r.rc == 0, r.err
    assert ("vwheel: warning: pinner 1.0 requires pinned==1.0, but this run would install pinned 2.0; installing it "
            "anyway (--no-deps)") in r.err.splitlines(), r.err
    assert installed(vwheel, venv) == {"pinner": ("1.0", ""), "pinned": ("2.0", "")}

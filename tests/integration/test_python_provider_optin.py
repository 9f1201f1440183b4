"""Third-party Python providers run only on explicit opt-in (real binary, real venv, real pip,
offline: the provider wheel is built here and installed from a local folder)."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def provider_wheels(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheels")
    subprocess.run([sys.executable, str(ROOT / "tests/data/python_provider/build_wheel.py"), str(out)], check=True,
                   capture_output=True)
    if subprocess.run(["python3", "-c", "import venv, ensurepip"], capture_output=True).returncode != 0:
        pytest.skip("python3 cannot create virtual environments (python3-venv missing)")
    return out


def variants_file(tmp_path):
    f = tmp_path / "pkg-1.0-variants.json"
    f.write_text(json.dumps({
        "$schema": "https://variants-schema.wheelnext.dev/v0.0.3.json",
        "default-priorities": {"namespace": ["fictional_hw"]},
        "providers": {"fictional_hw": {"requires": ["fixture-provider"], "plugin-api": "fixture_provider"}},
        "variants": {"fast": {"fictional_hw": {"min_version": ["3"]}},
                     "slow": {"fictional_hw": {"min_version": ["1"]}},
                     "null": {}},
    }))
    return f


def test_no_provider_code_without_opt_in_and_it_runs_with_it(vwheel, tmp_path, provider_wheels):
    f = variants_file(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    (home / ".provider-marker-enabled").write_text("")
    marker = home / "provider-marker"
    env = {"HOME": str(home), "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(provider_wheels)}

    r = vwheel("rank", f, env=env)
    assert r.rc == 0, r.err
    assert r.out == "null\n"
    assert not marker.exists(), "provider code ran without opt-in"
    assert not list((tmp_path / "cache").glob("vwheel/python-providers/*")), "a provider environment was created"
    e = vwheel("rank", f, "--explain", env=env)
    assert "--allow-python-provider fictional_hw" in e.out
    assert not marker.exists()

    r = vwheel("rank", f, "--allow-python-provider", "fictional_hw", env=env)
    assert r.rc == 0, r.err
    assert r.out.splitlines() == ["fast", "slow", "null"]
    assert marker.exists(), "the allowed provider did not run"

    # The configuration's allow-list works the same way.
    marker.unlink()
    cfg = tmp_path / "variants.toml"
    cfg.write_text('allow_python_providers = ["fictional_hw"]\n')
    r = vwheel("rank", f, "--config", cfg, env=env)
    assert r.out.splitlines() == ["fast", "slow", "null"], r.err
    assert marker.exists()


def test_target_profile_never_runs_providers(vwheel, tmp_path, provider_wheels):
    f = variants_file(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    (home / ".provider-marker-enabled").write_text("")
    p = tmp_path / "profile.json"
    p.write_text(json.dumps({"properties": {"fictional_hw": [{"name": "min_version", "values": ["1"]}]}}))
    r = vwheel("rank", f, "--target", p, "--allow-python-provider", "fictional_hw",
               env={"HOME": str(home), "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(provider_wheels)})
    assert r.rc == 0, r.err
    assert r.out.splitlines() == ["slow", "null"]
    assert not (home / "provider-marker").exists()

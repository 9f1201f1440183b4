"""The interpreter query (about 60 ms of Python start-up) is cached under $XDG_CACHE_HOME/vwheel/
interpreters/ for every command that describes an interpreter: `analyze-platform --json` answers
from the cache entry (shown by doctoring it), `--no-cache` asks the interpreter again."""
import json
from pathlib import Path

import pytest

PY = Path("/usr/bin/python3")


@pytest.mark.skipif(not PY.exists(), reason="needs /usr/bin/python3")
def test_analyze_platform_uses_the_interpreter_cache(vwheel, tmp_path):
    first = vwheel("analyze-platform", "--json", "--python", PY)
    assert first.rc == 0, first.err
    real = json.loads(first.out)["environment"]["python_full_version"]
    entries = list((tmp_path / "cache" / "vwheel" / "interpreters").glob("*.json"))
    assert len(entries) == 1, entries
    doc = json.loads(entries[0].read_text())
    doc["environment"]["python_full_version"] = "3.99.7"
    entries[0].write_text(json.dumps(doc))
    cached = vwheel("analyze-platform", "--json", "--python", PY)
    assert cached.rc == 0, cached.err
    assert json.loads(cached.out)["environment"]["python_full_version"] == "3.99.7"
    fresh = vwheel("analyze-platform", "--json", "--python", PY, "--no-cache")
    assert fresh.rc == 0, fresh.err
    assert json.loads(fresh.out)["environment"]["python_full_version"] == real != "3.99.7"


def tiny_wheel(directory):
    """`tiny-1.0-py3-none-any.whl`: one module and a valid RECORD."""
    import base64
    import hashlib
    import zipfile

    def b64(data):
        return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()

    files = {
        "tiny.py": b"VALUE = 1\n",
        "tiny-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: tiny\nVersion: 1.0\n",
        "tiny-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    path = Path(directory) / "tiny-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as zf:
        record = ""
        for name, data in files.items():
            zf.writestr(name, data)
            record += f"{name},sha256={b64(data)},{len(data)}\n"
        zf.writestr("tiny-1.0.dist-info/RECORD", record + "tiny-1.0.dist-info/RECORD,,\n")
    return path


@pytest.mark.skipif(not PY.exists(), reason="needs /usr/bin/python3")
def test_install_keeps_the_interpreter_query_under_cache_dir(vwheel, tmp_path):
    # --cache-dir names the cache root for everything the run caches, the interpreter query
    # included; --no-cache caches nothing (install and sync used to write it under the default root).
    wheel = tiny_wheel(tmp_path)
    default_root = tmp_path / "cache" / "vwheel"
    for i, args in enumerate([["--cache-dir", tmp_path / "elsewhere"], ["--no-cache"]]):
        venv = tmp_path / f"venv{i}"
        made = vwheel("venv", venv, "--python", PY)
        assert made.rc == 0, made.err
        done = vwheel("install", wheel, "--python", venv / "bin" / "python", *args)
        assert done.rc == 0, done.err
        assert (venv / "lib").exists() and list((venv / "lib").glob("python3*/site-packages/tiny.py"))
        assert not list(default_root.glob("interpreters/*")), list(default_root.rglob("*"))
    assert len(list((tmp_path / "elsewhere" / "interpreters").glob("*.json"))) == 1

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

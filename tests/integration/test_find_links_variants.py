"""PEP 825 after August (issue 18, item 2): a `*-variants.json` beside the wheels of a `--find-links`
directory is used as an index's is; labels the index-level file lacks are read from their wheels'
`variant.json` (and `--explain` says so); the attributes a server puts on a `*-variants.json` entry
(`yanked`, `requires-python`, `core-metadata`, `dist-info-metadata`, `data-*`) are ignored, on
hand-written PEP 503 (HTML) and PEP 691 (JSON) pages."""
import hashlib
import json

import pytest

from faultserver import FaultServer
from wheelfactory import make_wheel

PY = "/usr/bin/python3"
SCHEMA = "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json"
HEADER = {
    "$schema": SCHEMA,
    "default-priorities": {"namespace": ["x86_64"]},
    "providers": {"x86_64": {"requires": ["provider-variant-x86-64 >=0.0.1"],
                             "plugin-api": "provider_variant_x86_64.plugin:X8664Plugin"}},
}
LEVELS = {"v4": ["v4"], "v3": ["v3"], "v2": ["v2"], "null": None}


def document(labels):
    d = json.loads(json.dumps(HEADER))
    d["variants"] = {label: ({"x86_64": {"level": LEVELS[label]}} if LEVELS[label] else {}) for label in labels}
    return d


def wheel(directory, label, variant_json="its own"):
    """A variant wheel; `variant_json` replaces its `variant.json` (None: the wheel has none)."""
    vj = document([label]) if variant_json == "its own" else variant_json
    return make_wheel(directory, f"vpkg-1.0-py3-none-any-{label}.whl",
                      {"vpkg/__init__.py": f"L = '{label}'\n".encode()}, variant_json=vj)


def wheels(directory):
    """v3 (not in the index-level file), v2 whose own variant.json is broken (the file must answer
    for it), v4 without variant.json, and the null variant."""
    directory.mkdir(parents=True, exist_ok=True)
    return [wheel(directory, "v3"), wheel(directory, "v2", variant_json="{ not json"),
            wheel(directory, "v4", variant_json=None), wheel(directory, "null")]


@pytest.fixture
def target(tmp_path):
    p = tmp_path / "target.json"
    p.write_text(json.dumps({"properties": {"x86_64": [
        {"name": "level", "values": ["v4", "v3", "v2", "v1"], "multi_value": False}]}}))
    return p


@pytest.fixture
def python(vwheel, tmp_path):
    venv = tmp_path / "venv"
    r = vwheel("venv", venv, "--python", PY)
    assert r.rc == 0, r.err
    return venv / "bin" / "python"


def explain_lines(out):
    return [line.strip() for line in out.splitlines() if line.startswith("  ")]


def check_choice(r, file="vpkg-1.0-variants.json"):
    assert r.rc == 0, r.err
    assert "vpkg 1.0: vpkg-1.0-py3-none-any-v3.whl (variant v3: x86_64 :: level :: v3)" in r.out, r.out
    lines = explain_lines(r.out)
    assert f"label v3: properties read from the wheel's variant.json, not in {file}" in lines, r.out
    # v4 would rank first, but its wheel has no variant.json: left out, with the reason.
    assert any(line.startswith(f"label v4: not in {file}, and not read from the wheel: "
                               "vpkg-1.0-py3-none-any-v4.whl has no variant.json") for line in lines), r.out
    assert "v4: not in the variant metadata: incompatible" in lines, r.out
    # v2 is answered by the file (its wheel's own variant.json does not even parse).
    assert "v2: compatible, ranked 2 after `v3`" in lines, r.out


def test_find_links_directory_uses_its_variants_json(vwheel, tmp_path, target, python):
    links = tmp_path / "links"
    wheels(links)
    (links / "vpkg-1.0-variants.json").write_text(json.dumps(document(["v2", "null"])))
    r = vwheel("install", "vpkg", "--find-links", links, "--python", python, "--target", target, "--explain")
    check_choice(r)
    installed = {d["name"]: d for d in vwheel("list", "--json", "--python", python).json()}
    assert installed["vpkg"]["variant"] == "v3", installed


def test_find_links_without_variants_json_reads_the_wheels(vwheel, tmp_path, target, python):
    # No index-level file: every wheel's variant.json is needed, and a broken one is an error naming it.
    links = tmp_path / "links"
    wheels(links)
    r = vwheel("install", "vpkg", "--find-links", links, "--python", python, "--target", target)
    assert r.rc == 1 and "vpkg-1.0-py3-none-any-v" in r.err, (r.out, r.err)


def sha256(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def html_page(files, variants_json):
    """A PEP 503 page whose `*-variants.json` link carries every attribute PEP 825 tells indexes
    to leave out there (yanked, a Requires-Python no Python meets, core metadata), and data-* ones."""
    links = [f'<a href="../../files/{f.name}#sha256={sha256(f)}">{f.name}</a><br/>' for f in files]
    links.append(f'<a href="../../files/{variants_json.name}#sha256={sha256(variants_json)}" data-yanked="broken" '
                 'data-requires-python="&gt;=9" data-core-metadata="sha256=' + "0" * 64 + '" '
                 'data-dist-info-metadata="true" data-gpg-sig="false" data-provenance="x">'
                 f'{variants_json.name}</a><br/>')
    return "<!DOCTYPE html><html><body>\n" + "\n".join(links) + "\n</body></html>\n"


def json_page(files, variants_json):
    entries = [{"filename": f.name, "url": f"../../files/{f.name}", "hashes": {"sha256": sha256(f)}} for f in files]
    entries.append({"filename": variants_json.name, "url": f"../../files/{variants_json.name}",
                    "hashes": {"sha256": sha256(variants_json)}, "yanked": True, "requires-python": ">=9",
                    "core-metadata": {"sha256": "0" * 64}, "dist-info-metadata": True,
                    "data-dist-info-metadata": {"sha256": "0" * 64}})
    return json.dumps({"meta": {"api-version": "1.1"}, "name": "vpkg", "files": entries})


@pytest.mark.parametrize("kind", ["html", "json"])
def test_index_ignores_attributes_on_variants_json_and_reads_missing_labels(vwheel, tmp_path, target, python, kind):
    site = tmp_path / "site"
    files = wheels(site / "files")
    variants_json = site / "files" / "vpkg-1.0-variants.json"
    variants_json.write_text(json.dumps(document(["v2", "null"])))
    page = site / "simple" / "vpkg"
    page.mkdir(parents=True)
    if kind == "html":
        (page / "index.html").write_text(html_page(files, variants_json))
    else:
        (page / "index.json").write_text(json_page(files, variants_json))
    with FaultServer(site) as server:
        r = vwheel("install", "vpkg", "--index-url", server.base + "/simple/", "--python", python, "--target", target,
                   "--explain")
        requests = list(server.requests)
    check_choice(r)
    paths = [path for _, path, _, _ in requests]
    assert "/files/vpkg-1.0-variants.json" in paths, requests
    # Its `core-metadata` attribute is ignored: no `.metadata` file is asked for.
    assert not any(p.endswith("variants.json.metadata") for p in paths), requests
    # The wheel whose label the file lacks is read with range requests, not downloaded whole.
    v3 = [(rng, status) for _, path, rng, status in requests if path == "/files/vpkg-1.0-py3-none-any-v3.whl"]
    assert v3 and v3[0][0] is not None and v3[0][1] == 206, requests


def test_a_wheel_that_disagrees_with_the_file_is_left_out(vwheel, tmp_path, target, python):
    links = tmp_path / "links"
    links.mkdir()
    wheel(links, "v2")
    wheel(links, "null")
    other = document(["v4"])
    other["providers"]["x86_64"]["requires"] = ["another-x86-64-provider >=1"]
    wheel(links, "v4", variant_json=other)
    (links / "vpkg-1.0-variants.json").write_text(json.dumps(document(["v2", "null"])))
    r = vwheel("install", "vpkg", "--find-links", links, "--python", python, "--target", target, "--explain",
               "--dry-run")
    assert r.rc == 0, r.err
    assert "vpkg 1.0: vpkg-1.0-py3-none-any-v2.whl (variant v2: x86_64 :: level :: v2)" in r.out, r.out
    note = [line for line in explain_lines(r.out) if line.startswith("label v4: ")]
    assert len(note) == 1 and "its variant.json disagrees with vpkg-1.0-variants.json" in note[0], r.out
    assert "providers.x86_64" in note[0]


def test_rank_reads_the_labels_the_file_lacks_from_the_wheels_beside_it(vwheel, tmp_path, target):
    links = tmp_path / "links"
    wheels(links)
    f = links / "vpkg-1.0-variants.json"
    f.write_text(json.dumps(document(["v2", "null"])))
    r = vwheel("rank", f, "--target", target)
    assert r.rc == 0, r.err
    assert r.out.split() == ["v3", "v2", "null"]
    e = vwheel("rank", f, "--target", target, "--explain")
    assert "  note: label v3: properties read from the wheel's variant.json, not in vpkg-1.0-variants.json" in e.out
    assert "  note: label v4: not in vpkg-1.0-variants.json, and not read from the wheel: " in e.out, e.out
    # Alone, the file ranks only its own labels.
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / f.name).write_text(f.read_text())
    assert vwheel("rank", alone / f.name, "--target", target).out.split() == ["v2", "null"]

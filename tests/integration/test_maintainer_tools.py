"""make-variant, unmake-variant, analyze-wheel, generate-index-json, add-wheel-to-index-json:
the real binary on real wheels built with Python's zipfile, checked with zipfile and pip."""
import json
import os
import random
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from wheelfactory import compressed_bytes, make_wheel, raw_member, verify_record

PYPROJECT = """\
[project]
name = "pkg"  # unrelated tables are ignored

[variant.default-priorities]
namespace = ["x86_64", "blas"]

[variant.providers.x86_64]
requires = ["provider-variant-x86-64"]
plugin-api = "provider_variant_x86_64.plugin:X8664Plugin"

[variant.providers.blas]
install-time = false

[variant.static-properties.blas]
library = ["openblas", "mkl"]
"""

def big_wheel(tmp_path, name="pkg-1.0-py3-none-any.whl", n=40):
    rnd = random.Random(825)
    files = {f"pkg/mod{i}.py": (f"# module {i}\n" * rnd.randint(1, 200)).encode() for i in range(n)}
    files["pkg/blob.bin"] = bytes(rnd.getrandbits(8) for _ in range(50000))
    return make_wheel(tmp_path, name, files, scripts={"pkg-tool": b"#!python\nprint('hi')\n"})


def members_without(path, *skip):
    with zipfile.ZipFile(path) as zf:
        return [i for i in zf.infolist() if not any(i.filename.endswith(s) for s in skip)]


def label_of(vwheel, *props):
    r = vwheel("label", *[a for p in props for a in ("-p", p)])
    assert r.rc == 0, r.err
    return r.out.strip()


def assert_nothing_written(out_dir):
    assert list(Path(out_dir).iterdir()) == [], f"unexpected files: {list(Path(out_dir).iterdir())}"


@pytest.fixture
def project(tmp_path):
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    (tmp_path / "in").mkdir()
    (tmp_path / "out").mkdir()
    return tmp_path


def test_make_variant_copies_members_raw_and_updates_record(vwheel, project):
    src = big_wheel(project / "in")
    r = vwheel("make-variant", src, "-o", project / "out", "-p", "x86_64 :: level :: v3",
               "-p", "blas::library::openblas")
    assert r.rc == 0, r.err
    label = label_of(vwheel, "x86_64::level::v3", "blas::library::openblas")
    out = project / "out" / f"pkg-1.0-py3-none-any-{label}.whl"
    assert r.out.strip() == str(out)

    with zipfile.ZipFile(src) as a, zipfile.ZipFile(out) as b:
        names_a, names_b = a.namelist(), b.namelist()
        # variant.json inserted right before RECORD, order otherwise kept
        i = names_a.index("pkg-1.0.dist-info/RECORD")
        assert names_b == names_a[:i] + ["pkg-1.0.dist-info/variant.json"] + names_a[i:]
        for info in a.infolist():
            if info.filename.endswith("RECORD"):
                continue
            other = b.getinfo(info.filename)
            assert raw_member(out, other) == raw_member(src, info), info.filename
            assert (other.CRC, other.compress_type, other.date_time, other.external_attr) == \
                   (info.CRC, info.compress_type, info.date_time, info.external_attr)
        assert b.testzip() is None
        vj = json.loads(b.read("pkg-1.0.dist-info/variant.json"))
    verify_record(out)
    assert vj["variants"] == {label: {"blas": {"library": ["openblas"]}, "x86_64": {"level": ["v3"]}}}
    assert vj["default-priorities"]["namespace"] == ["x86_64", "blas"]
    assert vj["static-properties"] == {"blas": {"library": ["openblas", "mkl"]}}


def test_variant_json_is_byte_identical_to_variantlib_format(vwheel, project):
    src = big_wheel(project / "in")
    r = vwheel("make-variant", src, "-o", project / "out", "-p", "x86_64::level::v2", "--label", "x86_64_v2")
    assert r.rc == 0, r.err
    with zipfile.ZipFile(project / "out" / "pkg-1.0-py3-none-any-x86_64_v2.whl") as zf:
        text = zf.read("pkg-1.0.dist-info/variant.json").decode()
    # variantlib's VariantsJson.to_str(): json.dumps(indent=4, sort_keys=True), no trailing newline.
    expected = {
        "$schema": "https://variants-schema.wheelnext.dev/v0.0.3.json",
        "default-priorities": {"namespace": ["x86_64", "blas"]},
        "providers": {
            "x86_64": {"plugin-api": "provider_variant_x86_64.plugin:X8664Plugin",
                       "requires": ["provider-variant-x86-64"]},
            "blas": {"install-time": False},
        },
        "static-properties": {"blas": {"library": ["openblas", "mkl"]}},
        "variants": {"x86_64_v2": {"x86_64": {"level": ["v2"]}}},
    }
    assert text == json.dumps(expected, indent=4, sort_keys=True)


def test_variant_json_pep825_format(vwheel, project, shared):
    src = big_wheel(project / "in")
    r = vwheel("make-variant", src, "-o", project / "out", "-p", "x86_64::level::v4", "--format", "v0.1.1")
    assert r.rc == 0, r.err
    out = Path(r.out.strip())
    with zipfile.ZipFile(out) as zf:
        doc = json.loads(zf.read("pkg-1.0.dist-info/variant.json"))
    assert doc["$schema"] == "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json"
    assert set(doc) == {"$schema", "default-priorities", "variants"}
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((shared / "spec" / "variant-schema-0.1.1.json").read_text())
    jsonschema.validate(doc, schema)


def test_unmake_variant_restores_the_wheel_and_pip_installs_it_identically(vwheel, project):
    src = big_wheel(project / "in")
    r = vwheel("make-variant", src, "-o", project / "out", "-p", "x86_64::level::v3", "--label", "v3")
    assert r.rc == 0, r.err
    made = project / "out" / "pkg-1.0-py3-none-any-v3.whl"
    (project / "back").mkdir()
    r = vwheel("unmake-variant", made, "-o", project / "back")
    assert r.rc == 0, r.err
    back = project / "back" / "pkg-1.0-py3-none-any.whl"
    assert r.out.strip() == str(back)
    with zipfile.ZipFile(src) as a, zipfile.ZipFile(back) as b:
        assert a.namelist() == b.namelist()
        for info in a.infolist():
            other = b.getinfo(info.filename)
            if info.filename.endswith("RECORD"):
                assert b.read(other) == a.read(info)
            else:
                assert compressed_bytes(back, other) == compressed_bytes(src, info)
    verify_record(back)

    trees = []
    for wheel, target in ((src, "t1"), (back, "t2")):
        proc = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
                               "--disable-pip-version-check", "--no-compile", "--target", str(project / target),
                               str(wheel)], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        tree = {}
        for p in sorted((project / target).rglob("*")):
            if p.is_file() and "__pycache__" not in p.parts:
                rel = p.relative_to(project / target).as_posix()
                if rel.endswith("dist-info/RECORD") or rel.endswith("dist-info/INSTALLER") or rel.endswith("direct_url.json"):
                    continue
                tree[rel] = (p.read_bytes(), os.stat(p).st_mode & 0o111)
        trees.append(tree)
    assert trees[0] == trees[1]
    assert any(k.startswith("bin/pkg-tool") for k in trees[0])


def test_unmake_of_a_plain_wheel_writes_nothing(vwheel, project):
    src = big_wheel(project / "in")
    r = vwheel("unmake-variant", src, "-o", project / "out")
    assert r.rc == 0
    assert "not a variant wheel" in r.err
    assert_nothing_written(project / "out")


def test_existing_label_is_replaced(vwheel, project):
    src = make_wheel(project / "in", "pkg-1.0-py3-none-any-old.whl",
                     variant_json={"default-priorities": {"namespace": ["x86_64"]},
                                   "variants": {"old": {"x86_64": {"level": ["v2"]}}}})
    r = vwheel("make-variant", src, "-o", project / "out", "-p", "x86_64::level::v4", "--label", "new")
    assert r.rc == 0, r.err
    out = project / "out" / "pkg-1.0-py3-none-any-new.whl"
    with zipfile.ZipFile(out) as zf:
        assert zf.namelist().count("pkg-1.0.dist-info/variant.json") == 1
        assert list(json.loads(zf.read("pkg-1.0.dist-info/variant.json"))["variants"]) == ["new"]
    verify_record(out)


def test_many_wheels_in_parallel(vwheel, project):
    inputs = [make_wheel(project / "in", f"pkg{i}-1.0-py3-none-any.whl") for i in range(12)]
    r = vwheel("make-variant", *inputs, "-o", project / "out", "--null", "-j", "4")
    assert r.rc == 0, r.err
    outs = sorted(p.name for p in (project / "out").iterdir())
    assert outs == sorted(f"pkg{i}-1.0-py3-none-any-null.whl" for i in range(12))
    for p in (project / "out").iterdir():
        verify_record(p)


@pytest.mark.parametrize("case", ["not_a_zip", "truncated", "no_dist_info", "two_dist_info", "no_record",
                                  "bad_property", "unknown_value", "multi_value", "label_clash", "null_label",
                                  "undeclared_namespace", "bad_name"])
def test_bad_inputs_fail_with_one_line_and_no_output(vwheel, project, case):
    inp = project / "in"
    args = ["-p", "x86_64::level::v3"]
    if case == "not_a_zip":
        w = inp / "pkg-1.0-py3-none-any.whl"
        w.write_text("hello, not a zip\n")
        expect = "not a zip"
    elif case == "truncated":
        w = big_wheel(inp)
        data = w.read_bytes()
        w.write_bytes(data[: len(data) - 100])
        expect = "pkg-1.0-py3-none-any.whl"
    elif case == "no_dist_info":
        w = inp / "pkg-1.0-py3-none-any.whl"
        with zipfile.ZipFile(w, "w") as zf:
            zf.writestr("pkg/__init__.py", "")
        expect = "no `.dist-info` directory"
    elif case == "two_dist_info":
        w = make_wheel(inp, "pkg-1.0-py3-none-any.whl", extra_members={"other-2.0.dist-info/METADATA": b"x"})
        expect = "2 `.dist-info` directories"
    elif case == "no_record":
        w = make_wheel(inp, "pkg-1.0-py3-none-any.whl", record=False)
        expect = "RECORD"
    elif case == "bad_property":
        w = big_wheel(inp)
        args = ["-p", "x86_64::Level::v3"]
        expect = "Level"
    elif case == "unknown_value":
        w = big_wheel(inp)
        args = ["-p", "x86_64::level::v99"]
        expect = "v99"
    elif case == "multi_value":
        w = big_wheel(inp)
        args = ["-p", "x86_64::level::v3", "-p", "x86_64::level::v4"]
        expect = "multi-value"
    elif case == "label_clash":
        w = big_wheel(inp)
        r = vwheel("make-variant", w, "-o", project / "out", "-p", "x86_64::level::v2", "--label", "fast")
        assert r.rc == 0, r.err
        before = sorted(p.name for p in (project / "out").iterdir())
        r = vwheel("make-variant", w, "-o", project / "out", "-p", "x86_64::level::v4", "--label", "fast")
        assert r.rc == 1
        assert "label clash" in r.err and len(r.err.strip().splitlines()) == 1
        assert sorted(p.name for p in (project / "out").iterdir()) == before
        return
    elif case == "null_label":
        w = big_wheel(inp)
        args = ["-p", "x86_64::level::v3", "--label", "null"]
        expect = "null"
    elif case == "undeclared_namespace":
        w = big_wheel(inp)
        args = ["-p", "aarch64::version::8.1a"]
        expect = "aarch64"
    elif case == "bad_name":
        w = inp / "pkg.whl"
        shutil.copy(big_wheel(inp), w)
        expect = "pkg.whl"
    r = vwheel("make-variant", w, "-o", project / "out", *args, cwd=project)
    assert r.rc == 1, (r.out, r.err)
    lines = r.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("vwheel: error: "), r.err
    assert expect in lines[0], lines[0]
    assert_nothing_written(project / "out")


def test_missing_output_dir_and_missing_pyproject(vwheel, project):
    src = big_wheel(project / "in")
    r = vwheel("make-variant", src, "-o", project / "nope", "-p", "x86_64::level::v3")
    assert r.rc == 1 and "does not exist" in r.err
    r = vwheel("make-variant", src, "-o", project / "out", "-p", "x86_64::level::v3", "--pyproject", project / "x.toml")
    assert r.rc == 1 and "x.toml" in r.err
    assert_nothing_written(project / "out")


def test_namespace_order_without_pyproject_follows_the_command_line(vwheel, tmp_path):
    (tmp_path / "out").mkdir()
    src = big_wheel(tmp_path)
    r = vwheel("make-variant", src, "-o", tmp_path / "out", "-p", "x86_64::level::v3", "-p", "aarch64::version::8.1a",
               "--label", "both", "--skip-provider-validation", cwd=tmp_path / "out")
    assert r.rc == 0, r.err
    with zipfile.ZipFile(tmp_path / "out" / "pkg-1.0-py3-none-any-both.whl") as zf:
        doc = json.loads(zf.read("pkg-1.0.dist-info/variant.json"))
    assert doc["default-priorities"]["namespace"] == ["x86_64", "aarch64"]


# ---------------------------------------------------------------------------------------------------------------
# generate-index-json / add-wheel-to-index-json

def variant_set(vwheel, project):
    src = big_wheel(project / "in")
    for args in (["-p", "x86_64::level::v2", "--label", "v2"], ["-p", "x86_64::level::v3"],
                 ["-p", "blas::library::mkl", "-p", "x86_64::level::v4"], ["--null"]):
        r = vwheel("make-variant", src, "-o", project / "out", *args, cwd=project)
        assert r.rc == 0, r.err
    shutil.copy(src, project / "out")
    return sorted((project / "out").iterdir())


def test_generate_index_json_is_independent_of_directory_order(vwheel, project):
    wheels = variant_set(vwheel, project)
    outputs = []
    for seed in range(3):
        d = project / f"shuffled{seed}"
        d.mkdir()
        order = list(wheels)
        random.Random(seed).shuffle(order)
        for w in order:  # creation order decides the directory listing order
            shutil.copy(w, d)
        r = vwheel("generate-index-json", d)
        assert r.rc == 0, r.err
        assert r.out.strip() == str(d / "pkg-1.0-variants.json")
        outputs.append((d / "pkg-1.0-variants.json").read_bytes())
    assert outputs[0] == outputs[1] == outputs[2]
    doc = json.loads(outputs[0])
    assert sorted(doc["variants"]) == sorted(["v2", label_of(vwheel, "x86_64::level::v3"),
                                              label_of(vwheel, "blas::library::mkl", "x86_64::level::v4"), "null"])
    r = vwheel("validate", project / "shuffled0" / "pkg-1.0-variants.json")
    assert r.rc == 0, r.out + r.err


def test_generate_index_json_reads_only_central_directory_and_variant_json(vwheel, project):
    rnd = random.Random(1)
    files = {f"pkg/data{i}.bin": bytes(rnd.getrandbits(8) for _ in range(200_000)) for i in range(10)}
    src = make_wheel(project / "in", "pkg-1.0-py3-none-any.whl", files)
    r = vwheel("make-variant", src, "-o", project / "out", "-p", "x86_64::level::v3", cwd=project)
    assert r.rc == 0, r.err
    r = vwheel("generate-index-json", project / "out")
    assert r.rc == 0, r.err
    # "read N of M bytes (P%)"
    summary = r.err.strip().splitlines()[-1]
    read, total = [int(x) for x in summary.split("read ")[1].split(" bytes")[0].split(" of ")]
    assert total > 2_000_000
    assert read < total / 100, summary


def test_generate_index_json_conflicts_name_both_wheels_and_write_nothing(vwheel, tmp_path):
    common = {"providers": {}}
    make_wheel(tmp_path, "pkg-1.0-py3-none-any-x1.whl", variant_json={
        **common, "default-priorities": {"namespace": ["a", "b"]}, "variants": {"x1": {"a": {"f": ["1"]}}}})
    make_wheel(tmp_path, "pkg-1.0-py3-none-any-x2.whl", variant_json={
        **common, "default-priorities": {"namespace": ["b", "a"]}, "variants": {"x2": {"b": {"g": ["1"]}}}})
    r = vwheel("generate-index-json", tmp_path)
    assert r.rc == 1
    assert "pkg-1.0-py3-none-any-x2.whl" in r.err and "pkg-1.0-py3-none-any-x1.whl" in r.err
    assert not list(tmp_path.glob("*.json"))


def write_vector_wheels(directory, case):
    for w in case["wheels_in_sorted_order"]:
        vj = w["variant_json"]
        make_wheel(directory, w["filename"], variant_json=vj if vj is not None else None)


def test_generate_index_json_matches_merge_vectors(vwheel, shared, tmp_path):
    cases = json.loads((shared / "vectors" / "merge.json").read_text())["cases"]
    runs = [c for c in cases if "wheels_in_sorted_order" in c]
    assert len(runs) == 5
    for n, case in enumerate(runs):
        d = tmp_path / f"run{n}"
        d.mkdir()
        names = [w["filename"] for w in case["wheels_in_sorted_order"]]
        bad_name = [x for x in names if x != x.lower() and "UPPER" in x]
        write_vector_wheels(d, case)
        conflicting = any(line.startswith("ERROR - Failed to process") for line in case["log"])
        invalid = any(line.startswith("WARNING") for line in case["log"]) or bad_name
        r = vwheel("generate-index-json", d, "-o", d)
        if conflicting:
            # variantlib logs and still adds the variant; PEP 825 rules: the inconsistency is an error.
            assert r.rc == 1 and "conflicts with" in r.err, case["case"]
            assert not list(d.glob("*-variants.json"))
            continue
        if invalid:
            assert r.rc == 1, case["case"]
            assert not list(d.glob("*-variants.json"))
            r = vwheel("generate-index-json", d, "--skip-invalid")
        assert r.rc == 0, (case["case"], r.err)
        produced = {p.name: p.read_text() for p in d.glob("*-variants.json")}
        assert produced == case["outputs"], case["case"]
        if any("share the same variant properties" in line for line in case["log"]):
            assert "same properties" in r.err


def test_add_wheel_to_index_json(vwheel, project):
    wheels = [w for w in variant_set(vwheel, project) if w.name.count("-") == 5]
    (project / "idx").mkdir()
    r = vwheel("add-wheel-to-index-json", wheels[0], "-o", project / "idx")
    assert r.rc == 0, r.err
    out = project / "idx" / "pkg-1.0-variants.json"
    assert r.out.strip() == str(out)
    r = vwheel("add-wheel-to-index-json", wheels[1], "-i", out, "-o", project / "idx")
    assert r.rc == 0, r.err
    assert len(json.loads(out.read_text())["variants"]) == 2
    (project / "idx2").mkdir()
    shutil.copy(out, project / "idx2")
    r = vwheel("add-wheel-to-index-json", wheels[2], "-i", out, "-o", project / "idx2")
    assert r.rc == 1 and "--overwrite" in r.err
    r = vwheel("add-wheel-to-index-json", wheels[2], "-i", out, "-o", project / "idx2", "--overwrite")
    assert r.rc == 0, r.err
    # Adding every wheel one at a time gives the same bytes as generate-index-json.
    for w in wheels[3:]:
        assert vwheel("add-wheel-to-index-json", w, "-i", project / "idx2" / out.name, "-o", project / "idx2").rc == 0
    (project / "gen").mkdir()
    for w in wheels:
        shutil.copy(w, project / "gen")
    assert vwheel("generate-index-json", project / "gen").rc == 0
    assert (project / "gen" / out.name).read_bytes() == (project / "idx2" / out.name).read_bytes()

    plain = project / "in" / "pkg-1.0-py3-none-any.whl"
    r = vwheel("add-wheel-to-index-json", plain, "-o", project / "idx")
    assert r.rc == 1 and "not a variant wheel" in r.err
    other = make_wheel(project / "in", "other-2.0-py3-none-any-null.whl",
                       variant_json={"default-priorities": {"namespace": ["x86_64"]}, "variants": {"null": {}}})
    r = vwheel("add-wheel-to-index-json", other, "-i", out, "-o", project / "idx")
    assert r.rc == 1 and "other-2.0-variants.json" in r.err


# ---------------------------------------------------------------------------------------------------------------
# analyze-wheel

def test_analyze_wheel_for_a_target_profile(vwheel, project):
    wheels = variant_set(vwheel, project)
    profile = project / "v3.json"
    profile.write_text(json.dumps({"properties": {"x86_64": [{"name": "level", "values": ["v3", "v2", "v1"]}]}}))
    r = vwheel("analyze-wheel", *wheels, "--target", profile, "--json")
    assert r.rc == 0, r.err
    doc = r.json()
    by_label = {w["label"]: w for w in doc["wheels"]}
    v3 = label_of(vwheel, "x86_64::level::v3")
    v4mkl = label_of(vwheel, "blas::library::mkl", "x86_64::level::v4")
    assert by_label[v3]["supported"] and by_label[v3]["rank"] == 1
    assert by_label["v2"]["rank"] == 2
    assert by_label["null"]["rank"] == 3
    assert by_label[None]["rank"] == 4 and by_label[None]["supported"]
    assert not by_label[v4mkl]["supported"] and by_label[v4mkl]["rank"] is None
    assert "blas" in by_label[v4mkl]["reason"] or "v4" in by_label[v4mkl]["reason"]
    assert by_label[v3]["properties"] == ["x86_64 :: level :: v3"]
    assert by_label[v3]["providers"]["x86_64"]["requires"] == ["provider-variant-x86-64"]
    assert all(w["usable"] == 4 for w in doc["wheels"])

    r = vwheel("analyze-wheel", wheels[0], "--target", profile)
    assert r.rc == 0, r.err
    assert "label:" in r.out and "supported:" in r.out


def test_analyze_wheel_errors(vwheel, tmp_path):
    w = tmp_path / "pkg-1.0-py3-none-any.whl"
    w.write_bytes(b"PK\x03\x04garbage")
    r = vwheel("analyze-wheel", w)
    assert r.rc == 1 and len(r.err.strip().splitlines()) == 1

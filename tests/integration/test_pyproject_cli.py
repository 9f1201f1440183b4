"""`vwheel pyproject add-provider|remove-provider|validate` on real files."""
import tomllib

import pytest

PYPROJECT = """\
# A project with a bit of everything around the [variant] table.
[build-system]
requires = ["setuptools>=61", "wheel"]  # build deps
build-backend = "setuptools.build_meta"

[project]
name = "demo"
version = "1.0"
description = \"\"\"A demo [with brackets] and # hashes
over two lines\"\"\"
dependencies = [
    "numpy>=1.26",   # math
    'requests[socks]',
]

[variant.default-priorities]
# most important first
namespace = [
    "x86_64",
]

[variant.providers.x86_64]
requires = ["provider-variant-x86-64 >=0.0.1"]
enable-if = "platform_machine == 'x86_64' or platform_machine == 'AMD64'"  # x86 only
plugin-api = "provider_variant_x86_64.plugin:X8664Plugin"

[tool.ruff]
line-length = 100
  [tool.ruff.lint]
  select = ["E", "F"]   # keep this spacing

[[tool.other.items]]
when = 1979-05-27 07:32:00Z
"""


@pytest.fixture
def project(tmp_path):
    path = tmp_path / "pyproject.toml"
    path.write_bytes(PYPROJECT.encode())
    return path


def outside_variant(text):
    doc = tomllib.loads(text)
    doc.pop("variant", None)
    return doc


def test_add_provider_keeps_the_rest_byte_for_byte(vwheel, project):
    r = vwheel("pyproject", "add-provider", "aarch64",
               "--requires", "provider-variant-aarch64 >=0.0.1; python_version >= '3.12'",
               "--requires", "legacy-provider-variant-aarch64 >=0.0.1; python_version < '3.12'",
               "--enable-if", "platform_machine == 'aarch64'",
               "--plugin-api", "provider_variant_aarch64.plugin:AArch64Plugin",
               "--optional")
    assert r.rc == 0, r.err
    assert r.out == "Wrote changes to pyproject.toml\n"
    assert r.err == ""
    text = project.read_text()
    head, _, tail = PYPROJECT.partition("[tool.ruff]")
    expected = head.replace('    "x86_64",\n', '    "x86_64",\n    "aarch64",\n').replace(
        "X8664Plugin\"\n\n",
        "X8664Plugin\"\n\n"
        "[variant.providers.aarch64]\n"
        "requires = [\"provider-variant-aarch64 >=0.0.1; python_version >= '3.12'\", "
        "\"legacy-provider-variant-aarch64 >=0.0.1; python_version < '3.12'\"]\n"
        "enable-if = \"platform_machine == 'aarch64'\"\n"
        "plugin-api = \"provider_variant_aarch64.plugin:AArch64Plugin\"\n"
        "optional = true\n\n",
    ) + "[tool.ruff]" + tail
    assert text == expected
    doc = tomllib.loads(text)
    assert doc["variant"]["default-priorities"]["namespace"] == ["x86_64", "aarch64"]
    assert doc["variant"]["providers"]["aarch64"]["optional"] is True
    assert len(doc["variant"]["providers"]["aarch64"]["requires"]) == 2
    assert outside_variant(text) == outside_variant(PYPROJECT)
    v = vwheel("validate", project)
    assert v.rc == 0 and v.out == "", v.out
    v = vwheel("pyproject", "validate")
    assert v.rc == 0 and v.out == "", v.out


def test_add_then_remove_gives_back_the_file(vwheel, project):
    assert vwheel("pyproject", "add-provider", "blas", "--requires", "blas-provider", "--aot",
                  "--priority", "0").rc == 0
    added = project.read_text()
    assert tomllib.loads(added)["variant"]["default-priorities"]["namespace"] == ["blas", "x86_64"]
    assert tomllib.loads(added)["variant"]["providers"]["blas"]["install-time"] is False
    r = vwheel("pyproject", "remove-provider", "blas")
    assert r.rc == 0, r.err
    assert r.out == "Wrote changes to pyproject.toml\n"
    assert project.read_bytes() == PYPROJECT.encode()


def test_update_existing_provider_in_place(vwheel, project):
    r = vwheel("pyproject", "add-provider", "x86_64", "--requires", "provider-variant-x86-64 >=0.0.2",
               "--no-optional", "--file", project)
    assert r.rc == 0, r.err
    text = project.read_text()
    assert 'requires = ["provider-variant-x86-64 >=0.0.2"]\n' in text
    assert "  # x86 only\n" in text  # comment of an untouched key
    assert 'X8664Plugin"\noptional = false\n' in text
    assert text.count("x86_64") == PYPROJECT.count("x86_64")  # not listed twice
    # The same again changes nothing and writes nothing.
    r = vwheel("pyproject", "add-provider", "x86_64", "--no-optional", "-f", project)
    assert r.rc == 0 and r.out == f"No changes to {project}\n"
    assert project.read_text() == text


def test_static_properties_for_an_aot_provider(vwheel, project):
    r = vwheel("pyproject", "add-provider", "arch", "--static", "level=v3,v2", "--static", "simd = avx2")
    assert r.rc == 0, r.err
    doc = tomllib.loads(project.read_text())["variant"]
    assert doc["providers"]["arch"] == {"install-time": False}
    assert doc["static-properties"]["arch"] == {"level": ["v3", "v2"], "simd": ["avx2"]}
    assert doc["default-priorities"]["feature"]["arch"] == ["level", "simd"]
    assert vwheel("validate", project).rc == 0
    assert vwheel("pyproject", "remove-provider", "arch").rc == 0
    assert project.read_bytes() == PYPROJECT.encode()


def test_dry_run_writes_nothing(vwheel, project):
    before = project.stat().st_mtime_ns
    r = vwheel("pyproject", "add-provider", "gpu", "--requires", "gpu-provider", "--dry-run")
    assert r.rc == 0, r.err
    assert "[variant.providers.gpu]\nrequires = [\"gpu-provider\"]\n" in r.out
    assert tomllib.loads(r.out)["variant"]["default-priorities"]["namespace"] == ["x86_64", "gpu"]
    assert project.read_bytes() == PYPROJECT.encode() and project.stat().st_mtime_ns == before
    r = vwheel("pyproject", "remove-provider", "x86_64", "--dry-run")
    assert r.rc == 0, r.err
    assert "providers" not in tomllib.loads(r.out)["variant"]
    assert "[variant.providers.x86_64]" not in r.out
    assert project.read_bytes() == PYPROJECT.encode()


@pytest.mark.parametrize(
    "args, needle",
    [
        (["add-provider", "Bad", "--requires", "x"], "Bad"),
        (["add-provider", "ok", "--requires", "not a requirement!"], "PEP 508"),
        (["add-provider", "ok", "--requires", "p", "--enable-if", "platform_machine =="], "enable-if"),
        (["add-provider", "ok", "--requires", "p", "--plugin-api", "a b"], "plugin-api"),
        (["add-provider", "ok", "--requires", "p", "--priority", "5"], "out of range"),
        (["add-provider", "ok", "--install-time"], "needs `requires`"),
        (["add-provider", "x86_64", "--static", "f=v"], "would not be valid"),
        (["add-provider", "ok", "--static", "F=v"], "F"),
        (["add-provider", "ok", "--requires", "p", "--static", "f=v"], "ahead-of-time"),
        (["remove-provider", "absent"], "absent"),
    ],
)
def test_errors_leave_the_file_unchanged(vwheel, project, args, needle):
    r = vwheel("pyproject", *args)
    assert r.rc == 1, (r.out, r.err)
    assert r.out == ""
    lines = r.err.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0] and "pyproject.toml" in lines[0], r.err
    assert project.read_bytes() == PYPROJECT.encode()


def test_inline_tables_are_refused_with_the_line(vwheel, tmp_path):
    path = tmp_path / "pyproject.toml"
    text = '[project]\nname = "x"\n\n[variant]\ndefault-priorities.namespace = ["a"]\nproviders = { a = { requires = ["pa"] } }\n'
    path.write_text(text)
    r = vwheel("pyproject", "add-provider", "b", "--requires", "pb")
    assert r.rc == 1
    assert "line 6" in r.err and "inline table" in r.err and "`[variant.providers.b]` table" in r.err
    assert len(r.err.strip().splitlines()) == 1
    r = vwheel("pyproject", "remove-provider", "a")
    assert r.rc == 1 and "line 6" in r.err
    assert path.read_text() == text


def test_malformed_static_is_a_usage_error(vwheel, project):
    r = vwheel("pyproject", "add-provider", "arch", "--static", "level")
    assert r.rc == 2 and "FEATURE=VALUE" in r.err
    assert project.read_bytes() == PYPROJECT.encode()


def test_missing_file(vwheel, tmp_path):
    for args in (["add-provider", "a", "--requires", "p"], ["remove-provider", "a"], ["validate"]):
        r = vwheel("pyproject", *args, "--file", tmp_path / "nope.toml")
        assert r.rc == 1
        assert len(r.err.strip().splitlines()) == 1 and "nope.toml" in r.err
    assert not (tmp_path / "nope.toml").exists()


def test_crlf_and_a_file_without_variant(vwheel, tmp_path):
    path = tmp_path / "pyproject.toml"
    text = b'[project]\r\nname = "x"\r\n\r\n[tool.x]\r\ny = 1\r\n'
    path.write_bytes(text)
    assert vwheel("pyproject", "add-provider", "a", "--requires", "pa").rc == 0
    out = path.read_bytes()
    assert out.startswith(text)
    assert b"\n" not in out.replace(b"\r\n", b"")
    assert tomllib.loads(out.decode())["variant"] == {
        "default-priorities": {"namespace": ["a"]},
        "providers": {"a": {"requires": ["pa"]}},
    }
    assert vwheel("validate", path).rc == 0
    assert vwheel("pyproject", "remove-provider", "a").rc == 0
    assert path.read_bytes() == text


def test_validate_reports_problems(vwheel, tmp_path):
    path = tmp_path / "pyproject.toml"
    path.write_text('[variant.default-priorities]\nnamespace = ["a", "b"]\n[variant.providers.a]\noptional = true\n')
    r = vwheel("pyproject", "validate")
    assert r.rc == 1
    lines = r.out.strip().splitlines()
    assert lines and all(line.startswith("pyproject.toml: ") for line in lines)
    assert any("requires" in line for line in lines)
    assert r.out == vwheel("validate", "pyproject.toml").out
    path.write_text("[project]\nname = 'x'\n")
    r = vwheel("pyproject", "validate")
    assert r.rc == 0 and r.out == ""


def test_help(vwheel):
    r = vwheel("pyproject", "--help")
    assert r.rc == 0
    for sub in ("add-provider", "remove-provider", "validate"):
        assert sub in r.out
    assert vwheel("pyproject").rc == 2
    r = vwheel("pyproject", "add-provider", "--help")
    assert r.rc == 0 and "--static" in r.out and "--dry-run" in r.out


def test_symlink_and_permissions_are_kept(vwheel, tmp_path, project):
    project.chmod(0o640)
    link = tmp_path / "link.toml"
    link.symlink_to(project.name)
    r = vwheel("pyproject", "add-provider", "gpu", "--requires", "gpu-provider", "-f", "link.toml")
    assert r.rc == 0 and r.out == "Wrote changes to link.toml\n", r.err
    assert link.is_symlink()
    assert "[variant.providers.gpu]" in project.read_text()
    assert project.stat().st_mode & 0o777 == 0o640

"""`vwheel label`, `vwheel rank` and `vwheel validate` on real files."""
import json
import resource
import shutil
import subprocess

import pytest


def bounded(vwheel_bin, *args):
    """Runs vwheel under generous ceilings for inputs that used to be quadratic: 1 GiB of address
    space and 20 s of CPU (the old reader needed 10 GB and minutes). A breach kills it (a signal,
    never rc 1), so the rc check below is also the ceiling check."""

    def limits():
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
        resource.setrlimit(resource.RLIMIT_CPU, (20, 20))

    p = subprocess.run([str(vwheel_bin), *map(str, args)], capture_output=True, text=True, timeout=120,
                       preexec_fn=limits, env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/nonexistent"})
    return p.returncode, p.stdout, p.stderr


def write(path, obj):
    path.write_text(json.dumps(obj) if not isinstance(obj, str) else obj)
    return path


def test_version_and_help(vwheel):
    r = vwheel("--version")
    assert r.rc == 0 and r.out.startswith("vwheel ")
    r = vwheel("--help")
    assert r.rc == 0
    for cmd in ("label", "rank", "validate"):
        assert cmd in r.out
        h = vwheel(cmd, "--help")
        assert h.rc == 0
        assert "usage" in h.out.lower()
        h = vwheel("help", cmd)
        assert h.rc == 0 and cmd in h.out
        # The usage line names the whole command, as `vwheel CMD --help` does.
        assert f"Usage: vwheel {cmd} " in h.out, h.out
        assert f"Usage: vwheel {cmd} " in vwheel(cmd, "--help").out


def test_only_the_chosen_subcommand_is_built_yet_help_lists_all(vwheel):
    # main() registers only the subcommand named first (start-up time); everything that describes
    # or refuses subcommands must still see all of them.
    listed = vwheel("--help").out
    for cmd in ("label", "rank", "install", "make-variant", "index", "help"):
        assert cmd in listed
    r = vwheel("help", "install")
    assert r.rc == 0 and "Usage: vwheel install " in r.out
    r = vwheel("help", "index")
    assert r.rc == 0 and "Usage: vwheel index " in r.out
    r = vwheel("help", "nosuch")
    assert r.rc == 2 and "unknown subcommand `nosuch`" in r.err
    r = vwheel("nosuch")
    assert r.rc == 2 and r.err.startswith("vwheel: error:")
    r = vwheel("--help-all")
    assert r.rc == 0 and "\nmake-variant\n" in r.out and "\nunmake-variant\n" in r.out
    r = vwheel("index", "build", "--help")
    assert r.rc == 0 and "site" in r.out.lower()
    r = vwheel("--version", "label")
    assert r.rc == 0 and r.out.startswith("vwheel ")
    # `--version` alone is answered before CLI11 parses (start-up); it says what CLI11 says.
    assert vwheel("--version").out == vwheel("-V").out == r.out and r.out.count("\n") == 1
    r = vwheel("label", "rank")
    assert r.rc == 2 and "rank" in r.err


def top_level_commands(overview):
    """The subcommand names `vwheel --help` lists (the lines of its SUBCOMMANDS section)."""
    section = overview.split("Subcommands:\n", 1)[1]
    return [line.split()[0] for line in section.splitlines() if line.startswith("  ") and line.split()]


def test_vwheel_alone_prints_the_overview_and_succeeds_as_pip_does(vwheel):
    r = vwheel()
    assert r.rc == 0, r.err
    assert r.err == ""
    assert r.out == vwheel("--help").out
    assert "install" in top_level_commands(r.out)


def test_help_names_the_whole_command_for_every_subcommand(vwheel):
    commands = top_level_commands(vwheel("--help").out)
    assert {"label", "build", "index", "cache", "help", "completion"} <= set(commands), commands
    for cmd in commands:
        r = vwheel("help", cmd)
        assert r.rc == 0, (cmd, r.err)
        assert f"Usage: vwheel {cmd}" in r.out, (cmd, r.out)
        assert f"Usage: vwheel {cmd}" in vwheel(cmd, "--help").out, cmd
    r = vwheel("index", "build", "--help")
    assert r.rc == 0 and "Usage: vwheel index build " in r.out, r.out
    # `help` takes the path of a nested subcommand too.
    assert vwheel("help", "index", "build").out == r.out
    r = vwheel("help", "index", "nosuch")
    assert r.rc == 2 and "unknown subcommand `nosuch`; run `vwheel index --help`" in r.err, r.err


def test_completion_scripts_cover_every_subcommand(vwheel, tmp_path):
    commands = top_level_commands(vwheel("--help").out)
    for shell in ("bash", "zsh", "fish"):
        r = vwheel("completion", shell)
        assert r.rc == 0, r.err
        for cmd in commands:
            assert cmd in r.out, (shell, cmd)
        # Nested subcommands and options come from the definitions too.
        for word in ("vwheel__index__build", "vwheel__cache__prune", "all-variants", "find-links"):
            assert word in r.out, (shell, word)
        # An option group's options are its command's (`rank --abi-dependency`); the group is no subcommand.
        assert "vwheel__rank__" not in r.out and "abi-dependency" in r.out, shell
    r = vwheel("completion", "tcsh")
    assert r.rc == 2 and "tcsh" in r.err, r.err


def test_the_bash_completion_script_loads_and_completes(vwheel, tmp_path):
    script = tmp_path / "vwheel.bash"
    script.write_text(vwheel("completion", "bash").out)
    p = subprocess.run(["bash", "-c", f"source {script} && complete -p vwheel"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "complete -o filenames -F _vwheel vwheel", p.stdout
    # What <TAB> offers: after `vwheel ma`, after `vwheel index `, after `vwheel build --all`.
    probe = ("source {script}; for line in 'vwheel ma' 'vwheel index ' 'vwheel build --all-v'; do "
             "read -ra COMP_WORDS <<< \"$line\"; [[ $line == *' ' ]] && COMP_WORDS+=(''); "
             "COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); _vwheel; echo \"${{COMPREPLY[*]}}\"; done")
    p = subprocess.run(["bash", "-c", probe.format(script=script)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == ["make-variant", "build serve mirror", "--all-variants"], p.stdout


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_the_zsh_and_fish_scripts_parse(vwheel, tmp_path, shell):
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed")
    script = tmp_path / f"vwheel.{shell}"
    script.write_text(vwheel("completion", shell).out)
    p = subprocess.run([shell, "-n", str(script)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    if shell == "fish":
        p = subprocess.run(["fish", "-c", f"source {script}; complete -C 'vwheel index '"], capture_output=True,
                           text=True)
        assert p.returncode == 0, p.stderr
        assert [line.split("\t")[0] for line in p.stdout.splitlines()] == ["build", "mirror", "serve"], p.stdout


def test_the_man_page_is_made_from_the_help(vwheel_bin):
    cache = vwheel_bin.parent / "CMakeCache.txt"
    if not cache.exists() or "HELP2MAN:FILEPATH=/" not in cache.read_text():
        pytest.skip("help2man was not found when the build was configured: no man page (scripts/bootstrap installs it)")
    page = vwheel_bin.parent / "vwheel.1"
    assert page.exists(), "build the default target (cmake --build build): it makes vwheel.1"
    text = page.read_text()
    assert text.startswith(".\\\" DO NOT MODIFY THIS FILE!  It was generated by help2man"), text[:200]
    assert ".TH VWHEEL " in text
    for cmd in ("install", "make\\-variant", "build", "completion"):
        assert cmd in text, cmd


def test_a_mistyped_subcommand_is_named_with_the_nearest_one(vwheel):
    r = vwheel("instal", "torch")
    assert r.rc == 2 and r.out == ""
    assert r.err.splitlines()[0] == "vwheel: error: unknown subcommand `instal` (did you mean `install`?)", r.err
    r = vwheel("frobnicate")
    assert r.rc == 2 and r.err.splitlines()[0] == "vwheel: error: unknown subcommand `frobnicate`", r.err
    r = vwheel("help")  # the overview, not the help of `help` itself
    assert r.rc == 0 and "install" in r.out and "make-variant" in r.out


def test_an_option_followed_by_another_option_has_lost_its_value(vwheel, tmp_path):
    # Not the host `--offline` tried four times: the option that lost its value, named at once.
    r = vwheel("install", "--index-url", "--offline", "torch", "--cache-dir", str(tmp_path / "cache"))
    assert r.rc == 2 and r.out == ""
    assert r.err.splitlines()[0] == ("vwheel: error: --index-url needs a value, but the word after it is the option "
                                     "--offline (for a value that starts with '-', write --index-url=VALUE)"), r.err
    r = vwheel("index", "build", "-o", "--quiet", str(tmp_path))
    assert r.rc == 2 and "-o needs a value" in r.err and "--output=VALUE" in r.err, r.err
    assert not (tmp_path / "--quiet").exists()
    # A value that is not one of the command's options is a value, whatever it starts with.
    r = vwheel("label", "--label", "-x")
    assert "needs a value" not in r.err
    # And the = form gives a value that looks like an option.
    r = vwheel("install", "--index-url=--offline", "--offline", "torch", "--cache-dir", str(tmp_path / "cache"))
    assert r.rc != 0 and "needs a value" not in r.err and "--offline/torch/" in r.err, r.err


def test_a_value_with_a_newline_is_echoed_on_one_line(vwheel):
    r = vwheel("label", "--label", "foo\nbar")
    assert r.rc != 0
    assert r.err.count("\n") == 1 and "`foo\\nbar`" in r.err, r.err


def test_label_hash_and_custom(vwheel):
    assert vwheel("label", "-p", "a::b::c", "-p", "d :: e :: f").out == "eb9a66a7\n"
    assert vwheel("label").out == "null\n"
    r = vwheel("label", "-p", "a::b::c", "--label", "my_label")
    assert r.rc == 0 and r.out == "my_label\n"


def test_label_long_custom_label_warns(vwheel):
    r = vwheel("label", "-p", "a::b::c", "--label", "a" * 17)
    assert r.rc == 0 and r.out == "a" * 17 + "\n"
    assert r.err == (f"vwheel: warning: label `{'a' * 17}` is longer than 16 characters; today's variant-enabled "
                     "installers reject such wheels\n"), r.err


@pytest.mark.parametrize(
    "args, needle",
    [
        (["-p", "a::B::c"], "a::B::c"),
        (["-p", "a::b::c", "-p", "a :: b :: c"], "duplicate"),
        (["-p", "a::b::c", "--label", "null"], "null"),
        (["--label", "foo"], "foo"),
        (["-p", "a::b::c", "--label", "Foo"], "Foo"),
    ],
)
def test_label_errors(vwheel, args, needle):
    r = vwheel("label", *args)
    assert r.rc == 1
    assert r.out == ""
    lines = r.err.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0]


def test_rank_torch_no_gpu(vwheel, examples):
    r = vwheel("rank", examples / "torch-2.9.0-variants.json", "--target", examples / "profiles/no-gpu.json")
    assert r.rc == 0, r.err
    assert r.out == "null\n"


def test_rank_torch_cuda(vwheel, examples):
    r = vwheel("rank", examples / "torch-2.9.0-variants.json", "--target", examples / "profiles/cuda12.8-sm90.json")
    assert r.rc == 0, r.err
    assert r.out.splitlines() == ["cuda12.8", "cuda12.6", "null"]


def test_rank_json_and_explain(vwheel, examples):
    args = ["rank", examples / "torch-2.9.0-variants.json", "--target", examples / "profiles/cuda12.8-sm90.json"]
    j = vwheel(*args, "--json").json()
    assert j["order"] == ["cuda12.8", "cuda12.6", "null"]
    by_label = {x["label"]: x for x in j["labels"]}
    assert by_label["cuda13.0"]["compatible"] is False
    assert "cuda_version_lower_bound" in by_label["cuda13.0"]["reason"]
    assert by_label["cuda12.8"]["rank"] == 1
    e = vwheel(*args, "--explain")
    assert e.rc == 0
    assert "cuda13.0: incompatible" in e.out
    assert "would choose `cuda12.8`" in e.out


def test_rank_nothing_compatible_prints_note(vwheel, tmp_path):
    f = write(
        tmp_path / "x-1.0-variants.json",
        {
            "$schema": "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json",
            "default-priorities": {"namespace": ["nvidia"]},
            "variants": {"cu": {"nvidia": {"sm_arch": ["90_real"]}}},
        },
    )
    p = write(tmp_path / "p.json", {"properties": {}})
    r = vwheel("rank", f, "--target", p)
    assert r.rc == 0 and r.out == ""
    assert "no variant" in r.err


def test_rank_user_config_reorders(vwheel, tmp_path):
    f = write(
        tmp_path / "x-1.0-variants.json",
        {
            "$schema": "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json",
            "default-priorities": {"namespace": ["a", "b"]},
            "variants": {"va": {"a": {"f": ["x"]}}, "vb": {"b": {"g": ["y"]}}},
        },
    )
    p = write(
        tmp_path / "p.json",
        {"properties": {"a": [{"name": "f", "values": ["x"]}], "b": [{"name": "g", "values": ["y"]}]}},
    )
    assert vwheel("rank", f, "--target", p).out.splitlines() == ["va", "vb"]
    cfg = tmp_path / "variants.toml"
    cfg.write_text('namespace_priorities = ["b"]\n')
    assert vwheel("rank", f, "--target", p, "--config", cfg).out.splitlines() == ["vb", "va"]
    bad = tmp_path / "bad.toml"
    bad.write_text("namespace_priorities = [1]\n")
    r = vwheel("rank", f, "--target", p, "--config", bad)
    assert r.rc == 1 and "bad.toml" in r.err and "namespace_priorities[0]" in r.err


@pytest.mark.parametrize(
    "doc, needle",
    [
        ("{not json", "x-1.0-variants.json"),
        ({"$schema": "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json",
          "default-priorities": {"namespace": ["a"]},
          "variants": {"bad-label": {"a": {"f": ["x"]}}}}, "bad-label"),
        ({"$schema": "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json",
          "default-priorities": {"namespace": ["a"]},
          "variants": {"l": {"a": {"f": ["X"]}}}}, "X"),
        ({"$schema": "https://variants-schema.wheelnext.dev/peps/825/v7.0.0.json",
          "default-priorities": {"namespace": ["a"]},
          "variants": {}}, "7"),
    ],
)
def test_rank_malformed_file_is_one_line(vwheel, tmp_path, doc, needle):
    f = write(tmp_path / "x-1.0-variants.json", doc)
    p = write(tmp_path / "p.json", {"properties": {}})
    r = vwheel("rank", f, "--target", p)
    assert r.rc == 1
    lines = r.err.strip().splitlines()
    assert len(lines) == 1, r.err
    assert needle in lines[0]
    assert "x-1.0-variants.json" in lines[0]


@pytest.mark.parametrize(
    "profile, needle",
    [
        ("[]", "object"),
        ({"properties": {"Nvidia": []}}, "Nvidia"),
        ({"properties": {"nvidia": [{"name": "sm_arch", "values": []}]}}, "sm_arch"),
        ({"properties": {"nvidia": [{"name": "sm_arch", "values": ["90 real"]}]}}, "90 real"),
        ({"properties": {"nvidia": [{"name": "sm_arch", "values": ["a"], "multi_value": "yes"}]}}, "multi_value"),
        ({"properties": {}, "tags": ["cp312"]}, "cp312"),
        ({"properties": {}, "colour": 1}, "colour"),
    ],
)
def test_rank_invalid_profile(vwheel, tmp_path, examples, profile, needle):
    p = write(tmp_path / "profile.json", profile if isinstance(profile, str) else json.dumps(profile))
    r = vwheel("rank", examples / "torch-2.9.0-variants.json", "--target", p)
    assert r.rc == 1
    lines = r.err.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0] and "profile.json" in lines[0]


def test_rank_two_sets_for_one_label_is_rejected(vwheel, tmp_path):
    # JSON objects cannot repeat a key portably, so the conflict is exercised through merging in
    # generate-index-json (maintainer tools); here a duplicated key must not be silently accepted.
    f = tmp_path / "x-1.0-variants.json"
    f.write_text(
        '{"$schema": "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json",'
        '"default-priorities": {"namespace": ["a"]},'
        '"variants": {"l": {"a": {"f": ["x"]}}, "l": {"a": {"f": ["y"]}}}}'
    )
    r = vwheel("validate", f)
    assert r.rc == 1
    column = f.read_text().rindex('"l"') + 3
    assert (r.out, r.err) == (
        f'{f}: error: variants: key "l" appears twice in the same object (line 1, column {column}) [invalid]\n',
        "",
    )


def test_validate_refuses_deep_nesting_in_one_line(vwheel_bin, tmp_path):
    # 600 KB nested 100,000 deep: the old reader needed 10 GB and minutes; now the 65th level is
    # refused where it opens.
    f = tmp_path / "x-1.0-variants.json"
    f.write_text('{"variants": ' + '{"a": ' * 100_000 + "1" + "}" * 100_000 + "}")
    rc, out, err = bounded(vwheel_bin, "validate", f)
    assert rc == 1, (rc, err)
    pointer = "/variants" + "/a" * 63
    column = len('{"variants": ') + 63 * len('{"a": ') + 1
    assert (out, err) == (
        f"{f}: error: invalid JSON: nested more than 64 levels deep at {pointer} (line 1, column {column}) [invalid]\n",
        "",
    )


def test_validate_refuses_too_many_labels(vwheel_bin, tmp_path):
    # 100,000 labels: the old callback parser was quadratic (158 s); the limit is 10,000 per object.
    f = tmp_path / "x-1.0-variants.json"
    labels = ", ".join(f'"l{i}": {{"a": {{"f": ["x"]}}}}' for i in range(100_000))
    text = '{"$schema": "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json", "variants": {' + labels + "}}"
    f.write_text(text)
    rc, out, err = bounded(vwheel_bin, "validate", f)
    assert rc == 1, (rc, err)
    column = text.index('"l10000"') + len('"l10000"')
    assert (out, err) == (
        f"{f}: error: variants: more than 10000 members in one object (line 1, column {column}) [invalid]\n",
        "",
    )


def test_validate_reads_the_most_labels_allowed_within_the_ceilings(vwheel_bin, tmp_path):
    # 10,000 labels (the limit) are read, not refused, under the same ceilings: linear, not just capped.
    f = tmp_path / "x-1.0-variants.json"
    labels = ", ".join(f'"l{i}": {{"a": {{"f": ["x{i}"]}}}}' for i in range(10_000))
    f.write_text('{"$schema": "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json", '
                 '"default-priorities": {"namespace": ["a"]}, '
                 '"providers": {"a": {"requires": ["a-provider"]}}, "variants": {' + labels + "}}")
    rc, out, err = bounded(vwheel_bin, "validate", f)
    assert (rc, err) == (0, ""), out
    assert "error" not in out, out


def test_enable_if_uses_profile_environment(vwheel, tmp_path, examples):
    prof = json.loads((examples / "profiles/cuda12.8-sm90.json").read_text())
    prof["environment"]["platform_system"] = "Darwin"
    p = write(tmp_path / "mac.json", prof)
    r = vwheel("rank", examples / "torch-2.9.0-variants.json", "--target", p, "--explain")
    assert r.rc == 0
    assert r.out.count("enable-if") >= 1
    assert vwheel("rank", examples / "torch-2.9.0-variants.json", "--target", p).out == "null\n"


# Every finding on the 236 real files, in file order: (file, location, rule). All are warnings:
# PyTorch's draft files list sm_arch unsorted and use the hash-era empty label "00000000" (rules
# only PEP 825 has), two use an unversioned $schema and uv's test file has none.
NULL_LABEL = ("variants.00000000", "null-label")
UV = "astral-sh_uv__charlie_wheel-variant__built_by_uv-0.1.0-variants.json"
GH = "variants-index-gh-pages/"
REPACK = "wheelnext_variant-repack__HEAD__"


def unsorted_sm_arch(rel):
    """The two findings of a PyTorch file with cuda12.8 and cuda13.0 variants."""
    return [(rel, f"variants.{label}.nvidia.sm_arch", "values-unsorted") for label in ("cuda12.8", "cuda13.0")]


REAL_FINDINGS = [
    (UV, "$schema", "schema-missing"),
    (UV, "default-priorities.namespace", "namespace-unlisted"),
    (UV, "default-priorities.namespace", "namespace-providers-mismatch"),
    (GH + "other/0012668/torch/torch-2.8.0-variants.json", *NULL_LABEL),
    *unsorted_sm_arch(GH + "other/175a558/torch/torch-2.9.0-variants.json"),
    *unsorted_sm_arch(GH + "other/3004567/torch/torch-2.9.0-variants.json"),
    (GH + "other/f3c1219/torch/torch-2.8.0-variants.json", *NULL_LABEL),
    *unsorted_sm_arch(GH + "other/f3c1219/torch/torch-2.9.0-variants.json"),
    (GH + "v0.0.2/torch/torch-2.8.0-variants.json", *NULL_LABEL),
    *unsorted_sm_arch(GH + "v0.0.2/torch/torch-2.9.0-variants.json"),
    (GH + "v0.0.2/torchvision/torchvision-0.23.0-variants.json", *NULL_LABEL),
    *unsorted_sm_arch(GH + "v0.0.2/torchvision/torchvision-0.24.0-variants.json"),
    (GH + "v0.0.3/torch/torch-2.8.0-variants.json", *NULL_LABEL),
    *unsorted_sm_arch(GH + "v0.0.3/torch/torch-2.9.0-variants.json"),
    (GH + "v0.0.3/torchvision/torchvision-0.23.0-variants.json", *NULL_LABEL),
    *unsorted_sm_arch(GH + "v0.0.3/torchvision/torchvision-0.24.0-variants.json"),
    *unsorted_sm_arch(REPACK + "torch-2.10.0-variants.json"),
    (REPACK + "torch-2.8.0-variants.json", "$schema", "schema-unversioned"),
    (REPACK + "torch-2.8.0-variants.json", *NULL_LABEL),
    *unsorted_sm_arch(REPACK + "torch-2.9.0-variants.json"),
    (REPACK + "torchvision-0.23.0-variants.json", "$schema", "schema-unversioned"),
    (REPACK + "torchvision-0.23.0-variants.json", *NULL_LABEL),
    *unsorted_sm_arch(REPACK + "torchvision-0.24.0-variants.json"),
    *unsorted_sm_arch(REPACK + "torchvision-0.25.0-variants.json"),
]
assert len(REAL_FINDINGS) == 35
UV_MESSAGES = {
    "schema-missing": "missing; expected the URL of the format's schema, e.g. "
    '"https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json" (read as draft v0.0.3)',
    "namespace-unlisted": 'does not list namespace "mathlib", used by variants "cpu1", "cpu2", "cpu3", "cpu4"',
    "namespace-providers-mismatch": 'does not list "mathlib", which is in `providers` (draft format: the namespace '
    "list and the providers keys must match)",
}


def expected_real_line(root, rel, location, rule):
    f = root / rel
    if rule == "values-unsorted":
        label = location.split(".nvidia")[0][len("variants."):]
        values = json.loads(f.read_text())["variants"][label]["nvidia"]["sm_arch"]
        message = "values are not sorted ({}); PEP 825 lists them sorted lexically".format(
            ", ".join(json.dumps(v) for v in values))
    elif rule == "null-label":
        message = 'a variant without properties must use the label "null"'
    elif rule == "schema-unversioned":
        message = ('"https://variants-schema.wheelnext.dev/" has no version (expected a URL ending in '
                   "/vMAJOR.MINOR.PATCH.json); read as draft v0.0.2")
    else:
        message = UV_MESSAGES[rule]
    return f"{f}: warning: {location}: {message} [{rule}]"


def test_validate_real_files(vwheel, shared):
    root = shared / "data/real-variants"
    files = sorted(root.rglob("*.json"))
    assert len(files) == 236
    expected = [expected_real_line(root, *finding) for finding in REAL_FINDINGS]
    # Without --strict: 0 errors, 35 warnings on 20 files, exit 0.
    r = vwheel("validate", *files)
    assert r.rc == 0 and r.err == ""
    assert r.out.splitlines() == expected
    assert len({line.split(": warning: ")[0] for line in expected}) == 20
    # --strict: the same lines, exit 1.
    r = vwheel("validate", "--strict", *files)
    assert r.rc == 1 and r.err == ""
    assert r.out.splitlines() == expected
    # Each file alone: exit 0, exactly its own lines.
    for f in files:
        r = vwheel("validate", f)
        assert r.rc == 0 and r.err == "", (f, r.err)
        assert r.out.splitlines() == [line for line in expected if line.startswith(f"{f}: ")], f
    # --json: the same findings with JSON pointers.
    r = vwheel("validate", "--json", *files)
    assert r.rc == 0
    found = json.loads(r.out)
    assert [(x["file"], x["severity"], x["rule"]) for x in found] == [
        (str(root / rel), "warning", rule) for rel, _, rule in REAL_FINDINGS
    ]
    assert found[4]["pointer"] == "/variants/cuda12.8/nvidia/sm_arch"
    assert found[3]["pointer"] == "/variants/00000000"
    assert found[0]["pointer"] == "/$schema"


def test_validate_reports_every_problem(vwheel, tmp_path):
    f = write(
        tmp_path / "x-1.0-variants.json",
        {
            "$schema": "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json",
            "default-priorities": {"namespace": ["a"]},
            "variants": {"l1": {"a": {"f": ["BAD"]}}, "l2": {"b": {"g": ["x"]}}},
        },
    )
    r = vwheel("validate", f)
    assert r.rc == 1
    out = r.out.strip().splitlines()
    assert any("BAD" in line for line in out)
    assert all(line.startswith(str(f)) for line in out)


def test_validate_good_and_missing(vwheel, tmp_path, examples):
    good = write(
        tmp_path / "x-1.0-variants.json",
        {
            "$schema": "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json",
            "default-priorities": {"namespace": ["x86_64", "blas_lapack"]},
            "variants": {
                "null": {},
                "x86_64_v3_openblas": {"blas_lapack": {"library": ["openblas"]}, "x86_64": {"level": ["v3"]}},
            },
        },
    )
    r = vwheel("validate", good)
    assert r.rc == 0 and r.out == "" and r.err == ""
    # PyTorch's published file lists sm_arch values unsorted: a warning (the draft format never
    # required sorting), an error only with --strict.
    torch = examples / "torch-2.9.0-variants.json"
    r = vwheel("validate", torch)
    assert r.rc == 0 and r.err == ""
    lines = r.out.splitlines()
    assert len(lines) == 2
    assert all(line.startswith(f"{torch}: warning: variants.cuda1") and line.endswith("[values-unsorted]")
               for line in lines), r.out
    r = vwheel("validate", "--strict", torch)
    assert r.rc == 1 and r.out.splitlines() == lines
    r = vwheel("validate", tmp_path / "missing.json")
    assert r.rc == 1 and "missing.json" in r.err


def test_validate_pyproject(vwheel, tmp_path):
    good = tmp_path / "pyproject.toml"
    good.write_text(
        '[project]\nname = "x"\n\n[variant.default-priorities]\nnamespace = ["blas"]\n\n'
        '[variant.providers.blas]\ninstall-time = false\n\n[variant.static-properties.blas]\nlibrary = ["openblas"]\n'
    )
    assert vwheel("validate", good).rc == 0
    bad = tmp_path / "bad" / "pyproject.toml"
    bad.parent.mkdir()
    bad.write_text('[variant.default-priorities]\nnamespace = ["Bad"]\n')
    r = vwheel("validate", bad)
    assert r.rc == 1 and "Bad" in r.out


def test_validate_severities_and_json(vwheel, tmp_path):
    # A PEP 825 file: a non-null label on the empty variant breaks a MUST (error); an unknown key
    # and unsorted values are warnings.
    f = write(
        tmp_path / "x-1.0-variants.json",
        {
            "$schema": "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json",
            "default-priorities": {"namespace": ["a"]},
            "extra": 1,
            "variants": {"00000000": {}, "l.1": {"a": {"f": ["y", "x"]}}},
        },
    )
    r = vwheel("validate", f)
    assert r.rc == 1 and r.err == ""
    assert r.out.splitlines() == [
        f'{f}: warning: variants.l.1.a.f: values are not sorted ("y", "x"); PEP 825 lists them sorted lexically '
        "[values-unsorted]",
        f"{f}: warning: extra: unknown key, ignored [unknown-key]",
        f'{f}: error: variants.00000000: a variant without properties must use the label "null" [null-label]',
    ]
    r = vwheel("validate", "--json", f)
    assert r.rc == 1
    assert json.loads(r.out) == [
        {"file": str(f), "pointer": "/variants/l.1/a/f", "severity": "warning", "rule": "values-unsorted",
         "message": 'values are not sorted ("y", "x"); PEP 825 lists them sorted lexically'},
        {"file": str(f), "pointer": "/extra", "severity": "warning", "rule": "unknown-key",
         "message": "unknown key, ignored"},
        {"file": str(f), "pointer": "/variants/00000000", "severity": "error", "rule": "null-label",
         "message": 'a variant without properties must use the label "null"'},
    ]
    # Only warnings: exit 0, and 1 with --strict.
    g = write(
        tmp_path / "y-1.0-variants.json",
        {
            "$schema": "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json",
            "default-priorities": {"namespace": ["a"]},
            "variants": {"l": {"a": {"f": ["y", "x"]}}},
        },
    )
    assert vwheel("validate", g).rc == 0
    assert vwheel("validate", "--strict", g).rc == 1
    missing = tmp_path / "missing.json"
    r = vwheel("validate", "--json", missing)
    assert r.rc == 1
    [entry] = json.loads(r.out)
    assert entry["file"] == str(missing) and entry["rule"] == "unreadable" and entry["severity"] == "error"

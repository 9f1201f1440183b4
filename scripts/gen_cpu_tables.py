#!/usr/bin/env python3
"""Generates vwheel's CPU microarchitecture data.

Two steps, both deterministic:

  import  archspec JSON -> data/cpu/microarchitectures.txt   (vwheel's own text format)
  cpp     data/cpu/microarchitectures.txt -> src/provider/cpu_tables.cpp   (embedded table)

Usage (from the repository root):

  scripts/gen_cpu_tables.py import ../shared/data/cpu/archspec-json-9b22d3d-subset.json \
      --commit 9b22d3d592182f59d668ebf7b4f9897f5b9b635e -o data/cpu/microarchitectures.txt
  scripts/gen_cpu_tables.py cpp data/cpu/microarchitectures.txt -o src/provider/cpu_tables.cpp

`import` accepts archspec-json's full `cpu/microarchitectures.json` or the subset shipped with the
reference data; only the `x86_64` and `aarch64` families, the feature aliases of the `any_of`
kind and the Arm implementer table are kept. Both steps only use the standard library.

The text format (see the header of data/cpu/microarchitectures.txt):

  # comment                       (whole line)
  alias <feature> <implied-by>... (the feature counts as present when any of the others is)
  arm_vendor <code> <vendor name, rest of line>
  uarch <name> <vendor> [part=<cpu part>] [from=<parent>,<parent>...] : <feature> <feature> ...

`uarch` lines are in database order; every parent comes before its children.
"""

import argparse
import json
import sys

FAMILIES = ("x86_64", "aarch64")
MAX_FEATURES_PER_FAMILY = 256
MAX_UARCHS_PER_FAMILY = 128

LICENSE_LINES = [
    "Derived from archspec-json (https://github.com/archspec/archspec-json),",
    "file cpu/microarchitectures.json at commit {commit}.",
    "Copyright 2019-2020 Lawrence Livermore National Security, LLC and other",
    "Archspec Project Developers. Licensed under Apache-2.0 OR MIT (used here under MIT;",
    "see data/cpu/LICENSE-archspec-json).",
    "SPDX-License-Identifier: Apache-2.0 OR MIT",
]


def die(msg):
    sys.exit(f"gen_cpu_tables.py: {msg}")


# ---------------------------------------------------------------- import (JSON -> text)


def family_of(name, uarchs, memo):
    if name in memo:
        return memo[name]
    parents = uarchs[name].get("from", [])
    roots = {name} if not parents else set().union(*(family_of(p, uarchs, memo) for p in parents))
    memo[name] = roots
    return roots


def cmd_import(args):
    with open(args.json, encoding="utf-8") as f:
        data = json.load(f)
    uarchs = data["microarchitectures"]
    aliases = data.get("feature_aliases", {})
    arm_vendors = data.get("arm_vendors") or data.get("conversions", {}).get("arm_vendors", {})
    commit = args.commit or data.get("meta", {}).get("source", "").rsplit(" ", 1)[-1]

    out = []
    out.append("# vwheel CPU microarchitecture database (x86_64 and aarch64 families).")
    out.append("#")
    for line in LICENSE_LINES:
        out.append("# " + line.format(commit=commit))
    out.append("#")
    out.append("# Regenerate with scripts/gen_cpu_tables.py (import, then cpp); the C++ table")
    out.append("# src/provider/cpu_tables.cpp is generated from this file and compiled in.")
    out.append("#")
    out.append("# Format, one record per line:")
    out.append("#   alias <feature> <implied-by>...   feature counts as present when any listed one is")
    out.append("#   arm_vendor <code> <name>          'CPU implementer' code -> vendor (name = rest of line)")
    out.append("#   uarch <name> <vendor> [part=<cpu part>] [from=<parent>,...] : <features...>")
    out.append("# uarch lines keep database order (parents first); it is also the tie-break order.")
    out.append("")
    for name, spec in aliases.items():
        if "any_of" not in spec or set(spec) - {"reason", "any_of"}:
            continue  # other alias kinds (all_of, families) never apply to the kept families
        out.append(f"alias {name} {' '.join(spec['any_of'])}")
    out.append("")
    for code, vendor in arm_vendors.items():
        out.append(f"arm_vendor {code} {vendor}")
    memo = {}
    for family in FAMILIES:
        out.append("")
        for name, spec in uarchs.items():
            if family_of(name, uarchs, memo) != {family}:
                continue
            fields = ["uarch", name, spec["vendor"]]
            if spec.get("cpupart"):
                fields.append(f"part={spec['cpupart']}")
            if spec.get("from"):
                fields.append("from=" + ",".join(spec["from"]))
            for field in fields:
                if not field or any(c.isspace() for c in field):
                    die(f"{name}: field {field!r} is empty or has whitespace")
            line = " ".join(fields) + " :"
            if spec.get("features"):
                line += " " + " ".join(spec["features"])
            out.append(line)
    text = "\n".join(out) + "\n"
    write(args.output, text)


# ---------------------------------------------------------------- cpp (text -> C++)


def parse_text(path):
    aliases, vendors, uarchs = [], [], []
    with open(path, encoding="utf-8") as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            kind, _, rest = line.partition(" ")
            where = f"{path}:{lineno}"
            if kind == "alias":
                words = rest.split()
                if len(words) < 2:
                    die(f"{where}: alias needs a feature and at least one source")
                aliases.append((words[0], words[1:]))
            elif kind == "arm_vendor":
                code, _, name = rest.partition(" ")
                if not code or not name.strip():
                    die(f"{where}: arm_vendor needs a code and a name")
                vendors.append((code, name.strip()))
            elif kind == "uarch":
                head, sep, feats = rest.partition(":")
                if not sep:
                    die(f"{where}: uarch line without ':'")
                words = head.split()
                if len(words) < 2:
                    die(f"{where}: uarch needs a name and a vendor")
                name, vendor, part, parents = words[0], words[1], "", []
                for word in words[2:]:
                    if word.startswith("part="):
                        part = word[5:]
                    elif word.startswith("from="):
                        parents = word[5:].split(",")
                    else:
                        die(f"{where}: unknown field {word!r}")
                known = {u[0] for u in uarchs}
                for p in parents:
                    if p not in known:
                        die(f"{where}: parent {p!r} not defined before {name!r}")
                if name in known:
                    die(f"{where}: duplicate uarch {name!r}")
                uarchs.append((name, vendor, part, parents, feats.split()))
            else:
                die(f"{where}: unknown record {kind!r}")
    return aliases, vendors, uarchs


def check_limits(uarchs):
    by_name = {u[0]: u for u in uarchs}
    roots = {}

    def root(name):
        parents = by_name[name][3]
        return {name} if not parents else set().union(*(root(p) for p in parents))

    for u in uarchs:
        r = root(u[0])
        if len(r) != 1:
            die(f"{u[0]} belongs to several families: {sorted(r)}")
        roots.setdefault(r.pop(), []).append(u)
    for family, members in roots.items():
        feats = set().union(*(set(m[4]) for m in members))
        if len(feats) > MAX_FEATURES_PER_FAMILY - 8:
            die(f"family {family}: {len(feats)} features, raise kMaxFeatures in cpu_detect.hpp")
        if len(members) > MAX_UARCHS_PER_FAMILY:
            die(f"family {family}: {len(members)} entries, raise kMaxUarchs in cpu_detect.hpp")


def cxx_str(s):
    if any(c in s for c in '"\\') or not s.isprintable() or not s.isascii():
        die(f"unexpected character in {s!r}")
    return f'"{s}"'


def cmd_cpp(args):
    aliases, vendors, uarchs = parse_text(args.text)
    check_limits(uarchs)
    header_comment = []
    with open(args.text, encoding="utf-8") as f:
        for line in f:
            if not line.startswith("#"):
                break
            header_comment.append("//" + line[1:].rstrip("\n"))
    out = []
    out.append("// GENERATED by scripts/gen_cpu_tables.py from data/cpu/microarchitectures.txt.")
    out.append("// Do not edit; edit the text file and regenerate.")
    out.append("//")
    out.extend(header_comment)
    out.append("")
    out.append('#include "provider/cpu_tables.hpp"')
    out.append("")
    out.append("namespace vwheel::provider::cpu {")
    out.append("namespace {")
    out.append("")
    out.append("constexpr AliasRecord kAliases[] = {")
    for name, sources in aliases:
        out.append(f"    {{{cxx_str(name)}, {cxx_str(' '.join(sources))}}},")
    out.append("};")
    out.append("")
    out.append("constexpr ArmVendorRecord kArmVendors[] = {")
    for code, name in vendors:
        out.append(f"    {{{cxx_str(code)}, {cxx_str(name)}}},")
    out.append("};")
    out.append("")
    out.append("// name, vendor, cpu part, parents, features (space-separated)")
    out.append("constexpr UarchRecord kUarchs[] = {")
    for name, vendor, part, parents, feats in uarchs:
        out.append(
            f"    {{{cxx_str(name)}, {cxx_str(vendor)}, {cxx_str(part)}, "
            f"{cxx_str(' '.join(parents))},"
        )
        out.append(f"     {cxx_str(' '.join(feats))}}},")
    out.append("};")
    out.append("")
    out.append("}  // namespace")
    out.append("")
    out.append("std::span<const AliasRecord> alias_records() noexcept { return kAliases; }")
    out.append("std::span<const ArmVendorRecord> arm_vendor_records() noexcept { return kArmVendors; }")
    out.append("std::span<const UarchRecord> uarch_records() noexcept { return kUarchs; }")
    out.append("")
    out.append("}  // namespace vwheel::provider::cpu")
    write(args.output, "\n".join(out) + "\n")


def write(path, text):
    if path == "-":
        sys.stdout.write(text)
    else:
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("import", help="archspec JSON -> text format")
    p.add_argument("json")
    p.add_argument("--commit", help="archspec-json commit to record in the header")
    p.add_argument("-o", "--output", default="-")
    p.set_defaults(func=cmd_import)
    p = sub.add_parser("cpp", help="text format -> C++ table")
    p.add_argument("text")
    p.add_argument("-o", "--output", default="-")
    p.set_defaults(func=cmd_cpp)
    args = parser.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()

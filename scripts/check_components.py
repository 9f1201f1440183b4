#!/usr/bin/env python3
"""Checks that each libvwheel component's declared DEPS and LIBS (cmake/Components.cmake) match
what its files include.

For every `vwheel_component(<name> [DEPS ...] [LIBS ...])` it reads src/<name>/ and
include/vwheel/<name>/ and fails, naming component, file and include, when:

* a file includes another component's header (`"vwheel/<comp>/..."`, or a private
  `"<comp>/..."` header under src/) and <comp> is not reachable through DEPS. Reachable means
  directly or transitively: DEPS are linked PUBLIC, so a dependency's dependencies are on the
  include path and linked, and repeating them would only add noise;
* a DEP is declared but no file of the component includes it directly (a DEP kept only for what
  it brings transitively should name that instead);
* a third-party header is included and the library that provides it is not in LIBS. Headers are
  followed through quoted includes: a component that includes "core/toml.hpp" needs toml++ too.
  A link library (not a header-only one) reached through another component's header is also
  satisfied when that component declares it and is reachable, since static libraries pass their
  link libraries on. Header-only libraries never are: they are linked privately, at build time
  only (see cmake/Components.cmake), so their include paths do not travel;
* a LIBS entry is declared but none of its headers is included;
* a LIBS entry is unknown to this script (add it to LIB_HEADERS below);
* a folder of src/ or include/vwheel/ is not declared as a component.

Components are read from Components.cmake, so new ones are checked without changing this script.
Usage: check_components.py [ROOT] | --self-test
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

# LIBS entry -> the include names that need it (a trailing "/" is a directory prefix).
LIB_HEADERS = {
    "nlohmann_json::nlohmann_json": ["nlohmann/"],
    "vwheel::toml": ["toml++/"],
    "vwheel::curl_headers": ["curl/"],
    "vwheel::isal_headers": ["isa-l/"],
    "PkgConfig::HTTPLIB": ["httplib.h"],
    "PkgConfig::OPENSSL": ["openssl/"],
    "PkgConfig::XCRYPT": ["crypt.h"],
    "${VWHEEL_ZLIB_STATIC}": ["zlib.h"],
    "${VWHEEL_DEFLATE_STATIC}": ["libdeflate.h"],
    "simdjson::simdjson": ["simdjson.h"],
    "${CMAKE_DL_LIBS}": ["dlfcn.h"],
    # std::thread and std::async need -pthread on older C libraries.
    "Threads::Threads": ["thread", "future"],
}
# Header-only libraries: linked at build time only, so they never reach a dependent component.
HEADER_ONLY = {"nlohmann_json::nlohmann_json", "vwheel::toml", "vwheel::curl_headers", "vwheel::isal_headers"}
# Given to every component by vwheel_component() itself.
IMPLICIT_HEADERS = ["tl/", "fmt/"]

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.MULTILINE)
COMPONENT_RE = re.compile(r"^\s*vwheel_component\(([^)]*)\)", re.MULTILINE)


def parse_components(cmake_text: str) -> dict[str, dict[str, list[str]]]:
    text = re.sub(r"#[^\n]*", "", cmake_text)
    components: dict[str, dict[str, list[str]]] = {}
    for m in COMPONENT_RE.finditer(text):
        words = m.group(1).split()
        name, decl, key = words[0], {"DEPS": [], "LIBS": []}, None
        for w in words[1:]:
            if w in decl:
                key = w
            elif key:
                decl[key].append(w)
        components[name] = decl
    return components


def lib_for(header: str) -> str | None:
    for lib, names in LIB_HEADERS.items():
        for n in names:
            if header == n or (n.endswith("/") and header.startswith(n)):
                return lib
    return None


def is_implicit(header: str) -> bool:
    return any(header.startswith(p) for p in IMPLICIT_HEADERS)


class Tree:
    def __init__(self, root: Path, components: dict[str, dict[str, list[str]]]):
        self.root, self.components = root, components
        self._includes: dict[Path, list[tuple[str, str]]] = {}

    def files(self, comp: str) -> list[Path]:
        out: list[Path] = []
        for d in (self.root / "src" / comp, self.root / "include" / "vwheel" / comp):
            if d.is_dir():
                out += sorted(p for p in d.rglob("*") if p.suffix in (".hpp", ".cpp", ".h", ".ipp"))
        return out

    def includes(self, path: Path) -> list[tuple[str, str]]:
        if path not in self._includes:
            text = path.read_text(encoding="utf-8", errors="replace")
            self._includes[path] = [(m.group(1), m.group(2)) for m in INCLUDE_RE.finditer(text)]
        return self._includes[path]

    def component_of(self, path: Path) -> str | None:
        rel = path.relative_to(self.root).parts
        if rel[0] == "src" and len(rel) > 2:
            return rel[1]
        if rel[:2] == ("include", "vwheel") and len(rel) > 3:
            return rel[2]
        return None

    def resolve(self, including: Path, name: str) -> Path | None:
        """The project file a quoted include names, or None (a system header)."""
        for base in (including.parent, self.root / "include", self.root / "src"):
            p = base / name
            if p.is_file():
                return p.resolve()
        return None

    def included_component(self, name: str) -> str | None:
        parts = name.split("/")
        if parts[0] == "vwheel" and len(parts) > 2:
            return parts[1]
        if len(parts) > 1 and parts[0] in self.components and (self.root / "src" / name).is_file():
            return parts[0]
        return None

    def third_party(self, path: Path, seen: set[Path] | None = None) -> list[tuple[str, Path]]:
        """(header, owning file) for every non-project header reachable from `path`."""
        seen = set() if seen is None else seen
        if path in seen:
            return []
        seen.add(path)
        out: list[tuple[str, Path]] = []
        for kind, name in self.includes(path):
            target = self.resolve(path, name) if kind == '"' else None
            if target is None and kind == "<" and name.startswith("vwheel/"):
                target = self.resolve(path, name)
            if target is not None:
                out += self.third_party(target, seen)
            elif lib_for(name):
                out.append((name, path))
        return out


def closure(components: dict[str, dict[str, list[str]]], name: str) -> set[str]:
    out: set[str] = set()
    todo = list(components.get(name, {}).get("DEPS", []))
    while todo:
        d = todo.pop()
        if d not in out:
            out.add(d)
            todo += components.get(d, {}).get("DEPS", [])
    return out


def check(root: Path) -> list[str]:
    root = root.resolve()
    components = parse_components((root / "cmake" / "Components.cmake").read_text(encoding="utf-8"))
    tree = Tree(root, components)
    problems: list[str] = []
    # A folder without vwheel_component() is never built, and its includes never checked.
    for base in (root / "src", root / "include" / "vwheel"):
        if base.is_dir():
            for d in sorted(p for p in base.iterdir() if p.is_dir() and p.name not in components):
                problems.append(f"{d.relative_to(root)}/ is not a component: declare it in cmake/Components.cmake")
    for comp, decl in components.items():
        reach = closure(components, comp)
        for d in decl["DEPS"]:
            if d not in components:
                problems.append(f"{comp}: DEPS names {d}, which is not a component")
        for lib in decl["LIBS"]:
            if lib not in LIB_HEADERS:
                problems.append(f"{comp}: LIBS names {lib}, unknown to scripts/check_components.py (add it to LIB_HEADERS)")
        used_deps: set[str] = set()
        used_libs: set[str] = set()
        for f in tree.files(comp):
            rel = f.relative_to(root)
            for _, name in tree.includes(f):
                other = tree.included_component(name)
                if other is None or other == comp:
                    continue
                used_deps.add(other)
                if other not in components:
                    problems.append(f"{comp}: {rel} includes {name}, but {other} is not a component")
                elif other not in reach:
                    problems.append(f"{comp}: {rel} includes {name}, but {other} is not in its DEPS (directly or transitively)")
            for header, owner in tree.third_party(f.resolve()):
                lib = lib_for(header)
                if lib is None or is_implicit(header):
                    continue
                used_libs.add(lib)
                if lib in decl["LIBS"]:
                    continue
                owner_comp = tree.component_of(owner)
                if (lib not in HEADER_ONLY and owner_comp in reach
                        and lib in components[owner_comp]["LIBS"]):
                    continue
                via = "" if owner == f.resolve() else f" (through {owner.relative_to(root)})"
                problems.append(f"{comp}: {rel} includes <{header}>{via}, but {lib} is not in its LIBS")
        for d in decl["DEPS"]:
            if d in components and d not in used_deps:
                problems.append(f"{comp}: declares DEPS {d}, but none of its files includes a {d} header")
        for lib in decl["LIBS"]:
            if lib in LIB_HEADERS and lib not in used_libs:
                problems.append(f"{comp}: declares LIBS {lib}, but none of its files includes "
                                + " or ".join(f"<{h}>" for h in LIB_HEADERS[lib]))
    return sorted(set(problems))


def self_test() -> int:
    """Builds a small drifted tree and checks that every kind of drift is reported."""
    files = {
        "cmake/Components.cmake": (
            "# vwheel_component(NAME [DEPS comp...])\n"
            "vwheel_component(core LIBS vwheel::toml Threads::Threads)\n"
            "vwheel_component(a DEPS core)\n"
            "vwheel_component(u)\n"
            "vwheel_component(b DEPS a core u\n  LIBS nlohmann_json::nlohmann_json)\n"
            "vwheel_component(c DEPS b LIBS ${VWHEEL_DEFLATE_STATIC})\n"
        ),
        "src/core/toml.hpp": "#include <toml++/toml.h>\n",
        "include/vwheel/core/par.hpp": "#include <thread>\n#include <tl/expected.hpp>\n",
        "src/a/a.cpp": '#include "vwheel/core/par.hpp"\n#include <fmt/format.h>\n',
        # b: uses a and core (declared), never u (unused DEP), nlohmann not included (unused LIB),
        # core/toml.hpp without vwheel::toml (missing, through a header).
        "src/b/b.cpp": '#include "vwheel/a/a.hpp"\n#include "core/toml.hpp"\n',
        "include/vwheel/a/a.hpp": "#pragma once\n",
        # c: reaches core transitively (fine), includes d (unknown) and curl (missing LIBS),
        # declares libdeflate without using it.
        "src/c/c.cpp": '#include "vwheel/b/b.hpp"\n#include "vwheel/core/par.hpp"\n'
                       '#include "vwheel/d/d.hpp"\n#include <curl/curl.h>\n',
        "include/vwheel/b/b.hpp": "#pragma once\n",
        "src/orphan/o.cpp": "",
    }
    expected = {
        "b: declares DEPS u, but none of its files includes a u header",
        "b: declares LIBS nlohmann_json::nlohmann_json, but none of its files includes <nlohmann/>",
        "b: src/b/b.cpp includes <toml++/toml.h> (through src/core/toml.hpp), but vwheel::toml is not in its LIBS",
        "c: declares LIBS ${VWHEEL_DEFLATE_STATIC}, but none of its files includes <libdeflate.h>",
        "c: src/c/c.cpp includes <curl/curl.h>, but vwheel::curl_headers is not in its LIBS",
        "c: src/c/c.cpp includes vwheel/d/d.hpp, but d is not a component",
        "src/orphan/ is not a component: declare it in cmake/Components.cmake",
    }
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for rel, text in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text, encoding="utf-8")
        got = set(check(root))
        # Declaring c's dependency on a only transitively is fine; an undeclared one is not.
        (root / "src/a/a2.cpp").write_text('#include "vwheel/b/b.hpp"\n', encoding="utf-8")
        got_cycle = set(check(root)) - got
    ok = True
    if got != expected:
        ok = False
        for line in sorted(expected - got):
            print(f"self-test: not reported: {line}", file=sys.stderr)
        for line in sorted(got - expected):
            print(f"self-test: reported wrongly: {line}", file=sys.stderr)
    want_cycle = {"a: src/a/a2.cpp includes vwheel/b/b.hpp, but b is not in its DEPS (directly or transitively)"}
    if got_cycle != want_cycle:
        ok = False
        print(f"self-test: undeclared dependency: got {sorted(got_cycle)}", file=sys.stderr)
    print("check_components self-test: " + ("ok" if ok else "FAILED"))
    return 0 if ok else 1


def main(argv: list[str]) -> int:
    if argv[1:] == ["--self-test"]:
        return self_test()
    root = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parent.parent
    problems = check(root)
    for p in problems:
        print(f"check_components: {p}", file=sys.stderr)
    if problems:
        print(f"check_components: {len(problems)} problem(s); fix cmake/Components.cmake or the includes",
              file=sys.stderr)
        return 1
    print("check_components: DEPS and LIBS match the includes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

"""An independent reader of pylock.toml: PEP 751's "Installation" steps, written out literally.

It shares no code with vwheel (only Python's `tomllib` and `packaging`), so that the tests can
check that a lock vwheel writes narrows to the same set in every environment for any installer
that follows the PEP, not only for vwheel's own reader.

`install_set()` walks the steps in the PEP's order:

1. `extras` defaults to the empty set, `dependency_groups` to the lock's `default-groups`;
2. `lock-version`: an unsupported major version is an error (`UnsupportedLockVersion`);
3. the lock's `requires-python` must hold (`LockRequiresPython`);
4. one of `environments` must hold, when given (`NoEnvironmentMatches`);
5. for each `[[packages]]` entry: skip it when its `marker` is false; its `requires-python` must
   hold (`PackageRequiresPython`); no other entry of the same name may be applicable
   (`Ambiguity`); its sources must not conflict (`ConflictingSources`);
6. for each package to install, the wheel to take, or else its sdist (`NoSource` when neither).

`source_of()` reads an entry's source table (`sdist`, `archive`, `directory` or `vcs`) with the
keys PEP 751 requires of it (`BadSource` when one is missing or of the wrong type).

Markers: PEP 751 adds the `extras` and `dependency_groups` variables, whose values are sets
(`'cpu' in extras`). `packaging` before 25 cannot parse them, so this module has its own small
PEP 508 marker parser and evaluator; version comparisons use `packaging.specifiers` the way
PEP 508 says (a version comparison when the right side makes a valid specifier, else Python's
string comparison).

Wheels: the reader is *variant-unaware* (PEP 825): it never chooses a variant wheel (a file name
with a variant label: a 6th dash-separated component after the platform tag). It chooses among
the wheels without a label and the null variant (label `null`, the variant wheel with no
properties, which PEP 825 sorts after every other variant and before the non-variant wheels):
the null variant first, then the wheels without a label, and within each group the wheel whose
tags come earliest in the given tag priority list.
"""
import re
import tomllib
from pathlib import Path

from packaging.specifiers import InvalidSpecifier, Specifier, SpecifierSet
from packaging.tags import Tag, parse_tag
from packaging.utils import canonicalize_name

SUPPORTED_MAJOR = 1


class LockError(Exception):
    """A MUST-error of PEP 751's installation steps."""


class UnsupportedLockVersion(LockError):
    pass


class LockRequiresPython(LockError):
    pass


class NoEnvironmentMatches(LockError):
    pass


class PackageRequiresPython(LockError):
    pass


class Ambiguity(LockError):
    """Two applicable entries of one name; `name` and `versions` say which."""

    def __init__(self, name, versions):
        super().__init__(f"more than one entry of {name} applies: versions {sorted(versions)}")
        self.name = name
        self.versions = versions


class ConflictingSources(LockError):
    pass


class NoSource(LockError):
    """No wheel fits the tags and the entry has no sdist."""


class BadSource(LockError):
    """A `sdist`, `archive`, `directory` or `vcs` table without what PEP 751 requires of it."""


class MarkerError(LockError):
    """A marker that does not parse, or uses a variable that is not defined in a lock."""


# ---- markers (PEP 508, with PEP 751's `extras` and `dependency_groups`) ----

SET_VARIABLES = ("extras", "dependency_groups")
STRING_VARIABLES = ("python_version", "python_full_version", "os_name", "sys_platform", "platform_release",
                    "platform_system", "platform_version", "platform_machine", "platform_python_implementation",
                    "implementation_name", "implementation_version")
ALIASES = {"os.name": "os_name", "sys.platform": "sys_platform", "platform.version": "platform_version",
           "platform.machine": "platform_machine", "platform.python_implementation": "platform_python_implementation",
           "python_implementation": "platform_python_implementation"}
VERSION_OPS = ("===", "~=", "==", "!=", "<=", ">=", "<", ">")
TOKEN = re.compile(r"""\s*(?:(?P<str>'[^']*'|"[^"]*")|(?P<op>===|~=|==|!=|<=|>=|<|>)|(?P<paren>[()])"""
                   r"""|(?P<word>[A-Za-z_][A-Za-z0-9_.]*))""")


def _tokens(text):
    pos, out = 0, []
    text = text.rstrip()
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m:
            raise MarkerError(f"cannot parse marker {text!r} at {pos}")
        kind = m.lastgroup
        out.append((kind, m.group(kind)))
        pos = m.end()
    return out


class _Parser:
    """marker_or := marker_and ('or' marker_and)*; marker_and := expr ('and' expr)*;
    expr := var op var | '(' marker_or ')'. Returns a tree of ('or'|'and', [..]) and
    ('cmp', lhs, op, rhs) where lhs/rhs are ('var', name) or ('str', value)."""

    def __init__(self, text):
        self.text = text
        self.toks = _tokens(text)
        self.i = 0

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else (None, None)

    def take(self):
        tok = self.peek()
        self.i += 1
        return tok

    def parse(self):
        tree = self.or_()
        if self.i != len(self.toks):
            raise MarkerError(f"unexpected {self.peek()[1]!r} in marker {self.text!r}")
        return tree

    def or_(self):
        items = [self.and_()]
        while self.peek() == ("word", "or"):
            self.take()
            items.append(self.and_())
        return ("or", items)

    def and_(self):
        items = [self.expr()]
        while self.peek() == ("word", "and"):
            self.take()
            items.append(self.expr())
        return ("and", items)

    def expr(self):
        if self.peek() == ("paren", "("):
            self.take()
            tree = self.or_()
            if self.take() != ("paren", ")"):
                raise MarkerError(f"missing ')' in marker {self.text!r}")
            return tree
        lhs = self.var()
        kind, value = self.take()
        if kind == "op":
            op = value
        elif (kind, value) == ("word", "in"):
            op = "in"
        elif (kind, value) == ("word", "not") and self.take() == ("word", "in"):
            op = "not in"
        else:
            raise MarkerError(f"expected an operator in marker {self.text!r}, got {value!r}")
        return ("cmp", lhs, op, self.var())

    def var(self):
        kind, value = self.take()
        if kind == "str":
            return ("str", value[1:-1])
        if kind == "word":
            name = ALIASES.get(value, value)
            if name in STRING_VARIABLES or name in SET_VARIABLES:
                return ("var", name)
        raise MarkerError(f"unknown marker variable {value!r} in {self.text!r} (`extra` is not defined in a lock)")


def _compare(lhs, op, rhs):
    if isinstance(lhs, frozenset) or isinstance(rhs, frozenset):
        # Only `in`/`not in` with the set on the right make sense (PEP 751 adds no set literals).
        if op not in ("in", "not in") or not isinstance(rhs, frozenset) or isinstance(lhs, frozenset):
            raise MarkerError(f"operator {op!r} between {lhs!r} and {rhs!r}")
        found = canonicalize_name(lhs) in rhs
        return found if op == "in" else not found
    if op in VERSION_OPS:
        try:
            spec = Specifier(op + rhs)
        except InvalidSpecifier:
            pass
        else:
            return spec.contains(lhs, prereleases=True)
    if op == "in":
        return lhs in rhs
    if op == "not in":
        return lhs not in rhs
    if op == "==":
        return lhs == rhs
    if op == "!=":
        return lhs != rhs
    if op in ("<", "<=", ">", ">="):
        return {"<": lhs < rhs, "<=": lhs <= rhs, ">": lhs > rhs, ">=": lhs >= rhs}[op]
    raise MarkerError(f"operator {op!r} is not defined for {lhs!r} and {rhs!r}")


def _evaluate(tree, values):
    kind = tree[0]
    if kind == "or":
        return any(_evaluate(t, values) for t in tree[1])
    if kind == "and":
        return all(_evaluate(t, values) for t in tree[1])
    _, lhs, op, rhs = tree

    def value(v):
        if v[0] == "str":
            return v[1]
        if v[1] not in values:
            raise MarkerError(f"the environment does not define {v[1]}")
        return values[v[1]]

    return _compare(value(lhs), op, value(rhs))


def evaluate_marker(text, environment, extras=frozenset(), dependency_groups=frozenset()):
    """Whether the lock marker `text` holds in `environment` (marker variables -> strings) with
    the requested `extras` and `dependency_groups` (names, normalized here)."""
    values = dict(environment)
    values["extras"] = frozenset(canonicalize_name(e) for e in extras)
    values["dependency_groups"] = frozenset(canonicalize_name(g) for g in dependency_groups)
    return _evaluate(_Parser(text).parse(), values)


# ---- wheels ----

def wheel_label(filename):
    """The variant label of a wheel file name, or None for a wheel without one."""
    parts = filename[:-len(".whl")].split("-")
    if len(parts) == 7:
        return parts[6]
    if len(parts) == 6 and not parts[2][:1].isdigit():  # a build tag starts with a digit
        return parts[5]
    return None


def wheel_tags(filename):
    parts = filename[:-len(".whl")].split("-")
    if wheel_label(filename) is not None:
        parts = parts[:-1]
    return parse_tag("-".join(parts[-3:]))


def _wheel_filename(wheel):
    if "name" in wheel:
        return wheel["name"]
    location = wheel.get("path") or wheel.get("url")
    return location.replace("\\", "/").rsplit("/", 1)[-1]


def choose_wheel(wheels, tags):
    """The file name of the wheel a variant-unaware installer takes, or None (module docstring)."""
    priority = {tag: i for i, tag in enumerate(tags)}
    best = None
    for wheel in wheels:
        filename = _wheel_filename(wheel)
        label = wheel_label(filename)
        if label not in (None, "null"):
            continue
        ranks = [priority[t] for t in wheel_tags(filename) if t in priority]
        if not ranks:
            continue
        key = (0 if label == "null" else 1, min(ranks))
        if best is None or key < best[0]:
            best = (key, filename)
    return best[1] if best else None


# ---- the installation steps ----

def _python_full_version(environment):
    return environment.get("python_full_version") or environment["python_version"]


def applicable_entries(lock, environment, extras=frozenset(), dependency_groups=None):
    """Steps 1-5 without the ambiguity check: name -> every entry whose marker holds.

    `lock` is a path or the parsed document. Raises the MUST-errors of steps 2-5 (but not
    `Ambiguity`), so that a test can list every ambiguous name at once."""
    doc = lock if isinstance(lock, dict) else tomllib.loads(Path(lock).read_text())
    if dependency_groups is None:
        dependency_groups = frozenset(doc.get("default-groups", []))
    version = str(doc.get("lock-version", ""))
    if version.split(".")[0] != str(SUPPORTED_MAJOR):
        raise UnsupportedLockVersion(f"lock-version {version!r}: this reader supports {SUPPORTED_MAJOR}.x")
    python = _python_full_version(environment)
    if "requires-python" in doc and not SpecifierSet(doc["requires-python"]).contains(python, prereleases=True):
        raise LockRequiresPython(f"the lock's requires-python {doc['requires-python']!r} excludes Python {python}")
    if "environments" in doc and not any(evaluate_marker(m, environment) for m in doc["environments"]):
        raise NoEnvironmentMatches(f"no marker of environments {doc['environments']!r} holds")
    found = {}
    for package in doc.get("packages", []):
        if "marker" in package and not evaluate_marker(package["marker"], environment, extras, dependency_groups):
            continue
        name = canonicalize_name(package["name"])
        rp = package.get("requires-python")
        if rp is not None and not SpecifierSet(rp).contains(python, prereleases=True):
            raise PackageRequiresPython(f"{name} {package.get('version')}: requires-python {rp!r} excludes {python}")
        sources = [k for k in ("vcs", "directory", "archive") if k in package]
        if len(sources) > 1 or (sources and ("wheels" in package or "sdist" in package)):
            raise ConflictingSources(f"{name}: {sources + [k for k in ('wheels', 'sdist') if k in package]}")
        found.setdefault(name, []).append(package)
    return found


def ambiguous_names(lock, environment, extras=frozenset(), dependency_groups=None):
    """The names with more than one applicable entry (step 5's ambiguity), sorted."""
    entries = applicable_entries(lock, environment, extras, dependency_groups)
    return sorted(name for name, found in entries.items() if len(found) > 1)


def _source(name, package, tags):
    """(version, file name) of one entry: the wheel to take, else its sdist; None as the file
    name for an entry that is built from a `directory`, `vcs` or `archive`."""
    if any(k in package for k in ("vcs", "directory", "archive")):
        return package.get("version"), None
    filename = choose_wheel(package.get("wheels", []), tags)
    if filename is None and "sdist" in package:
        filename = _wheel_filename(package["sdist"])
    if filename is None:
        raise NoSource(f"{name} {package.get('version')}: no wheel fits the tags and there is no sdist")
    return package.get("version"), filename


def _tags(tags):
    return [t if isinstance(t, Tag) else next(iter(parse_tag(t))) for t in tags]


def install_set(lock_path, environment, tags, extras=frozenset(), dependency_groups=None):
    """name -> (version, wheel file name) that PEP 751's installation steps install.

    `environment`: marker variables -> strings; `tags`: tag strings or `packaging.tags.Tag`s, most
    preferred first; `dependency_groups=None` means the lock's `default-groups`. An entry without
    wheels that fit gives its sdist's file name; a `directory`/`vcs`/`archive` entry gives None
    as its file name (it is built, not chosen)."""
    tags = _tags(tags)
    chosen = {}
    for name, found in applicable_entries(lock_path, environment, extras, dependency_groups).items():
        if len(found) > 1:
            raise Ambiguity(name, [p.get("version") for p in found])
        chosen[name] = _source(name, found[0], tags)
    return chosen



# ---- sources other than wheels ----

# PEP 751, per table: key -> (type, required?). `url`/`path`: one of them is required, checked apart.
SOURCE_KEYS = {
    "sdist": {"name": (str, False), "upload-time": (object, False), "url": (str, False), "path": (str, False),
              "size": (int, False), "hashes": (dict, True)},
    "archive": {"url": (str, False), "path": (str, False), "size": (int, False), "upload-time": (object, False),
                "hashes": (dict, True), "subdirectory": (str, False)},
    "directory": {"path": (str, True), "editable": (bool, False), "subdirectory": (str, False)},
    "vcs": {"type": (str, True), "url": (str, False), "path": (str, False), "requested-revision": (str, False),
            "commit-id": (str, True), "subdirectory": (str, False)},
}


def source_of(package):
    """(kind, table) of the entry's source other than wheels, or None when it has only wheels.

    The table's keys are checked against PEP 751: required keys present, types right, one of
    `url`/`path` where the PEP wants one, at least one hash where hashes are required."""
    kinds = [k for k in ("vcs", "directory", "archive", "sdist") if k in package]
    if not kinds:
        return None
    kind = kinds[0]
    table = package[kind]
    name = f"{package.get('name')} {package.get('version')}"
    if not isinstance(table, dict):
        raise BadSource(f"{name}: {kind} is not a table")
    for key, (kind_type, required) in SOURCE_KEYS[kind].items():
        if key not in table:
            if required:
                raise BadSource(f"{name}: {kind}.{key} is required")
            continue
        if not isinstance(table[key], kind_type) or (kind_type is int and isinstance(table[key], bool)):
            raise BadSource(f"{name}: {kind}.{key} is not a {kind_type.__name__}")
    if kind != "directory" and "url" not in table and "path" not in table:
        raise BadSource(f"{name}: {kind} has neither url nor path")
    if "hashes" in SOURCE_KEYS[kind] and not table["hashes"]:
        raise BadSource(f"{name}: {kind}.hashes is empty")
    return kind, table

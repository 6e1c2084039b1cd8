"""Named doc sets with versions: `--docs NAME@VERSION=PATH` (or `NAME=PATH`, or `PATH`).

A set's version is the one given, else the one its folder says: a `VERSION` file,
`pyproject.toml` or `package.json` in the folder or the two above it, the metadata of
an installed package beside it (`NAME-VERSION.dist-info`), or `git describe`. A coding
agent that reads from two versions of one library is told which version answered.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from agent.errors import ConfigError
from agent.tools.docs import DocsContext

VERSION_FILES = ("VERSION", "pyproject.toml", "package.json")
UP = 2  # folders above the docs folder looked in for a version
MAX_VERSION_BYTES = 64 * 1024  # a version file larger than this is not read
GIT_TIMEOUT_S = 2.0
TITLE_DOCS = ("index.md", "README.md", "index.rst", "README.rst", "index.html", "README.txt")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_VERSION = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+_-]{0,63}")
_TOML_VERSION = re.compile(r'(?m)^version\s*=\s*["\']([^"\'\n]{1,64})["\']')
_DIST_INFO = re.compile(r"(.+)-([^-]+)\.dist-info")


@dataclass(frozen=True)
class DocsSpec:
    """One `--docs` value read: the set's name and version if given, and its folder."""

    path: Path
    name: str | None = None
    version: str | None = None


def parse_docs_spec(text: str) -> DocsSpec:
    """`NAME@VERSION=PATH`, `NAME=PATH` or `PATH` (a folder that exists is always a PATH).

    Raises ConfigError for a name or version with other characters than letters, digits
    and `.`, `_`, `-` (a version may also hold `+`).
    """
    head, sep, rest = text.partition("=")
    if not sep or os.path.isdir(text) or "/" in head or os.sep in head:
        return DocsSpec(Path(text))
    name, at, version = head.partition("@")
    if not _NAME.fullmatch(name) or (at and not _VERSION.fullmatch(version)):
        raise ConfigError(
            f"cannot read --docs {text[:80]!r}: give PATH, NAME=PATH or NAME@VERSION=PATH "
            "(a name of letters, digits, '.', '_' or '-')",
            fields=("docs",),
        )
    return DocsSpec(Path(rest), name, version or None)


def find_version(folder: Path) -> str | None:
    """The version the folder (or one of the two above it) says it documents, if any."""
    place = folder.resolve()
    for _ in range(UP + 1):
        for file in VERSION_FILES:
            found = _version_in(place / file)
            if found:
                return found
        found = _installed_beside(place)
        if found:
            return found
        if place.parent == place:
            break
        place = place.parent
    return _git_describe(folder)


def _read_small(path: Path) -> str | None:
    try:
        if not path.is_file() or path.stat().st_size > MAX_VERSION_BYTES:
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _version_in(path: Path) -> str | None:
    text = _read_small(path)
    if text is None:
        return None
    if path.name == "VERSION":
        first = text.strip().splitlines()[0].strip() if text.strip() else ""
        return first if _VERSION.fullmatch(first) else None
    if path.name == "package.json":
        try:
            data = json.loads(text)
        except ValueError:
            return None
        found = data.get("version") if isinstance(data, dict) else None
        return found if isinstance(found, str) and _VERSION.fullmatch(found) else None
    project = text.split("[project]", 1)[1] if "[project]" in text else ""
    project = project.split("\n[", 1)[0]  # the [project] table only
    match = _TOML_VERSION.search(project)
    return match.group(1) if match and _VERSION.fullmatch(match.group(1)) else None


def _installed_beside(place: Path) -> str | None:
    """An installed package's version, for docs inside a package (site-packages/pkg/docs)."""
    try:
        names = os.listdir(place.parent)
    except OSError:
        return None
    for name in names:
        match = _DIST_INFO.fullmatch(name)
        if match and match.group(1).lower().replace("-", "_") == place.name.lower():
            return match.group(2)
    return None


def _git_describe(folder: Path) -> str | None:
    try:
        done = subprocess.run(
            # no fsmonitor or hooks a docs folder's own git config may name
            [
                "git",
                "-c",
                "core.fsmonitor=",
                "-c",
                "core.hooksPath=/dev/null",
                "describe",
                "--tags",
                "--always",
            ],  # fmt: skip
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    found = done.stdout.strip()
    return found if done.returncode == 0 and _VERSION.fullmatch(found) else None


@dataclass(frozen=True, eq=False)
class DocSet:
    """A docs folder served under a name, with its version and title."""

    name: str
    version: str | None
    title: str
    folder: str
    docs: DocsContext = field(repr=False)
    key: str = ""  # how a client names it: `name`, or `name@version` when two share a name

    @property
    def label(self) -> str:
        """The set as results name it: `name version`."""
        return f"{self.key} {self.version}" if self.version and "@" not in self.key else self.key


def title_of(docs: DocsContext, fallback: str) -> str:
    """The title of the set's front page (index.md, README.md, ...), else `fallback`."""
    paths = set(docs.corpus.paths())
    for rel in TITLE_DOCS:
        if rel in paths:
            try:
                return docs.corpus.title(rel) or fallback
            except Exception:  # an unreadable front page: the folder's name will do
                return fallback
    return fallback


def name_sets(sets: list[DocSet]) -> list[DocSet]:
    """The sets with their keys: the name, or `name@version` where names repeat.

    Raises ConfigError when two sets would still share a key.
    """
    from dataclasses import replace

    counts: dict[str, int] = {}
    for s in sets:
        counts[s.name] = counts.get(s.name, 0) + 1
    named = [
        replace(s, key=s.name if counts[s.name] == 1 else f"{s.name}@{s.version or '?'}")
        for s in sets
    ]
    keys = [s.key for s in named]
    twice = next((k for k in keys if keys.count(k) > 1), None)
    if twice is not None:
        raise ConfigError(
            f"two doc sets are named {twice}: give each its own NAME=PATH or NAME@VERSION=PATH",
            fields=("docs",),
        )
    return named


def set_schema(sets: list[DocSet]) -> dict[str, object]:
    """The `set` argument every served tool takes when several sets are served."""
    named = ", ".join(f"{s.key} ({s.title})" for s in sets)
    return {
        "type": "string",
        "enum": [s.key for s in sets],
        "description": f"The doc set to look in: {named}; all of them when left out.",
    }


def choose(sets: list[DocSet], arguments: dict[str, object]) -> list[DocSet] | str:
    """The sets a call looks in (its `set` argument taken out), or why it is refused."""
    wanted = arguments.pop("set", None)
    if wanted is None:
        return sets
    found = [s for s in sets if wanted in (s.key, f"{s.name}@{s.version}")]
    if not found:
        keys = ", ".join(s.key for s in sets)
        return f"error: there is no doc set {str(wanted)[:80]!r}; the sets are {keys}"
    return found[:1]


def across(
    sets: list[DocSet], run: Callable[[DocsContext], tuple[str, bool]], *, one_answer: bool
) -> tuple[str, bool]:
    """A call run on each set, each result under a line naming its set and version.

    With `one_answer` (read_doc), sets that cannot answer are left out when another can.
    An error only when every set's result is one.
    """
    results = [(s, *run(s.docs)) for s in sets]
    if one_answer and any(not error for _, _, error in results):
        results = [r for r in results if not r[2]]
    parts = [
        f"[set {s.label}]\n{text}" if len(sets) > 1 else f"[set {s.label}] {text}"
        for s, text, _ in results
    ]
    return "\n\n".join(parts), all(error for _, _, error in results)

"""The eval question sets: where their files and docs are, and whether they still match.

Shared by the question-set tests and `tests/bench/bench_eval.py`.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from agent import Corpus, Question, evidence_problems

HERE = Path(__file__).resolve().parent
BENCH_SETS = ("manual", "httpx", "cmake", "vim", "postgres", "sphinx")
HELDOUT_SETS = (
    "python",
    "git",
    "apache",
    "sqlite",
    "flask",
    "django",
    "pytest",
    "click",
    "zsh",
    "node",
    "jinja",
)
SPENT_SETS = ("configobj", "controlflow", "werkzeug", "sqlalchemy")
"""The first blind sets of 2026-12-07 (tests/eval/blind/), written from reading the docs
alone and committed with their hashes (`blind/HASHES`) before the rules they judge: a small
folder (configobj's 3 HTML pages), an MDX site with front matter (ControlFlow's Mintlify
docs), a Sphinx reStructuredText source (Werkzeug's docs/) and a big HTML manual
(SQLAlchemy 1.4's, 164 pages). Run once, blind; no rule has changed because of them, but
their questions have been read since, so they are development sets now."""
FRESH_SETS = ("transitions", "fastmcp", "babel", "celery")
"""The blind sets: written from reading the docs alone after the first four were run, and
committed with their hashes before anything changed: a one-page folder (transitions'
README), an MDX site (FastMCP's Mintlify docs), a Sphinx reST source (Babel's docs/) and a
big HTML manual (Celery 5.2's, 218 pages). Run only to report; a rule changed because of
one makes it a development set."""
DEVELOPMENT_SETS = BENCH_SETS + HELDOUT_SETS + SPENT_SETS
"""Every set written before 2026-12-07: tuned on, so they show regressions, not how
docsagent does on docs nobody tuned it for."""
BLIND = HERE / "blind"
BLIND_SETS = HELDOUT_SETS + ("postgres", "sphinx")
"""The sets written blind, from reading the docs alone: the held-out sets, and the two bench
sets whose first run measured questions nobody had tuned for."""
FIRST_HITS = {
    "postgres": 10,
    "sphinx": 10,
    "python": 9,
    "git": 12,
    "apache": 7,
    "sqlite": 13,
    "flask": 18,
    "django": 14,
    "pytest": 16,
    "click": 12,
    "zsh": 18,
    "node": 11,
    "jinja": 18,
}
"""The offline model's hits (evidence in the first three citations) on each blind set's
first run (tests/eval/README.md): 150 of 267 over the twelve sets the decline targets were
set on, 168 of 291 with the jinja set; the floor its hits must keep."""
WRITTEN_FOR = {
    "cmake": Path("/usr/share/cmake-3.25/Help"),
    "vim": Path("/usr/share/vim/vim90/doc"),
    "postgres": Path("/usr/share/doc/postgresql-doc-15/html"),
    "sphinx": Path("/usr/share/doc/sphinx-doc/html"),
    "python": Path("/usr/share/doc/python3.11/html/_sources"),
    "git": Path("/usr/share/doc/git-doc"),
    "apache": Path("/usr/share/doc/apache2-doc/manual/en"),
    "sqlite": Path("/usr/share/doc/sqlite3"),
    "flask": Path("/usr/share/doc/python-flask-doc/html"),
    "django": Path("/usr/share/doc/python-django-doc/html"),
    "pytest": Path("/usr/share/doc/python-pytest-doc/html"),
    "click": Path("/usr/share/doc/python-click-doc/html"),
    "zsh": Path("/usr/share/doc/zsh-common/html"),
    "node": Path("/usr/share/doc/nodejs/api"),
    "jinja": Path("/usr/share/doc/python-jinja2-doc/html"),
}
"""The Debian doc folders (Debian 12) whose lines the evidence of those sets counts."""


def chosen(picked: list[str] | None, *, heldout: bool, blind: bool = False) -> tuple[str, ...]:
    """The sets a run measures: the bench sets (or the held-out ones, or every blind one),
    only those `picked` if any are; ValueError for a picked name that is not one of them."""
    group = BLIND_SETS if blind else HELDOUT_SETS if heldout else BENCH_SETS
    if not picked:
        return group
    unknown = sorted(set(picked) - set(group))
    if unknown:
        kind = "blind" if blind else "held-out" if heldout else "bench"
        hint = "" if heldout or blind else " (held-out sets run only with --heldout)"
        raise ValueError(
            f"not a {kind} set: {', '.join(unknown)}; choose from {' '.join(group)}{hint}"
        )
    return tuple(name for name in group if name in picked)


def question_file(name: str) -> Path:
    """The JSONL file of a set (held-out sets live in `heldout/`, the fresh blind ones in
    `blind/`)."""
    blind = name in FRESH_SETS + SPENT_SETS
    folder = HERE / "heldout" if name in HELDOUT_SETS else BLIND if blind else HERE
    return folder / f"{name}.jsonl"


def hashes() -> dict[str, str]:
    """The fresh blind sets' SHA-256 as committed (`blind/HASHES`), by file name."""
    lines = (BLIND / "HASHES").read_text().splitlines()
    return {name: digest for digest, name in (line.split() for line in lines if line.strip())}


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def source(name: str) -> dict[str, str]:
    """Where a fresh blind set's docs come from (`blind/NAME.source`: kind, package, version,
    folder, ...)."""
    text = (BLIND / f"{name}.source").read_text()
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def fetch_fresh(name: str, cache: Path, *, download: bool) -> Path | None:
    """A fresh blind set's docs folder, unpacked under `cache` (downloaded from its package
    registry when missing and `download`: an sdist, an npm tarball or a Debian package,
    unpacked, never installed); None when it is not there."""
    where = source(name)
    root = cache / name
    folder = root / where["folder"]
    if (root / ".complete").exists():
        return folder
    if not download:
        return None
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as work:
        kind, package, version = where["kind"], where["package"], where["version"]
        if kind == "deb":
            command = ["apt-get", "download", "-qq", f"{package}={version}"]
        elif kind == "pypi":
            command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps"]
            command += ["--no-binary", ":all:", f"{package}=={version}", "-d", work]
        else:
            command = ["npm", "pack", "--silent", f"{package}@{version}"]
        if subprocess.run(command, cwd=work, capture_output=True).returncode != 0:
            return None
        for got in Path(work).iterdir():
            if got.suffix == ".deb":
                subprocess.run(["dpkg-deb", "-x", str(got), str(root)], check=True)
            elif got.name.endswith((".tar.gz", ".tgz")):
                with tarfile.open(got) as archive:
                    archive.extractall(root, filter="data")
    if not folder.is_dir():
        return None
    (root / ".complete").touch()
    return folder


def locate(names: tuple[str, ...], *, install: bool) -> dict[str, Path]:
    """The docs folder of each set found (installing missing Debian packages if `install`)."""
    flags = [] if install else ["--no-install"]
    out = subprocess.run(
        ["bash", str(HERE / "fetch_docs.sh"), *flags, *names],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    found = dict(line.split("\t", 1) for line in out.splitlines() if "\t" in line)
    return {name: Path(folder) for name, folder in found.items()}


def drift(questions: list[Question], docs: Path) -> list[str]:
    """Why the set's evidence does not fit these docs: ranges that are not lines of a doc,
    and must-mention terms in none of a question's ranges (the docs moved on)."""
    corpus = Corpus.open(docs)
    problems = evidence_problems(questions, corpus)
    if problems:
        return problems
    read: dict[str, list[str]] = {}  # each doc read once: the node set's all.html takes seconds
    for question in questions:
        for e in question.evidence:
            if e.path not in read:
                read[e.path] = corpus.read_lines(corpus.resolve(e.path))
        texts = ["\n".join(read[e.path][e.start - 1 : e.end]).casefold() for e in question.evidence]
        for term in question.must_mention:
            if texts and not any(term.casefold() in text for text in texts):
                ranges = ", ".join(str(e) for e in question.evidence)
                problems.append(f"line {question.line}: {term!r} is not in {ranges}")
    return problems

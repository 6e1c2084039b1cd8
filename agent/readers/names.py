"""Which files of a docs folder are docs by their names, and a line on those skipped."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping

from agent.readers.registry import doc_suffix

GENERATED = frozenset({"genindex.html", "search.html", "py-modindex.html", "404.html"})
"""Pages a docs builder writes that index or search the docs rather than document anything."""

BUILD_MARKS = ("_static", "searchindex.js", "objects.inv", "search", "sitemap.xml")
"""What a builder's output folder holds beside those pages (Sphinx's `_static` and
`searchindex.js`, MkDocs' `search/` and `sitemap.xml`): elsewhere a page of the same name
is a doc, as Django's topic guide on searching, `topics/db/search.html`."""

GENERATED_FOLDERS = frozenset({"_sources", "_modules"})
"""Sphinx's copies of the sources and its highlighted code: the same text twice, or code."""


def is_generated(rel: str, built: Callable[[str], bool] = lambda folder: True) -> bool:
    """Whether a relative path is a docs builder's index, search page or source copy.

    `built(folder)` tells whether a folder is a builder's output (`BUILD_MARKS`): only
    there is a page named like an index or a search page one.
    """
    folder, _, name = rel.lower().rpartition("/")
    if "_" in folder and not GENERATED_FOLDERS.isdisjoint(folder.split("/")):
        return True  # (every generated folder's name holds a `_`: most paths skip the split)
    name = name.removesuffix(".gz")
    split_index = name.startswith("genindex-")  # Sphinx's index, one page per letter
    return (name in GENERATED or split_index) and built(rel.rpartition("/")[0])


def not_a_doc(rel: str, built: Callable[[str], bool] = lambda folder: True) -> str | None:
    """Why the file at relative path `rel` is not read as a doc, by its name; None if it is.

    `built` is as for `is_generated`."""
    if doc_suffix(rel) is None:
        return "unknown type"
    if is_generated(rel, built):
        return "generated"
    return None


def skipped_summary(skipped: Mapping[str, str], examples: int = 3) -> str:
    """A line counting skipped files by reason: `3 files skipped: 2 binary (a.txt, b.md); ...`.

    Files of unknown type are named by their suffixes, the others by their paths.
    """
    groups: dict[str, list[str]] = {}
    for rel, reason in sorted(skipped.items()):
        groups.setdefault(reason, []).append(rel)
    parts = []
    for reason, paths in sorted(groups.items(), key=lambda item: (-len(item[1]), item[0])):
        if reason == "unknown type":
            counted = Counter(_kind(rel) for rel in paths)
            kinds = sorted(counted.items(), key=lambda item: (-item[1], item[0]))
            names, label = [f"{n} {kind}" for kind, n in kinds], "of unknown type"
        else:
            names, label = paths, reason
        shown = ", ".join(names[:examples]) + (", …" if len(names) > examples else "")
        parts.append(f"{len(paths)} {label} ({shown})")
    total = len(skipped)
    return f"{total} file{'s' if total != 1 else ''} skipped: " + "; ".join(parts)


def _kind(rel: str) -> str:
    name = rel.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    return name[dot:].lower() if dot > 0 else "no suffix"


def unread_summary(
    unread: Mapping[str, str],
    what: str = "docs",
    why: str = "could not be read",
    examples: int = 3,
) -> str:
    """One line naming files left out, by reason: a few named, the rest counted
    (`skipped 5 docs that could not be read — binary: a.md, b.md, c.md and 1 more;
    encrypted (DRM): x.epub`); `skipped a.md: binary` for one."""
    if len(unread) == 1:
        (rel, reason), *_ = unread.items()
        return f"skipped {rel}: {reason}"
    groups: dict[str, list[str]] = {}
    for rel, reason in unread.items():
        groups.setdefault(reason, []).append(rel)
    parts = []
    for reason, paths in sorted(groups.items(), key=lambda item: (-len(item[1]), item[0])):
        shown = ", ".join(paths[:examples])
        more = f" and {len(paths) - examples} more" if len(paths) > examples else ""
        parts.append(f"{reason}: {shown}{more}")
    return f"skipped {len(unread)} {what} that {why} — " + "; ".join(parts)

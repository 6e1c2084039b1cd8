"""A docs folder: which of its files count as docs, found once, and where each one is.

Nothing here reads a doc (`Corpus` does, through one cache): the scan walks the folder
through the sandbox (`agent.tools.sandbox`) and judges files by their names.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TypeVar

from agent.errors import ConfigError
from agent.readers.names import BUILD_MARKS, not_a_doc
from agent.readers.registry import DESCRIPTION
from agent.tools.sandbox import Unreadable, escape_name, inside, printable, walk

NOT_DOCS = frozenset({"license", "licence", "copying", "notice"})
SHOWN_PATH_CHARS = 200
"""A folder's path longer than this is shortened in error lines (middle elided)."""


Folder = TypeVar("Folder", bound="DocsFolder")


class OutsideDocs(ValueError):
    """A path that does not lead to a doc inside the folder."""


class DocsFolder:
    """The docs under `root`, found once: their shown paths, and their files on disk."""

    def __init__(self, root: Path | str) -> None:
        self._real = os.path.realpath(root)
        self.root = Path(self._real)
        self._paths: list[str] | None = None
        self._path_set: frozenset[str] = frozenset()
        self._files: dict[str, str] = {}  # shown name -> the file's path on disk
        self._skipped: list[Unreadable] = []
        self._passed_over: dict[str, str] = {}  # not docs, by name: never opened
        self._builds: dict[str, bool] = {}  # folder -> whether a builder wrote it

    @classmethod
    def open(cls: type[Folder], root: Path | str, **options: int) -> Folder:
        """A folder over `root`; raises ConfigError if it is missing or holds no docs."""
        path = Path(root).expanduser()
        shown = _shown(str(path))
        try:
            mode = path.stat().st_mode
        except (FileNotFoundError, NotADirectoryError):
            raise ConfigError(f"docs folder not found: {shown}") from None
        except (OSError, ValueError) as exc:  # a name too long, a NUL byte, no permission
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise ConfigError(f"cannot open the docs folder {shown}: {reason}") from None
        if not stat.S_ISDIR(mode):
            raise ConfigError(f"not a folder of docs: {shown}", fields=("docs",))
        folder = cls(path, **options)
        if not folder.paths():
            unlisted = next((s for s in folder.skipped if s.name == "/"), None)
            if unlisted is not None:
                raise ConfigError(f"cannot open the docs folder {path}: {unlisted.reason}")
            raise ConfigError(f"no docs in {path}: expected {DESCRIPTION}")
        return folder

    def paths(self) -> list[str]:
        """Every doc's shown path relative to the root, with `/`, sorted (found once)."""
        if self._paths is None:
            found = walk(self._real, self._is_doc)
            inside = os.path.join(self._real, "")  # the root and a separator: + rel is a path
            shown = {escape_name(rel): inside + rel for rel in found.files}
            self._files = shown
            self._skipped = found.skipped
            self._paths = sorted(shown)
            self._path_set = frozenset(self._paths)
        return self._paths

    @property
    def skipped(self) -> list[Unreadable]:
        """The folders and files the scan for docs could not open."""
        self.paths()
        return self._skipped

    def _is_doc(self, rel: str) -> bool:
        """Whether the file at `rel` is a doc by its name; if not, remember why."""
        name = rel.rsplit("/", 1)[-1]
        reason = (
            "licence" if name.split(".")[0].lower() in NOT_DOCS else not_a_doc(rel, self._built)
        )
        if reason is not None:
            self._passed_over[escape_name(rel)] = reason
        return reason is None

    def _built(self, folder: str) -> bool:
        """Whether a folder of the docs is a docs builder's output (`BUILD_MARKS`)."""
        if folder not in self._builds:
            place = os.path.join(self._real, folder)
            self._builds[folder] = any(os.path.exists(os.path.join(place, m)) for m in BUILD_MARKS)
        return self._builds[folder]

    def resolve(self, path: str) -> str:
        """The shown relative path of a doc, or OutsideDocs saying why not."""
        cleaned = path.strip()
        self.paths()
        if cleaned in self._path_set:
            return cleaned
        shown = printable(path)
        cleaned = cleaned.replace("\\", "/")
        if cleaned.startswith("/") or (len(cleaned) > 1 and cleaned[1] == ":"):
            raise OutsideDocs(f"'{shown}' is an absolute path; paths are relative to the docs")
        if "\x00" in cleaned:
            raise OutsideDocs(f"no file '{shown}' in the docs")
        real = os.path.realpath(os.path.join(self._real, cleaned))
        if not inside(self._real, real):
            raise OutsideDocs(f"'{shown}' is outside the docs folder")
        if not os.path.isfile(real):
            raise OutsideDocs(f"no file '{shown}' in the docs")
        rel = escape_name(os.path.relpath(real, self._real).replace(os.sep, "/"))
        if rel not in self._path_set:
            raise OutsideDocs(f"'{shown}' is not a doc (docs are {DESCRIPTION})")
        return rel

    def file(self, rel: str) -> str:
        """Where the doc shown as `rel` is on disk (names not shown as they are differ)."""
        self.paths()
        return self._files.get(rel, os.path.join(self._real, rel))

    def passed_over(self) -> dict[str, str]:
        """Files the scan did not take as docs, by name, and why (`unknown type`, ...)."""
        self.paths()
        return dict(self._passed_over)


def _shown(path: str) -> str:
    """`path` for an error line: whole when short, else its start and end around `…`."""
    if len(path) <= SHOWN_PATH_CHARS:
        return path
    half = SHOWN_PATH_CHARS // 2
    return f"{path[:half]}…{path[-half:]}"

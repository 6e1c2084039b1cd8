"""A docs folder: which files count as docs, and safe access to them."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from agent.errors import ConfigError
from agent.search.sections import first_heading
from agent.tools.formats import DESCRIPTION, NotText, doc_lines, heading_style, not_a_doc

NOT_DOCS = frozenset({"license", "licence", "copying", "notice"})


class OutsideDocs(ValueError):
    """A path that does not lead to a doc inside the folder."""


@dataclass
class Corpus:
    """The docs under `root`, read lazily and cached."""

    root: Path
    _lines: dict[str, list[str]] = field(default_factory=dict, repr=False)
    _paths: list[str] | None = field(default=None, repr=False)
    _skipped: dict[str, str] = field(default_factory=dict, repr=False)

    @classmethod
    def open(cls, root: Path | str) -> Corpus:
        """A corpus over `root`; raises ConfigError if it is missing or holds no docs."""
        path = Path(root).expanduser()
        if not path.exists():
            raise ConfigError(f"docs folder not found: {path}")
        if not path.is_dir():
            raise ConfigError(f"not a folder: {path} (--docs wants a folder of docs)")
        corpus = cls(path.resolve())
        if not corpus.paths():
            raise ConfigError(f"no docs in {path}: expected {DESCRIPTION}")
        return corpus

    def paths(self) -> list[str]:
        """Every doc's path relative to the root, with `/`, sorted (found once, then kept)."""
        if self._paths is None:
            self._paths = self._scan()
        return self._paths

    def _scan(self) -> list[str]:
        found = []
        for file in self.root.rglob("*"):
            rel = file.relative_to(self.root)
            if any(part.startswith(".") for part in rel.parts):
                continue
            reason = self._not_a_doc(rel.as_posix())
            if reason:
                if file.is_file():
                    self._skipped[rel.as_posix()] = reason  # counted, never read
                continue
            if file.is_file() and self._inside(file):
                found.append(rel.as_posix())
        return sorted(found)

    def _not_a_doc(self, rel: str) -> str | None:
        """Why a file is not read as a doc (by its name), or None if it is one."""
        if rel.rsplit("/", 1)[-1].split(".")[0].lower() in NOT_DOCS:
            return "licence"
        return not_a_doc(rel)

    def _inside(self, file: Path) -> bool:
        try:
            file.resolve().relative_to(self.root)
        except ValueError:
            return False
        return True

    def resolve(self, path: str) -> str:
        """The normalised relative path of a doc, or OutsideDocs saying why not."""
        cleaned = path.strip().replace("\\", "/")
        if cleaned.startswith("/") or (len(cleaned) > 1 and cleaned[1] == ":"):
            raise OutsideDocs(f"'{path}' is an absolute path; paths are relative to the docs")
        target = self.root / cleaned
        if not self._inside(target):
            raise OutsideDocs(f"'{path}' is outside the docs folder")
        rel = target.resolve().relative_to(self.root).as_posix()
        if not target.is_file():
            raise OutsideDocs(f"no file '{path}' in the docs")
        if rel not in self._path_set():
            raise OutsideDocs(f"'{path}' is not a doc (docs are {DESCRIPTION})")
        return rel

    def _path_set(self) -> frozenset[str]:
        return frozenset(self.paths())

    def lines(self, rel: str) -> list[str]:
        """The lines of a doc (by its resolved relative path); none if it cannot be read."""
        if rel not in self._lines:
            try:
                self._lines[rel] = self.read_lines(rel)
            except (NotText, OSError) as exc:
                self._skipped[rel] = str(exc) if isinstance(exc, NotText) else "unreadable"
                self._lines[rel] = []
        return self._lines[rel]

    def read_lines(self, rel: str) -> list[str]:
        """A doc's text lines, read afresh (see `agent.tools.formats`); NotText or OSError."""
        return doc_lines((self.root / rel).read_bytes(), rel)

    def skipped(self) -> dict[str, str]:
        """The files passed over so far, and why: by name when scanned, the rest when read."""
        self.paths()
        return dict(self._skipped)

    def title(self, rel: str) -> str:
        """The doc's first heading, or ''."""
        return first_heading(self.lines(rel), heading_style(rel))

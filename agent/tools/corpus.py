"""A docs folder: which files count as docs, and safe access to them."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from agent.errors import ConfigError

DOC_SUFFIXES = frozenset({".md", ".markdown", ".rst", ".txt"})
NOT_DOCS = frozenset({"license", "licence", "copying", "notice"})


class OutsideDocs(ValueError):
    """A path that does not lead to a doc inside the folder."""


@dataclass
class Corpus:
    """The docs under `root`, read lazily and cached."""

    root: Path
    _lines: dict[str, list[str]] = field(default_factory=dict, repr=False)
    _paths: list[str] | None = field(default=None, repr=False)

    @classmethod
    def open(cls, root: Path | str) -> Corpus:
        """A corpus over `root`; raises ConfigError if it is missing or holds no docs."""
        path = Path(root).expanduser()
        if not path.exists():
            raise ConfigError(f"docs folder not found: {path}")
        if not path.is_dir():
            raise ConfigError(f"not a folder of docs: {path}", fields=("docs",))
        corpus = cls(path.resolve())
        if not corpus.paths():
            raise ConfigError(f"no docs in {path}: expected .md, .markdown, .rst or .txt files")
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
            if file.suffix.lower() not in DOC_SUFFIXES or file.stem.lower() in NOT_DOCS:
                continue
            if file.is_file() and self._inside(file):
                found.append(rel.as_posix())
        return sorted(found)

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
            raise OutsideDocs(f"'{path}' is not a doc (docs are .md, .markdown, .rst and .txt)")
        return rel

    def _path_set(self) -> frozenset[str]:
        return frozenset(self.paths())

    def lines(self, rel: str) -> list[str]:
        """The lines of a doc (by its resolved relative path)."""
        if rel not in self._lines:
            text = (self.root / rel).read_text(encoding="utf-8", errors="replace")
            self._lines[rel] = text.splitlines()
        return self._lines[rel]

    def title(self, rel: str) -> str:
        """The doc's first heading, or ''."""
        for line in self.lines(rel)[:40]:
            if line.startswith("#"):
                return line.lstrip("#").strip()
        return ""

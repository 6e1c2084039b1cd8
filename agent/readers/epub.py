"""EPUB books: a zip of XHTML chapters, read in their reading order as one text.

The book's package file (named by `META-INF/container.xml`) lists its chapters in
reading order (the spine); each is read by the HTML reader (`html`), so headings
become `#` lines, and a chapter with no heading of its own gets its title from the
book's table of contents (EPUB 3's navigation page or EPUB 2's NCX) or its `<title>`.
Line numbers count the lines of this text, as for a built HTML page.

Within bounds: at most `MAX_MEMBERS` files in the zip, and the chapters and package
files read unzip to at most `MAX_UNZIPPED` bytes in all; a damaged, encrypted (DRM) or
oversized book is NotText with the reason. The package files are read with the HTML
tokenizer (linear on any input), not an XML parser that would expand entities.
"""

from __future__ import annotations

import io
import posixpath
import zipfile
import zlib
from dataclasses import dataclass, field
from urllib.parse import unquote

from agent.readers.base import NotText
from agent.readers.decoding import decode
from agent.readers.html import html_lines
from agent.readers.html_tokens import feed
from agent.readers.unzip import MAX_UNZIPPED

MAX_MEMBERS = 20_000
"""Files an EPUB may hold: a bound on the work of listing a hostile zip."""
HTML_TYPES = frozenset({"application/xhtml+xml", "text/html"})


def read(data: bytes) -> str:
    """The book's text: its chapters in reading order, each as the HTML reader reads it."""
    try:
        return _Book(zipfile.ZipFile(io.BytesIO(data))).text()
    except (zipfile.BadZipFile, zlib.error, EOFError, ValueError, KeyError) as exc:
        if isinstance(exc, NotText):
            raise
        raise NotText("a damaged EPUB") from None
    except NotImplementedError:
        raise NotText("an EPUB compressed in a way Python cannot read") from None
    except RuntimeError:  # zipfile: "File ... is encrypted, password required"
        raise NotText("encrypted") from None


WANTED = frozenset("rootfile item itemref spine a text content encrypteddata title".split())
"""The tags of a package, navigation or encryption file that tell anything here."""


@dataclass
class _Tags:
    """The wanted start tags of an XML file, their attributes and the text after each."""

    tags: list[tuple[str, dict[str, str | None]]] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    _pieces: list[str] = field(default_factory=list)

    def starttag(self, tag: str, attrs: dict[str, str | None], *, closed: bool, end: int) -> None:
        name = tag.rpartition(":")[2]
        if name in WANTED:
            self.finish()
            self.tags.append((name, attrs))

    def endtag(self, tag: str) -> None:
        pass

    def data(self, text: str) -> None:
        if self.tags:
            self._pieces.append(text)

    def finish(self) -> None:
        """Close the text of the last tag (its spaces collapsed), once every tag has one."""
        if len(self.texts) < len(self.tags):
            self.texts.append(" ".join("".join(self._pieces).split()))
            self._pieces.clear()


class _Book:
    """An EPUB's zip, read within the bounds."""

    def __init__(self, book: zipfile.ZipFile) -> None:
        members = book.infolist()
        if len(members) > MAX_MEMBERS:
            raise NotText(f"an EPUB of more than {MAX_MEMBERS:,} files")
        self.zip = book
        self.names = {m.filename for m in members}
        self.room = MAX_UNZIPPED

    def member(self, name: str) -> bytes:
        """A file of the book, unzipped within what is left of the bound."""
        if name not in self.names:
            raise NotText(f"a damaged EPUB (no {name[-60:]})")
        with self.zip.open(name) as file:
            data = file.read(self.room + 1)
        self.room -= len(data)
        if self.room < 0:
            raise NotText(f"unzips to more than {MAX_UNZIPPED // (1024 * 1024)} MB")
        return data

    def tags(self, name: str) -> _Tags:
        found = _Tags()
        feed(decode(self.member(name)), found)
        found.finish()
        return found

    def text(self) -> str:
        if "META-INF/encryption.xml" in self.names:
            encrypted = self.tags("META-INF/encryption.xml").tags
            if any(tag == "encrypteddata" for tag, _ in encrypted):
                raise NotText("encrypted (DRM)")
        root = next(
            (
                a.get("full-path")
                for t, a in self.tags("META-INF/container.xml").tags
                if t == "rootfile"
            ),
            None,
        )
        if not root:
            raise NotText("a damaged EPUB (no package file)")
        package = self.tags(root)
        folder = posixpath.dirname(root)
        items: dict[str, tuple[str, str, str]] = {}  # id -> (path, media type, properties)
        spine: list[str] = []
        toc = ""
        for tag, attrs in package.tags:
            if tag == "item" and attrs.get("id") and attrs.get("href"):
                path = _joined(folder, attrs["href"] or "")
                items[attrs["id"] or ""] = (
                    path,
                    attrs.get("media-type") or "",
                    attrs.get("properties") or "",
                )
            elif tag == "itemref" and attrs.get("idref"):
                spine.append(attrs["idref"] or "")
            elif tag == "spine":
                toc = attrs.get("toc") or ""
        titles = self.titles(items, toc)
        lines: list[str] = []
        for idref in spine:
            path, kind, _ = items.get(idref, ("", "", ""))
            if kind not in HTML_TYPES or path not in self.names:
                continue
            page = decode(self.member(path), html=True)
            chapter = html_lines(page)
            if not _has_heading(chapter):
                title = titles.get(path) or _page_title(page)
                chapter = [f"# {title}", "", *chapter] if title else chapter
            lines += [*chapter, ""] if chapter else []
        if not any(line.strip() for line in lines):
            raise NotText("an EPUB with no text")
        return "\n".join(lines)

    def titles(self, items: dict[str, tuple[str, str, str]], toc: str) -> dict[str, str]:
        """Chapter titles by chapter path, from the navigation page or the NCX."""
        nav = next((p for p, _, props in items.values() if "nav" in props.split()), None)
        ncx = items.get(toc, ("", "", ""))[0] or next(
            (p for p, kind, _ in items.values() if kind == "application/x-dtbncx+xml"), ""
        )
        found: dict[str, str] = {}
        source = nav or ncx
        if not source or source not in self.names:
            return found
        tags = self.tags(source)
        base = posixpath.dirname(source)
        label = ""
        for (tag, attrs), text in zip(tags.tags, tags.texts, strict=True):
            if tag == "a" and attrs.get("href"):  # EPUB 3: <a href="ch1.xhtml">Title</a>
                found.setdefault(_joined(base, attrs["href"] or ""), text)
            elif tag == "text":  # EPUB 2: <navLabel><text>Title</text></navLabel>
                label = text
            elif tag == "content" and attrs.get("src") and label:
                found.setdefault(_joined(base, attrs["src"] or ""), label)
        return found


def _joined(folder: str, href: str) -> str:
    """A path in the zip from an href relative to `folder` (its `#fragment` dropped)."""
    return posixpath.normpath(posixpath.join(folder, unquote(href.partition("#")[0])))


def _has_heading(lines: list[str]) -> bool:
    fenced = False
    for line in lines:
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            return True
    return False


def _page_title(page: str) -> str:
    """A page's `<title>`, looked for in its head (its first 64 KB)."""
    head = page[:65536]
    end = head.lower().find("</title>")
    tags = _Tags()
    feed(head[:end] if end >= 0 else "", tags)
    tags.finish()
    titles = (text for (tag, _), text in zip(tags.tags, tags.texts, strict=True) if tag == "title")
    return next(titles, "")

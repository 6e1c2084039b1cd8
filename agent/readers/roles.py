"""Sphinx and MyST markup shown as its text: roles and directives, each line kept.

A role (`:func:`x``, `:py:class:`~a.B``, `:ref:`text <target>``, MyST's `{func}`x``)
becomes the text a reader sees: `x`, `B`, `text`. A directive line becomes what Sphinx
shows for it (`.. note::` is `Note:`, `.. function:: get(url)` is `get(url)`), or a blank
line when it shows nothing (`.. currentmodule:: x`, `.. toctree::`); the option lines
under it (`:maxdepth: 2`) become blank. Every line stays a line, so line numbers hold.

Hand-written for a reason: docutils and MyST's parser are not installed with docsagent,
and neither gives one line of text for each line of the source; each line here is read
once, and a role's closing backtick found with one `find`.
"""

from __future__ import annotations

import re

RST_ROLE = re.compile(r":(?:[A-Za-z][\w+.-]*:){1,2}`")
MYST_ROLE = re.compile(r"\{[A-Za-z][\w+.:-]*\}`")
OPTION = re.compile(r"[ \t]*:[\w-]+:(?:[ \t].*)?")
"""A directive's option line (`:maxdepth: 2`, `:caption: Contents`, `:hidden:`)."""

LABELS = {
    "note": "Note:",
    "warning": "Warning:",
    "tip": "Tip:",
    "important": "Important:",
    "caution": "Caution:",
    "danger": "Danger:",
    "attention": "Attention:",
    "hint": "Hint:",
    "error": "Error:",
    "info": "Info:",
    "seealso": "See also:",
    "todo": "To do:",
    "versionadded": "New in version",
    "versionchanged": "Changed in version",
    "deprecated": "Deprecated since version",
    "versionremoved": "Removed in version",
}
"""Directives Sphinx shows as a label before their argument and content."""

SILENT = frozenset(
    "toctree currentmodule module index include literalinclude code-block code sourcecode "
    "highlight image figure contents only raw default-role default-domain tabularcolumns "
    "meta sectionauthor moduleauthor codeauthor testsetup testcleanup autosummary "
    "automodule autoclass autofunction automethod autoattribute autodata autoexception "
    "autoproperty autodecorator program eval-rst csv-table".split()
)
"""Directives whose line shows nothing: a blank line (their content, if any, is kept)."""

HIDDEN = frozenset({"toctree", "autosummary", "contents", "index", "tabularcolumns", "meta"})
"""Directives whose content is not text either (a toctree's doc names): blank too."""

CODE = frozenset({"code-block", "code", "sourcecode", "code-cell"})


def role_text(content: str) -> str:
    """What a role shows: `text <target>` is `text`, `~a.b.C` is `C`, `!x` is `x`."""
    text = content.strip()
    if text.endswith(">") and "<" in text:
        shown = text[: text.rfind("<")].strip()
        text = shown or text[text.rfind("<") + 1 : -1]
    text = text.lstrip("!")
    if text.startswith("~"):
        text = text[1:].rsplit(".", 1)[-1]
    return text


def plain_roles(line: str, opener: re.Pattern[str]) -> str:
    """`line` with each role that `opener` finds replaced by its text (`role_text`)."""
    found = opener.search(line)
    if found is None:
        return line
    out: list[str] = []
    at = 0
    while found is not None:
        close = line.find("`", found.end())
        if close < 0:
            break  # no role closes after this one either
        out += [line[at : found.start()], role_text(line[found.end() : close])]
        at = close + 1
        found = opener.search(line, at)
    out.append(line[at:])
    return "".join(out)


def directive_line(indent: str, name: str, argument: str) -> str:
    """What a directive's own line shows: its label and argument, the argument, or ''."""
    name = name.lower().rsplit(":", 1)[-1]
    argument = argument.strip()
    if name in SILENT:
        return ""
    label = LABELS.get(name)
    if label is not None:
        shown = f"{label} {argument}".strip()
        if name.startswith(("version", "deprecated")):
            shown = shown + "." if argument else shown
        return indent + shown
    return indent + argument if argument else ""

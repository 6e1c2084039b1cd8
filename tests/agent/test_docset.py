"""Doc sets: `--docs` forms read, and each folder's version found where it is written."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agent import ConfigError, DocSet, find_version, name_sets, parse_docs_spec
from agent.docset import DocsSpec


def test_the_three_docs_forms(tmp_path: Path) -> None:
    assert parse_docs_spec("docs") == DocsSpec(Path("docs"))
    assert parse_docs_spec("httpx=/d") == DocsSpec(Path("/d"), "httpx")
    assert parse_docs_spec("httpx@0.28.1=/d") == DocsSpec(Path("/d"), "httpx", "0.28.1")
    assert parse_docs_spec("./a=b") == DocsSpec(Path("./a=b"))  # a path that holds '='
    odd = tmp_path / "x=y"
    odd.mkdir()
    assert parse_docs_spec(str(odd)) == DocsSpec(odd)
    with pytest.raises(ConfigError, match="give PATH, NAME=PATH or NAME@VERSION=PATH"):
        parse_docs_spec("bad name!=/d")


@pytest.mark.parametrize(
    "file, text, version",
    [
        ("VERSION", "3.1.4\n", "3.1.4"),
        ("pyproject.toml", '[tool.x]\nversion = "9"\n[project]\nversion = "1.2.0"\n', "1.2.0"),
        ("package.json", '{"name": "lib", "version": "2.0.0-beta.1"}', "2.0.0-beta.1"),
        ("package.json", "not json", None),
        ("VERSION", "\x1b]0;owned\x07\n", None),  # not a version: never shown
    ],
)
def test_a_version_file_in_the_folder_or_above(
    tmp_path: Path, file: str, text: str, version: str | None
) -> None:
    docs = tmp_path / "project" / "docs" / "en"
    docs.mkdir(parents=True)
    (tmp_path / "project" / file).write_text(text)
    assert find_version(docs) == version


def test_an_installed_package_and_a_git_tag(tmp_path: Path) -> None:
    site = tmp_path / "site-packages"
    (site / "httpx" / "docs").mkdir(parents=True)
    (site / "httpx-0.28.1.dist-info").mkdir()
    assert find_version(site / "httpx") == "0.28.1"
    repo = tmp_path / "repo"
    (repo / "docs").mkdir(parents=True)
    (repo / "docs" / "a.md").write_text("# A\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(repo)]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "a"], check=True)
    subprocess.run([*git, "tag", "v4.0"], check=True)
    assert find_version(repo / "docs") == "v4.0"


def test_sets_sharing_a_name_are_told_apart_by_version() -> None:
    def named(name: str, version: str | None) -> DocSet:
        return DocSet(name, version, "T", "/d", None)  # type: ignore[arg-type]

    keys = [s.key for s in name_sets([named("lib", "1"), named("lib", "2"), named("x", None)])]
    assert keys == ["lib@1", "lib@2", "x"]
    with pytest.raises(ConfigError, match="two doc sets are named lib@1"):
        name_sets([named("lib", "1"), named("lib", "1")])

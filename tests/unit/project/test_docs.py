"""The repository explains itself: the README stays a front page, every relative link in the README and
in docs/ leads to a file (and to a heading, when it names one), every page of docs/ is in its index, and
no comment, docstring, test name or page sends the reader to a document outside the repository."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterator
from fnmatch import fnmatch
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
DOCS = ROOT / "docs"
README = ROOT / "README.md"
README_MAX_LINES = 250

WRITTEN_IN_PARALLEL: set[str] = set()
"""Pages linked from the index that another branch is writing at the same time: a link to one of them
may point at nothing until that branch is merged. The lead empties this set after the merges."""

OUTSIDE_REFERENCES = {
    "the architecture page outside the repository": re.compile(r"ARCHITECTUR[E]"),
    "a seed specification": re.compile(r"(?i)\bseeds? 00[0-9]|\bseeds?/"),
    "an issue number": re.compile(r"(?i)\bissues? [0-9]+"),
    "a section number of an outside document": re.compile(r"\u00a7"),
    "the directory beside the repository": re.compile(r"\.\./shared"),
}
"""What a reader of this repository cannot follow. A design fact is written once in docs/ and a comment
names that page and section (`docs/api.md#server-sent-events`), or states the fact itself."""

SCANNED = ["layers", "functions", "dev", "bench", "scripts", "tests", "docs"]
SCANNED_FILES = ["Makefile", "pyproject.toml", "template.yaml", "README.md"]
SKIPPED_DIRS = {"node_modules", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache"}
BINARY_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".ico", ".pyc", ".gz", ".zip", ".whl", ".woff2"}

NOT_YET_CLEANED: set[str] = set()
"""Files other branches are splitting or rewriting while this check lands; they clean their own
references. The lead empties this set after the merges."""


def _relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _scanned_files() -> Iterator[Path]:
    for name in SCANNED_FILES:
        yield ROOT / name
    for top in SCANNED:
        for path in sorted((ROOT / top).rglob("*")):
            parts = set(path.relative_to(ROOT).parts)
            generated = parts & SKIPPED_DIRS or any(part.endswith(".egg-info") for part in parts)
            if path.is_file() and not generated and path.suffix not in BINARY_SUFFIXES:
                yield path


def _not_yet_cleaned(relative: str) -> bool:
    return any(fnmatch(relative, pattern) for pattern in NOT_YET_CLEANED)


def outside_references() -> list[str]:
    found: list[str] = []
    for path in _scanned_files():
        relative = _relative(path)
        if _not_yet_cleaned(relative):
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            for what, pattern in OUTSIDE_REFERENCES.items():
                if pattern.search(line):
                    found.append(f"{relative}:{number}: {what}: {line.strip()[:120]}")
    return found


def test_no_reference_points_outside_the_repository() -> None:
    found = outside_references()
    assert not found, "references a reader of this repository cannot follow:\n" + "\n".join(found)


@pytest.mark.parametrize(
    "line",
    [
        "# see ARCHI" + "TECTURE \u00a77",
        '"""The tool executor (seed ' + '002 \u00a76.2)."""',
        "Seed" + " 003: a 5-10 minute warm-up",
        "(issue" + " 18 item 4)",
        "python build.py --source ../" + "shared/data/x.json",
        "the specifications in seeds" + "/",
    ],
)
def test_the_patterns_catch_the_references_they_name(line: str) -> None:
    assert any(pattern.search(line) for pattern in OUTSIDE_REFERENCES.values())


@pytest.mark.parametrize(
    "line",
    ["docs/architecture.md#one-way-down", "the seeded demo user", "reseeds `random`", "seed_prompt"],
)
def test_the_patterns_leave_the_repositorys_own_words_alone(line: str) -> None:
    assert not any(pattern.search(line) for pattern in OUTSIDE_REFERENCES.values())


_DOC_POINTER = re.compile(r"\bdocs/([\w.-]+\.md)(?:#([\w-]+))?")


def dangling_doc_pointers() -> list[str]:
    """The `docs/<page>.md#<anchor>` a comment or docstring names where that page or heading is missing."""
    found: list[str] = []
    anchors: dict[str, set[str]] = {}
    for path in _scanned_files():
        relative = _relative(path)
        if path == Path(__file__) or relative.startswith("docs/"):
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            for match in _DOC_POINTER.finditer(line):
                page, anchor = f"docs/{match.group(1)}", match.group(2)
                if not _exists(page):
                    if page not in WRITTEN_IN_PARALLEL:
                        found.append(f"{relative}:{number}: {page}: no such page")
                    continue
                if anchor and anchor not in anchors.setdefault(page, heading_anchors(_read(page))):
                    found.append(f"{relative}:{number}: {page}#{anchor}: no such heading")
    return found


def test_every_pointer_into_docs_names_a_page_and_heading_that_exist() -> None:
    found = dangling_doc_pointers()
    assert not found, "pointers into docs/ that lead nowhere:\n" + "\n".join(found)


# --- the README and docs/ ------------------------------------------------------------------------


def test_the_readme_is_a_front_page() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, (
        f"README.md has {len(lines)} lines (at most {README_MAX_LINES}): move the topic into docs/"
    )


_FENCE = re.compile(r"^\s*(```|~~~)")
_CODE_SPAN = re.compile(r"`[^`]*`")
_LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^()\s]+)(?:\s+\"[^\"]*\")?\)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def _prose_lines(text: str) -> Iterator[tuple[int, str]]:
    """The lines outside fenced code blocks, with inline code spans blanked out."""
    fenced = False
    for number, line in enumerate(text.splitlines(), start=1):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield number, _CODE_SPAN.sub("``", line)


def heading_anchors(text: str) -> set[str]:
    """The anchors GitHub gives a page's headings: the heading's text without its markup, lower case,
    without punctuation but hyphens and underscores, spaces as hyphens; a repeated one gets -1, -2..."""
    anchors: set[str] = set()
    seen: dict[str, int] = {}
    fenced = False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        heading = None if fenced else _HEADING.match(line)
        if heading is None:
            continue
        title = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading.group(2))
        title = re.sub(r"[`*]|<[^>]+>", "", title).strip().lower()
        slug = re.sub(r"[^\w\- ]", "", title).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f"{slug}-{count}")
    return anchors


def pages() -> list[str]:
    return ["README.md", *(_relative(page) for page in sorted(DOCS.glob("*.md")))]


def relative_links(text: str) -> Iterator[tuple[int, str]]:
    """(line number, target) of every link and image in the prose whose target has no scheme."""
    for number, line in _prose_lines(text):
        for match in _LINK.finditer(line):
            target = match.group(1)
            if not re.match(r"^[a-z][a-z0-9+.-]*:", target):
                yield number, target


def link_problems(
    page: str, text: str, exists: Callable[[str], bool], read: Callable[[str], str]
) -> list[str]:
    """What is wrong with the relative links of `page` (a repository-relative path whose text is
    `text`): a target that leaves the repository, names no file, or names a heading its page lacks."""
    problems: list[str] = []
    for number, target in relative_links(text):
        path_part, _, anchor = target.partition("#")
        linked = posixpath.normpath(posixpath.join(posixpath.dirname(page), path_part)) if path_part else page
        where = f"{page}:{number}: {target}"
        if linked == ".." or linked.startswith("../"):
            problems.append(f"{where} leaves the repository")
        elif not exists(linked):
            if linked not in WRITTEN_IN_PARALLEL:
                problems.append(f"{where}: no such file")
        elif anchor and linked.endswith(".md") and anchor not in heading_anchors(read(linked)):
            problems.append(f"{where}: no heading with that anchor in {linked}")
    return problems


def _exists(relative: str) -> bool:
    return (ROOT / relative).exists()


def _read(relative: str) -> str:
    return (ROOT / relative).read_text(encoding="utf-8")


@pytest.mark.parametrize("page", pages())
def test_every_relative_link_leads_somewhere(page: str) -> None:
    problems = link_problems(page, _read(page), _exists, _read)
    assert not problems, "\n".join(problems)


def test_every_doc_page_is_in_the_index() -> None:
    index = "docs/README.md"
    linked = {
        posixpath.normpath(posixpath.join("docs", target.partition("#")[0]))
        for _, target in relative_links(_read(index))
    }
    missing = [page for page in pages() if page.startswith("docs/") and page != index and page not in linked]
    assert not missing, f"pages docs/README.md does not link: {missing}"


def test_the_anchor_rule_is_githubs() -> None:
    text = "\n".join(
        [
            "# Server-Sent Events",
            "## The `trainer` command",
            "## Stand-ins: the offline coach, the fake model server, moto",
            "## Retries, idempotency and catch-up",
            "```",
            "# not a heading",
            "```",
            "## Errors",
            "## Errors",
        ]
    )
    assert heading_anchors(text) == {
        "server-sent-events",
        "the-trainer-command",
        "stand-ins-the-offline-coach-the-fake-model-server-moto",
        "retries-idempotency-and-catch-up",
        "errors",
        "errors-1",
    }


def test_a_link_to_nothing_is_caught() -> None:
    files = {"README.md": "", "docs/a.md": "# A\n## Part one\n", "openapi.json": "{}"}
    page = "\n".join(
        [
            "[fine](a.md#part-one) [fine too](../openapi.json) [here](#a-page) ![img](a.md)",
            "`[in code](nowhere.md)` [web](https://example.com/x) <http://127.0.0.1:8000/console>",
            "```",
            "[in a block](nowhere.md)",
            "```",
            "[no heading](a.md#part-two) [no file](b.md) [outside](../../elsewhere/x.md)",
        ]
    )
    files["docs/page.md"] = "# A page\n" + page
    problems = link_problems("docs/page.md", files["docs/page.md"], files.__contains__, files.__getitem__)
    assert [problem.split(": ", 1)[0] for problem in problems] == [
        "docs/page.md:7",
        "docs/page.md:7",
        "docs/page.md:7",
    ]
    assert "no heading" in problems[0] and "no such file" in problems[1] and "leaves" in problems[2]

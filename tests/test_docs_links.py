"""The documentation's relative links resolve: every Markdown link in README.md, docs/*.md and the
task READMEs names a file that exists and, with a `#fragment`, a heading of that file under
GitHub's anchor rules. README.md stays a front door (at most 200 lines)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README_MAX_LINES = 200

FENCE = re.compile(r"^(```|~~~)")
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")
# [text](target) and ![alt](target); the target ends at whitespace (an optional "title" follows)
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")  # http:, https:, mailto:, ...


def documents() -> list[Path]:
    tasks = sorted((ROOT / "tasks").rglob("README.md"))
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *tasks]


def prose_lines(text: str):
    """(line number, line) outside fenced code blocks."""
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line.lstrip()):
            fenced = not fenced
            continue
        if not fenced:
            yield number, line


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: the rendered text (code spans, links and emphasis marks
    removed), lower-cased, punctuation dropped (letters, digits, `_`, `-` and spaces kept), each
    space a hyphen."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = text.replace("`", "")
    text = re.sub(r"(\*+|(?<!\w)_+|_+(?!\w))", "", text)  # emphasis marks, not snake_case
    text = re.sub(r"[^\w\- ]", "", text.lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading's anchor, with GitHub's -1, -2, ... suffixes for repeated headings."""
    seen: dict[str, int] = {}
    found = set()
    for _, line in prose_lines(path.read_text(encoding="utf-8")):
        match = HEADING.match(line)
        if not match:
            continue
        base = slug(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(path: Path) -> list[tuple[int, str]]:
    found = []
    for number, line in prose_lines(path.read_text(encoding="utf-8")):
        reference = REFERENCE.match(line)
        if reference:
            found.append((number, reference.group(1)))
            continue
        for target in LINK.findall(INLINE_CODE.sub("", line)):
            found.append((number, target))
    return found


def broken_links(path: Path) -> list[str]:
    """`file:line: target (why)` for every relative link of `path` that does not resolve."""
    broken = []
    for number, target in links(path):
        if EXTERNAL.match(target):
            continue
        file_part, _, fragment = target.partition("#")
        linked = (path.parent / file_part).resolve() if file_part else path
        where = f"{path.relative_to(ROOT)}:{number}: {target}"
        if not linked.exists():
            broken.append(f"{where} (no such file)")
        elif fragment:
            if linked.is_dir() or linked.suffix.lower() != ".md":
                broken.append(f"{where} (an anchor into a file that is not Markdown)")
            elif fragment not in anchors(linked):
                broken.append(f"{where} (no heading with that anchor)")
    return broken


def test_the_documents_are_found():
    names = {path.relative_to(ROOT).as_posix() for path in documents()}
    assert {
        "README.md",
        "docs/README.md",
        "tasks/lm_eval/symphony_bias/README.md",
        "tasks/lmms_eval/symphony_bias_multimodal/README.md",
        "tasks/lmms_eval/instrument_grounding/README.md",
    } <= names


@pytest.mark.parametrize("path", documents(), ids=lambda path: path.relative_to(ROOT).as_posix())
def test_every_relative_link_and_anchor_resolves(path):
    assert broken_links(path) == []


def test_every_docs_page_is_reachable_from_the_index():
    index = ROOT / "docs" / "README.md"
    linked = {(index.parent / target.partition("#")[0]).resolve() for _, target in links(index)}
    assert {page.resolve() for page in (ROOT / "docs").glob("*.md")} - {index.resolve()} <= linked


def test_the_readme_is_short():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines"


@pytest.mark.parametrize(
    "heading, anchor",
    [
        (
            "Log-probability variant: `symphony_bias_logprob`",
            "log-probability-variant-symphony_bias_logprob",
        ),
        ("TCAV probe (`symphony-bench tcav`)", "tcav-probe-symphony-bench-tcav"),
        ("Release gate, leaderboard, export", "release-gate-leaderboard-export"),
        ("Mitigation: does an instruction help?", "mitigation-does-an-instruction-help"),
        ("Groups and **Tasks**", "groups-and-tasks"),
        ("Audio × image — units", "audio--image--units"),
        ("[Linked](x.md) heading", "linked-heading"),
    ],
)
def test_anchors_follow_githubs_rules(heading, anchor):
    assert slug(heading) == anchor


def test_a_broken_link_or_anchor_is_found(tmp_path, monkeypatch):
    """The check fails when a link breaks: a missing file, a missing heading, a repeated heading's
    suffix taken too far; links inside code are not links."""
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "page.md").write_text("# Page\n\n## Same\n\n## Same\n", encoding="utf-8")
    readme = tmp_path / "README.md"
    readme.write_text(
        "[ok](docs/page.md) [ok](docs/page.md#same-1) [ok](#top) [web](https://example.org/x#y)\n"
        "# Top\n"
        "[gone](docs/missing.md) [no heading](docs/page.md#other) [too far](docs/page.md#same-2)\n"
        "`[in code](docs/missing.md)`\n"
        "```\n[in a fence](docs/missing.md)\n```\n",
        encoding="utf-8",
    )
    assert broken_links(readme) == [
        "README.md:3: docs/missing.md (no such file)",
        "README.md:3: docs/page.md#other (no heading with that anchor)",
        "README.md:3: docs/page.md#same-2 (no heading with that anchor)",
    ]

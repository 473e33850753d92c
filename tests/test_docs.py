"""The documents' Python examples run as written, and the documents cite only this repository.

Every ```` ```python ```` block of the README, ``docs/*.md`` and ``checkpoints/README.md`` runs,
in order, one namespace per document, in an empty current folder and a fresh interpreter, as a
reader would run them: nothing the rest of the suite started or imported in this process (threads,
Ray, torch) is there to help or harm. What a block prints comes back, block by block, for the
checks of what a reader is told to expect (:data:`PRINTS`). Two conventions:

* a block whose first line is ``# NAME.py …`` is also saved as ``NAME.py`` in that folder, so a
  later block can import it (docs/agents.md's ``my_agents.py``);
* a block right after the line ``<!-- docs-test: skip (why) -->`` is not run — for examples too
  slow for the suite; say why in the comment.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote

import pytest

REPOSITORY = Path(__file__).resolve().parents[1]
DOCUMENTS = [
    REPOSITORY / "README.md",
    *sorted((REPOSITORY / "docs").glob("*.md")),
    REPOSITORY / "checkpoints" / "README.md",
]
SKIP = "<!-- docs-test: skip"
# Documents whose examples take seconds (they train or load networks): the slow tier runs them.
SLOW = {"docs/environments.md", "docs/agents.md", "docs/training.md"}
SAVED_AS = re.compile(r"# (\w+\.py)\b")


def python_blocks(text: str) -> list[tuple[int, str, bool]]:
    """``(line, code, skipped)`` of every Python block, in order."""
    blocks = []
    for match in re.finditer(r"^```python[^\n]*\n(.*?)^```", text, re.M | re.S):
        line = text.count("\n", 0, match.start()) + 1
        previous = text[: match.start()].rstrip("\n").rpartition("\n")[2]
        blocks.append((line, match.group(1), previous.startswith(SKIP)))
    return blocks


# Runs the blocks of argv[1] in one namespace; then writes, as JSON, what each block printed.
RUNNER = """
import contextlib, io, json, sys
namespace = {"__name__": sys.argv[2]}
printed = []
for line, code in json.loads(open(sys.argv[1], encoding="utf-8").read()):
    with contextlib.redirect_stdout(io.StringIO()) as out:
        exec(compile(code, line, "exec"), namespace)
    printed.append(out.getvalue())
json.dump(printed, sys.stdout)
"""


def the_readmes_opponent_example_prints_the_games_result(printed: list[tuple[str, str]]) -> None:
    """The front page's game against the shipped policy ends by printing each player's return
    (not the rewards dict, which the last step has cleared)."""
    (output,) = [out for code, out in printed if "CheckpointAgent.load" in code]
    returns = ast.literal_eval(output.strip().splitlines()[-1])
    assert sorted(returns) == ["player_0", "player_1"]
    assert sorted(returns.values()) == [-1.0, 1.0]  # zero-sum win rewards: one winner


# Checks of what a document's blocks print, by document; each gets (a block's code, its output)
# for every block run.
PRINTS = {"README.md": [the_readmes_opponent_example_prints_the_games_result]}


def _document(path: Path):
    name = path.relative_to(REPOSITORY).as_posix()
    return pytest.param(path, id=name, marks=[pytest.mark.slow] if name in SLOW else [])


@pytest.mark.parametrize(
    "document",
    [
        _document(path)
        for path in DOCUMENTS
        if any(not skipped for *_, skipped in python_blocks(path.read_text(encoding="utf-8")))
    ],
)
def test_python_examples_run(document: Path, tmp_path) -> None:
    blocks = []
    for line, code, skipped in python_blocks(document.read_text(encoding="utf-8")):
        saved = SAVED_AS.match(code)
        if saved:
            (tmp_path / saved.group(1)).write_text(code, encoding="utf-8")
        if not skipped:
            blocks.append((f"{document.name}:{line}", code))
    (tmp_path / ".blocks.json").write_text(json.dumps(blocks), encoding="utf-8")
    path = os.pathsep.join([str(tmp_path), str(REPOSITORY), os.environ.get("PYTHONPATH", "")])
    result = subprocess.run(
        [sys.executable, "-c", RUNNER, ".blocks.json", f"docs_{document.stem}"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": path.rstrip(os.pathsep)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-6000:]
    printed = list(zip((code for _, code in blocks), json.loads(result.stdout), strict=True))
    for check in PRINTS.get(document.relative_to(REPOSITORY).as_posix(), []):
        check(printed)


def test_the_conventions_are_seen() -> None:
    text = "x\n<!-- docs-test: skip (slow) -->\n```python\nslow()\n```\n```python\n# a.py\n```\n"
    assert python_blocks(text) == [(3, "slow()\n", True), (6, "# a.py\n", False)]


FENCE = re.compile(r"^```.*?^```", re.M | re.S)
LINK = re.compile(r"\]\(([^)\s]+)\)|<img [^>]*src=\"([^\"]+)\"")
DOCUMENTS_LINKED = [*DOCUMENTS, *sorted((REPOSITORY / "checkpoints").glob("*/*.md"))]


def anchors(text: str) -> set[str]:
    """The anchors of a Markdown document as GitHub makes them: each heading's slug (lower
    case, punctuation dropped, spaces as hyphens, ``-1``, ``-2`` … for repeats) and each
    explicit ``<a id="…">``."""
    text = FENCE.sub("", text)
    found, seen = set(re.findall(r'<a (?:id|name)="([^"]+)"', text)), {}
    for heading in re.findall(r"^#{1,6} +(.+?) *#*$", text, re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def broken_links(path: Path) -> list[str]:
    """The links of ``path`` (outside code blocks) to a file that is not there or to an anchor
    its target does not have; web addresses are not followed."""
    text = path.read_text(encoding="utf-8")
    broken = []
    for match in LINK.finditer(FENCE.sub("", text)):
        link = match.group(1) or match.group(2)
        if re.match(r"[a-z]+:", link):
            continue
        target, _, anchor = unquote(link).partition("#")
        file = (path.parent / target).resolve() if target else path
        missing = not file.exists() or (
            bool(anchor) and file.suffix == ".md" and anchor not in anchors(file.read_text("utf-8"))
        )
        if missing:
            broken.append(link)
    return broken


def test_the_anchor_rule_is_githubs() -> None:
    text = (
        '# A — `b` c\n## Heiße Luft: x.y\n```\n# not a heading\n```\n## A — b c\n<a id="HL-1"></a>'
    )
    assert anchors(text) == {"a--b-c", "heiße-luft-xy", "a--b-c-1", "HL-1"}


@pytest.mark.parametrize(
    "document", DOCUMENTS_LINKED, ids=lambda p: p.relative_to(REPOSITORY).as_posix()
)
def test_links_reach_their_files_and_anchors(document: Path) -> None:
    assert broken_links(document) == []


def test_documents_and_code_cite_only_this_repository() -> None:
    outside = re.compile(r"\b(RULES|DESIGN)\.md\b|(?i:\bthe issue\b|\bissue \d)")
    files = [
        *DOCUMENTS,
        *REPOSITORY.glob("*.toml"),
        *(REPOSITORY / "training" / "configs").glob("*.toml"),
        *(
            path
            for folder in ("hot_envs", "training", "tests", "benchmarks")
            for path in (REPOSITORY / folder).rglob("*.py")
        ),
    ]
    found = [
        f"{path.relative_to(REPOSITORY)}:{number}"
        for path in files
        if path != Path(__file__).resolve()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if outside.search(line)
    ]
    assert not found

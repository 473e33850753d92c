"""Writes the observation and full-state tables into ``docs/environments.md`` from the layouts
themselves.

Run ``python -m hot_envs.cli.docs`` in a source checkout after changing an observation or state
layout; a test checks that the document and the layouts agree. It writes the checkout's
``docs/environments.md`` and nothing else: an installed hot_envs (a wheel in site-packages) has no
docs folder of its own, so there it needs the document's path, ``python -m hot_envs.cli.docs PATH``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from pathlib import Path

from hot_envs.core.games import GAMES

BEGIN = "<!-- observation tables are generated: python -m hot_envs.cli.docs -->"
END = "<!-- end of generated observation tables -->"
STATE_BEGIN = "<!-- state tables are generated: python -m hot_envs.cli.docs -->"
STATE_END = "<!-- end of generated state tables -->"
CHECKOUT = Path(__file__).resolve().parents[2]  # the repository, when hot_envs is not installed
DOC = CHECKOUT / "docs" / "environments.md"


def checkout_doc() -> Path | None:
    """The source checkout's ``docs/environments.md``, or None when hot_envs does not sit in
    one (installed from a wheel, say): the folder above hot_envs must be this project's."""
    pyproject = CHECKOUT / "pyproject.toml"
    doc = CHECKOUT / "docs" / "environments.md"
    if not (pyproject.is_file() and doc.is_file()):
        return None
    return doc if 'name = "hot_envs"' in pyproject.read_text(encoding="utf-8") else None


def observation_tables() -> str:
    """The generated block, markers included."""
    return _tables("observation", BEGIN, END, [game.engine.LAYOUT for game in GAMES.values()])


def state_tables() -> str:
    """The generated block of the full-state layouts (``env.state()``), markers included."""
    modules = [f"{game.engine_module}.state_encoding" for game in GAMES.values()]
    layouts = [importlib.import_module(module).STATE_LAYOUT for module in modules]
    return _tables("state", STATE_BEGIN, STATE_END, layouts)


def _tables(kind: str, begin: str, end: str, layouts: list) -> str:
    """``begin``, each game's ``kind`` layout as a titled table, ``end``."""
    blocks = [
        f"### {game.title} {kind} (layout version {layout.version}, {layout.size} floats)\n\n"
        f"{layout.table()}\n"
        for game, layout in zip(GAMES.values(), layouts, strict=True)
    ]
    return "\n".join([begin, *blocks, end])


def _replace_block(text: str, begin: str, end: str, block: str) -> str:
    start = text.index(begin)
    stop = text.index(end) + len(end) if end in text else start + len(begin)
    return text[:start] + block + text[stop:]


def with_tables(text: str) -> str:
    """``text`` with its generated blocks (or the bare placeholders) replaced by fresh ones."""
    text = _replace_block(text, BEGIN, END, observation_tables())
    return _replace_block(text, STATE_BEGIN, STATE_END, state_tables())


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m hot_envs.cli.docs", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "path",
        nargs="?",
        type=Path,
        help="the document to write (default: docs/environments.md of the source checkout)",
    )
    args = parser.parse_args(argv)
    doc = args.path or checkout_doc()
    if doc is None:
        parser.error(
            f"hot_envs at {CHECKOUT / 'hot_envs'} is not in a source checkout (no pyproject.toml "
            "of hot_envs and docs/environments.md beside it): give the document's path"
        )
    try:
        text = doc.read_text(encoding="utf-8")
    except OSError as error:
        parser.error(f"cannot read {doc}: {error.strerror}")
    if BEGIN not in text or STATE_BEGIN not in text:
        parser.error(f"{doc} has no place for the tables (the lines {BEGIN!r} and {STATE_BEGIN!r})")
    doc.write_text(with_tables(text), encoding="utf-8")
    print(f"wrote the observation and state tables into {doc}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

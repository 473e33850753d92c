"""Writes the observation and full-state tables into ``docs/environments.md`` from the layouts
themselves.

Run ``python -m hot_envs.docs`` after changing an observation or state layout; a test checks that
the document and the layouts agree.
"""

from __future__ import annotations

import sys
from pathlib import Path

from hot_envs import heisse_karten, heisse_luft
from hot_envs.heisse_karten import state_encoding as heisse_karten_state
from hot_envs.heisse_luft import state_encoding as heisse_luft_state

BEGIN = "<!-- observation tables are generated: python -m hot_envs.docs -->"
END = "<!-- end of generated observation tables -->"
STATE_BEGIN = "<!-- state tables are generated: python -m hot_envs.docs -->"
STATE_END = "<!-- end of generated state tables -->"
DOC = Path(__file__).resolve().parent.parent / "docs" / "environments.md"


def observation_tables() -> str:
    """The generated block, markers included."""
    parts = [BEGIN]
    for title, engine in (("Heiße Luft", heisse_luft), ("Heiße Karten", heisse_karten)):
        layout = engine.LAYOUT
        parts += [
            f"### {title} observation (layout version {layout.version}, {layout.size} floats)",
            "",
            layout.table(),
            "",
        ]
    parts.append(END)
    return "\n".join(parts)


def state_tables() -> str:
    """The generated block of the full-state layouts (``env.state()``), markers included."""
    parts = [STATE_BEGIN]
    for title, module in (("Heiße Luft", heisse_luft_state), ("Heiße Karten", heisse_karten_state)):
        layout = module.STATE_LAYOUT
        parts += [
            f"### {title} state (layout version {layout.version}, {layout.size} floats)",
            "",
            layout.table(),
            "",
        ]
    parts.append(STATE_END)
    return "\n".join(parts)


def _replace_block(text: str, begin: str, end: str, block: str) -> str:
    start = text.index(begin)
    stop = text.index(end) + len(end) if end in text else start + len(begin)
    return text[:start] + block + text[stop:]


def with_tables(text: str) -> str:
    """``text`` with its generated blocks (or the bare placeholders) replaced by fresh ones."""
    text = _replace_block(text, BEGIN, END, observation_tables())
    return _replace_block(text, STATE_BEGIN, STATE_END, state_tables())


def main() -> int:
    DOC.write_text(with_tables(DOC.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"wrote the observation and state tables into {DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

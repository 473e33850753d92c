"""Writes the observation tables into ``docs/environments.md`` from the layouts themselves.

Run ``python -m hot_envs.docs`` after changing an observation layout; a test checks that the
document and the layouts agree.
"""

from __future__ import annotations

import sys
from pathlib import Path

from hot_envs import heisse_karten, heisse_luft

BEGIN = "<!-- observation tables are generated: python -m hot_envs.docs -->"
END = "<!-- end of generated observation tables -->"
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


def with_tables(text: str) -> str:
    """``text`` with its generated block (or the bare placeholder) replaced by a fresh one."""
    start = text.index(BEGIN)
    end = text.index(END) + len(END) if END in text else start + len(BEGIN)
    return text[:start] + observation_tables() + text[end:]


def main() -> int:
    DOC.write_text(with_tables(DOC.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"wrote the observation tables into {DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

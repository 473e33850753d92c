"""Golden playthroughs (after OpenSpiel's ``integration_tests/playthroughs``), for either game.

A playthrough is a seeded game written as text: every action by name, the rendered table every few
actions (seen by the player to move) and the end with returns. A test replays it with a seeded
action choice and compares the text with the stored file, so any change of behaviour shows as a
diff. To regenerate the stored files after an intended change, run the golden tests with the
environment variable ``HOT_ENVS_REGEN_GOLDEN=1`` set, e.g.
``HOT_ENVS_REGEN_GOLDEN=1 pytest tests/heisse_karten/test_hk_golden.py``, and review the diff.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

REGEN_VARIABLE = "HOT_ENVS_REGEN_GOLDEN"

Chooser = Callable[[Any], int]
Note = Callable[[Any], str | None]


def seeded_chooser(seed: int) -> Chooser:
    """Picks uniformly among ``state.legal_actions()`` with its own seeded generator."""
    rng = np.random.default_rng(seed)

    def choose(state: Any) -> int:
        legal = state.legal_actions()
        return legal[rng.integers(len(legal))]

    return choose


def playthrough(
    state: Any, choose: Chooser, title: str, render_every: int = 4, note: Note | None = None
) -> str:
    """Plays ``state`` to its end with ``choose`` and returns the text of the game; ``note``
    may add a line after each action (e.g. who took a trick)."""
    lines = [f"# {title}", "", state.render(state.current_player), ""]
    actions = 0
    while not (state.is_terminal() or state.is_truncated()):
        player = state.current_player
        action = choose(state)
        lines.append(f"{actions:4d}  player_{player}: {state.action_name(action)} ({action})")
        state.apply(action)
        actions += 1
        if note is not None and (line := note(state)):
            lines.append(f"      {line}")
        if actions % render_every == 0 and not state.is_terminal():
            lines += ["", state.render(state.current_player), ""]
    returns = ", ".join(f"{r:+.4f}" for r in state.returns())
    lines += ["", state.render(), "", f"actions: {actions}", f"returns: [{returns}]"]
    return "\n".join(lines) + "\n"


def check_golden(path: Path, text: str) -> None:
    """Compare ``text`` with the golden file at ``path``; rewrite it when regenerating."""
    if os.environ.get(REGEN_VARIABLE):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    if not path.exists():
        raise AssertionError(f"{path} is missing; create it with {REGEN_VARIABLE}=1")
    expected = path.read_text(encoding="utf-8")
    if text != expected:
        diff = difflib.unified_diff(
            expected.splitlines(), text.splitlines(), str(path), "this run", lineterm=""
        )
        shown = "\n".join(list(diff)[:60])
        raise AssertionError(
            f"playthrough differs from {path} (regenerate with {REGEN_VARIABLE}=1 if the change "
            f"is intended):\n{shown}"
        )

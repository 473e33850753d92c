"""Golden playthroughs of seeded Heiße Karten games for 2 and 5 players (see tests/golden.py).

Regenerate after an intended change of behaviour, then review the diff:
``HOT_ENVS_REGEN_GOLDEN=1 pytest tests/heisse_karten/test_hk_golden.py``, or
``python -m tests.heisse_karten.test_hk_golden --regen`` from the repository root.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from hot_envs.heisse_karten import State
from tests.golden import REGEN_VARIABLE, check_golden, playthrough, seeded_chooser

GOLDEN = Path(__file__).parent / "golden"
SEEDS = {2: 2, 5: 5}  # player count: seed of the deal and of the action choice


def trick_taken(state: State) -> str | None:
    """After the last card of a trick: who took it, and the scores."""
    if state.trick or not state.played:
        return None
    scores = " ".join(f"{score:+d}" for score in state.scores)
    return f"player_{state.leader} takes the trick; scores {scores}"


def game_text(num_players: int) -> str:
    seed = SEEDS[num_players]
    title = f"Heiße Karten, {num_players} players, State.new(seed={seed}), actions seeded {seed}"
    state = State.new(seed, num_players)
    return playthrough(state, seeded_chooser(seed), title, note=trick_taken)


@pytest.mark.parametrize("num_players", sorted(SEEDS))
def test_golden_playthrough(num_players):
    check_golden(GOLDEN / f"heisse_karten_{num_players}p.txt", game_text(num_players))


if __name__ == "__main__":
    if "--regen" not in sys.argv:
        sys.exit("usage: python -m tests.heisse_karten.test_hk_golden --regen")
    os.environ[REGEN_VARIABLE] = "1"
    for count in SEEDS:
        test_golden_playthrough(count)

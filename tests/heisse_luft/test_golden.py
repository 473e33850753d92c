"""Golden playthroughs of seeded Heiße Luft games (see tests/golden.py).

``State.new(seed=s)`` played with actions drawn by ``np.random.default_rng(s)`` from
``legal_actions()``: every action by name, the table every 10 actions and after every flight,
notes on stuck turns and on "nothing moves", and the end. Seed 7 is the reference game; seed 171
adds exchanges, HL-3.6 and a three-for-one claim. Any change of behaviour shows as a diff.
Regenerate after an intended change, then review the diff:
``HOT_ENVS_REGEN_GOLDEN=1 pytest tests/heisse_luft/test_golden.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hot_envs.heisse_luft import State
from hot_envs.heisse_luft.facts import EXCHANGE, PLAY, card_label
from tests.golden import Note, check_golden, playthrough, seeded_chooser

GOLDEN = Path(__file__).parent / "golden"
SEEDS = [7, 171]
RENDER_EVERY = 10


def shown(state: State, player: int) -> str:
    return " ".join(card_label(c) for c in sorted(state.revealed[player]))


def cards_on_stages(state: State) -> int:
    return sum(len(side) for sides in state.sides for side in sides)


def events(state: State) -> Note:
    """A note after each action on what happened besides the action itself: the end of an
    exchange (HL-3.4), a new stuck turn with the revealed hand, all stages cleared because
    nothing moved (HL-3.6), a stage flown (HL-4/HL-5; stage n holds n prizes) followed by the
    table as everybody sees it."""
    before = {"totals": [0, 0], "mover": state.current_player, "phase": state.phase}
    before["on_stages"] = cards_on_stages(state)
    actions = [0]

    def note(state: State) -> str | None:
        actions[0] += 1
        lines = []
        mover, phase = state.current_player, state.phase
        if before["phase"] == EXCHANGE and (phase != EXCHANGE or mover != before["mover"]):
            stuck = before["mover"]
            if phase == PLAY and mover == stuck:
                lines.append(f"player_{stuck} can play now")
            else:
                lines.append(f"player_{stuck} is still stuck and shows {shown(state, stuck)}")
        totals = [state.total_prizes(p) for p in (0, 1)]
        gained = [totals[p] - before["totals"][p] for p in (0, 1)]
        if cards_on_stages(state) == 0 < before["on_stages"] and not any(gained):
            lines.append("nothing moves: all stages cleared")
        if phase == EXCHANGE and not state.exchange_selection:
            lines.append(f"player_{mover} is stuck and shows {shown(state, mover)}")
        table = ""
        if any(gained):
            winner = 0 if gained[0] else 1
            lines.append(f"stage {gained[winner]} flown, won by player_{winner}")
            if actions[0] % RENDER_EVERY and not state.is_terminal():
                table = f"\n\n{state.render(viewer=None)}\n"
        before.update(totals=totals, mover=mover, phase=phase, on_stages=cards_on_stages(state))
        return "\n      ".join(lines) + table or None

    return note


def game_text(seed: int) -> str:
    state = State.new(seed=seed)
    title = f"Heiße Luft, State.new(seed={seed}), actions from np.random.default_rng({seed})"
    return playthrough(
        state, seeded_chooser(seed), title, render_every=RENDER_EVERY, note=events(state)
    )


@pytest.mark.parametrize("seed", SEEDS)
def test_golden_playthrough(seed):
    check_golden(GOLDEN / f"heisse_luft_seed{seed}.txt", game_text(seed))

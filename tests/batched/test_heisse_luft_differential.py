"""Heiße Luft in arrays (hot_envs.batched.heisse_luft) against the per-game engine, the rule
book: every state dict, mask, observation (of both seats), reward and ending compared after
every action (tests/batched/differential.py), with each option, with the heuristic, and from
positions set up mid-game and by the rule tests' hand. Both engines draw from the same stream
(hot_envs.core.chance), so the reshuffles of HL-3.5 agree exactly too. The long run (10⁶ actions) is
``benchmarks/differential.py --only heisse-luft``."""

from __future__ import annotations

import pytest

from hot_envs.heisse_luft import State
from tests.batched.differential import play
from tests.heisse_luft.positions import stage
from tests.heisse_luft.random_games import random_game
from tests.heisse_luft.test_rules import (
    cluttered_stuck,
    last_flight,
    stage_4_flight,
    stuck_position,
    trophy_phase,
    won,
)


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"three_for_one": False},
        {"starting_player": "random"},
        {"starting_player": 1, "turn_limit": 40},
    ],
    ids=["default", "no-three-for-one", "random-start", "turn-limit"],
)
def test_random_games_match_the_engine(options):
    """HL-2 … HL-7 under uniform random play: six games side by side, each dealt anew when it
    ends, through some ten endings and fifty HL-3.5 reshuffles per option (the long run is the
    benchmark's)."""
    report = play("heisse-luft", 6, 1000, seed=len(options), **options)
    assert report.actions >= 1000 and report.chance_events >= 20 and report.endings >= 6
    assert report.mismatches == []


def test_heuristic_games_match_the_engine():
    """The heuristic plays to win: more flights, trophy phases and two-trophy endings (HL-6,
    HL-7.1) than random play reaches."""
    report = play("heisse-luft", 6, 600, seed=3, policy="heuristic")
    assert report.endings >= 3 and report.mismatches == []


def test_positions_reached_mid_game_match_the_engine():
    """Positions of random games in every phase, loaded through ``load`` and played on."""
    positions = []
    for seed in range(12):
        state, wanted = State.new(seed), {"play", "exchange", "trophy"}
        for i, _ in enumerate(random_game(state, seed)):
            d = state.to_dict()
            if d["phase"] in wanted and i >= 3 * seed:
                positions.append(d)
                wanted.discard(d["phase"])
    assert {d["phase"] for d in positions} == {"play", "exchange", "trophy"}
    report = play("heisse-luft", len(positions), 1500, seed=1, positions=positions)
    assert report.mismatches == []


def rule_positions() -> list[dict]:
    """The rule tests' hand-made positions for the rarer rules."""
    states = [stage_4_flight(deck) for deck in ("SSSSHDD", "SSSS", "HDC", "")]  # HL-2.3, HL-5.4
    states += [cluttered_stuck(streak) for streak in (0, 1)]  # HL-3.6
    states.append(stuck_position(["C1", "C2", "S1"], ["D9"], spare_cards="discard"))  # HL-3.5
    states.append(  # HL-3.4 a stuck player with an empty hand ends the turn at once
        State.from_dict(
            {
                **stuck_position([], ["D9"]).to_dict(),
                "current_player": 0,
                "phase": "play",
            }
        )
    )
    states += [  # HL-6.2 payments; HL-6.4 who is asked
        trophy_phase(won(S=1, H=6, D=5), won(), trophies=("D", "H")),
        trophy_phase(won(S=3, H=3, D=3), won(), trophies=("D", "H")),
        trophy_phase(won(C=5), won(S=4), winner=1, asking="other"),
    ]
    states += [  # HL-7.2 the last flight's trophy phase, then the end
        last_flight(won(H=6), won(H=6, D=11, C=4, S=3), ("S", "C")),
        last_flight(won(H=6, D=6, C=2, S=1), won(H=6, D=5, C=2, S=2), ("S", "C")),
    ]
    states.append(  # HL-4.3 a tie on a stage one card from flying
        State.from_dict(
            {
                **stuck_position(["S5", "S1"], [], stages={3: stage("HDS")}).to_dict(),
                "phase": "play",
            }
        )
    )
    return [s.to_dict() for s in states if not s.is_terminal()]


def test_positions_set_up_by_hand_match_the_engine():
    positions = rule_positions()
    report = play("heisse-luft", len(positions), 600, seed=2, positions=positions)
    assert report.mismatches == []

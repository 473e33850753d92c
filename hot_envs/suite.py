"""The opponent suite per game: agents of clearly different styles that a policy is judged
against (``hot-envs gauntlet``, :mod:`hot_envs.gauntlet`), split into a **training pool** and a
**held-out pool** (docs/evaluation.md).

Training may use anything in the training pool as an opponent or a teacher; nothing in the
held-out pool is ever either, so a policy's share against the held-out pool says how it plays
against styles it never met. The search agent is in the training pool at both budgets: it is a
teacher (distillation). The budgets are kept small, so a gauntlet runs on two cores (the
``search`` spec's default budget, 400 / 600 rollouts a decision, costs 0.3–0.45 s a decision —
hours per opponent); ``costly`` marks the opponents a gauntlet may play fewer games against.
"""

from __future__ import annotations

from dataclasses import dataclass

from hot_envs.games import get_game

TRAINING, HELD_OUT = "training", "held-out"
POOLS = (TRAINING, HELD_OUT)


@dataclass(frozen=True)
class Opponent:
    """One suite entry: an agent spec (:func:`hot_envs.agents.make_agent`), its pool and how it
    plays, in a line."""

    spec: str
    pool: str
    style: str
    costly: bool = False  # tens of milliseconds a decision or more (the search agent)


SUITES: dict[str, tuple[Opponent, ...]] = {
    "heisse-luft": (
        Opponent("heuristic", TRAINING, "the project's rule-based player, the usual teacher"),
        Opponent("heuristic:0.2", TRAINING, "the heuristic with a fifth of its moves random"),
        Opponent("high-hoarder", TRAINING, "keeps J, Q, K back, plays its lowest card"),
        Opponent("search:20", TRAINING, "the search agent at 20 rollouts a decision", True),
        Opponent("search:80", TRAINING, "the search agent at 80 rollouts a decision", True),
        Opponent(
            "heisse_luft_v0_2026_12_01",
            TRAINING,
            "the policy shipped on 2026-12-01 before its last PPO sitting (the shipped one's "
            "snapshots trained against its descendants)",
        ),
        Opponent("beginner", HELD_OUT, "beginner's advice: finish sure wins, dump on lost stages"),
        Opponent("stage-finisher", HELD_OUT, "always plays on the stage nearest completion"),
        Opponent("trophy-rusher", HELD_OUT, "plays only for the stages of one trophy's suit"),
        Opponent(
            "heisse_luft_v0_2026_11_30", HELD_OUT, "the MLP policy shipped on 2026-11-30 (DAgger)"
        ),
    ),
    "heisse-karten": (
        Opponent("heuristic", TRAINING, "the project's rule-based player, the usual teacher"),
        Opponent("heuristic:0.2", TRAINING, "the heuristic with a fifth of its moves random"),
        Opponent("low-dumper", TRAINING, "always plays its lowest card"),
        Opponent("search:30", TRAINING, "the search agent at 30 rollouts a decision", True),
        Opponent("search:120", TRAINING, "the search agent at 120 rollouts a decision", True),
        Opponent("trick-taker", HELD_OUT, "takes every trick it can, cheapest winner"),
        Opponent("trick-avoider", HELD_OUT, "ducks under every trick it can"),
        Opponent("card-counter", HELD_OUT, "counts cards, best expected points this trick"),
        Opponent(
            "heisse_karten_v0_2026_11_30",
            HELD_OUT,
            "the policy shipped before the PPO sittings (2026-11-30)",
        ),
    ),
}


def suite(game: str) -> tuple[Opponent, ...]:
    """The opponent suite of ``game`` (any spelling :func:`hot_envs.games.get_game` takes)."""
    return SUITES[get_game(game).name]


def pool(game: str, which: str) -> list[str]:
    """The specs of ``game``'s ``training`` or ``held-out`` pool."""
    if which not in POOLS:
        raise ValueError(f"unknown pool {which!r}; choose one of {list(POOLS)}")
    return [o.spec for o in suite(game) if o.pool == which]


def training_pool(game: str) -> list[str]:
    """The specs training may use as opponents or teachers."""
    return pool(game, TRAINING)


def held_out_pool(game: str) -> list[str]:
    """The specs no training ever uses: what a policy's robustness is judged by."""
    return pool(game, HELD_OUT)

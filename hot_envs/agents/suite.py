"""The opponent suite per game: agents of clearly different styles that a policy is judged
against (``hot-envs gauntlet``), split into a **training pool** and a **held-out pool**
(docs/evaluation.md).

Training may use anything in the training pool as an opponent or a teacher (the search agent,
at small budgets, is one); nothing in the held-out pool is ever either, so a policy's share
against it says how it plays against styles it never met. ``costly`` marks the opponents a
gauntlet may play fewer games against.
"""

from __future__ import annotations

from dataclasses import dataclass

from hot_envs.core.games import GAMES, get_game

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


# Each game's ``suite``: (spec, pool, style[, costly]) rows.
SUITES: dict[str, tuple[Opponent, ...]] = {
    game.name: tuple(Opponent(*row) for row in game.suite) for game in GAMES.values()
}


def suite(game: str) -> tuple[Opponent, ...]:
    """The opponent suite of ``game`` (any spelling :func:`hot_envs.core.games.get_game` takes)."""
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

"""Differential play: an array engine against the per-game engine, action for action.

:func:`play` steps ``num_games`` games of :mod:`hot_envs.batched` and, beside each, the
per-game ``State`` of the same game: dealt from the same seed (``games.deal([i], [s])`` beside
``State.new(seed=s)``) or, for a position, loaded with its chance source
(``games.load_state(i, state)``). Both engines draw every chance event from the same stream
(:mod:`hot_envs.core.chance`), so after every action everything must agree exactly, game by
game: the state dict (reshuffles of HL-3.5 and the next rounds' deals of HK-4.4 included), the
legal actions, the observation of the seat to move and of every other seat, the rewards and the
ending. No game is ever loaded again from the other engine.

Used by the fast tests in this folder and, at 10⁶ actions per game and table size, by
``benchmarks/differential.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hot_envs import batched
from hot_envs.agents import make_agent
from hot_envs.core.games import get_game


@dataclass(frozen=True)
class Oracle:
    """How one game is compared: ``chance(before, after)`` tells from the reference's dicts
    before and after an action whether it met a chance event (counted, and compared exactly as
    every other action); ``rewards(state, options)`` are the environment's rewards after an
    action (the reference's returns at the end, else zeros)."""

    chance: Callable[[dict, dict], bool]
    rewards: Callable[[Any, dict], list[float]]


def _end_returns(state: Any, options: dict) -> list[float]:
    return state.returns() if state.is_terminal() else [0.0] * state.num_players


def _karten_rewards(state: Any, options: dict) -> list[float]:
    if options.get("round_rewards"):
        returns = state.round_returns()
        return returns if returns is not None else [0.0] * state.num_players
    return _end_returns(state, options)


def _luft_reshuffled(before: dict, after: dict) -> bool:
    """HL-3.5: the discard pile became the draw pile (it grew, or a discarded card left)."""
    return len(after["draw_pile"]) > len(before["draw_pile"]) or not set(
        before["discard_pile"]
    ) <= set(after["discard_pile"])


ORACLES: dict[str, Oracle] = {
    # HL-3.5: a reshuffle is the only chance inside a game.
    "heisse-luft": Oracle(chance=_luft_reshuffled, rewards=_end_returns),
    # HK-2.2: only a new round deals (HK-4.4); drawing takes the pile's top card (HK-3.1).
    "heisse-karten": Oracle(
        chance=lambda before, after: after["round"] != before["round"],
        rewards=_karten_rewards,
    ),
}

ARRAY_ONLY = ("round_rewards",)
"""Options of an array engine that are no option of the per-game ``State`` (how it rewards)."""


@dataclass
class Report:
    """What a differential run compared."""

    actions: int = 0
    games: int = 0
    chance_events: int = 0
    endings: int = 0  # games played to their end (each then dealt anew)
    mismatches: list[str] = field(default_factory=list)

    def check(self, equal: bool, what: str) -> None:
        if not equal and len(self.mismatches) < 20:
            self.mismatches.append(what)


def play(
    game: str,
    num_games: int,
    actions: int,
    seed: int = 0,
    policy: str = "random",
    positions: Sequence[dict] = (),
    **options: Any,
) -> Report:
    """Play until ``actions`` actions have been compared; ``policy`` chooses every seat's
    actions: ``"random"`` (uniform over the mask) or an agent spec (``heuristic``, …) that
    decides from the reference's observation and view. ``positions`` (state dicts) are set up
    in the first games before play, each with a chance source seeded from ``seed``; every other
    game, and every game once it ends, is dealt from a seed drawn from ``seed``."""
    description = get_game(game)
    oracle = ORACLES[description.name]
    engine = description.engine.State
    raw_env = description.env.raw_env
    state_options = {k: v for k, v in options.items() if k not in ARRAY_ONLY}
    games = batched.make(game, num_games, **options)
    rng = np.random.default_rng(seed)
    refs: list[Any] = [None] * num_games

    def deal(rows: list[int]) -> None:
        seeds = rng.integers(2**63, size=len(rows)).tolist()
        games.deal(rows, seeds)
        for i, deal_seed in zip(rows, seeds, strict=True):
            if "num_players" in options:  # one count for all games, or one per game
                state_options["num_players"] = int(games.players[i])
            refs[i] = engine.new(seed=deal_seed, **state_options)

    deal(list(range(num_games)))
    for i, position in enumerate(positions[:num_games]):
        refs[i] = engine.from_dict(position, seed=int(rng.integers(2**63)))
        games.load_state(i, refs[i])
    agent = None if policy == "random" else make_agent(policy, description.name, seed=seed)
    report = Report(games=num_games)
    seat_range = np.arange(games.num_players)
    while report.actions < actions:
        current = games.current_player
        mask = games.legal_mask()
        observed = games.observe()
        by_seat = [games.observe(np.where(s < games.players, s, -1)) for s in seat_range]
        chosen = np.zeros(num_games, dtype=np.int64)
        for i, ref in enumerate(refs):
            player = ref.current_player
            report.check(current[i] == (-1 if player is None else player), f"game {i}: mover")
            legal = ref.legal_actions()
            report.check(np.flatnonzero(mask[i]).tolist() == legal, f"game {i}: legal mask")
            for s in range(ref.num_players):
                report.check(
                    np.array_equal(by_seat[s][i], raw_env.encode(ref, int(s))),
                    f"game {i}: observation of seat {s}",
                )
            if player is None:
                continue
            report.check(np.array_equal(observed[i], by_seat[player][i]), f"game {i}: observe()")
            if agent is None:
                chosen[i] = legal[rng.integers(len(legal))]
            else:
                observation = {
                    "observation": observed[i],
                    "action_mask": mask[i].astype(np.int8),
                }
                chosen[i] = agent.act(observation, ref.view(player))
        if report.mismatches:  # the games no longer agree on what is legal: stop here
            return report
        rewards, done = games.step(chosen)
        for i, ref in enumerate(refs):
            if ref.current_player is None:
                continue
            before = ref.to_dict()
            ref.apply(int(chosen[i]))
            report.actions += 1
            after = ref.to_dict()
            expected = oracle.rewards(ref, options)
            padded = expected + [0.0] * (len(rewards[i]) - len(expected))
            report.check(rewards[i].tolist() == padded, f"game {i}: rewards")
            report.check(bool(done[i]) == ref.is_terminal(), f"game {i}: done")
            report.check(bool(games.truncated[i]) == ref.is_truncated(), f"game {i}: truncated")
            report.chance_events += oracle.chance(before, after)
            report.endings += ref.is_terminal()
            report.check(
                after == games.state_dict(i), f"game {i}: state after action {int(chosen[i])}"
            )
        deal(np.flatnonzero(done).tolist())
    return report

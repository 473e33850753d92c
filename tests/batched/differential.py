"""Differential play: an array engine against the per-game engine, action for action.

:func:`play` steps ``num_games`` games of :mod:`hot_envs.batched` and, beside each, the
per-game ``State`` loaded from the same position (``State.from_dict(games.state_dict(i))``).
After every action it compares, game by game: the state dict, the legal actions, the observation
of the seat to move and of every other seat, the rewards and the ending. Chance draws with the
engines' own generators, which differ, so after an action that draws (a :class:`Oracle`'s
``chance`` says which) the random parts must agree as multisets and the rest exactly; the
reference is then loaded from the array engine's position and play goes on. Where chance
strikes in the middle of an action and what it draws decides what follows (Heiße Luft's
reshuffle, HL-3.5), the reference instead replays the array game's own stream
(:class:`StreamGenerator`) and everything must agree exactly.

Used by the fast tests in this folder and, at 10⁶ actions per game and table size, by
``benchmarks/differential.py``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hot_envs import batched
from hot_envs.agents import make_agent
from hot_envs.batched.streams import below, shuffle
from hot_envs.core.games import get_game


@dataclass(frozen=True)
class Oracle:
    """How one game is compared: ``chance(before, after)`` tells from the reference's dicts
    before and after an action whether it drew at random, and ``random_keys`` are the dict keys
    whose cards such a draw may place differently; ``rewards(state)`` are the environment's
    rewards after an action (the reference's returns at the end, else zeros)."""

    chance: Callable[[dict, dict], bool]
    random_keys: tuple[str, ...]
    rewards: Callable[[Any, dict], list[float]]
    reference: Callable[[type, Any, int], Any] | None = None
    """``reference(engine, games, i)``: game ``i``'s reference; by default
    ``engine.from_dict(games.state_dict(i))``."""


def _end_returns(state: Any, options: dict) -> list[float]:
    return state.returns() if state.is_terminal() else [0.0] * state.num_players


def _karten_rewards(state: Any, options: dict) -> list[float]:
    if options.get("round_rewards"):
        returns = state.round_returns()
        return returns if returns is not None else [0.0] * state.num_players
    return _end_returns(state, options)


class StreamGenerator:
    """Stands in for a reference ``State``'s numpy generator and draws what the array engine's
    kernels draw: from a copy of game ``i``'s own stream (:mod:`hot_envs.batched.streams`).
    Heiße Luft reshuffles in the middle of an action (HL-3.5), and the cards it then draws
    decide what follows (whether the player is stuck, HL-3.4), so its draws are compared
    exactly rather than as multisets: the reference lays the draw pile the kernel lays."""

    def __init__(self, stream: np.ndarray) -> None:
        self.stream = np.array(stream, dtype=np.int64).reshape(1, 2)

    def permutation(self, n: int) -> np.ndarray:
        order = np.arange(n, dtype=np.int64)
        shuffle(self.stream, 0, order, n)
        return order

    def integers(self, n: int) -> int:
        return int(below(self.stream, 0, n))


def _replaying_reference(engine: type, games: Any, i: int) -> Any:
    state = engine.from_dict(games.state_dict(i))
    state._rng = StreamGenerator(games._rng[i])
    return state


def _luft_reshuffled(before: dict, after: dict) -> bool:
    """HL-3.5: the discard pile became the draw pile (it grew, or a discarded card left)."""
    return len(after["draw_pile"]) > len(before["draw_pile"]) or not set(
        before["discard_pile"]
    ) <= set(after["discard_pile"])


ORACLES: dict[str, Oracle] = {
    # HL-3.5: a reshuffle is the only chance inside a game; the reference replays the game's
    # stream (StreamGenerator), so even then nothing may differ (no random keys).
    "heisse-luft": Oracle(
        chance=_luft_reshuffled,
        random_keys=(),
        rewards=_end_returns,
        reference=_replaying_reference,
    ),
    # HK-2.2: only a new round deals (HK-4.4); drawing takes the pile's top card (HK-3.1).
    "heisse-karten": Oracle(
        chance=lambda before, after: after["round"] != before["round"],
        random_keys=("hands", "draw_pile", "set_aside"),
        rewards=_karten_rewards,
    ),
}


@dataclass
class Report:
    """What a differential run compared."""

    actions: int = 0
    games: int = 0
    chance_events: int = 0
    mismatches: list[str] = field(default_factory=list)

    def check(self, equal: bool, what: str) -> None:
        if not equal and len(self.mismatches) < 20:
            self.mismatches.append(what)


def _cards(d: dict, keys: tuple[str, ...]) -> Counter:
    found: Counter = Counter()

    def walk(value: Any) -> None:
        if isinstance(value, list):
            for item in value:
                walk(item)
        else:
            found[value] += 1

    for key in keys:
        walk(d[key])
    return found


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
    decides from the reference's observation and view. ``positions`` (state dicts) are loaded
    into the first games before play; every other game, and every game once it ends, is
    dealt."""
    description = get_game(game)
    oracle = ORACLES[description.name]
    engine = description.engine.State
    raw_env = description.env.raw_env
    games = batched.make(game, num_games, **options)
    games.reset(seed=seed)
    for i, position in enumerate(positions[:num_games]):
        games.load(i, position)
    rng = np.random.default_rng(seed)
    agent = None if policy == "random" else make_agent(policy, description.name, seed=seed)
    report = Report(games=num_games)
    load = oracle.reference or (lambda engine, games, i: engine.from_dict(games.state_dict(i)))
    refs = [load(engine, games, i) for i in range(num_games)]
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
            after, mine = ref.to_dict(), games.state_dict(i)
            expected = oracle.rewards(ref, options)
            padded = expected + [0.0] * (len(rewards[i]) - len(expected))
            report.check(rewards[i].tolist() == padded, f"game {i}: rewards")
            report.check(bool(done[i]) == ref.is_terminal(), f"game {i}: done")
            report.check(bool(games.truncated[i]) == ref.is_truncated(), f"game {i}: truncated")
            if oracle.chance(before, after):
                report.chance_events += 1
                fixed = {k: v for k, v in after.items() if k not in oracle.random_keys}
                report.check(
                    fixed == {k: v for k, v in mine.items() if k not in oracle.random_keys},
                    f"game {i}: state after a chance action {int(chosen[i])}",
                )
                report.check(
                    _cards(after, oracle.random_keys) == _cards(mine, oracle.random_keys),
                    f"game {i}: the cards a chance action dealt",
                )
                if oracle.random_keys:  # the engines drew differently: go on from the arrays'
                    refs[i] = load(engine, games, i)
            else:
                report.check(after == mine, f"game {i}: state after action {int(chosen[i])}")
        dealt = games.reset_done()
        for i in np.flatnonzero(dealt):
            refs[i] = load(engine, games, int(i))
    return report

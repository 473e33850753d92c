"""A single-agent Gymnasium environment over either game, for sb3-contrib's ``MaskablePPO``.

One seat belongs to the *learner* (the caller of ``step``); every other seat is played by an
agent drawn from an :class:`OpponentPool`. The learner's episode runs from its first decision to
the end of the game; the opponents' moves between two learner decisions happen inside ``step``.

## Observation and action space
``observation_space`` is the game's observation ``Box`` (``LAYOUT`` of the engine: 644 floats for
Heiße Luft, 670 for Heiße Karten, padded to 6 seats so one policy serves every player count) from
the learner's point of view; ``action_space`` is ``Discrete(366)`` / ``Discrete(48)``.
:meth:`SingleAgentEnv.action_masks` gives the legal actions as a bool vector (sb3-contrib's
``action_masks()`` protocol), the same legal actions as the AEC env's int8 ``action_mask``.

## Rewards
The learner's own return when the game ends — whoever makes the last move. (PettingZoo's SB3
tutorial once dropped the final reward when an opponent's move ended the game, PettingZoo issue
#1147; here the opponents' moves run inside ``step`` and the reward of that ``step`` is the
learner's ``returns()[seat]``.) 0 for a draw and for a truncated game (Heiße Luft's
``turn_limit``: ``truncated=True``). An illegal learner action ends the episode with −1 and
``info["illegal_action"] = True``, as PettingZoo's ``TerminateIllegalWrapper`` does.

*Reward shaping* (``shaping=c``, off by default) is potential-based (Ng, Harada & Russell 1999):
each step adds ``c · (Φ(s') − Φ(s))`` between two learner decisions, with Φ = 0 once the game is
over, so the shaping terms of an episode sum to zero (Φ = 0 at the deal too) and only move
credit earlier. Φ for Heiße Luft: (prize cards won by the learner − by the opponent) / 20, a
trophy counted as its price in cards; for Heiße Karten: (learner's round score − the best other
score) / 200.

## Opponent sampling rule
At every ``reset`` each opponent seat independently draws one pool entry with probability
``weight / total weight``. An entry is an agent (used as is, shared by the seats that draw it), an
agent spec string for :func:`hot_envs.agents.make_agent` or a factory ``f(seed) -> agent``; specs
and factories are built once, on first use, seeded from the env's generator. The learner's seat
is fixed (``learner_seat=k``) or drawn uniformly per episode (``"rotate"``, the default).

## Info
``reset`` and every ``step`` give ``learner_seat``, ``num_players`` and ``opponents`` (the entry
name per seat, ``None`` for the learner). The final ``step`` adds ``returns`` (per seat),
``winners`` (seats with the best return), ``win_share`` (1/W for a win shared by W players — a
2-player draw is ½ — else 0, as the arena counts it) and
``is_success`` (the learner won alone; SB3 logs its mean as ``rollout/success_rate``).

>>> env = SingleAgentEnv("heisse-luft", opponents=["random"], seed=0)
>>> observation, info = env.reset()
>>> observation.shape, env.action_masks().dtype
((644,), dtype('bool'))
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from hot_envs.agents.base import Agent, decide
from hot_envs.agents.features import SPECS, policy_input
from hot_envs.engine import GameState
from hot_envs.games import get_game

OpponentSource = Agent | str | Callable[[int], Agent]
ROTATE = "rotate"
_HL_TROPHY_PRICE = {"H": 7, "D": 6, "C": 5, "S": 4}  # RULES HL-6.1


@dataclass
class Opponent:
    """One pool entry: a ``name`` (shown in ``info`` and logs), its ``source`` and its weight."""

    name: str
    source: OpponentSource
    weight: float = 1.0


def _entry(item: Opponent | OpponentSource | tuple, index: int) -> Opponent:
    """An :class:`Opponent` from an entry, ``(source, weight)``, or a bare source."""
    if isinstance(item, Opponent):
        return item
    source, weight = item if isinstance(item, tuple) else (item, 1.0)
    name = source if isinstance(source, str) else f"{type(source).__name__}#{index}"
    return Opponent(name, source, float(weight))


class OpponentPool:
    """Weighted opponents for the non-learner seats (sampling rule in the module docstring).

    Entries can be changed between episodes — a self-play league adds snapshots and moves
    weights with :meth:`set` and :meth:`remove` (through ``VecEnv.env_method`` in training)."""

    def __init__(self, entries: Iterable[Opponent | OpponentSource | tuple] = ("random",)) -> None:
        self.entries: dict[str, Opponent] = {}
        self._built: dict[str, Agent] = {}
        for i, item in enumerate(entries):
            entry = _entry(item, i)
            self.set(entry.name, entry.source, entry.weight)
        if not self.entries:
            raise ValueError("an opponent pool needs at least one entry")

    def set(self, name: str, source: OpponentSource | None, weight: float = 1.0) -> None:
        """Add entry ``name`` or replace its source and weight (``source=None``: only the
        weight of an existing entry)."""
        if not weight >= 0.0:
            raise ValueError(f"opponent {name!r}: the weight must be ≥ 0, not {weight!r}")
        if source is None:
            if name not in self.entries:
                raise ValueError(f"no opponent {name!r} in the pool: {sorted(self.entries)}")
            self.entries[name].weight = float(weight)
            return
        is_agent = not isinstance(source, type) and callable(getattr(source, "act", None))
        if not (isinstance(source, str) or is_agent or callable(source)):
            raise ValueError(f"opponent {name!r}: {source!r} is no agent, spec or factory")
        self.entries[name] = Opponent(name, source, float(weight))
        self._built.pop(name, None)

    def remove(self, name: str) -> None:
        """Drop entry ``name`` (no error if it is not there)."""
        self.entries.pop(name, None)
        self._built.pop(name, None)

    def sample(self, rng: np.random.Generator) -> str:
        """The name of one entry, drawn with probability weight / total weight."""
        names = list(self.entries)
        weights = np.array([self.entries[n].weight for n in names], dtype=np.float64)
        if weights.sum() <= 0.0:
            raise ValueError("every opponent in the pool has weight 0")
        return names[rng.choice(len(names), p=weights / weights.sum())]

    def agent(self, name: str, game: str, rng: np.random.Generator) -> Agent:
        """Entry ``name`` as an agent, built on first use (seeded from ``rng``)."""
        if name not in self._built:
            source = self.entries[name].source
            seed = int(rng.integers(2**63))
            if isinstance(source, str):
                from hot_envs.agents import make_agent

                self._built[name] = make_agent(source, game, seed)
            elif isinstance(source, type) or not callable(getattr(source, "act", None)):
                self._built[name] = source(seed)
            else:
                self._built[name] = source
        return self._built[name]


def shaping_potential(game: str, view: dict[str, Any], seat: int) -> float:
    """Φ of the reward shaping (module docstring) from ``seat``'s view of a game in progress."""
    if game == "heisse-luft":
        cards = [
            sum(view["prizes_won"][p].values())
            + sum(_HL_TROPHY_PRICE[s] for s in view["trophies"][p])
            for p in (0, 1)
        ]
        return (cards[seat] - cards[1 - seat]) / 20.0
    scores = view["scores"]
    best_other = max(s for p, s in enumerate(scores) if p != seat)
    return (scores[seat] - best_other) / 200.0


class SingleAgentEnv(gymnasium.Env):
    """One learner seat against a pool of opponents (module docstring: spaces, rewards, rules).

    Arguments: ``game`` (``"heisse-luft"`` / ``"heisse-karten"``, any spelling
    :func:`hot_envs.games.get_game` takes); ``opponents`` (an :class:`OpponentPool`, or entries
    for one: agents, specs, factories, ``(source, weight)`` pairs; default ``["random"]``);
    ``learner_seat`` (a seat or ``"rotate"``); ``players`` (Heiße Karten: a player count, or a
    sequence of counts drawn uniformly per episode); ``game_options`` (engine options such as
    ``turn_limit``); ``shaping`` (coefficient c of the potential-based shaping, 0 = off);
    ``seed`` (seeds the first ``reset`` without a seed); ``action_features`` (observations are
    the packed inputs of :func:`hot_envs.agents.features.policy_input` — observation, a feature
    row per legal action and the actions' ids — for action-scoring policies).
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 2}

    def __init__(
        self,
        game: str = "heisse-luft",
        opponents: OpponentPool | Iterable[Opponent | OpponentSource | tuple] | None = None,
        learner_seat: int | str = ROTATE,
        players: int | Sequence[int] | None = None,
        game_options: dict[str, Any] | None = None,
        shaping: float = 0.0,
        seed: int | None = None,
        render_mode: str | None = None,
        action_features: bool = False,
    ) -> None:
        self.description = get_game(game)
        self.game_name = self.description.name
        self.engine = self.description.engine
        if isinstance(opponents, OpponentPool):
            self.pool = opponents
        else:
            self.pool = OpponentPool(["random"] if opponents is None else opponents)
        self.game_options = dict(game_options or {})
        if players is None:
            self.player_counts: tuple[int | None, ...] = (None,)
        else:
            self.player_counts = (players,) if isinstance(players, int) else tuple(players)
        for n in self.player_counts:
            if n is not None:
                self.description.check_players(n)
        # One deal per player count: bad options fail here, not at the first reset.
        seats = {self._deal(n, np.random.default_rng(0)).num_players for n in self.player_counts}
        if learner_seat != ROTATE and not (
            isinstance(learner_seat, int) and 0 <= learner_seat < min(seats)
        ):
            raise ValueError(f"learner_seat must be a seat below {min(seats)} or 'rotate'")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']} or None, "
                f"not {render_mode!r}"
            )
        self.learner_seat_option = learner_seat
        self.shaping = float(shaping)
        self.render_mode = render_mode
        layout = self.engine.LAYOUT
        self.action_features = bool(action_features)
        if self.action_features:
            size = SPECS[self.game_name].input_size
            self.observation_space = spaces.Box(-np.inf, np.inf, (size,), dtype=np.float32)
        else:
            self.observation_space = spaces.Box(layout.low, layout.high, dtype=np.float32)
        self.action_space = spaces.Discrete(self.engine.NUM_ACTIONS)
        self.game: GameState | None = None
        self.seat = 0
        self.opponent_names: list[str | None] = []
        self.opponent_agents: list[Agent | None] = []
        self._potential = 0.0
        self._initial_seed = seed

    # ------------------------------------------------------------------ Gymnasium API

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal a game (or set up ``options["state"]``, a ``State.to_dict()`` dict; its mover
        need not be the learner), seat the learner (``options["learner_seat"]`` overrides the
        rule), draw the opponents and play their moves up to the learner's first decision."""
        if seed is None and self._initial_seed is not None:
            seed, self._initial_seed = self._initial_seed, None
        super().reset(seed=seed)
        options = options or {}
        if "state" in options:
            self.game = self.engine.State.from_dict(options["state"], seed=self.np_random)
            if self.game.is_terminal():
                raise ValueError("reset's state must be a game in progress")
        else:
            count = self.player_counts[self.np_random.integers(len(self.player_counts))]
            self.game = self._deal(count, self.np_random)
        n = self.game.num_players
        seat = options.get("learner_seat", self.learner_seat_option)
        self.seat = int(self.np_random.integers(n)) if seat == ROTATE else int(seat)
        if not 0 <= self.seat < n:
            raise ValueError(f"learner seat {self.seat} in a {n}-player game")
        self.opponent_names = [
            None if p == self.seat else self.pool.sample(self.np_random) for p in range(n)
        ]
        # The episode keeps its agents: pool changes take effect from the next episode.
        agents = {
            name: self.pool.agent(name, self.game_name, self.np_random)
            for name in dict.fromkeys(self.opponent_names)
            if name is not None
        }
        for agent in agents.values():
            if callable(getattr(agent, "reset", None)):
                agent.reset()
        self.opponent_agents = [agents.get(name) for name in self.opponent_names]
        self._play_opponents()
        if self.game.is_terminal():
            raise ValueError(
                f"the game ends before the learner's first decision (learner seat {self.seat}; "
                "a turn_limit that small leaves the learner no move)"
            )
        self._potential = self._phi()
        return self._observation(), self._info()

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Play the learner's action, then the opponents' moves up to the learner's next
        decision or the end of the game; the reward is the learner's (module docstring)."""
        if self.game is None or self.game.is_terminal():
            raise RuntimeError("call reset() before step() (the episode is over)")
        action = int(action)
        if not (0 <= action < self.action_space.n and self.action_masks()[action]):
            info = {**self._info(), "illegal_action": True}
            observation = self._observation()
            self.game = None
            return observation, -1.0, True, False, info
        self.game.apply(action)
        self._play_opponents()
        info = self._info()
        reward = 0.0
        if self.game.is_terminal():
            returns = [float(r) for r in self.game.returns()]
            best = max(returns)
            winners = [p for p, r in enumerate(returns) if r == best]
            share = 1.0 / len(winners) if self.seat in winners else 0.0
            info.update(returns=returns, winners=winners, win_share=share)
            info["is_success"] = winners == [self.seat]
            reward = returns[self.seat]
        potential = self._phi()
        reward += self.shaping * (potential - self._potential)
        self._potential = potential
        terminated = self.game.is_terminal() and not self.game.is_truncated()
        return self._observation(), reward, terminated, self.game.is_truncated(), info

    def action_masks(self) -> np.ndarray:
        """Bool vector of the learner's legal actions (all False once the game is over)."""
        if self.game is None or self.game.is_terminal():
            return np.zeros(self.action_space.n, dtype=bool)
        return self.engine.action_mask(self.game, self.seat).astype(bool)

    def render(self) -> str | np.ndarray | None:
        """The table as the learner sees it: text (``"ansi"``) or an ``H × W × 3`` ``uint8``
        frame (``"rgb_array"``, :mod:`hot_envs.pictures`; what Gymnasium's ``RecordVideo``
        records)."""
        if self.render_mode is None or self.game is None:
            return None
        if self.render_mode == "rgb_array":
            from hot_envs.pictures import frame

            return frame(self.game, self.seat)
        return self.game.render(viewer=self.seat)

    # ------------------------------------------------------------------ helpers

    def set_opponent(self, name: str, source: OpponentSource | None, weight: float = 1.0) -> None:
        """Add or replace a pool entry, or (``source=None``) change its weight; effective from
        the next episode."""
        self.pool.set(name, source, weight)

    def remove_opponent(self, name: str) -> None:
        """Remove a pool entry (effective from the next episode)."""
        self.pool.remove(name)

    def _deal(self, count: int | None, rng: np.random.Generator) -> GameState:
        return self.engine.State.new(seed=rng, **self.description.options(count, self.game_options))

    def _play_opponents(self) -> None:
        game = self.game
        while not game.is_terminal() and game.current_player != self.seat:
            seat = game.current_player
            name, agent = self.opponent_names[seat], self.opponent_agents[seat]
            action = decide(agent, self.engine, game, seat)
            try:
                game.apply(int(action))
            except (ValueError, TypeError) as error:
                raise ValueError(f"opponent {name!r} in seat {seat}: {error}") from None

    def _phi(self) -> float:
        if not self.shaping or self.game.is_terminal():
            return 0.0
        return shaping_potential(self.game_name, self.game.view(self.seat), self.seat)

    def _observation(self) -> np.ndarray:
        # Also at the end: SB3 bootstraps a truncated episode's value from its final observation.
        observation = self.engine.encode(self.game, self.seat)
        if self.action_features:
            return policy_input(self.game_name, observation, self.game.view(self.seat))
        return observation

    def _info(self) -> dict[str, Any]:
        return {
            "learner_seat": self.seat,
            "num_players": self.game.num_players,
            "opponents": list(self.opponent_names),
        }


def random_observations(
    game: str, players: int | Sequence[int] | None, n: int, seed: int = 0
) -> list[dict[str, np.ndarray]]:
    """``n`` learner observation dicts (``observation`` and an int8 ``action_mask``, as the AEC
    env gives them) from uniformly random play of ``game`` in a :class:`SingleAgentEnv` with
    ``players`` (as there), seeded: inputs for timing or comparing policies."""
    return [
        {"observation": observation, "action_mask": mask.astype(np.int8)}
        for _, observation, mask in islice(_random_play(game, players, seed), n)
    ]


def random_decisions(
    game: str, players: int | Sequence[int] | None, n: int, seed: int = 0
) -> list[tuple[dict[str, np.ndarray], dict[str, Any]]]:
    """The decisions of :func:`random_observations` (same arguments, same play) with the
    learner's view of each: ``(observation dict, view)`` pairs, what an agent's
    ``act(observation, view)`` takes — inputs for policies that need the view, such as an
    action-scoring checkpoint (:mod:`hot_envs.agents.scorer`)."""
    return [
        ({"observation": observation, "action_mask": mask.astype(np.int8)}, env.game.view(env.seat))
        for env, observation, mask in islice(_random_play(game, players, seed), n)
    ]


def _random_play(
    game: str, players: int | Sequence[int] | None, seed: int
) -> Iterator[tuple[SingleAgentEnv, np.ndarray, np.ndarray]]:
    """Endless uniformly random learner play, seeded: the env at each learner decision, with
    the observation and the bool mask; the next action is played when the next item is asked
    for."""
    env = SingleAgentEnv(game, players=players, seed=seed)
    rng = np.random.default_rng(seed)
    observation, _ = env.reset()
    while True:
        mask = env.action_masks()
        yield env, observation, mask
        observation, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        if terminated or truncated:
            observation, _ = env.reset()

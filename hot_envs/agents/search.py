"""One determinised search agent for both games: perfect-information Monte Carlo (PIMC).

At each decision the agent, knowing only its view, repeatedly *determinises* (deals the cards
it cannot see at random, ``State.from_view(view, rng)``), plays every candidate action in that
world and finishes the game with a rollout policy (random moves by default), scoring the action
by the rollout's ``returns()[seat]``. The candidates share each determinisation (common random
numbers), and the budget — ``simulations`` rollouts (deterministic for a seed) or ``seconds``
per decision — is spent by *sequential halving* (Karnin, Koren & Somekh 2013):
``ceil(log2 K)`` rounds, each splitting its rollouts evenly over the actions left and keeping
the better half by mean return. A decision with one legal action costs nothing.

The rollouts run in arrays: a round's determinisations × candidates are one batch of the game's
array engine (:mod:`hot_envs.batched`), each determinisation copied to its candidates, played on
by an *agent* as rollout policy for all games at once
(:func:`~hot_envs.agents.arrays.as_array_agent`) and finished by random moves in the engine's
kernels. A callable ``policy(state, rng) -> action`` on engine states instead runs one game at
a time on the per-game engine (:func:`agent_rollout` makes one of an agent). A slow policy may
play only the first ``rollout_plies`` moves of each rollout, random moves the rest.

A ``prior`` agent makes the search an *improvement* of that agent: its choice stays in the race
to the last round and is replaced only by an action whose mean return is higher by ``margin``,
which keeps the prior's good moves where rollouts judge skilled play badly (random rollouts in
Heiße Luft) and still finds its blunders. ``hot_envs.agents.SEARCH_PRESETS`` holds the
``search`` spec's settings per game.
"""

from __future__ import annotations

import importlib
import math
import random
import time
from collections.abc import Callable, Iterator, Mapping
from types import ModuleType
from typing import Any

import numpy as np

from hot_envs.agents.base import Agent, legal_actions
from hot_envs.core.engine import GameState
from hot_envs.core.game_type import resolve
from hot_envs.core.games import GAMES, get_game

RolloutPolicy = Callable[[GameState, random.Random], int]

# Random rollouts per decision that keep a decision under 0.5 s (CPU) on one core, by engine
# name (each game's ``search_simulations``).
DEFAULT_SIMULATIONS = {game.key: game.search_simulations for game in GAMES.values()}


def engine_module(game: str | ModuleType | type) -> ModuleType:
    """The engine package (``State``, ``encode``, ``action_mask``) of a game given by CLI name,
    engine module or ``State`` class."""
    if isinstance(game, str):
        return get_game(game).engine
    if isinstance(game, ModuleType) and hasattr(game, "State"):
        return game
    if isinstance(game, type):
        module = importlib.import_module(game.__module__.rpartition(".")[0])
        if getattr(module, "State", None) is game:
            return module
    raise ValueError(f"not a game, engine module or engine State class: {game!r}")


def random_rollout(state: GameState, rng: random.Random) -> int:
    """A uniformly random legal action."""
    return rng.choice(state.legal_actions())


class _LazyObservation(Mapping):
    """The environment's observation dict, encoded only if an agent looks at it."""

    def __init__(self, engine: ModuleType, state: GameState, seat: int) -> None:
        self._encode = {"observation": engine.encode, "action_mask": engine.action_mask}
        self._state, self._seat = state, seat
        self._cache: dict[str, np.ndarray] = {}

    def __getitem__(self, key: str) -> np.ndarray:
        if key not in self._cache:
            self._cache[key] = self._encode[key](self._state, self._seat)
        return self._cache[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._encode)

    def __len__(self) -> int:
        return 2


def agent_rollout(
    agent: Agent, game: str | ModuleType | type, epsilon: float = 0.0
) -> RolloutPolicy:
    """A rollout policy that asks ``agent`` (with the mover's view) and, with probability
    ``epsilon``, plays a random legal action instead."""
    engine = engine_module(game)

    def policy(state: GameState, rng: random.Random) -> int:
        if epsilon and rng.random() < epsilon:
            return rng.choice(state.legal_actions())
        seat = state.current_player
        return agent.act(_LazyObservation(engine, state, seat), state.view(seat))

    return policy


class SearchAgent:
    """Determinised Monte Carlo search (module docstring) for either game.

    Args:
        game: the game, as CLI name (``"heisse-luft"``), engine module or ``State`` class.
        simulations: rollouts per decision (default: :data:`DEFAULT_SIMULATIONS` of the game).
        seconds: a wall-clock budget per decision instead (not reproducible).
        rollout: the rollout policy, an agent or a callable (module docstring; default random).
        seed: seeds the determinisations and the rollouts.
        rollout_plies: the rollout policy's moves per rollout, random moves after them.
        prior, margin: an agent whose choice is the default (module docstring).
        value: scores a finished rollout for a seat (default: ``state.returns()[seat]``).
        array_value: ``value`` for finished games in arrays, ``array_value(games, rows,
            returns) -> values`` (float ``(len(rows), players)``), or its ``"module:name"``;
            without it a ``value`` makes the rollouts run one game at a time.
    """

    def __init__(
        self,
        game: str | ModuleType | type,
        simulations: int | None = None,
        seconds: float | None = None,
        rollout: Agent | RolloutPolicy | None = None,
        seed: int | None = None,
        rollout_plies: int | None = None,
        prior: Agent | None = None,
        margin: float = 0.0,
        value: Callable[[GameState, int], float] | None = None,
        array_value: ArrayValue | str | None = None,
    ) -> None:
        self.engine = engine_module(game)
        self.State = self.engine.State
        name = self.engine.__name__.rpartition(".")[2]
        if simulations is None:
            simulations = DEFAULT_SIMULATIONS.get(name, 500)
        if isinstance(simulations, bool) or not isinstance(simulations, int) or simulations < 1:
            raise ValueError(f"simulations must be a positive int, not {simulations!r}")
        if seconds is not None and not seconds > 0:
            raise ValueError(f"seconds must be positive, not {seconds!r}")
        self.simulations = simulations
        self.seconds = seconds
        self.rollout_plies = rollout_plies
        self.prior, self.margin = prior, margin
        self.value = value
        self.array_value = resolve(array_value) if isinstance(array_value, str) else array_value
        self._rng = np.random.default_rng(seed)  # determinisations
        self._random = random.Random(seed)  # rollouts: Python's generator is faster per call
        self.last_values: dict[int, tuple[float, int]] = {}  # action -> (mean return, rollouts)
        # Called after every batch of rollouts; whoever must stop a search raises in it.
        self.on_rollouts: Callable[[], None] | None = None
        self.rollout = rollout
        self._policy: RolloutPolicy | None = None  # a per-game policy: one game at a time
        self._rollouts: ArrayRollouts | None = None  # else rollouts in arrays
        is_agent = callable(getattr(rollout, "act", None))
        if (value is None or self.array_value is not None) and (rollout is None or is_agent):
            self._rollouts = ArrayRollouts(self.engine, rollout, rollout_plies, self.array_value)
        else:
            self._policy = agent_rollout(rollout, self.engine) if is_agent else rollout

    def __repr__(self) -> str:
        budget = f"seconds={self.seconds}" if self.seconds else f"simulations={self.simulations}"
        return f"SearchAgent({self.engine.__name__}, {budget})"

    def release(self) -> None:
        """Let go of the rollouts' arrays between decisions (the next decision makes them again
        and decides the same): for a holder of many idle searches, such as the browser table."""
        if self._rollouts is not None:
            self._rollouts.release()

    def act(self, observation: Mapping[str, np.ndarray], view: dict[str, Any]) -> int:
        """The action with the best mean rollout return, found by sequential halving."""
        candidates = legal_actions(observation, view)
        if len(candidates) == 1:
            self.last_values = {candidates[0]: (0.0, 0)}
            return candidates[0]
        default = None if self.prior is None else int(self.prior.act(observation, view))
        totals = dict.fromkeys(candidates, 0.0)
        counts = dict.fromkeys(candidates, 0)
        rounds = math.ceil(math.log2(len(candidates)))
        if self._rollouts is not None:  # one world to deal the others from
            world = self.State.from_view(view, int(self._rng.integers(2**63)))
            most = min(self.simulations // rounds, _MOST) if self.seconds is None else _BATCH
            self._rollouts.start(world, max(most, len(candidates)))
        start = time.perf_counter()
        for r in range(rounds):
            if self.seconds is None:
                deals = max(1, self.simulations // (rounds * len(candidates)))
                deadline = math.inf
            else:
                deals, deadline = math.inf, start + self.seconds * (r + 1) / rounds
            done = 0
            while done < deals and (done == 0 or time.perf_counter() < deadline):
                if self.seconds is None:
                    batch = min(deals - done, max(1, _MOST // len(candidates)))
                else:
                    batch = max(1, _BATCH // len(candidates))
                totals_now = self._playouts(view, batch, candidates)
                for action, total in zip(candidates, totals_now, strict=True):
                    totals[action] += total
                    counts[action] += batch
                done += batch
            self._random.shuffle(candidates)  # equal means: a seeded draw, not the lowest id
            candidates.sort(key=lambda a: -totals[a] / counts[a])
            keep = math.ceil(len(candidates) / 2)
            candidates = candidates[:keep]
            if default is not None and default not in candidates and keep > 1:
                candidates[-1] = default  # the prior's choice stays in the race to the end
        self.last_values = {a: (totals[a] / counts[a], counts[a]) for a in totals}
        best = candidates[0]
        if default is not None and best != default:
            gain = self.last_values[best][0] - self.last_values[default][0]
            return best if gain > self.margin else default
        return best

    def action_values(
        self, observation: Mapping[str, np.ndarray], view: dict[str, Any]
    ) -> tuple[int, dict[int, tuple[float, int]]]:
        """The action :meth:`act` chooses and every candidate's statistics behind it: legal
        action → (mean rollout return, rollouts). Actions that sequential halving dropped early
        have fewer rollouts; a decision with one legal action has none ``(0.0, 0)``."""
        action = self.act(observation, view)
        return action, dict(self.last_values)

    def _playouts(self, view: dict[str, Any], count: int, actions: list[int]) -> list[float]:
        """Each action's total rollout value for the viewer over ``count`` determinisations of
        ``view``."""
        seat = view["player"]
        if self._rollouts is not None:
            seeds = self._rng.integers(2**63, size=count).tolist()
            totals = self._rollouts.play(seeds, actions, seat).sum(axis=0).tolist()
            if self.on_rollouts is not None:
                self.on_rollouts()
            return totals
        worlds = [self.State.from_view(view, int(self._rng.integers(2**63))) for _ in range(count)]
        totals = [0.0] * len(actions)
        for world in worlds:
            for k, action in enumerate(actions):
                totals[k] += self._playout(world, action, seat)
                if self.on_rollouts is not None:
                    self.on_rollouts()
        return totals

    def _playout(self, world: GameState, action: int, seat: int) -> float:
        """Play ``action`` in a copy of ``world``, finish the game by the rollout policy and
        return ``seat``'s reward."""
        state = world.clone()
        state.apply(action)
        rng, policy = self._random, self._policy
        if policy is not None:
            plies = self.rollout_plies if self.rollout_plies is not None else math.inf
            while plies > 0 and not state.is_terminal():
                state.apply(policy(state, rng))
                plies -= 1
        choice = rng.choice
        while not state.is_terminal():
            state.apply(choice(state.legal_actions()))
        return state.returns()[seat] if self.value is None else self.value(state, seat)


_BATCH = 64  # with a time budget: rollouts per batch (at least one determinisation)
_MOST = 4096  # rollouts per batch at most, whatever the budget

ArrayValue = Callable[[Any, np.ndarray, np.ndarray], np.ndarray]


class ArrayRollouts:
    """The search's rollouts as one batch of array games: each determinisation loaded once,
    copied to every candidate action, the actions played, then ``plies`` moves of the rollout
    agent (all of them without ``plies``) for every game at once, and random moves inside the
    engine's kernels to the end."""

    def __init__(
        self,
        engine: ModuleType,
        agent: Agent | None,
        plies: int | None,
        value: ArrayValue | None,
    ) -> None:
        self.game = get_game(engine.__name__.rpartition(".")[2]).name
        self.agent, self.plies, self.value = agent, plies, value
        self._policy: Any = None  # the agent as an array agent, made on first use
        self._games: Any = None  # the array games, kept while the options and sizes fit
        self._key: tuple | None = None
        self._world = -1  # the row holding the world the rollouts' worlds are dealt from

    def start(self, world: GameState, rows: int) -> None:
        """Hold ``world``, a determinisation of the position to search, as the one the rollouts'
        worlds are dealt from, with room for ``rows`` rollouts at once."""
        self._games_for(world, rows + 1)
        self._world = self._games.num_games - 1
        self._games.load_state(self._world, world)

    def play(self, seeds: list[int], actions: list[int], seat: int) -> np.ndarray:
        """``values[j, k]``: ``seat``'s value of playing ``actions[k]`` in a world dealt from
        the held one by ``seeds[j]`` (what ``seat`` cannot see dealt again) and rolling out."""
        games, k, deals = self._games, len(actions), len(seeds)
        rows = deals * k
        if rows > self._world:
            raise ValueError(f"{rows} rollouts at once; room was made for {self._world}")
        firsts = np.arange(0, rows, k)
        games.copy_games(np.full(deals, self._world), firsts)
        for row, seed in zip(firsts.tolist(), seeds, strict=True):
            games.reseed(row, seed)
        games.determinise(firsts, seat)
        games.copy_games(np.repeat(firsts, k), np.arange(rows))
        playing = np.zeros(games.num_games, dtype=bool)
        playing[:rows] = True
        moves = np.zeros(games.num_games, dtype=np.int64)
        moves[:rows] = np.tile(actions, deals)
        returns = np.zeros((games.num_games, games.num_players))
        rewards, done = games.step(moves, playing)
        returns += rewards
        if self.agent is not None:
            plies = math.inf if self.plies is None else self.plies
            while plies > 0 and not done[:rows].all():
                which = np.flatnonzero(playing & ~done)
                moves[which] = self._policy.act_arrays(games, which)
                rewards, done = games.step(moves, playing & ~done)
                returns += rewards
                plies -= 1
        returns += games.finish_randomly(playing & ~done)
        if self.value is not None:
            returns[:rows] = self.value(games, np.arange(rows), returns[:rows])
        return returns[:rows, seat].reshape(deals, k)

    def release(self) -> None:
        """Drop the array games (:meth:`start` makes them again); the rollout agent stays."""
        self._games, self._key, self._world = None, None, -1

    def _games_for(self, world: GameState, rows: int) -> Any:
        """Array games that can hold ``world``, with room for ``rows`` games, none in play."""
        from hot_envs.agents.arrays import as_array_agent

        arrays = get_game(self.game).load("batched")
        options = arrays.options_for(world)
        key = tuple(sorted(options.items()))
        if self._games is None or self._key != key or self._games.num_games < rows:
            size = max(rows, 2 * self._games.num_games if self._key == key and self._games else 64)
            self._games, self._key = arrays(size, **options), key
        if self._policy is None and self.agent is not None:
            self._policy = as_array_agent(self.game, self.agent)
        return self._games

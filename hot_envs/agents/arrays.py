"""Agents that decide many games of :mod:`hot_envs.batched` at once: :class:`ArrayAgent`.

An *array agent* has ``act_arrays(games, which) -> actions``: for each game index ``which[j]``
(ascending int64) of an :class:`~hot_envs.batched.ArrayGames`, the action of its seat to move,
from what that seat may know only (its observation, legal actions and what the game's array
kernels read of its view), and no per-game memory. :func:`as_array_agent` makes one of any
agent (the training driver's opponents, the arena's batches):

* an agent with its own ``act_arrays`` (:class:`~hot_envs.agents.checkpoint.CheckpointAgent`,
  :class:`~hot_envs.agents.random_agent.RandomAgent`) is used as it is;
* a game's heuristic and each style of its opponent suite (exactly their classes:
  :class:`~hot_envs.agents.base.KernelAgent`) decide through the game's array kernels
  (``ArrayHeuristic``, ``ArrayStyle`` of the game's ``arrays`` module), choosing what their
  ``act`` chooses and drawing the same numbers; agents of one class and tolerance find their
  candidates for many games in one call and each draws its own (:func:`draw_rows`);
* any other agent plays through :class:`PerGameAgent`, one game at a time.

:class:`ActionScorerInput` is what an action-scoring policy reads, for a single-agent
environment to emit in place of its observations (``policy_input=ActionScorerInput(game)``).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from hot_envs.agents.base import Agent, draw_rows, observe
from hot_envs.agents.features import SPECS, policy_input
from hot_envs.batched import ArrayGames
from hot_envs.batched.jit import COMPILED
from hot_envs.core.games import get_game


def record(dtype: np.dtype) -> np.ndarray:
    """A one-record array of ``dtype`` (zeros), a game's table or a kernel's scratch: plain
    (numba's dispatch reads it fastest), a record array with ``NUMBA_DISABLE_JIT`` (the
    kernels, run as Python, read its fields as attributes)."""
    array = np.zeros(1, dtype=dtype)
    return array if COMPILED else array.view(np.recarray)


def game_indices(games: ArrayGames, which: Any, kind: type) -> np.ndarray:
    """``which`` as int64 indices of games of ``games``, an array engine of class ``kind``
    (``TypeError`` for another, ``ValueError`` for indices that are not)."""
    if not isinstance(games, kind):
        raise TypeError(f"games must be an {kind.__name__}, not {type(games).__name__}")
    which = np.asarray(which)
    if which.ndim != 1 or (which.size and which.dtype.kind not in "iu"):
        raise ValueError(f"which must be a 1-d int array of game indices, not {which!r}"[:200])
    which = which.astype(np.int64, copy=False)
    if which.size and ((which < 0) | (which >= games.num_games)).any():
        raise ValueError(f"game indices must lie in 0 .. {games.num_games - 1}")
    return which


def policy_input_args(
    games: ArrayGames, which: Any, seats: Any, observations: Any, out: np.ndarray, kind: type
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A game's ``fill_policy_input`` arguments checked (``ValueError``) and as its kernels
    take them: ``which`` (:func:`game_indices`), ``seats`` (int64, each a seat of its game),
    ``observations`` (float32 ``(k, observation size)``); ``out`` must be float32
    ``(k, input size)``."""
    which = game_indices(games, which, kind)
    k = len(which)
    seats = np.asarray(seats)
    if seats.shape != (k,) or (k and seats.dtype.kind not in "iu"):
        raise ValueError(f"seats must be {k} ints, not {seats!r}"[:200])
    seats = seats.astype(np.int64, copy=False)
    if k and ((seats < 0) | (seats >= games.players[which])).any():
        raise ValueError("seats must lie in 0 .. each game's seat count - 1")
    spec = SPECS[games.game_name]
    observations = np.asarray(observations, dtype=np.float32)
    if observations.shape != (k, spec.observation_size):
        raise ValueError(
            f"observations must be ({k}, {spec.observation_size}), not {observations.shape}"
        )
    if out.shape != (k, spec.input_size) or out.dtype != np.float32:
        raise ValueError(f"out must be float32 ({k}, {spec.input_size})")
    return which, seats, observations


@runtime_checkable
class ArrayAgent(Protocol):
    """``act_arrays(games, which) -> actions`` (module docstring)."""

    def act_arrays(self, games: ArrayGames, which: np.ndarray) -> np.ndarray: ...


HEURISTIC = -1
"""The heuristic's code in a game's kernels (``KernelAgent.code``); the styles' are 0, 1, …"""


class ArrayScoring:
    """A game's ``ArrayHeuristic`` (``heuristic`` true) or ``ArrayStyle``: a
    :class:`~hot_envs.agents.base.KernelAgent` of exactly a class that sets its own ``code``
    (a subclass may decide otherwise), whose kernels give ``candidates`` and whose generator
    draws among them as its ``act`` does."""

    heuristic: bool

    def __init__(self, agent: Any) -> None:
        code = vars(type(agent)).get("code")
        game = getattr(agent, "game", None)
        if (
            code is None
            or (code == HEURISTIC) != self.heuristic
            or get_game(game).arrays != type(self).__module__
        ):
            kind = "heuristic" if self.heuristic else "style"
            raise TypeError(f"{agent!r} is not a plain {kind} of these kernels")
        self.agent = agent
        self.code = code

    def act_arrays(self, games: ArrayGames, which: np.ndarray) -> np.ndarray:
        """The action of the seat to move in each game ``which[j]`` (int64 ``(k,)``), what
        ``ScoringAgent.act`` plays there with the same draws."""
        return self.agent.draw_many(*self.candidates(games, which))

    def candidates(self, games: ArrayGames, which: np.ndarray) -> tuple[np.ndarray, ...]:
        """``(legal, top, counts)`` of ``ScoringAgent.draw_many``, which depend on the agent's
        class and tolerance only, not on its generator (:func:`draw_rows`)."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.agent!r})"


class PerGameAgent:
    """An ordinary agent as an array agent: ``act(observation, view)`` on each game's per-game
    state in turn, exactly what it gets at an arena's table."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent

    def act_arrays(self, games: ArrayGames, which: np.ndarray) -> np.ndarray:
        engine = importlib.import_module(games.engine.__module__.rpartition(".")[0])
        actions = np.empty(len(which), dtype=np.int64)
        for j, i in enumerate(np.asarray(which).tolist()):
            state = games.engine.from_dict(games.state_dict(i))
            seat = state.current_player
            actions[j] = int(self.agent.act(observe(engine, state, seat), state.view(seat)))
        return actions

    def __repr__(self) -> str:
        return f"PerGameAgent({self.agent!r})"


def as_array_agent(game: str, agent: Any) -> ArrayAgent:
    """``agent`` as an array agent for ``game`` (module docstring)."""
    if callable(getattr(agent, "act_arrays", None)):
        return agent
    if "code" in vars(type(agent)) and getattr(agent, "game", None) == get_game(game).name:
        module = importlib.import_module(get_game(game).arrays)
        return (module.ArrayHeuristic if agent.code == HEURISTIC else module.ArrayStyle)(agent)
    if callable(getattr(agent, "act", None)):
        return PerGameAgent(agent)
    raise ValueError(f"{agent!r} has neither act_arrays() nor act()")


@dataclass(frozen=True)
class ActionScorerInput:
    """The input of the action-scoring policies (:func:`~hot_envs.agents.features.policy_input`)
    for a single-agent environment to emit (:class:`hot_envs.envs.driver.PolicyInput`): one
    decision from its view, or many games of an array engine from their arrays, the same
    numbers."""

    game: str

    @property
    def size(self) -> int:
        return SPECS[get_game(self.game).name].input_size

    def one(self, observation: np.ndarray, view: dict[str, Any]) -> np.ndarray:
        return policy_input(self.game, observation, view)

    def arrays(
        self,
        games: ArrayGames,
        which: np.ndarray,
        seats: np.ndarray,
        observations: np.ndarray,
        out: np.ndarray,
    ) -> None:
        fill_policy_input(games, which, seats, observations, out)


def fill_policy_input(
    games: ArrayGames,
    which: np.ndarray,
    seats: np.ndarray,
    observations: np.ndarray,
    out: np.ndarray,
) -> None:
    """``out[j]`` = ``features.policy_input(game, observations[j], view)`` of seat ``seats[j]``
    in game ``which[j]``, from the game's array kernels."""
    module = importlib.import_module(get_game(games.game_name).arrays)
    module.fill_policy_input(games, which, seats, observations, out)


__all__ = [
    "HEURISTIC",
    "ActionScorerInput",
    "ArrayAgent",
    "ArrayScoring",
    "PerGameAgent",
    "as_array_agent",
    "draw_rows",
    "fill_policy_input",
    "game_indices",
    "policy_input_args",
    "record",
]

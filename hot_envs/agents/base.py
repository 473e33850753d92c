"""The one protocol every agent keeps (docs/agents.md).

An agent is any object with ``act(observation, view) -> action id``: ``observation`` is the
environment's dict for the acting player (``{"observation", "action_mask"}``) and ``view`` the
engine's view dict of that player (``State.view(seat)``); it never sees more (search agents deal
the rest with ``State.from_view``). ``reset`` (optional) is called at the start of every game.
:func:`decide` is the step of every loop that runs agents on an engine state: the agent gets
exactly what the environment would give it.
"""

from __future__ import annotations

import functools
import importlib
from types import ModuleType
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from hot_envs.core.engine import GameState, Seed, make_rng
from hot_envs.core.games import get_game


@runtime_checkable
class Agent(Protocol):
    """``act(observation, view) -> action id`` — the whole contract."""

    def act(self, observation: dict[str, np.ndarray], view: dict[str, Any]) -> int: ...


def observe(engine: ModuleType, state: GameState, seat: int) -> dict[str, np.ndarray]:
    """``seat``'s observation dict in ``state`` (``engine``: the game's engine module), the same
    as the environment's ``env.observe(agent)``."""
    return {
        "observation": engine.encode(state, seat),
        "action_mask": engine.action_mask(state, seat),
    }


def decide(agent: Agent, engine: ModuleType, state: GameState, seat: int) -> int:
    """``agent``'s action for ``seat`` in ``state``, from that seat's observation and view only."""
    return int(agent.act(observe(engine, state, seat), state.view(seat)))


def legal_actions(observation: dict[str, np.ndarray], view: dict[str, Any]) -> list[int]:
    """The acting player's legal actions, from the view (or the observation's mask)."""
    legal = view.get("legal_actions") if view else None
    if legal:
        return list(legal)
    return np.flatnonzero(observation["action_mask"]).tolist()


class ScoringAgent:
    """What rule-based agents share: a seeded generator, a share ``epsilon`` of uniformly random
    moves (for curricula), forced moves played at once; subclasses implement :meth:`choose`."""

    tolerance = 1e-9  # scores this close to the best count as equally good

    def __init__(self, seed: Seed = None, epsilon: float = 0.0) -> None:
        if not 0.0 <= epsilon <= 1.0:
            raise ValueError(f"epsilon must be in [0, 1], not {epsilon!r}")
        self.seed = seed
        self.epsilon = epsilon
        self.rng = make_rng(seed)

    def reset(self) -> None:
        """Nothing is remembered between moves: the view holds all the agent uses."""

    def act(self, observation: dict[str, np.ndarray], view: dict[str, Any]) -> int:
        legal = legal_actions(observation, view)
        if len(legal) == 1:
            return int(legal[0])
        if self.epsilon and self.rng.random() < self.epsilon:
            return int(legal[self.rng.integers(len(legal))])
        return self.choose(view, legal)

    def choose(self, view: dict[str, Any], legal: list[int]) -> int:
        """The action to play among ``legal`` (at least two) in ``view``'s position."""
        raise NotImplementedError

    def draw_many(self, legal: np.ndarray, top: np.ndarray, counts: np.ndarray) -> np.ndarray:
        """:meth:`act`'s draws for many decisions at once, in order: row ``j`` holds its
        ``counts[j, 0]`` legal actions in ``legal[j]`` and the ``counts[j, 1]`` best-scored of
        them in ``top[j]`` (a forced move its own best); :func:`draw_rows` with this agent in
        every row."""
        return draw_rows([self] * len(counts), legal, top, counts)


def draw_rows(
    agents: list[ScoringAgent], legal: np.ndarray, top: np.ndarray, counts: np.ndarray
) -> np.ndarray:
    """The actions that ``agents[j].act`` plays in decision ``j`` (``ScoringAgent.draw_many``'s
    rows), drawing what it draws from its generator, rows in order: a forced move draws
    nothing; with ``epsilon`` each choice draws ``rng.random()`` and, below ``epsilon``, a
    uniform legal move; else a uniform one of the best-scored. Python runs only for the
    decisions that draw (array kernels find the candidates)."""
    chosen = top[:, 0].copy()  # the only best move, or the forced one
    epsilon = np.array([agent.epsilon for agent in agents], dtype=np.float64)
    draws = ((epsilon > 0) & (counts[:, 0] > 1)) | (counts[:, 1] > 1)
    for j in np.flatnonzero(draws).tolist():
        agent = agents[j]
        rng = agent.rng
        if agent.epsilon and rng.random() < agent.epsilon:
            chosen[j] = legal[j, rng.integers(counts[j, 0])]
        elif counts[j, 1] > 1:
            chosen[j] = top[j, rng.integers(counts[j, 1])]
    return chosen


class KernelAgent(ScoringAgent):
    """A scoring agent decided by its game's array kernels (:mod:`hot_envs.agents.arrays`): the
    heuristic and each style of the opponent suite, on a one-game record written from the view
    (``view_top``) or on many games at once, the same best-scored actions drawn alike. ``game``
    names the game, ``code`` the agent in its kernels (a subclass that does not set ``code``
    itself may decide otherwise)."""

    game: ClassVar[str]
    code: ClassVar[int]

    def choose(self, view: dict[str, Any], legal: list[int]) -> int:
        top = kernels(self.game).view_top(view, self.code, self.tolerance)
        return int(top[self.rng.integers(len(top))] if len(top) > 1 else top[0])


@functools.cache
def kernels(game: str) -> ModuleType:
    """``game``'s array kernels (its description's ``arrays`` module: the rule-based agents and
    the policy input), imported on first use (numba loads with them)."""
    return importlib.import_module(get_game(game).arrays)

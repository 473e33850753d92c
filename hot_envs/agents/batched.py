"""Batched agents: one call decides many seats of many games at once (:mod:`hot_envs.envs.vector`).

A *batched agent* has ``act_batch(states, seats, observations, masks) -> actions``:

================  ==========================================================================
argument          meaning
================  ==========================================================================
``states``        the engine ``State`` of each decision (a sequence of ``k``)
``seats``         ``(k,)`` int array: the seat to move in each state
``observations``  ``(k, obs_dim)`` float32: each seat's observation (the game's ``LAYOUT``)
``masks``         ``(k, num_actions)`` int8: each seat's legal actions
returns           ``(k,)`` integer array of action ids, one legal action per row
================  ==========================================================================

The arrays are buffers the caller reuses: read them during the call, do not keep them. The
states are the full engine states (an action-aware network computes per-action features from
them); like every agent, a batched agent may use only what its seat may know — its
``observations`` row, ``states[j].view(seats[j])`` (or the engine's compact form of that view:
:class:`~hot_envs.core.engine.SeatViews` hands out both, making each only when read), and the legal
actions. One batched agent serves many games at the same time, so it must not keep per-game
memory between calls. An opponent pool (:class:`~hot_envs.envs.single_agent.OpponentPool`) holds
agents, so a batched opponent has ``act`` as well; the vector env calls ``act_batch`` wherever
it is there.

:class:`~hot_envs.agents.checkpoint.CheckpointAgent` is one (one forward pass for the whole
batch); :func:`as_batched` turns any other agent into one that calls ``act(observation, view)``
seat by seat.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from hot_envs.agents.base import Agent
from hot_envs.core.engine import GameState, SeatViews


@runtime_checkable
class BatchedAgent(Protocol):
    """``act_batch(states, seats, observations, masks) -> actions`` (module docstring)."""

    def act_batch(
        self,
        states: Sequence[GameState],
        seats: np.ndarray,
        observations: np.ndarray,
        masks: np.ndarray,
    ) -> np.ndarray: ...


class PerSeatAgent:
    """An ordinary agent as a batched one: ``act(observation, view)`` for each row in turn, with
    the row's observation dict (copies: an agent may keep them) and the seat's view."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent

    def act_batch(
        self,
        states: Sequence[GameState],
        seats: np.ndarray,
        observations: np.ndarray,
        masks: np.ndarray,
    ) -> np.ndarray:
        act = self.agent.act
        actions = [
            act(
                {"observation": observations[j].copy(), "action_mask": masks[j].copy()},
                state.view(seat),
            )
            for j, (state, seat) in enumerate(zip(states, seats.tolist(), strict=True))
        ]
        return np.array(actions, dtype=np.int64)

    def __repr__(self) -> str:
        return f"PerSeatAgent({self.agent!r})"


def as_batched(agent: Agent | BatchedAgent | Any) -> BatchedAgent:
    """``agent`` itself if it has ``act_batch``, else a :class:`PerSeatAgent` around it."""
    if callable(getattr(agent, "act_batch", None)):
        return agent
    if callable(getattr(agent, "act", None)):
        return PerSeatAgent(agent)
    raise ValueError(f"{agent!r} has neither act_batch() nor act()")


class BatchedHeuristicBase:
    """A game's heuristic agent (exactly the class ``HEURISTIC``) as a batched agent: the scores
    of the batch's scored decisions come from :meth:`scores_batch` (arrays over all of them,
    from ``THRESHOLD`` decisions on) or else :meth:`scores_one` (the heuristic's own function:
    the same numbers), then each decision in turn takes the steps of the agent's ``act`` — a
    forced move, the ``epsilon`` draw, the best score with ties drawn from the agent's
    generator, the agent's ``choose`` for a decision it does not score — so it plays the same
    actions and draws the same numbers as ``act`` decision by decision. It reads the views alone
    (``reads_observations``: the observations may be left unfilled). Each game's batched
    features module subclasses it as ``BatchedHeuristic``."""

    HEURISTIC: type
    THRESHOLD: int
    reads_observations = False

    def __init__(self, agent: Any) -> None:
        if type(agent) is not self.HEURISTIC:
            raise TypeError(f"{agent!r} is not a plain {self.HEURISTIC.__name__}")
        self.agent = agent

    def scored(self, actions: list[int]) -> bool:
        """Whether a decision among several ``actions`` is scored (else ``choose`` decides)."""
        return True

    def scores_batch(self, views: Sequence[dict], legal: list[list[int]]) -> Sequence[Any]:
        raise NotImplementedError

    def scores_one(self, view: dict, actions: list[int]) -> Any:
        raise NotImplementedError

    def act_batch(
        self,
        states: Sequence[GameState],
        seats: np.ndarray,
        observations: np.ndarray,
        masks: np.ndarray,
    ) -> np.ndarray:
        agent = self.agent
        views = SeatViews(states, seats.tolist())  # each view made only if read
        legal = [
            views.legal_actions(j) or np.flatnonzero(masks[j]).tolist()  # as base.act
            for j in range(len(views))
        ]
        picked = [j for j, actions in enumerate(legal) if len(actions) > 1 and self.scored(actions)]
        if len(picked) >= self.THRESHOLD:
            found = self.scores_batch(views.take(picked), [legal[j] for j in picked])
        else:  # too few for the arrays to pay
            found = [self.scores_one(views[j], legal[j]) for j in picked]
        scores = dict(zip(picked, found, strict=True))
        chosen = np.empty(len(views), dtype=np.int64)
        for j, actions in enumerate(legal):
            if len(actions) == 1:
                chosen[j] = actions[0]
            elif agent.epsilon and agent.rng.random() < agent.epsilon:
                chosen[j] = actions[agent.rng.integers(len(actions))]
            elif j in scores:
                chosen[j] = agent.best(actions, scores[j])
            else:
                chosen[j] = agent.choose(views[j], actions)
        return chosen

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.agent!r})"

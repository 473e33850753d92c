"""Batched agents: one call decides many seats of many games at once (:mod:`hot_envs.vector`).

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
``observations`` row, ``states[j].view(seats[j])``, and the legal actions. One batched agent
serves many games at the same time, so it must not keep per-game memory between calls. An
opponent pool (:class:`~hot_envs.single_agent.OpponentPool`) holds agents, so a batched opponent
has ``act`` as well; the vector env calls ``act_batch`` wherever it is there.

:class:`~hot_envs.agents.checkpoint.CheckpointAgent` is one (one forward pass for the whole
batch); :func:`as_batched` turns any other agent into one that calls ``act(observation, view)``
seat by seat.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from hot_envs.agents.base import Agent
from hot_envs.engine import GameState


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

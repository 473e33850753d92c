"""Play one game with agents through a PettingZoo AEC environment.

The smallest loop that keeps the protocol (each agent gets its own observation and view,
nothing more), for tests and quick checks; :func:`hot_envs.agents.base.decide` is the same step
on an engine ``State``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from pettingzoo import AECEnv

from hot_envs.agents.base import Agent

ActionHook = Callable[[str, dict[str, np.ndarray], dict[str, Any], int], None]


def play_game(
    env: AECEnv,
    agents: Mapping[str, Agent],
    seed: int | None = None,
    on_action: ActionHook | None = None,
) -> dict[str, float]:
    """Reset ``env`` with ``seed``, play one game to its end and return each agent's total reward.

    ``agents`` maps every agent name (``player_0`` …) to an agent; an agent's ``reset()`` is
    called first if it has one. ``on_action(name, observation, view, action)`` is called before
    each action is played (tests use it to check that every action is in the mask).
    """
    env.reset(seed=seed)
    for agent in agents.values():
        reset = getattr(agent, "reset", None)
        if reset is not None:
            reset()
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for name in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        totals[name] += reward
        if terminated or truncated:
            env.step(None)
            continue
        view = env.unwrapped.view(name)
        action = int(agents[name].act(observation, view))
        if on_action is not None:
            on_action(name, observation, view, action)
        env.step(action)
    return totals

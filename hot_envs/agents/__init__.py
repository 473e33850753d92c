"""Agents for both games behind one protocol, and agent *specs*: short strings that name one.

Every agent keeps :class:`~hot_envs.agents.base.Agent`: ``act(observation, view) -> action id``.
:func:`make_agent` (:mod:`hot_envs.agents.specs`, which lists the specs) builds an agent from a
spec, the same way for ``hot-envs evaluate``, ``hot-envs play``, the arena and training opponents.
"""

from __future__ import annotations

from hot_envs.agents.base import Agent, legal_actions
from hot_envs.agents.search import SearchAgent, agent_rollout, random_rollout
from hot_envs.agents.specs import SEARCH_PRESETS, SPEC_HELP, STYLES, make_agent

__all__ = [
    "SPEC_HELP",
    "Agent",
    "SEARCH_PRESETS",
    "STYLES",
    "SearchAgent",
    "agent_rollout",
    "legal_actions",
    "make_agent",
    "random_rollout",
]

"""Both games as a turn-based RLlib ``MultiAgentEnv`` over the engine.

Agents are ``player_0 …``; the observation of each is the AEC env's dict (``"observation"``:
the game's ``LAYOUT`` vector, ``"action_mask"``: int8), so policies trained here read exactly
what :class:`hot_envs.agents.checkpoint.CheckpointAgent` reads.

* ``reset`` and ``step`` return an observation only for the seat to move (turn-based, like
  RLlib's ``TicTacToe`` example); while the game runs, the mover's step reward is 0.
* When the game ends, every seat gets its final observation and its return
  (``State.returns()``), and ``terminateds["__all__"]`` (or ``truncateds`` for Heiße Luft's
  ``turn_limit``) is set — so the seats that did not make the last move still get their reward.
* An action that is not legal (out of range or masked out) is **counted** (``illegal_actions``,
  and ``infos[agent]["illegal_action"] = True``) and ends the game with −1 for its player and 0
  for the others, as PettingZoo's ``TerminateIllegalWrapper`` does; the env never raises for it.
  :class:`hot_envs.training.rllib_league.IllegalActionMetrics` reports the count per iteration.
* A **negative** action ``-(k + 1)`` hands the move to fixed agent ``k`` of ``fixed_agents``
  (agent specs such as ``"heuristic"``, :func:`hot_envs.agents.make_agent`), which the env plays
  with the engine's view — how heuristic opponents join a league: the policy mapping sends a
  seat to :class:`hot_envs.rllib.module.FixedAgentRLModule`, which answers with that action.

``config`` keys: ``game`` (``"heisse-luft"`` / ``"heisse-karten"``), ``players`` (Heiße Karten:
2–6), ``game_options`` (engine options, e.g. ``turn_limit``), ``fixed_agents`` (specs).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from hot_envs.agents import make_agent
from hot_envs.agents.base import Agent, decide, observe
from hot_envs.core.games import DEFAULT_GAME, get_game
from hot_envs.envs.env_base import observation_space

CONFIG_KEYS = {"game", "players", "game_options", "fixed_agents"}


def fixed_agent_action(index: int) -> int:
    """The action that hands the move to fixed agent ``index`` of ``fixed_agents``."""
    return -(index + 1)


class TurnBasedEnv(MultiAgentEnv):
    """One game of Heiße Luft or Heiße Karten per episode (module docstring)."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        config = dict(config or {})
        unknown = sorted(set(config) - CONFIG_KEYS)
        if unknown:
            raise ValueError(
                f"unknown TurnBasedEnv config keys {unknown}; use {sorted(CONFIG_KEYS)}"
            )
        self.game = get_game(config.get("game", DEFAULT_GAME))
        self.engine = self.game.engine
        players = config.get("players")
        self.options = self.game.options(
            self.game.min_players if players is None else players, config.get("game_options")
        )
        self.state = self.engine.State.new(seed=0, **self.options)  # bad options fail here
        self.fixed_specs = list(config.get("fixed_agents") or [])
        for spec in self.fixed_specs:
            make_agent(spec, self.game.name, seed=0)  # a bad spec fails here, not mid-game
        self._fixed: dict[tuple[int, int], Agent] = {}
        self.rng = np.random.default_rng()
        self.illegal_actions = 0

        self.agents = self.possible_agents = [f"player_{i}" for i in range(self.state.num_players)]
        num_actions = self.engine.NUM_ACTIONS
        observation = observation_space(self.engine.LAYOUT, num_actions)
        self.observation_spaces = dict.fromkeys(self.possible_agents, observation)
        self.action_spaces = dict.fromkeys(self.possible_agents, gym.spaces.Discrete(num_actions))

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        if seed is not None:
            self.rng = np.random.default_rng(seed)
            self._fixed.clear()
        self.state = self.engine.State.new(seed=int(self.rng.integers(2**63)), **self.options)
        for agent in self._fixed.values():
            if callable(getattr(agent, "reset", None)):  # optional in the agent protocol
                agent.reset()
        return self._observe([self.state.current_player]), {}

    def step(self, action_dict: dict[str, int]) -> tuple[dict, dict, dict, dict, dict]:
        seat = self.state.current_player
        agent = self.possible_agents[seat]
        action = int(action_dict[agent])
        if -len(self.fixed_specs) <= action < 0:
            action = decide(self._fixed_agent(-action - 1, seat), self.engine, self.state, seat)
        if not (
            0 <= action < self.engine.NUM_ACTIONS
            and self.engine.action_mask(self.state, seat)[action]
        ):
            self.illegal_actions += 1
            rewards = {a: (-1.0 if a == agent else 0.0) for a in self.possible_agents}
            return self._end(rewards, truncated=False, infos={agent: {"illegal_action": True}})
        self.state.apply(action)
        if self.state.is_terminal():
            returns = self.state.returns()
            rewards = {a: float(r) for a, r in zip(self.possible_agents, returns, strict=True)}
            return self._end(rewards, truncated=self.state.is_truncated(), infos={})
        done = {"__all__": False}
        return self._observe([self.state.current_player]), {agent: 0.0}, done, dict(done), {}

    def _end(self, rewards: dict, truncated: bool, infos: dict) -> tuple:
        """The last step: every seat's observation and reward, the episode over."""
        observations = self._observe(range(len(self.possible_agents)))
        ended = {a: True for a in self.possible_agents} | {"__all__": True}
        kept = {a: False for a in self.possible_agents} | {"__all__": False}
        terminateds, truncateds = (kept, ended) if truncated else (ended, kept)
        return observations, rewards, terminateds, truncateds, infos

    def _observe(self, seats) -> dict[str, dict[str, np.ndarray]]:
        return {self.possible_agents[s]: observe(self.engine, self.state, s) for s in seats}

    def _fixed_agent(self, index: int, seat: int) -> Agent:
        """Fixed agent ``index`` for ``seat``: one instance per seat, built on first use."""
        key = (index, seat)
        if key not in self._fixed:
            seed = int(self.rng.integers(2**31))
            self._fixed[key] = make_agent(self.fixed_specs[index], self.game.name, seed)
        return self._fixed[key]

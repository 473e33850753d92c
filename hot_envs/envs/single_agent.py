"""A single-agent Gymnasium environment over either game, for sb3-contrib's ``MaskablePPO``
(docs/environments.md, "One learner against opponents": the arguments, examples, rewards, info
and seeding).

One seat belongs to the *learner* (the caller of ``step``); every other seat is played by an agent
drawn from an :class:`OpponentPool` at every ``reset`` (probability ``weight / total weight``).
The episode runs from the learner's first decision to the end of the game; the opponents' moves in
between happen inside ``step``. The reward is the learner's own return when the game ends, whoever
makes the last move (PettingZoo's SB3 tutorial once dropped it when an opponent's move ended the
game, PettingZoo issue #1147); an illegal learner action ends the episode with −1 and
``info["illegal_action"] = True``, as PettingZoo's ``TerminateIllegalWrapper`` does.
:meth:`SingleAgentEnv.action_masks` gives the legal actions as a bool vector (sb3-contrib's
``action_masks()`` protocol).

*Reward shaping* (``shaping=c``, off by default) is potential-based (Ng, Harada & Russell 1999):
each step adds ``c · (Φ(s') − Φ(s))`` between two learner decisions, with Φ = 0 once the game is
over, so the shaping terms of an episode sum to zero (Φ = 0 at the deal too) and only move
credit earlier. Φ for Heiße Luft: (prize cards won by the learner − by the opponent) / 20, a
trophy counted as its price in cards; for Heiße Karten: (learner's round score − the best other
score) / 200.

``reset`` and every ``step`` give ``info`` with ``learner_seat``, ``num_players`` and
``opponents`` (the entry per seat, ``None`` for the learner); the final ``step`` adds the
accounting of :func:`hot_envs.core.scoring.score` (``returns``, ``winners``, ``win_share``,
``is_success``; SB3 logs the last one's mean as ``rollout/success_rate``).

>>> env = SingleAgentEnv("heisse-luft", opponents=["random"], seed=0)
>>> observation, info = env.reset()
>>> observation.shape, env.action_masks().dtype
((644,), dtype('bool'))
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from hot_envs.agents.base import Agent
from hot_envs.agents.opponents import Opponent, OpponentPool, OpponentSource
from hot_envs.core.engine import GameState
from hot_envs.core.games import DEFAULT_GAME
from hot_envs.core.scoring import shaping_potential
from hot_envs.envs.driver import ROTATE, DrivenEnv, Driver, PolicyInput
from hot_envs.envs.env_base import check_render_mode

__all__ = [
    "ROTATE",
    "Opponent",
    "OpponentPool",
    "OpponentSource",
    "SingleAgentEnv",
    "random_decisions",
    "random_observations",
    "shaping_potential",
]


class SingleAgentEnv(DrivenEnv, gymnasium.Env):
    """One learner seat against a pool of opponents (module docstring): the one-game view of
    :class:`hot_envs.envs.driver.Driver`, which plays and scores the game. The arguments are the
    options of :class:`~hot_envs.envs.driver.DriverOptions`, ``seed`` (for the first ``reset``
    without one) and ``render_mode``."""

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 2}

    def __init__(
        self,
        game: str = DEFAULT_GAME,
        *,
        opponents: OpponentPool | Iterable[Opponent | OpponentSource | tuple] | None = None,
        learner_seat: int | str = ROTATE,
        players: int | Sequence[int] | None = None,
        num_players: int | Sequence[int] | None = None,
        game_options: dict[str, Any] | None = None,
        shaping: float = 0.0,
        policy_input: PolicyInput | None = None,
        critic_state: bool = False,
        seed: int | None = None,
        render_mode: str | None = None,
    ) -> None:
        self.driver = Driver(
            game,
            1,
            opponents=opponents,
            learner_seat=learner_seat,
            players=players,
            num_players=num_players,
            game_options=game_options,
            shaping=shaping,
            policy_input=policy_input,
            critic_state=critic_state,
        )
        self.render_mode = check_render_mode(render_mode, self.metadata["render_modes"])
        self.observation_space = self.driver.observation_space
        self.action_space = spaces.Discrete(self.engine.NUM_ACTIONS)
        self._initial_seed = seed

    @property
    def game(self) -> GameState | None:
        """The game in progress or just ended (``None`` before the first ``reset`` and after an
        illegal action)."""
        return self.driver.state(0) if self.driver.dealt else None

    @property
    def seat(self) -> int:
        """The learner's seat in :attr:`game`."""
        return int(self.driver.seats[0])

    @property
    def opponent_names(self) -> list[str | None]:
        """The pool entry of each seat in :attr:`game` (``None`` for the learner)."""
        return self.driver.opponent_names[0]

    @property
    def opponent_agents(self) -> list[Agent | None]:
        """The agent of each seat in :attr:`game` (``None`` for the learner)."""
        return [None if a is None else a.agent for a in self.driver.seat_agents[0]]

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
        if seed is not None:  # the opponents seeded anew too: the same seed, the same episode
            self.driver.pool.rebuild()
        options = options or {}
        self.driver.reset([self.np_random], options.get("state"), options.get("learner_seat"))
        return self.driver.observations[0].copy(), self.driver.info(0)

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Play the learner's action, then the opponents' moves up to the learner's next
        decision or the end of the game; the reward is the learner's (module docstring)."""
        if not self.driver.dealt or self.driver.arrays.done[0]:
            raise RuntimeError("call reset() before step() (the episode is over)")
        driver, action = self.driver, int(action)
        if not (0 <= action < self.action_space.n and driver.masks[0, action]):
            info = {**driver.info(0), "illegal_action": True}
            driver.dealt = False
            return driver.observations[0].copy(), -1.0, True, False, info
        reward, terminated, truncated, final = driver.step_one(action)
        driver.observe()
        info = final or driver.info(0)
        return driver.observations[0].copy(), reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """Bool vector of the learner's legal actions (all False once the game is over)."""
        if not self.driver.dealt:
            return np.zeros(self.action_space.n, dtype=bool)
        return self.driver.masks[0].astype(bool)

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


def random_observations(
    game: str, players: int | Sequence[int] | None, n: int, seed: int = 0
) -> list[dict[str, np.ndarray]]:
    """``n`` learner observation dicts (``observation`` and an int8 ``action_mask``, as the AEC
    env gives them) from uniformly random play of ``game`` in a :class:`SingleAgentEnv` with
    ``players`` (as there), seeded: inputs for timing or comparing policies."""
    return [observation for observation, _ in random_decisions(game, players, n, seed)]


def random_decisions(
    game: str, players: int | Sequence[int] | None, n: int, seed: int = 0
) -> list[tuple[dict[str, np.ndarray], dict[str, Any]]]:
    """The decisions of :func:`random_observations` (same arguments, same play) with the
    learner's view of each: ``(observation dict, view)`` pairs, what an agent's
    ``act(observation, view)`` takes — inputs for policies that need the view, such as an
    action-scoring checkpoint (:mod:`hot_envs.agents.scorer`)."""
    env = SingleAgentEnv(game, players=players, seed=seed)
    rng = np.random.default_rng(seed)
    observation, _ = env.reset()
    decisions = []
    while len(decisions) < n:
        mask = env.action_masks()
        observed = {"observation": observation, "action_mask": mask.astype(np.int8)}
        decisions.append((observed, env.game.view(env.seat)))
        observation, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        if terminated or truncated:
            observation, _ = env.reset()
    return decisions

"""Many games in one process, one learner seat in each: :class:`VectorSingleAgentEnv`, the
vectorised :class:`~hot_envs.envs.single_agent.SingleAgentEnv` (docs/environments.md, "One
learner, many games", has the table of its observations, masks, rewards and options).

A Gymnasium ``VectorEnv`` over :class:`hot_envs.envs.driver.Driver`, which plays and scores the
games, the opponents' moves batched; :mod:`hot_envs.envs.vector_sb3` hands it to
stable-baselines3 as one ``VecEnv``. An illegal learner action raises ``ValueError`` before any
game moves.

A finished game is replaced by a new deal in the same ``step`` (``metadata["autoreset_mode"]`` is
``SAME_STEP``): the returned observation is the new game's first decision, and ``info`` holds
``final_obs`` (``(num_envs, obs_dim)``: the learner's last observation of the finished games, 0
elsewhere) and ``final_info`` (an object array: the final info ``SingleAgentEnv`` ends with, or
``None``), each with its bool mask ``_final_obs`` / ``_final_info``. Every ``info`` also has
``learner_seat`` and ``num_players`` per game.

Pool entries are shared by every game that draws them, so they must not keep per-game memory (no
agent of hot_envs does). ``reset(seed=s)`` gives every game its own generator
(``SeedSequence(s).spawn``): the same seed, pool and learner actions give the same games.

>>> env = VectorSingleAgentEnv("heisse-karten", num_envs=4, players=[2, 6], seed=0)
>>> observations, info = env.reset()
>>> observations.shape, env.action_masks().shape
((4, 670), (4, 48))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from hot_envs.core.games import DEFAULT_GAME
from hot_envs.envs.driver import DrivenEnv, Driver, FromDriver


class VectorSingleAgentEnv(DrivenEnv, VectorEnv):
    """``num_envs`` games, one learner seat each, batched opponents (module docstring). The
    other arguments as :class:`~hot_envs.envs.single_agent.SingleAgentEnv`'s (the options of
    :class:`~hot_envs.envs.driver.DriverOptions` as keywords, ``seed``), ``render_mode`` aside."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}
    games = FromDriver()
    seats = FromDriver()
    num_players = FromDriver()
    deal_seeds = FromDriver()
    opponent_names = FromDriver()

    def __init__(
        self,
        game: str = DEFAULT_GAME,
        num_envs: int = 16,
        *,
        seed: int | None = None,
        **options: Any,
    ) -> None:
        self.driver = Driver(game, num_envs, **options)
        self.num_envs = num_envs
        self.single_observation_space = self.driver.observation_space
        self.single_action_space = spaces.Discrete(self.engine.NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._rngs: list[np.random.Generator] = []
        self._initial_seed = seed

    # ------------------------------------------------------------------ Gymnasium API

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal ``num_envs`` new games and play their opponents up to each learner's first
        decision. ``seed`` seeds every game's generator (module docstring)."""
        if options:
            raise ValueError(f"reset takes no options, not {sorted(options)}")
        if seed is None and self._initial_seed is not None:
            seed, self._initial_seed = self._initial_seed, None
        if seed is not None or not self._rngs:
            sequences = np.random.SeedSequence(seed).spawn(self.num_envs)
            self._rngs = [np.random.default_rng(s) for s in sequences]
        if seed is not None:  # the opponents seeded anew too: the same seed, the same episodes
            self.driver.pool.rebuild()
        self.driver.reset(self._rngs)
        return self.driver.observations.copy(), self._info()

    def step(
        self, actions: np.ndarray | Sequence[int]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Play every learner's action, then the opponents up to each learner's next decision;
        finished games are replaced by new ones (module docstring)."""
        driver = self.driver
        if not driver.dealt:
            raise RuntimeError("call reset() before step()")
        actions = check_actions(actions, driver.masks, driver.seats)
        rewards, terminated, truncated, finals = driver.step(actions)
        final = self._final(finals) if finals else {}
        driver.new_games(finals, self._rngs)
        driver.observe()
        return driver.observations.copy(), rewards, terminated, truncated, self._info() | final

    def action_masks(self) -> np.ndarray:
        """``(num_envs, num_actions)`` bool: the learners' legal actions now."""
        return self.driver.masks.astype(bool)

    # ------------------------------------------------------------------ internals

    def _final(self, finals: dict[int, dict[str, Any]]) -> dict[str, Any]:
        """``final_obs`` / ``final_info`` and their masks, for the games that just ended
        (before they are dealt anew)."""
        final_obs = np.zeros_like(self.driver.observations)
        final_info = np.full(self.num_envs, None, dtype=object)
        mask = np.zeros(self.num_envs, dtype=bool)
        for i, info in finals.items():
            final_obs[i] = self.driver.learner_observation(i)
            final_info[i], mask[i] = info, True
        return {
            "final_obs": final_obs,
            "_final_obs": mask,
            "final_info": final_info,
            "_final_info": mask.copy(),
        }

    def _info(self) -> dict[str, Any]:
        return {"learner_seat": self.seats.copy(), "num_players": self.num_players.copy()}


def check_actions(
    actions: np.ndarray | Sequence[int], masks: np.ndarray, seats: np.ndarray | None = None
) -> list[int]:
    """One learner action per row of ``masks`` (the games' legal actions), as ints; a
    ``ValueError`` names the first illegal one (and its learner's seat, if ``seats`` is given)."""
    array = np.asarray(actions)
    num_envs, num_actions = masks.shape
    if array.shape != (num_envs,) or not np.issubdtype(array.dtype, np.integer):
        raise ValueError(f"actions must be {num_envs} integers, not {actions!r}")
    in_range = (array >= 0) & (array < num_actions)
    legal = in_range & (masks[np.arange(num_envs), np.where(in_range, array, 0)] != 0)
    if not legal.all():
        i = int(np.flatnonzero(~legal)[0])
        seat = "" if seats is None else f" (seat {seats[i]})"
        raise ValueError(
            f"illegal action {int(array[i])} for the learner in game {i}{seat}; "
            f"legal: {np.flatnonzero(masks[i]).tolist()}"
        )
    return array.tolist()

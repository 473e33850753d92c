"""Ray RLlib (new API stack) for both games: a turn-based ``MultiAgentEnv``
(:class:`hot_envs.rllib.env.TurnBasedEnv`) and a masked PPO ``RLModule``
(:mod:`hot_envs.rllib.module`). docs/rllib.md explains the pieces.

Needs the ``rllib`` extra (``pip install -e ".[rllib]"``); ``import hot_envs`` never imports Ray.
Training on them lives with the rest of training: the script ``training/rllib_train.py``
(``hot-envs train GAME --backend rllib``), its league, export and run folders
(:mod:`hot_envs.training.rllib_league`, :mod:`hot_envs.training.rllib_export`,
:mod:`hot_envs.training.rllib_runs`).
"""

from __future__ import annotations

try:
    import ray.rllib  # noqa: F401
except ImportError as error:  # a clear message instead of a bare ModuleNotFoundError deep inside
    raise ImportError(
        f"hot_envs.rllib needs Ray RLlib: pip install -e '.[rllib]' ({error})"
    ) from error

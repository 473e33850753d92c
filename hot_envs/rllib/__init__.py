"""Ray RLlib (new API stack) for both games: a turn-based ``MultiAgentEnv``, a masked PPO
``RLModule``, self-play and league wiring, and export to the project's numpy checkpoints.

Needs the ``rllib`` extra (``pip install -e ".[rllib]"``); ``import hot_envs`` never imports Ray.
The training script is ``training/rllib_train.py`` (``hot-envs train GAME --backend rllib``);
docs/rllib.md explains the pieces.

======================================  ======================================================
module                                  what it holds
======================================  ======================================================
:mod:`hot_envs.rllib.env`               :class:`TurnBasedEnv`: obs only for the seat to move,
                                        every seat's reward at the end, illegal actions counted
:mod:`hot_envs.rllib.module`            :class:`MaskedPPOTorchRLModule`, :class:`FixedAgentRLModule`
:mod:`hot_envs.rllib.league`            policy mappings (shared self-play, league), snapshots,
                                        the illegal-action metric callback
:mod:`hot_envs.rllib.export`            RLlib checkpoint → ``NAME.npz`` + ``NAME.json``
:mod:`hot_envs.rllib.runs`              atomic checkpoints of a run directory, ``--resume``
                                        settings, Ctrl-C / SIGTERM as a clean stop
======================================  ======================================================
"""

from __future__ import annotations

try:
    import ray.rllib  # noqa: F401
except ImportError as error:  # a clear message instead of a bare ModuleNotFoundError deep inside
    raise ImportError(
        f"hot_envs.rllib needs Ray RLlib: pip install -e '.[rllib]' ({error})"
    ) from error

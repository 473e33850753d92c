"""Training for hot_envs: MaskablePPO with a self-play league, imitation warm start, evaluation.

* :mod:`hot_envs.training.train` — the training script (``python -m hot_envs.training.train
  GAME``, ``main(argv)``);
* :mod:`hot_envs.training.league` — opponent sampling rule, snapshots and the ε curriculum;
* :mod:`hot_envs.training.imitation` — behaviour cloning of the heuristic as a warm start;
* :mod:`hot_envs.training.evaluate` — arena evaluations with 95 % intervals, tables, learning
  curves;
* :mod:`hot_envs.training.export` — a trained model as a checkpoint (``export_checkpoint``), as a
  numpy snapshot (``numpy_policy``), and a checkpoint's ``.zip`` as an agent (``SB3Agent``);
* ``training/configs/*.toml`` — hyper-parameters per game.

Needs the ``train`` extra (torch, stable-baselines3, sb3-contrib, tensorboard).
"""

"""Training for hot_envs: MaskablePPO with a self-play league, imitation warm start, evaluation;
and the Ray RLlib backend. The library reaches it only through the ``hot_envs.trainers`` entry
points (``sb3``, ``rllib``, ``exploit``: :func:`hot_envs.core.arguments.training_entry`).

* :mod:`hot_envs.training.train` — the training script (``python -m hot_envs.training.train
  GAME``, ``main(argv)``), its settings by config section in :mod:`hot_envs.training.settings`;
* :mod:`hot_envs.training.league` — opponent sampling rule, snapshots and the ε curriculum;
* :mod:`hot_envs.training.imitation` — behaviour cloning of the heuristic as a warm start;
* :mod:`hot_envs.training.evaluate` — arena evaluations with 95 % intervals, tables, learning
  curves;
* :mod:`hot_envs.training.export` — a trained model as a checkpoint (``export_checkpoint``), as a
  numpy snapshot (``numpy_policy``), and a checkpoint's ``.zip`` as an agent (``SB3Agent``);
* :mod:`hot_envs.training.run_state` — the run folder, Ctrl-C / SIGTERM and ``--resume``;
* :mod:`hot_envs.training.rllib_train` with :mod:`~hot_envs.training.rllib_league`,
  :mod:`~hot_envs.training.rllib_export`, :mod:`~hot_envs.training.rllib_runs` — the same parts
  on RLlib;
  :mod:`hot_envs.training.run_folder` — what both backends' run folders share;
* ``training/configs/*.toml`` — hyper-parameters per game.

Needs the ``train`` extra (torch, stable-baselines3, sb3-contrib, tensorboard); RLlib the
``rllib`` extra.
"""

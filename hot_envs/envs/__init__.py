"""The environments beyond the PettingZoo modules: their shared base
(:mod:`~hot_envs.envs.env_base`), the batched single-agent driver (:mod:`~hot_envs.envs.driver`)
and its views — one game as a Gymnasium env (:mod:`~hot_envs.envs.single_agent`), many games as a
Gymnasium vector env (:mod:`~hot_envs.envs.vector`), in worker processes
(:mod:`~hot_envs.envs.vector_workers`) and as a Stable-Baselines3 ``VecEnv``
(:mod:`~hot_envs.envs.vector_sb3`)."""

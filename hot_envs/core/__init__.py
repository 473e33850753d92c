"""The games and their contracts: the engine protocol every game's ``State`` keeps
(:mod:`~hot_envs.core.engine`), the game description and its registry
(:mod:`~hot_envs.core.game_type`, :mod:`~hot_envs.core.games`), the observation layout
(:mod:`~hot_envs.core.observation`), end-of-game scores (:mod:`~hot_envs.core.scoring`) and the
errors (:mod:`~hot_envs.core.errors`); and the argument types that the command line and the
training scripts share (:mod:`~hot_envs.core.arguments`)."""

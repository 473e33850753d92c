"""Playing and watching in the terminal: a game against agents (:mod:`~hot_envs.play.terminal`),
agents watched or a recorded game replayed (:mod:`~hot_envs.play.viewer`). The pictures and the
browser table are :mod:`hot_envs.pictures` and :mod:`hot_envs.web`."""

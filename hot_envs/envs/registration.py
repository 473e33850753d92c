"""Gymnasium ids of the single-agent view, one per game (docs/environments.md, "One learner
against opponents"). ``import hot_envs`` calls :func:`register`, after which

>>> import gymnasium
>>> env = gymnasium.make("hot_envs/HeisseKarten-v0", players=2, opponents=["heuristic"])

makes a :class:`hot_envs.envs.single_agent.SingleAgentEnv` of that game with the env's own
keyword arguments, and ``gymnasium.make_vec(ID, num_envs=n, ...)`` the batched
:class:`hot_envs.envs.vector.VectorSingleAgentEnv` (``vectorization_mode="sync"`` or ``"async"``:
Gymnasium's own vector envs over n ``SingleAgentEnv``). Registering costs nothing: the entry
points are strings, imported when the first env is made.
"""

from __future__ import annotations

import gymnasium

from hot_envs.core.games import GAMES

__all__ = ["GYMNASIUM_IDS", "register"]

ENTRY_POINT = "hot_envs.envs.single_agent:SingleAgentEnv"
VECTOR_ENTRY_POINT = "hot_envs.envs.vector:VectorSingleAgentEnv"


def _gymnasium_id(name: str) -> str:
    """``heisse-luft`` → ``hot_envs/HeisseLuft-v0``."""
    return "hot_envs/" + "".join(part.capitalize() for part in name.split("-")) + "-v0"


#: Gymnasium id → the game it plays (a name :func:`hot_envs.core.games.get_game` takes).
GYMNASIUM_IDS = {_gymnasium_id(game.name): game.name for game in GAMES.values()}


def register() -> None:
    """Register every id of :data:`GYMNASIUM_IDS` with Gymnasium (again: nothing happens)."""
    for env_id, game in GYMNASIUM_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(
                env_id,
                entry_point=ENTRY_POINT,
                vector_entry_point=VECTOR_ENTRY_POINT,
                kwargs={"game": game},
            )

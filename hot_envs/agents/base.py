"""The one protocol every agent keeps (DESIGN.md, "Agents and checkpoints").

An agent is any object with ``act(observation, view) -> action id``: ``observation`` is the
environment's dict for the acting player (``{"observation", "action_mask"}``) and ``view`` the
engine's view dict of that player (``State.view(seat)``). An agent may use either, and never sees
more: search agents build full states with ``State.from_view``. Agents sit in any seat of either
game; ``reset`` (optional) is called at the start of every game.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Agent(Protocol):
    """``act(observation, view) -> action id`` — the whole contract."""

    def act(self, observation: dict[str, np.ndarray], view: dict[str, Any]) -> int: ...


def legal_actions(observation: dict[str, np.ndarray], view: dict[str, Any]) -> list[int]:
    """The acting player's legal actions, from the view (or the observation's mask)."""
    legal = view.get("legal_actions") if view else None
    if legal:
        return list(legal)
    return np.flatnonzero(observation["action_mask"]).tolist()

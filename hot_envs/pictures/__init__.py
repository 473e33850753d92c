"""Pictures of the table: ``render_mode="rgb_array"`` frames and animations of whole games.

Every picture is drawn from one player's view dict (``State.view``), so it cannot show a card
that player may not see. Needs Pillow (the ``pictures`` extra); ``import hot_envs`` does not load
this package — the environments import it when a frame is first asked for.
"""

from __future__ import annotations

try:
    from PIL import Image
except ImportError as error:  # pragma: no cover - depends on the installation
    raise ImportError(
        "pictures of the table need Pillow: pip install 'hot_envs[pictures]'"
    ) from error

import numpy as np

from hot_envs.core.engine import GameState
from hot_envs.core.games import GAMES
from hot_envs.pictures.animation import animation_path, write_animation
from hot_envs.pictures.draw import HEIGHT, WIDTH

__all__ = [
    "HEIGHT",
    "WIDTH",
    "animation_path",
    "frame",
    "picture",
    "picture_of_view",
    "write_animation",
]

# view["game"] (the engine's name) → its game, whose ``picture`` draws it (imported on first use).
_GAMES = {game.key: game for game in GAMES.values()}


def picture_of_view(view: dict, spectator: bool = False) -> Image.Image:
    """The table as the view's player sees it; ``spectator`` hides that player's hand too (the
    picture of a finished game, which nobody is to move in)."""
    return _GAMES[view["game"]].load("picture")(view, spectator)


def picture(state: GameState, seat: int | None = None) -> Image.Image:
    """The table as ``seat`` sees it (default: the seat to move). Once the game is over and no
    seat is given, nobody's hand is shown."""
    seat = state.current_player if seat is None else seat
    return picture_of_view(state.view(0 if seat is None else seat), spectator=seat is None)


def frame(state: GameState, seat: int | None = None) -> np.ndarray:
    """:func:`picture` as an ``HEIGHT × WIDTH × 3`` ``uint8`` array (a ``rgb_array`` frame)."""
    return np.asarray(picture(state, seat), dtype=np.uint8)

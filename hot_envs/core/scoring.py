"""What a game is worth to the learner of the single-agent envs: :func:`score`, the
end-of-game accounting (used by :class:`hot_envs.envs.driver.Driver`, the one place that scores the
games), and :func:`shaping_potential`, Φ of the reward shaping by the game's name (the driver
asks its game's spec, ``Game.shaping``, directly)."""

from __future__ import annotations

from typing import Any

from hot_envs.core.engine import GameState
from hot_envs.core.games import get_game


def shaping_potential(game: str, view: dict[str, Any], seat: int) -> float:
    """Φ of the reward shaping (:mod:`hot_envs.envs.single_agent`) from ``seat``'s view of a game in
    progress: the game's own (its spec's ``shaping``, :class:`hot_envs.core.game_type.Game`)."""
    return get_game(game).shaping(view, seat)


def score(game: GameState, seat: int) -> dict[str, Any]:
    """The end-of-game accounting for the learner in ``seat``: ``returns`` per seat, ``winners``
    (the seats with the best return), ``win_share`` (1/W for a win shared by W players, else 0,
    as the arena counts it) and ``is_success`` (the learner won alone)."""
    return score_returns(game.returns(), seat)


def score_returns(returns: list[float], seat: int) -> dict[str, Any]:
    """:func:`score` of a finished game's ``returns`` (per seat)."""
    returns = [float(r) for r in returns]
    best = max(returns)
    winners = [p for p, r in enumerate(returns) if r == best]
    return {
        "returns": returns,
        "winners": winners,
        "win_share": 1.0 / len(winners) if seat in winners else 0.0,
        "is_success": winners == [seat],
    }

"""What a game is worth to the learner of the single-agent envs: :func:`score`, the
end-of-game accounting, and :func:`shaping_potential`, Φ of the reward shaping (both used by
:class:`hot_envs.driver.Driver`, the one place that scores the games)."""

from __future__ import annotations

from typing import Any

from hot_envs.engine import GameState

_HL_TROPHY_PRICE = {"H": 7, "D": 6, "C": 5, "S": 4}  # RULES HL-6.1


def shaping_potential(game: str, view: dict[str, Any], seat: int) -> float:
    """Φ of the reward shaping (:mod:`hot_envs.single_agent`) from ``seat``'s view of a game in
    progress."""
    if game == "heisse-luft":
        cards = [
            sum(view["prizes_won"][p].values())
            + sum(_HL_TROPHY_PRICE[s] for s in view["trophies"][p])
            for p in (0, 1)
        ]
        return (cards[seat] - cards[1 - seat]) / 20.0
    scores = view["scores"]
    best_other = max(s for p, s in enumerate(scores) if p != seat)
    return (scores[seat] - best_other) / 200.0


def score(game: GameState, seat: int) -> dict[str, Any]:
    """The end-of-game accounting for the learner in ``seat``: ``returns`` per seat, ``winners``
    (the seats with the best return), ``win_share`` (1/W for a win shared by W players, else 0,
    as the arena counts it) and ``is_success`` (the learner won alone)."""
    returns = [float(r) for r in game.returns()]
    best = max(returns)
    winners = [p for p, r in enumerate(returns) if r == best]
    return {
        "returns": returns,
        "winners": winners,
        "win_share": 1.0 / len(winners) if seat in winners else 0.0,
        "is_success": winners == [seat],
    }

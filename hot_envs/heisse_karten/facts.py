"""Heiße Karten's facts as data: cards (HK-1 in docs/rules.md), setup (HK-2), rewards (HK-4),
action ids."""

from __future__ import annotations

from typing import Any

from hot_envs.core.engine import as_int

GAME_NAME = "heisse_karten"

# HK-1.1 Cards 1–48: even numbers are black and count plus, odd numbers are red and count minus.
NUM_CARDS = 48
CARDS = range(1, NUM_CARDS + 1)
CARD_VALUE: tuple[int, ...] = (0,) + tuple(c if c % 2 == 0 else -c for c in CARDS)  # by card
BLACK_SUM = sum(v for v in CARD_VALUE if v > 0)  # 600: the highest score a round allows
RED_SUM = -sum(v for v in CARD_VALUE if v < 0)  # 576

# HK-3.2 Trick strength: every black card beats every red card, higher beats lower inside a colour.
TRICK_RANK: tuple[int, ...] = (0,) + tuple(c + NUM_CARDS if c % 2 == 0 else c for c in CARDS)


def trick_winner(leader: int, trick: list[int], num_players: int) -> int:
    """HK-3.2 the seat that takes ``trick`` (cards in play order, led by ``leader``): the highest
    black card, else the highest red one."""
    best = max(trick, key=TRICK_RANK.__getitem__)
    return (leader + trick.index(best)) % num_players


# HK-1.2 Action ids, Discrete(48): action k - 1 plays card k.
NUM_ACTIONS = NUM_CARDS

# HK-2 Setup.
MIN_PLAYERS, MAX_PLAYERS = 2, 6  # HK-2.1
HAND_SIZE = 8  # HK-2.2
SET_ASIDE = {5: 3}  # HK-2.3 with 5 players, 3 cards are set aside unseen
TRICKS_PER_ROUND = {  # 24, 16, 12, 9, 8 tricks for 2 … 6 players
    n: (NUM_CARDS - SET_ASIDE.get(n, 0)) // n for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)
}

# HK-4 Rewards and matches.
REWARD_MODES = ("win", "score")
# "score" rewards: (own - mean of the others) / (SCORE_SCALE * rounds played). With random play,
# |own - mean of the others| stays under 300 in 99 % of 4-player rounds (2 players: about 90 %).
SCORE_SCALE = 300
MAX_TARGET_ROUNDS = 100  # default round cap of a match played to a target (HK-4.4)
DEFAULT_OPTIONS: dict[str, Any] = {
    "first_leader": 0,  # HK-2.4: a seat, or "random" (drawn from the state's generator)
    "reward_mode": "win",  # HK-4.3 zero-sum win reward, or "score"
    "rounds": None,  # HK-4.4 rounds in a match; with a target, the round cap
    "target": None,  # HK-4.4 the match ends after a round in which a total reaches this
}


def win_returns(points: list[int]) -> list[float]:
    """HK-4.2/4.3: the W seats with the most points get +1/W each, the others -1/(N-W) each;
    0 for everybody if all tie."""
    best = max(points)
    winners = points.count(best)
    losers = len(points) - winners
    if not losers:
        return [0.0] * len(points)
    return [1.0 / winners if p == best else -1.0 / losers for p in points]


def score_returns(points: list[int], rounds: int) -> list[float]:
    """Own points minus the mean of the others', per round played, over ``SCORE_SCALE``."""
    total, others = sum(points), len(points) - 1
    return [(p - (total - p) / others) / (SCORE_SCALE * rounds) for p in points]


def is_black(card: int) -> bool:
    """HK-1.1 even cards are black."""
    return card % 2 == 0


def card_label(card: int) -> str:
    """Readable card with its colour: ``36b`` (black, +36), ``17r`` (red, -17)."""
    return f"{card}{'b' if is_black(card) else 'r'}"


def action_name(action: int) -> str:
    """Readable action name: ``play 36`` for action 35 (HK-1.2)."""
    try:
        return f"play {action_card(action)}"
    except ValueError as error:
        raise ValueError(f"action {action!r}: {error}") from None


def action_card(action: Any) -> int:
    """The card an action id plays (HK-1.2); ``ValueError`` saying why for anything but an int
    0..47 (:func:`hot_envs.core.engine.as_int`: numpy integers are ints here, bools are not)."""
    card = as_int(action)
    if card is None:
        raise ValueError(f"not an action id (an int 0..{NUM_ACTIONS - 1})")
    card += 1
    if not 1 <= card <= NUM_CARDS:
        raise ValueError(f"no such action (ids are 0..{NUM_ACTIONS - 1})")
    return card


def seat_name(seat: int) -> str:
    """Agent name of a seat, as in the environment (HK-2.1)."""
    return f"player_{seat}"

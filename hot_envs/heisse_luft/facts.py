"""Heiße Luft's facts as data (components, HL-1 in docs/rules.md; phases, options, action ids)
and the trophy arithmetic both the engine and the heuristic use (HL-6.1, HL-6.2)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

# HL-1.1 Balloon cards: suits in canonical order, each with the values it holds.
SUITS = "HDCS"
SUIT_SYMBOLS = "♥♦♣♠"
SUIT_VALUES: tuple[tuple[int, ...], ...] = (
    (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13),  # ♥ Hearts (red), 13 cards
    (1, 2, 3, 5, 6, 7, 8, 9, 11, 12, 13),  # ♦ Diamonds (yellow), 11 cards
    (1, 2, 4, 6, 7, 8, 10, 12, 13),  # ♣ Clubs (green), 9 cards
    (1, 3, 5, 7, 9, 11, 13),  # ♠ Spades (blue), 7 cards
)
SUIT_SIZES = tuple(len(values) for values in SUIT_VALUES)  # also the prize cards per suit, HL-1.2
HEARTS, DIAMONDS, CLUBS, SPADES = range(4)

CARD_SUIT: tuple[int, ...] = tuple(s for s, values in enumerate(SUIT_VALUES) for _ in values)
CARD_VALUE: tuple[int, ...] = tuple(v for values in SUIT_VALUES for v in values)
NUM_CARDS = len(CARD_SUIT)  # 40
CARD_CODES: tuple[str, ...] = tuple(
    SUITS[s] + str(v) for s, v in zip(CARD_SUIT, CARD_VALUE, strict=True)
)
CARD_INDEX: dict[str, int] = {code: i for i, code in enumerate(CARD_CODES)}
FACE_NAMES = {1: "A", 11: "J", 12: "Q", 13: "K"}

# HL-1.3 Stages 1–4; stage n holds n prize cards. HL-2.1 starting terrain.
NUM_STAGES = 4
STAGE_SIZES = (1, 2, 3, 4)
LOWLAND, MOUNTAIN = 0, 1
TERRAINS = ("lowland", "mountain")
START_TERRAIN = (LOWLAND, MOUNTAIN, LOWLAND, MOUNTAIN)
MAX_SPADES_AT_STAGE = 3  # HL-2.3 only 7 spade balloons: never 4 spade prizes at a stage

# HL-1.4 Trophy prices in prize cards of their suit.
TROPHY_PRICE = (7, 6, 5, 4)
THREE_FOR_ONE = 3  # HL-6.2 three prize cards of an awarded suit pay for one
TROPHIES_TO_WIN = 2  # HL-7.1


def claimable_trophies(
    held: Sequence[int], awarded: Sequence[int], three_for_one: bool
) -> list[int]:
    """HL-6.1/6.2 the free trophies (suits) that prize cards ``held`` (a count per suit) pay for:
    with the trophy's own suit, and with ``three_for_one`` also three prize cards of an
    ``awarded`` suit for each card missing."""
    spare = sum(held[s] // THREE_FOR_ONE for s in awarded) if three_for_one else 0
    return [s for s in range(4) if s not in awarded and held[s] + spare >= TROPHY_PRICE[s]]


def trophy_payment(held: Sequence[int], suit: int, awarded: Sequence[int]) -> list[int]:
    """HL-6.2 the prize cards per suit paid for the trophy of ``suit`` out of ``held``: its own
    suit first, then for each card missing three of the awarded suit held most (ties: ♥ ♦ ♣ ♠).
    A ``ValueError`` if ``held`` cannot pay for it."""
    left, paid = list(held), [0, 0, 0, 0]
    own = min(left[suit], TROPHY_PRICE[suit])
    left[suit] -= own
    paid[suit] += own
    for _ in range(TROPHY_PRICE[suit] - own):
        source = max(awarded, key=lambda s: (left[s], -s), default=None)
        if source is None or left[source] < THREE_FOR_ONE:
            raise ValueError(f"prize cards {list(held)} cannot pay for trophy {suit} (HL-6.2)")
        left[source] -= THREE_FOR_ONE
        paid[source] += THREE_FOR_ONE
    return paid


HAND_SIZE = 8  # HL-2.4
MAX_EXCHANGE = 4  # HL-3.4
DEFAULT_TURN_LIMIT = 2000  # HL-7.3

PLAY, EXCHANGE, TROPHY, OVER = range(4)
PHASES = ("play", "exchange", "trophy", "over")
DRAW = "draw"  # the winner of a drawn game (HL-7.2)
DEFAULT_OPTIONS: dict[str, Any] = {
    "three_for_one": True,  # HL-6.2; False is the variant without exchange (HL-6.3)
    "starting_player": 0,  # HL-2.5: 0, 1 or "random"
    "turn_limit": DEFAULT_TURN_LIMIT,  # HL-7.3
}

# Action ids (docs/rules.md, "Heiße Luft action ids"): Discrete(366).
NUM_PLAY_ACTIONS = 8 * NUM_CARDS  # 0–319: 8 * card + 2 * (stage - 1) + side
EXCHANGE_PICK = NUM_PLAY_ACTIONS  # 320–359: choose card a - 320 for the exchange
EXCHANGE_DONE = EXCHANGE_PICK + NUM_CARDS  # 360
CLAIM_TROPHY = EXCHANGE_DONE + 1  # 361–364: claim the trophy of suit a - 361
STOP_CLAIMING = CLAIM_TROPHY + 4  # 365
NUM_ACTIONS = STOP_CLAIMING + 1  # 366
OWN_SIDE, OPPONENT_SIDE = 0, 1


def play_action(card: int, stage: int, side: int) -> int:
    """Action id for placing ``card`` at ``stage`` (0-based) on the mover's own (0) or the
    opponent's (1) side."""
    return 8 * card + 2 * stage + side


def card_label(card: int) -> str:
    """Readable card: suit symbol and face, e.g. ``♥7``, ``♠K``."""
    value = CARD_VALUE[card]
    return SUIT_SYMBOLS[CARD_SUIT[card]] + FACE_NAMES.get(value, str(value))


def action_name(action: int) -> str:
    """Readable action name, e.g. ``♥7 → stage 3, own side`` or ``claim ♠ trophy``."""
    if not 0 <= action < NUM_ACTIONS:
        return f"out-of-range action {action}"
    if action < EXCHANGE_PICK:
        card, slot = divmod(action, 8)
        stage, side = divmod(slot, 2)
        where = "own side" if side == OWN_SIDE else "opponent's side"
        return f"{card_label(card)} → stage {stage + 1}, {where}"
    if action < EXCHANGE_DONE:
        return f"exchange {card_label(action - EXCHANGE_PICK)}"
    if action == EXCHANGE_DONE:
        return "exchange done"
    if action < STOP_CLAIMING:
        return f"claim {SUIT_SYMBOLS[action - CLAIM_TROPHY]} trophy"
    return "stop claiming"

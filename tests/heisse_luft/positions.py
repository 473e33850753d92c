"""Hand-made Heiße Luft positions for the rule tests.

A test names only the interesting parts of a position (hands, stages, prizes, piles); ``position``
fills in the rest so that every balloon card and every prize card appears exactly once, and returns
``State.from_dict(d, seed=seed)``. ``position_dict`` returns the dict itself.

Stages not mentioned are out of play. Balloon cards not placed anywhere go under the given draw
pile (or under the given discard pile), in card-index order. Prize cards not placed anywhere go
under the given prize deck, or, with ``spare_prizes=p``, into player ``p``'s trophy cards (like the
extra cards of a trophy paid three for one), or with ``spare_prizes="split"`` alternately into both
players' trophy cards.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from hot_envs.heisse_luft import State
from hot_envs.heisse_luft.facts import (
    CARD_CODES,
    CARD_INDEX,
    START_TERRAIN,
    SUIT_SIZES,
    SUITS,
    TERRAINS,
    TROPHY_PRICE,
    play_action,
)

OWN, OPP = 0, 1  # the side bit of a play action: the mover's own side / the opponent's side
EXCHANGE_PICK, EXCHANGE_DONE = 320, 360
CLAIM = dict(zip(SUITS, range(361, 365), strict=True))  # claim trophy H D C S
STOP = 365


def play(card: str, stage: int, side: int) -> int:
    """Action id: put ``card`` (e.g. ``"H7"``) at ``stage`` (1–4) on the mover's ``side``."""
    return play_action(CARD_INDEX[card], stage - 1, side)


def pick(card: str) -> int:
    """Action id: choose ``card`` for the exchange (HL-3.4)."""
    return EXCHANGE_PICK + CARD_INDEX[card]


def stage(
    prizes: str,
    p0: list[str] | tuple[str, ...] = (),
    p1: list[str] | tuple[str, ...] = (),
    *,
    terrain: str | None = None,
    last: int | None = None,
) -> dict[str, Any]:
    """A stage in play: ``prizes`` as suit letters (``"HHD"``), the cards on player_0's and
    player_1's side in placement order. ``terrain`` defaults to the stage's starting terrain;
    ``last`` (who placed the stage's last card) to player_1 if player_1's side holds cards, else
    player_0."""
    return {"prizes": prizes, "sides": [list(p0), list(p1)], "terrain": terrain, "last": last}


def _stage_dict(number: int, spec: dict[str, Any] | None) -> dict[str, Any]:
    terrain = TERRAINS[START_TERRAIN[number - 1]]
    if spec is None:
        return {"in_play": False, "terrain": terrain, "prizes": [], "sides": [[], []]}
    sides = spec["sides"]
    last = spec["last"]
    if last is None and any(sides):
        last = 1 if sides[1] else 0
    return {
        "in_play": True,
        "terrain": spec["terrain"] or terrain,
        "prizes": list(spec["prizes"]),
        "sides": [list(sides[0]), list(sides[1])],
        "last_player": last,
    }


def _counts(partial: dict[str, int] | None) -> dict[str, int]:
    counts = dict.fromkeys(SUITS, 0)
    counts.update(partial or {})
    return counts


def position_dict(
    *,
    hands: tuple[list[str], list[str]] = ([], []),
    stages: dict[int, dict[str, Any]] | None = None,
    current_player: int = 0,
    draw_pile: list[str] | tuple[str, ...] = (),
    discard_pile: list[str] | tuple[str, ...] = (),
    spare_cards: str = "draw",
    prize_deck: str = "",
    spare_prizes: str | int = "deck",
    prizes_won: tuple[dict[str, int], dict[str, int]] | None = None,
    trophies: tuple[str, str] = ("", ""),
    trophy_cards: tuple[dict[str, int], dict[str, int]] | None = None,
    phase: str = "play",
    options: dict[str, Any] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """The state dict of a position; see the module docstring. ``extra`` keys (``pass_streak``,
    ``turn``, ``trophy_phase``, ``revealed_cards``, ``exchange_selection``, ``winner``) are copied
    as they are."""
    stages = stages or {}
    stage_dicts = [_stage_dict(n, stages.get(n)) for n in (1, 2, 3, 4)]

    # Balloon cards: the ones not placed go under the draw (or discard) pile.
    draw, discard = list(draw_pile), list(discard_pile)
    placed = [*hands[0], *hands[1], *draw, *discard]
    for s in stage_dicts:
        placed += s["sides"][0] + s["sides"][1]
    doubles = [c for c, n in Counter(placed).items() if n > 1]
    if doubles:
        raise ValueError(f"cards placed twice: {doubles}")
    rest = [c for c in CARD_CODES if c not in placed]
    if spare_cards == "draw":
        draw += rest
    elif spare_cards == "discard":
        discard += rest
    else:
        raise ValueError(f"spare_cards must be 'draw' or 'discard', not {spare_cards!r}")

    # Prize cards: the ones not placed go under the prize deck or into trophy cards.
    won = [_counts(w) for w in (prizes_won or ({}, {}))]
    if trophy_cards is None:
        paid = [dict.fromkeys(SUITS, 0), dict.fromkeys(SUITS, 0)]
        for p in (0, 1):
            for suit in trophies[p]:
                paid[p][suit] = TROPHY_PRICE[SUITS.index(suit)]
    else:
        paid = [_counts(t) for t in trophy_cards]
    used = Counter(prize_deck)
    for s in stage_dicts:
        used.update(s["prizes"])
    for p in (0, 1):
        used.update(won[p])
        used.update(paid[p])
    spare = []
    for i, suit in enumerate(SUITS):
        if used[suit] > SUIT_SIZES[i]:
            raise ValueError(
                f"{used[suit]} prize cards of suit {suit}; the game has {SUIT_SIZES[i]}"
            )
        spare += [suit] * (SUIT_SIZES[i] - used[suit])
    deck = list(prize_deck)
    if spare_prizes == "deck":
        deck += spare
    else:
        takers = (0, 1) if spare_prizes == "split" else (spare_prizes,)
        for k, suit in enumerate(spare):
            paid[takers[k % len(takers)]][suit] += 1

    d: dict[str, Any] = {
        "game": "heisse_luft",
        "options": dict(options or {}),
        "phase": phase,
        "current_player": current_player,
        "hands": [list(hands[0]), list(hands[1])],
        "draw_pile": draw,
        "discard_pile": discard,
        "prize_deck": deck,
        "stages": stage_dicts,
        "prizes_won": won,
        "trophies": [list(trophies[0]), list(trophies[1])],
        "trophy_cards": paid,
    }
    d.update(extra)
    return d


def position(*, seed: int = 0, **kwargs: Any) -> State:
    """``State.from_dict(position_dict(**kwargs), seed=seed)``."""
    return State.from_dict(position_dict(**kwargs), seed=seed)

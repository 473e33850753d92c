"""Random Heiße Luft games and card bookkeeping shared by the property and information tests."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

from hot_envs.heisse_luft import State
from hot_envs.heisse_luft.facts import CARD_CODES, SUIT_SIZES, SUITS


def random_game(state: State, choice_seed: int) -> Iterator[int]:
    """Play ``state`` to its end with uniformly random legal actions chosen by ``choice_seed``;
    yield each action right after it was applied."""
    chooser = random.Random(choice_seed)
    while not state.is_terminal():
        action = chooser.choice(state.legal_actions())
        state.apply(action)
        yield action


def play_random_actions(state: State, choice_seed: int, n: int) -> State:
    """``state`` after up to ``n`` random legal actions (fewer if the game ends first)."""
    for i, _ in enumerate(random_game(state, choice_seed), start=1):
        if i >= n:
            break
    return state


def balloon_card_places(d: dict[str, Any]) -> Counter[str]:
    """How often each balloon card code occurs in a state dict: hands, piles and stage sides."""
    places: Counter[str] = Counter()
    for hand in d["hands"]:
        places.update(hand)
    places.update(d["draw_pile"])
    places.update(d["discard_pile"])
    for stage in d["stages"]:
        for side in stage["sides"]:
            places.update(side)
    return places


def prize_card_totals(d: dict[str, Any]) -> Counter[str]:
    """Prize cards per suit letter in a state dict: deck, stages, prizes won and trophies."""
    totals: Counter[str] = Counter(d["prize_deck"])
    for stage in d["stages"]:
        totals.update(stage["prizes"])
    for counts in d["prizes_won"] + d["trophy_cards"]:
        totals.update(counts)
    return totals


ALL_BALLOON_CARDS = Counter(CARD_CODES)
ALL_PRIZE_CARDS = Counter(dict(zip(SUITS, SUIT_SIZES, strict=True)))

"""Checking options and state dicts for Heiße Karten (docs/environments.md, "Setting up a
position").

:func:`parse_state_dict` validates a dict in the order of :data:`REQUIRED_KEYS` and
:data:`OPTIONAL_KEYS` and raises ``ValueError`` naming the first problem; it returns the checked
parts with defaults filled in, ready for ``State``. Structural rules it enforces beyond "every
card exactly once":

* ``current_player`` is ``leader + len(trick)`` (seat order, HK-2.1), or ``None`` exactly when
  every hand, the trick and the draw pile are empty and the match is over.
* Hand sizes can be played out evenly. Drawing keeps a hand's size (HK-3.1), so sizes change
  only once the draw pile is empty; from then on each trick takes one card from every hand, and all
  hands must run out together (HK-3.4). So the seats that will have played in their trick when the
  pile runs out hold one card fewer than the others, and a pile that would run out in the middle of
  a later trick (whose order depends on who wins) is rejected. No hand holds more than 8 cards.
* ``played``, when given, is the history: complete tricks in seat order, each led by the winner
  of the one before, ending with the current trick, and each seat's ``taken`` holds the cards of
  the tricks it won there. Without ``played`` the history is the current trick only and ``taken``
  may hold any cards (a position set up by hand); such a position's ``played`` later starts at
  its first trick, so ``taken`` may hold more than ``played`` accounts for, never less.
* ``totals`` count the finished rounds of a match (the last one too, once the match is over) and
  default to zeros, or to the scores of a finished single game.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hot_envs.core.engine import ChanceSource
from hot_envs.heisse_karten.facts import (
    CARD_VALUE,
    CARDS,
    DEFAULT_OPTIONS,
    GAME_NAME,
    HAND_SIZE,
    MAX_PLAYERS,
    MAX_TARGET_ROUNDS,
    MIN_PLAYERS,
    NUM_CARDS,
    REWARD_MODES,
    SET_ASIDE,
    TRICK_RANK,
)

REQUIRED_KEYS = (
    "game",
    "num_players",
    "current_player",
    "leader",
    "hands",
    "draw_pile",
    "set_aside",
    "trick",
    "taken",
)
OPTIONAL_KEYS = ("options", "played", "totals", "round")
# What State.from_view needs of a view (State.view adds game, scores and legal_actions).
# Every one is checked before any card is dealt (deal_view).
VIEW_KEYS = (
    "player",
    "num_players",
    "current_player",
    "leader",
    "hand",
    "hand_sizes",
    "draw_pile_size",
    "set_aside_count",
    "trick",
    "played",
    "taken",
    "totals",
    "round",
    "options",
)


def check_int(value: Any, what: str, low: int | None = None, high: int | None = None) -> int:
    """``value`` as an int in ``low..high``; bools and other types are a ``ValueError``."""
    if type(value) is int and (low is None or low <= value) and (high is None or value <= high):
        return value  # the common case, first: views and moves check a seat or card each time
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ValueError(f"{what} must be an int, not {value!r}")
    if (low is not None and value < low) or (high is not None and value > high):
        bounds = f"in {low}..{high}" if high is not None else f"at least {low}"
        raise ValueError(f"{what} must be {bounds}, not {value}")
    return int(value)


def check_num_players(num_players: Any) -> int:
    """HK-2.1 2 to 6 players."""
    return check_int(num_players, "num_players", MIN_PLAYERS, MAX_PLAYERS)


def resolve_options(num_players: int, rng: ChanceSource, **options: Any) -> dict[str, Any]:
    """Checked options with defaults; a ``"random"`` first leader is drawn from ``rng`` here."""
    unknown = sorted(set(options) - set(DEFAULT_OPTIONS))
    if unknown:
        raise ValueError(f"unknown option {unknown[0]!r} (options: {', '.join(DEFAULT_OPTIONS)})")
    options = {**DEFAULT_OPTIONS, **options}
    first_leader = options["first_leader"]
    if isinstance(first_leader, str) and first_leader == "random":
        first_leader = int(rng.integers(num_players))
    first_leader = check_int(first_leader, "option first_leader", 0, num_players - 1)
    if options["reward_mode"] not in REWARD_MODES:
        raise ValueError(f"option reward_mode must be one of {REWARD_MODES}")
    target = options["target"]
    if target is not None:
        target = check_int(target, "option target", 1)
    rounds = options["rounds"]
    if rounds is None:
        rounds = 1 if target is None else MAX_TARGET_ROUNDS
    rounds = check_int(rounds, "option rounds", 1)
    return {
        "first_leader": first_leader,
        "reward_mode": options["reward_mode"],
        "rounds": rounds,
        "target": target,
    }


def _card_list(value: Any, what: str) -> list[int]:
    if not isinstance(value, list):
        raise ValueError(f"{what} must be a list of cards, not {value!r}")
    if all(type(card) is int and 1 <= card <= NUM_CARDS for card in value):  # the common case
        return value.copy()
    return [check_int(card, f"{what}[{i}]", 1, NUM_CARDS) for i, card in enumerate(value)]


def _seat_card_list(value: Any, what: str, num_players: int) -> list[tuple[int, int]]:
    if not isinstance(value, list):
        raise ValueError(f"{what} must be a list of [seat, card] pairs, not {value!r}")
    # The common case, fast: every entry a pair of plain ints in range.
    pairs = [tuple(pair) for pair in value if type(pair) in (list, tuple) and len(pair) == 2]
    if len(pairs) == len(value) and all(
        type(seat) is type(card) is int and 0 <= seat < num_players and 1 <= card <= NUM_CARDS
        for seat, card in pairs
    ):
        return pairs
    pairs = []
    for i, pair in enumerate(value):
        if not isinstance(pair, list | tuple) or len(pair) != 2:
            raise ValueError(f"{what}[{i}] must be a [seat, card] pair, not {pair!r}")
        seat = check_int(pair[0], f"{what}[{i}] seat", 0, num_players - 1)
        pairs.append((seat, check_int(pair[1], f"{what}[{i}] card", 1, NUM_CARDS)))
    return pairs


def _per_seat(value: Any, what: str, num_players: int) -> list:
    if not isinstance(value, list) or len(value) != num_players:
        raise ValueError(f"{what} must be a list with one entry per player ({num_players})")
    return value


def _ints(value: Any, what: str, n: int, low: int | None, high: int | None = None) -> list[int]:
    """One int in ``low..high`` per seat (``totals``, ``hand_sizes``)."""
    values = _per_seat(value, what, n)
    return [check_int(v, f"{what}[{seat}]", low, high) for seat, v in enumerate(values)]


def _card_lists(value: Any, what: str, num_players: int) -> list[list[int]]:
    """One card list per seat (``hands``, ``taken``)."""
    lists = _per_seat(value, what, num_players)
    return [_card_list(cards, f"{what}[{seat}]") for seat, cards in enumerate(lists)]


def _check_every_card_once(piles: dict[str, list[int]]) -> None:
    where: dict[int, str] = {}
    for name, pile in piles.items():
        for card in pile:
            if card in where:
                raise ValueError(f"card {card} appears twice ({where[card]} and {name})")
            where[card] = name
    missing = [card for card in CARDS if card not in where]
    if missing:
        raise ValueError(f"card {missing[0]} is missing (every card 1..48 exactly once)")


def _check_hand_sizes(sizes: list[int], leader: int, trick: int, draw: int) -> None:
    """Hands can be played out evenly (see the module docstring)."""
    n = len(sizes)
    order = [(leader + i) % n for i in range(n)]
    if trick + draw < n:
        done = trick + draw  # seats order[:done] have played in this trick when the pile is out
    elif (trick + draw) % n == 0:
        done = 0  # the pile runs out as a trick ends
    else:
        raise ValueError(
            f"the draw pile ({draw} cards) would run out in the middle of a later trick, "
            "so the hands could not be played out evenly"
        )
    last = sizes[order[-1]]
    wanted = [last - 1 if i < done else last for i in range(n)]
    current_needs_card = draw > 0 or trick > 0
    if (
        [sizes[seat] for seat in order] != wanted
        or min(wanted) < 0
        or (current_needs_card and wanted[trick] < 1)
    ):
        raise ValueError(
            f"hand sizes {sizes} cannot be played out evenly with {draw} cards in the draw pile "
            f"and {trick} in the trick (seats that will have played in their trick when the pile "
            "runs out hold one card fewer than the others; the player to move holds a card)"
        )
    if max(sizes) > HAND_SIZE:
        raise ValueError(f"a hand holds {max(sizes)} cards, more than {HAND_SIZE} (HK-2.2)")


def _check_played(
    played: list[tuple[int, int]], trick: list[tuple[int, int]], taken: list[list[int]], leader: int
) -> None:
    """``played`` is the history of complete tricks, then the current one (module docstring)."""
    n = len(taken)
    cards = [card for _, card in played]
    if len(set(cards)) != len(cards):
        raise ValueError("played lists a card twice")
    complete, rest = divmod(len(played), n)
    if rest != len(trick) or played[complete * n :] != trick:
        raise ValueError("played must end with the current trick")
    won: list[set[int]] = [set() for _ in range(n)]
    next_leader = None
    for k in range(complete):
        entries = played[k * n : (k + 1) * n]
        first = entries[0][0]
        if next_leader is not None and first != next_leader:
            raise ValueError(f"played trick {k} is led by {first}, not by its winner {next_leader}")
        if [seat for seat, _ in entries] != [(first + i) % n for i in range(n)]:
            raise ValueError(f"played trick {k} is not in seat order")
        best = max(range(n), key=lambda i: TRICK_RANK[entries[i][1]])
        next_leader = entries[best][0]
        won[next_leader].update(card for _, card in entries)
    if next_leader is not None and next_leader != leader:
        raise ValueError(f"leader is {leader}, but player {next_leader} won the last trick")
    for seat in range(n):
        if not won[seat] <= set(taken[seat]):
            raise ValueError(f"taken[{seat}] lacks cards of the tricks it won in played")


def parse_state_dict(d: Any, rng: ChanceSource) -> dict[str, Any]:
    """Checked parts of a state dict: every key of the schema, with defaults filled in."""
    if not isinstance(d, dict):
        raise ValueError(f"a state dict is needed, not {type(d).__name__}")
    for key in d:
        if key not in REQUIRED_KEYS and key not in OPTIONAL_KEYS:
            raise ValueError(f"unknown key {key!r}")
    for key in REQUIRED_KEYS:
        if key not in d:
            raise ValueError(f"missing key {key!r}")
    if d["game"] != GAME_NAME:
        raise ValueError(f"game must be {GAME_NAME!r}, not {d['game']!r}")
    n = check_num_players(d["num_players"])
    options = d.get("options", {})
    if not isinstance(options, dict):
        raise ValueError(f"options must be a dict, not {options!r}")
    options = resolve_options(n, rng, **options)
    hands = _card_lists(d["hands"], "hands", n)
    draw_pile = _card_list(d["draw_pile"], "draw_pile")
    set_aside = _card_list(d["set_aside"], "set_aside")
    if len(set_aside) not in {0, SET_ASIDE.get(n, 0)}:  # HK-2.3
        if n in SET_ASIDE:
            raise ValueError(f"set_aside must hold 0 or {SET_ASIDE[n]} cards with {n} players")
        raise ValueError(f"set_aside must be empty with {n} players (HK-2.3)")
    trick = _seat_card_list(d["trick"], "trick", n)
    taken = _card_lists(d["taken"], "taken", n)
    _check_every_card_once(
        {
            **{f"hands[{s}]": hand for s, hand in enumerate(hands)},
            "draw_pile": draw_pile,
            "set_aside": set_aside,
            "trick": [card for _, card in trick],
            **{f"taken[{s}]": pile for s, pile in enumerate(taken)},
        }
    )
    leader = check_int(d["leader"], "leader", 0, n - 1)
    if len(trick) >= n:
        raise ValueError(f"trick holds {len(trick)} cards; a trick of {n} is decided at once")
    for i, (seat, _) in enumerate(trick):
        if seat != (leader + i) % n:
            raise ValueError(f"trick[{i}] was played by {seat}, not by {(leader + i) % n}")
    _check_hand_sizes([len(hand) for hand in hands], leader, len(trick), len(draw_pile))
    played = trick
    if "played" in d:
        played = _seat_card_list(d["played"], "played", n)
        _check_played(played, trick, taken, leader)
    round_index = check_int(d.get("round", 0), "round", 0, options["rounds"] - 1)
    over = not any(hands) and not trick
    scores = [sum(CARD_VALUE[card] for card in pile) for pile in taken]
    totals = d.get("totals", scores if over else [0] * n)
    totals = _ints(totals, "totals", n, low=None)  # any int: scores may be negative
    target = options["target"]
    reached = target is not None and max(totals) >= target
    if over:
        if d["current_player"] is not None:
            raise ValueError("current_player must be None: every hand is empty")
        if not reached and round_index < options["rounds"] - 1:
            raise ValueError("every hand is empty, but the match has rounds left")
    else:
        if reached:
            raise ValueError(f"a total has reached the target {target}, so the match is over")
        current = check_int(d["current_player"], "current_player", 0, n - 1)
        if current != (leader + len(trick)) % n:
            raise ValueError(f"current_player must be {(leader + len(trick)) % n} (leader + trick)")
    return {
        "num_players": n,
        "options": options,
        "current_player": None if over else (leader + len(trick)) % n,
        "leader": leader,
        "hands": [sorted(hand) for hand in hands],
        "draw_pile": draw_pile,
        "set_aside": set_aside,
        "trick": [card for _, card in trick],
        "played": played,
        "taken": taken,
        "scores": scores,
        "totals": totals,
        "round": round_index,
    }


def deal_view(view: Any, rng: np.random.Generator) -> dict[str, Any]:
    """A state dict that gives ``view``: the cards the viewer cannot see (other hands, draw
    pile, set-aside cards) dealt at random from ``rng``.

    Every size and card of the view is checked first, so a malformed view is a ``ValueError``
    naming its field and nothing is allocated for absurd counts; ``parse_state_dict`` then
    checks the rules on the dealt state.
    """
    if not isinstance(view, dict):
        raise ValueError(f"a view dict is needed, not {type(view).__name__}")
    missing = [key for key in VIEW_KEYS if key not in view]
    if missing:
        raise ValueError(f"the view lacks {missing[0]!r}")
    n = check_num_players(view["num_players"])
    viewer = check_int(view["player"], "player", 0, n - 1)
    hand = _card_list(view["hand"], "hand")
    played = _seat_card_list(view["played"], "played", n)
    taken = _card_lists(view["taken"], "taken", n)
    sizes = _ints(view["hand_sizes"], "hand_sizes", n, 0, HAND_SIZE)
    if sizes[viewer] != len(hand):
        raise ValueError(
            f"hand holds {len(hand)} cards, but hand_sizes[{viewer}] is {sizes[viewer]}"
        )
    draw_size = check_int(view["draw_pile_size"], "draw_pile_size", 0, NUM_CARDS)
    set_aside_size = check_int(view["set_aside_count"], "set_aside_count", 0, NUM_CARDS)
    seen = set(hand).union(card for _, card in played)
    seen.update(card for pile in taken for card in pile)
    hidden = [card for card in CARDS if card not in seen]
    rng.shuffle(hidden)
    sizes[viewer] = 0
    needed = sum(sizes) + draw_size + set_aside_size
    if needed != len(hidden):
        raise ValueError(f"the view hides {len(hidden)} cards, but its sizes need {needed}")
    hands, start = [], 0
    for seat, size in enumerate(sizes):
        hands.append(hand if seat == viewer else hidden[start : start + size])
        start += size
    public = ("current_player", "leader", "trick", "played", "options", "totals", "round")
    return {
        **{key: view[key] for key in public},  # checked by parse_state_dict
        "game": GAME_NAME,
        "num_players": n,
        "hands": hands,
        "draw_pile": hidden[start + set_aside_size :],
        "set_aside": hidden[start : start + set_aside_size],
        "taken": taken,
    }

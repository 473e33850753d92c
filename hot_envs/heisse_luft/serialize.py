"""Heiße Luft's dict formats: the full state (``to_dict``/``from_dict``), a player's view
(``view``/``from_view``) and option checking. docs/environments.md ("Setting up a position")
describes the state dict.

``from_dict`` accepts any position that keeps the structural rules and raises ``ValueError``
naming the first problem. Piles list their top card first here, while the engine keeps its top
card last.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from hot_envs.core.engine import Seed, make_rng
from hot_envs.heisse_luft.facts import (
    CARD_CODES,
    CARD_INDEX,
    CARD_SUIT,
    CARD_VALUE,
    DEFAULT_OPTIONS,
    DRAW,
    EXCHANGE,
    HAND_SIZE,
    MAX_EXCHANGE,
    MAX_SPADES_AT_STAGE,
    NUM_CARDS,
    NUM_STAGES,
    OVER,
    PHASES,
    SPADES,
    STAGE_SIZES,
    SUIT_SIZES,
    SUITS,
    TERRAINS,
    TROPHIES_TO_WIN,
    TROPHY,
    TROPHY_PRICE,
)
from hot_envs.heisse_luft.table import Table

GAME = "heisse_luft"
REQUIRED_KEYS = (
    "phase",
    "current_player",
    "hands",
    "draw_pile",
    "discard_pile",
    "prize_deck",
    "stages",
    "prizes_won",
    "trophies",
)
OPTIONAL_KEYS = (
    "game",
    "options",
    "pass_streak",
    "turn",
    "trophy_cards",
    "exchange_selection",
    "revealed_cards",
    "trophy_phase",
    "winner",
)
STAGE_KEYS = ("in_play", "terrain", "prizes", "sides", "last_player")


def check_options(options: dict[str, Any]) -> dict[str, Any]:
    """Options merged over the defaults; ``ValueError`` names the first bad one."""
    if not isinstance(options, dict):
        raise ValueError(f"options must be a dict, not {type(options).__name__}")
    unknown = set(options) - set(DEFAULT_OPTIONS)
    if unknown:
        raise ValueError(f"unknown option(s) {sorted(unknown)}; known: {sorted(DEFAULT_OPTIONS)}")
    merged = {**DEFAULT_OPTIONS, **options}
    if not isinstance(merged["three_for_one"], bool):
        raise ValueError(f"option three_for_one must be a bool, not {merged['three_for_one']!r}")
    first = merged["starting_player"]
    if first != "random":
        merged["starting_player"] = check_seat(first, "option starting_player (or 'random')")
    limit = merged["turn_limit"]
    if isinstance(limit, bool) or not isinstance(limit, int | np.integer) or limit < 1:
        raise ValueError(f"option turn_limit must be a positive int, not {limit!r}")
    merged["turn_limit"] = int(limit)
    return merged


# ---------------------------------------------------------------------- state -> dict


def _codes(cards: list[int]) -> list[str]:
    return [CARD_CODES[c] for c in cards]


def _suit_counts(counts: list[int]) -> dict[str, int]:
    return {SUITS[s]: counts[s] for s in range(4)}


def _public(state: Table) -> dict:
    """The parts of the state both players see (HL-8)."""
    trophy_phase = None
    if state.phase == TROPHY:
        asking = "winner" if state.asking_winner else "other"
        trophy_phase = {"winner": state.trophy_winner, "asking": asking}
    return {
        "phase": PHASES[state.phase],
        "current_player": state.current_player,
        "discard_pile": _codes(state.discard_pile[::-1]),
        "stages": [
            {
                "in_play": state.in_play[i],
                "terrain": TERRAINS[state.terrain[i]],
                "prizes": [SUITS[s] for s in state.prizes[i]],
                "sides": [_codes(state.sides[i][0]), _codes(state.sides[i][1])],
                "last_player": state.last_player[i],
            }
            for i in range(NUM_STAGES)
        ],
        "prizes_won": [_suit_counts(state.prizes_won[p]) for p in (0, 1)],
        "trophies": [[SUITS[s] for s in state.trophies[p]] for p in (0, 1)],
        "trophy_cards": [_suit_counts(state.trophy_cards[p]) for p in (0, 1)],
        "pass_streak": state.pass_streak,
        "turn": state.turn,
        "exchange_selection": _codes(state.exchange_selection),
        "revealed_cards": [_codes(sorted(state.revealed[p])) for p in (0, 1)],
        "trophy_phase": trophy_phase,
        "winner": state.winner,
        "options": dict(state.options),
    }


def state_to_dict(state: Table) -> dict:
    return {
        "game": GAME,
        **_public(state),
        "hands": [_codes(state.hands[0]), _codes(state.hands[1])],
        "draw_pile": _codes(state.draw_pile[::-1]),
        "prize_deck": [SUITS[s] for s in state.prize_deck[::-1]],
    }


def state_view(state: Table, player: int, legal_actions: list[int]) -> dict:
    """What ``player`` may know (HL-8): public parts, own hand, sizes of hidden piles, and the
    mover's ``legal_actions``."""
    player = check_seat(player, "player")
    opponent = 1 - player
    deck_counts = [state.prize_deck.count(suit) for suit in range(4)]
    to_move = state.current_player == player
    return {
        "game": GAME,
        "player": player,
        **_public(state),
        "hand": _codes(state.hands[player]),
        "opponent_hand_size": len(state.hands[opponent]),
        "known_opponent_cards": _codes(sorted(state.revealed[opponent])),
        "draw_pile_size": len(state.draw_pile),
        "prize_deck_size": len(state.prize_deck),
        "prize_deck_counts": _suit_counts(deck_counts),
        "legal_actions": legal_actions[:] if to_move else [],
    }


# ---------------------------------------------------------------------- dict -> state


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _list(x: Any, where: str, length: int | None = None, most: int | None = None) -> list:
    if not isinstance(x, list):
        raise ValueError(f"{where} must be a list, not {type(x).__name__}")
    if length is not None and len(x) != length:
        raise ValueError(f"{where} must have {length} entries, not {len(x)}")
    if most is not None and len(x) > most:
        raise ValueError(f"{where} holds {len(x)} entries; the game has {most}")
    return x


def _card(code: Any, where: str) -> int:
    if not isinstance(code, str) or code not in CARD_INDEX:
        raise ValueError(f"{where}: {code!r} is not a balloon card code (H1…H13, D…, C…, S…)")
    return CARD_INDEX[code]


def _cards(x: Any, where: str) -> list[int]:
    return [_card(code, where) for code in _list(x, where, most=NUM_CARDS)]


def _suits(x: Any, where: str) -> list[int]:
    letters = _list(x, where)
    for letter in letters:
        if not isinstance(letter, str) or len(letter) != 1 or letter not in SUITS:
            raise ValueError(f"{where}: {letter!r} is not a suit letter (H, D, C, S)")
    return [SUITS.index(letter) for letter in letters]


def _per_seat(x: Any, where: str, read: Callable[[Any, str], Any]) -> list:
    """Two entries, seat 0's and seat 1's, each ``read`` as ``where[seat]``."""
    return [read(entry, f"{where}[{p}]") for p, entry in enumerate(_list(x, where, 2))]


def check_seat(x: Any, where: str, allow_none: bool = False) -> int | None:
    """A seat as a plain int (numpy integers accepted, bools refused)."""
    if x is None and allow_none:
        return None
    if isinstance(x, bool) or not isinstance(x, int | np.integer) or x not in (0, 1):
        raise ValueError(f"{where} must be 0 or 1{' or null' if allow_none else ''}, not {x!r}")
    return int(x)


def _counts(x: Any, where: str) -> list[int]:
    if not isinstance(x, dict) or set(x) != set(SUITS):
        raise ValueError(f"{where} must be a dict with the keys H, D, C, S, not {x!r}")
    counts = [x[letter] for letter in SUITS]
    if not all(_is_int(n) and n >= 0 for n in counts):
        raise ValueError(f"{where} must hold counts ≥ 0, not {x!r}")
    return counts


def _int(x: Any, where: str, low: int, high: int) -> int:
    if not _is_int(x) or not low <= x <= high:
        raise ValueError(f"{where} must be an int in {low}..{high}, not {x!r}")
    return x


def _read_stage(state: Table, i: int, d: Any) -> None:
    where = f"stages[{i}] (stage {i + 1})"
    if not isinstance(d, dict):
        raise ValueError(f"{where} must be a dict, not {type(d).__name__}")
    missing = [k for k in STAGE_KEYS[:4] if k not in d]
    unknown = set(d) - set(STAGE_KEYS)
    if missing or unknown:
        raise ValueError(f"{where}: missing keys {missing}, unknown keys {sorted(unknown)}")
    if not isinstance(d["in_play"], bool):
        raise ValueError(f"{where}.in_play must be a bool, not {d['in_play']!r}")
    if d["terrain"] not in TERRAINS:
        raise ValueError(f"{where}.terrain must be 'lowland' or 'mountain', not {d['terrain']!r}")
    prizes = _suits(d["prizes"], f"{where}.prizes")
    sides = _per_seat(d["sides"], f"{where}.sides", _cards)
    size = STAGE_SIZES[i] if d["in_play"] else 0
    if len(prizes) != size:
        raise ValueError(f"{where} must hold {size} prize cards, not {len(prizes)}")
    need = [prizes.count(s) for s in range(4)]
    if need[SPADES] > MAX_SPADES_AT_STAGE:
        raise ValueError(f"{where} holds {need[SPADES]} spade prizes; at most 3 (HL-2.3)")
    have = [[0] * 4, [0] * 4]
    for j, side in enumerate(sides):
        for card in side:
            have[j][CARD_SUIT[card]] += 1
            if have[j][CARD_SUIT[card]] > need[CARD_SUIT[card]]:
                raise ValueError(
                    f"{where}.sides[{j}]: {CARD_CODES[card]} does not fit; the stage's prizes "
                    f"{d['prizes']} take {need[CARD_SUIT[card]]} card(s) of that suit (HL-3.1)"
                )
    if d["in_play"] and sum(map(len, sides)) == 2 * size:
        raise ValueError(f"{where} is complete and should have been flown (HL-4.1)")
    last = check_seat(d.get("last_player"), f"{where}.last_player", allow_none=True)
    if last is None and any(sides):
        raise ValueError(f"{where} holds cards, so last_player must be 0 or 1")
    state.in_play[i] = d["in_play"]
    state.terrain[i] = TERRAINS.index(d["terrain"])
    state.prizes[i] = prizes
    state.need[i] = need
    state.sides[i] = sides
    state.have[i] = have
    state.sums[i] = [sum(CARD_VALUE[c] for c in side) for side in sides]
    state.last_player[i] = last if any(sides) else None


def _check_every_card_once(state: Table) -> None:
    places: dict[int, str] = {}
    groups = [(f"hands[{p}]", state.hands[p]) for p in (0, 1)]
    groups += [("draw_pile", state.draw_pile), ("discard_pile", state.discard_pile)]
    groups += [
        (f"stages[{i}].sides[{j}]", state.sides[i][j]) for i in range(NUM_STAGES) for j in (0, 1)
    ]
    for where, cards in groups:
        for card in cards:
            if card in places:
                raise ValueError(
                    f"balloon card {CARD_CODES[card]} appears twice: in {places[card]} and {where}"
                )
            places[card] = where
    if len(places) != NUM_CARDS:
        missing = [CARD_CODES[c] for c in range(NUM_CARDS) if c not in places]
        raise ValueError(f"balloon cards missing (every card must appear once): {missing}")


def _check_prize_totals(state: Table) -> None:
    for s in range(4):
        total = state.prize_deck.count(s) + sum(prizes.count(s) for prizes in state.prizes)
        total += sum(state.prizes_won[p][s] + state.trophy_cards[p][s] for p in (0, 1))
        if total != SUIT_SIZES[s]:
            raise ValueError(
                f"prize cards of suit {SUITS[s]}: {total} in prize_deck, stages, prizes_won "
                f"and trophy_cards together, but the game has {SUIT_SIZES[s]} (HL-1.2)"
            )


def state_dict_options(d: Any) -> dict[str, Any]:
    """The options of a state dict, after its keys and game are checked: a new state's."""
    if not isinstance(d, dict):
        raise ValueError(f"a state dict must be a dict, not {type(d).__name__}")
    missing = [k for k in REQUIRED_KEYS if k not in d]
    if missing:
        raise ValueError(f"state dict lacks the key(s) {missing}")
    unknown = set(d) - set(REQUIRED_KEYS) - set(OPTIONAL_KEYS)
    if unknown:
        raise ValueError(f"state dict has unknown key(s) {sorted(unknown)}")
    if d.get("game", GAME) != GAME:
        raise ValueError(f"state dict is for game {d['game']!r}, not {GAME!r}")
    return check_options(d.get("options", {}))


def read_state_dict(state: Table, d: dict) -> None:
    """Fill a new ``state`` (made with :func:`state_dict_options`) from state dict ``d``, checked
    for everything but the rules of its phase, which the state checks itself (HL-3.3, HL-3.4,
    HL-6.4) as it resumes the turn."""
    if d["phase"] not in PHASES:
        raise ValueError(f"phase must be one of {PHASES}, not {d['phase']!r}")
    state.phase = PHASES.index(d["phase"])
    over = state.phase == OVER
    state.current_player = check_seat(d["current_player"], "current_player", allow_none=over)
    if over and state.current_player is not None:
        raise ValueError("current_player must be null when the phase is 'over'")

    state.hands = [sorted(hand) for hand in _per_seat(d["hands"], "hands", _cards)]
    for p in (0, 1):
        if len(state.hands[p]) > HAND_SIZE:
            raise ValueError(f"hands[{p}] holds {len(state.hands[p])} cards; at most {HAND_SIZE}")
    state.draw_pile = _cards(d["draw_pile"], "draw_pile")[::-1]
    state.discard_pile = _cards(d["discard_pile"], "discard_pile")[::-1]
    state.prize_deck = _suits(d["prize_deck"], "prize_deck")[::-1]
    for i, stage in enumerate(_list(d["stages"], "stages", NUM_STAGES)):
        _read_stage(state, i, stage)
    _check_every_card_once(state)

    state.prizes_won = _per_seat(d["prizes_won"], "prizes_won", _counts)
    _read_trophies(state, d)
    _check_prize_totals(state)

    state.pass_streak = _int(d.get("pass_streak", 0), "pass_streak", 0, 1)
    limit = state.options["turn_limit"]
    # HL-7.3 the limit is checked when the next turn would start, so the trophy phase of the
    # last turn's flight runs at turn == limit.
    last = over or d.get("phase") == "trophy"
    state.turn = _int(d.get("turn", 0), "turn", 0, limit if last else limit - 1)
    _read_phase(state, d)


def _read_trophies(state: Table, d: dict) -> None:
    state.trophies = _per_seat(d["trophies"], "trophies", _suits)
    claimed = state.trophies[0] + state.trophies[1]
    if len(set(claimed)) != len(claimed):
        raise ValueError(f"a trophy is claimed twice: {d['trophies']} (HL-6.1)")
    if "trophy_cards" in d:
        state.trophy_cards = _per_seat(d["trophy_cards"], "trophy_cards", _counts)
    else:  # each trophy paid for at its price
        state.trophy_cards = [
            [TROPHY_PRICE[s] if s in state.trophies[p] else 0 for s in range(4)] for p in (0, 1)
        ]
    for p in (0, 1):
        price = sum(TROPHY_PRICE[s] for s in state.trophies[p])
        paid = sum(state.trophy_cards[p])
        if paid < price or (paid and not state.trophies[p]):
            raise ValueError(
                f"trophy_cards[{p}] hold {paid} cards, but the trophies {d['trophies'][p]} "
                f"cost {price}"
            )
        if len(state.trophies[p]) >= TROPHIES_TO_WIN and state.phase != OVER:
            raise ValueError(f"player {p} holds two trophies, so the phase must be 'over' (HL-7.1)")


def _read_phase(state: Table, d: dict) -> None:
    """The phase-specific keys, checked against the phase."""
    p = state.current_player
    selection = _cards(d.get("exchange_selection") or [], "exchange_selection")
    revealed = _per_seat(d.get("revealed_cards") or [[], []], "revealed_cards", _cards)
    state.revealed = [set(cards) for cards in revealed]
    for q in (0, 1):
        if not state.revealed[q] <= set(state.hands[q]):
            raise ValueError(f"revealed_cards[{q}] lists cards that are not in hands[{q}]")
    if selection and state.phase != EXCHANGE:
        raise ValueError("exchange_selection must be empty outside the exchange phase")
    if d.get("trophy_phase") is not None and state.phase != TROPHY:
        raise ValueError("trophy_phase must be null outside the trophy phase")
    if d.get("winner") is not None and state.phase != OVER:
        raise ValueError("winner must be null while the game is not over")

    if state.phase == OVER:
        winner = d.get("winner")
        if winner != DRAW:
            winner = check_seat(winner, "winner", allow_none=True)
        state.winner = winner  # taken as given: null reads as a truncated game
    elif state.phase == TROPHY:
        tp = d.get("trophy_phase")
        if not isinstance(tp, dict) or set(tp) != {"winner", "asking"}:
            raise ValueError("the trophy phase needs trophy_phase = {'winner': seat, 'asking': …}")
        state.trophy_winner = check_seat(tp["winner"], "trophy_phase.winner")
        if tp["asking"] not in ("winner", "other"):
            raise ValueError(
                f"trophy_phase.asking must be 'winner' or 'other', not {tp['asking']!r}"
            )
        state.asking_winner = tp["asking"] == "winner"
        if p != (state.trophy_winner if state.asking_winner else 1 - state.trophy_winner):
            raise ValueError(f"current_player {p} is not the player trophy_phase asks")
    elif state.phase == EXCHANGE:
        hand = state.hands[p]
        if not hand:
            raise ValueError(f"player {p} has no cards to exchange (HL-3.4)")
        if len(set(selection)) != len(selection) or not set(selection) <= set(hand):
            raise ValueError("exchange_selection must list distinct cards of the mover's hand")
        if len(selection) >= MAX_EXCHANGE:
            raise ValueError(
                f"exchange_selection holds {len(selection)} cards; at most 3 "
                "(choosing a 4th card ends the choice)"
            )
        state.exchange_selection = selection
        if "revealed_cards" not in d:
            state.revealed[p] = set(hand)
    else:
        if not any(state.in_play):
            raise ValueError("no stage is in play, so the phase must be 'over' (HL-7.2)")


# ---------------------------------------------------------------------- view -> state


MAX_DEALS = 1000
VIEW_KEYS = (
    "player",
    "phase",
    "hand",
    "opponent_hand_size",
    "known_opponent_cards",
    "draw_pile_size",
    "discard_pile",
    "prize_deck_counts",
    "stages",
)


def _seen_cards(view: dict) -> tuple[set[str], int]:
    """The card codes the viewer sees and the number of unknown opponent cards, every field
    checked against the game first (nothing is allocated for an absurd count)."""
    missing = [k for k in VIEW_KEYS if k not in view]
    if missing:
        raise ValueError(f"the view lacks the key(s) {missing}")
    known = _cards(view["known_opponent_cards"], "known_opponent_cards")
    seen = set(_cards(view["hand"], "hand")) | set(_cards(view["discard_pile"], "discard_pile"))
    seen |= set(known)
    for i, stage in enumerate(_list(view["stages"], "stages", NUM_STAGES)):
        if not isinstance(stage, dict) or "sides" not in stage:
            raise ValueError(f"stages[{i}] must be a dict with the key 'sides'")
        for side in _per_seat(stage["sides"], f"stages[{i}].sides", _cards):
            seen.update(side)
    hand_size = _int(view["opponent_hand_size"], "opponent_hand_size", len(known), HAND_SIZE)
    return {CARD_CODES[c] for c in seen}, hand_size - len(known)


def state_from_view(
    from_dict: Callable[[dict, np.random.Generator], Table], view: Any, rng: Seed = None
) -> Table:
    """A full state consistent with ``view``, made by ``from_dict`` (``State.from_dict``): the
    cards the viewer cannot see are dealt at random to the opponent's unknown hand cards and the
    draw pile; the prize deck is shuffled.

    The deal is repeated until it agrees with what the view implies about the opponent's hand:
    an opponent in the play phase holds a fitting card (else it would be stuck, HL-3.4).
    """
    rng = make_rng(rng)
    if not isinstance(view, dict) or view.get("game", GAME) != GAME or "player" not in view:
        raise ValueError("from_view needs a Heiße Luft view dict (State.view(player))")
    player = check_seat(view["player"], "view.player")
    seen, n_unknown = _seen_cards(view)
    unseen = [code for code in CARD_CODES if code not in seen]
    draw_size = _int(view["draw_pile_size"], "draw_pile_size", 0, NUM_CARDS)
    if len(unseen) - n_unknown != draw_size:
        raise ValueError("the view's card counts do not add up to 40 balloon cards")
    deck_counts = _counts(view["prize_deck_counts"], "prize_deck_counts")
    for suit, (count, size) in enumerate(zip(deck_counts, SUIT_SIZES, strict=True)):
        if count > size:
            raise ValueError(f"prize_deck_counts[{SUITS[suit]!r}] is {count}; the game has {size}")
    if view["phase"] not in PHASES:
        raise ValueError(f"phase must be one of {PHASES}, not {view['phase']!r}")
    deck = [SUITS[s] for s in range(4) for _ in range(deck_counts[s])]
    keys = set(REQUIRED_KEYS) | set(OPTIONAL_KEYS)
    d = {k: v for k, v in view.items() if k in keys}
    hands: list[list[str]] = [list(view["hand"]), list(view["hand"])]
    for _ in range(MAX_DEALS):
        unseen = [unseen[i] for i in rng.permutation(len(unseen))]
        hands[1 - player] = list(view["known_opponent_cards"]) + unseen[:n_unknown]
        d.update(
            hands=hands,
            draw_pile=unseen[n_unknown:],
            prize_deck=[deck[i] for i in rng.permutation(len(deck))],
        )
        state = from_dict(d, rng)
        if state.phase == PHASES.index(view["phase"]):
            return state
    raise ValueError(f"no deal of the unseen cards fits the view (tried {MAX_DEALS})")

"""Heiße Luft in arrays: :class:`ArrayHeisseLuft`, many games at once.

One row per game, rules in compiled kernels (HL-1 … HL-8 in docs/rules.md, each id named where
its rule is written); :class:`hot_envs.heisse_luft.State` is the rule book they are tested
against, action for action (``tests/batched``). The kernels follow the engine's order of
operations exactly — which card goes where in which pile, when the turn counter moves — so that
``state_dict(i)`` is the engine's ``to_dict()`` of the same game.

Each game is one record of :data:`GAME` in ``table`` (a record array, one row per game): the
kernels hand a game's record from helper to helper as one pointer, and everything a move reads
lies together in memory. Its fields:

* ``hands[p]``, ``revealed[p]``: seat ``p``'s hand and the part of it the opponent has seen
  (HL-3.4) as bit sets, bit ``c`` for card ``c``; ``hand_size[p]``.
* ``draw[:draw_size]``, ``discard[:discard_size]``, ``deck[:deck_size]`` (the prize deck;
  ``deck_suits`` its cards by suit): piles bottom first, top card last, as the engine keeps them
  (the state dict lists them top first).
* ``in_play``, ``terrain`` per stage; ``prizes[s, :s + 1]`` the prize suits of stage ``s``
  while it is in play and ``need[s, suit]`` their counts; ``sides[s, side, :side_size[s,
  side]]`` the cards on a seat's side in placement order, ``have`` their counts by suit,
  ``sums`` their values; ``last[s]`` the seat that placed the stage's last card, −1 for none.
* ``won``, ``paid`` (prize cards held, and paid into trophies) by seat and suit;
  ``trophies[p, :trophy_count[p]]`` in the order claimed, ``owner[suit]`` (−1: free).
* ``current``, ``phase``, ``pass_streak``, ``turn``; ``selection[:selection_size]`` the
  exchange's picks in order; ``trophy_winner`` (−1 outside a trophy phase) and
  ``asking_winner``; ``winner`` (:data:`NO_WINNER`, a seat or :data:`DRAW_WINNER`).

The base's ``_current``, ``_done``, ``_truncated`` and ``_rewards`` are written from the record
at the end of each game's step; ``_rng`` holds the games' streams.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hot_envs.batched.base import ArrayGames, bit_count
from hot_envs.batched.jit import kernel
from hot_envs.batched.streams import below, shuffle
from hot_envs.heisse_luft import serialize
from hot_envs.heisse_luft.encoding import LAYOUT, MAX_SIDE_SUM
from hot_envs.heisse_luft.facts import (
    CARD_CODES,
    CARD_SUIT,
    CARD_VALUE,
    CLAIM_TROPHY,
    DRAW,
    EXCHANGE,
    EXCHANGE_DONE,
    EXCHANGE_PICK,
    HAND_SIZE,
    LOWLAND,
    MAX_EXCHANGE,
    MAX_SPADES_AT_STAGE,
    NUM_ACTIONS,
    NUM_CARDS,
    NUM_STAGES,
    OVER,
    PHASES,
    PLAY,
    SPADES,
    START_TERRAIN,
    STOP_CLAIMING,
    SUIT_SIZES,
    SUITS,
    TERRAINS,
    THREE_FOR_ONE,
    TROPHIES_TO_WIN,
    TROPHY,
    TROPHY_PRICE,
)
from hot_envs.heisse_luft.state import State

NO_WINNER, DRAW_WINNER = -1, 2  # winner[g]: −1 none (not over, or truncated), a seat, or a draw
RANDOM_START = -1  # the option starting_player="random" (HL-2.5), drawn per game
NUM_SUITS = len(SUITS)
MAX_SIDE = 4  # HL-1.3 stage 4 takes the most cards per side: one per prize
_UNIFORM_STEPS = 1 << 30  # a random move's uniform draw, in steps of 2⁻³⁰

_SUIT = np.array(CARD_SUIT, dtype=np.int64)  # HL-1.1 by card
_VALUE = np.array(CARD_VALUE, dtype=np.int64)
_SUIT_BITS = np.array(  # the cards of each suit as a bit set
    [sum(1 << c for c in range(NUM_CARDS) if CARD_SUIT[c] == s) for s in range(NUM_SUITS)],
    dtype=np.int64,
)
_SUIT_SIZE = np.array(SUIT_SIZES, dtype=np.int64)  # HL-1.2 prize cards per suit
_PRICE = np.array(TROPHY_PRICE, dtype=np.int64)  # HL-1.4
_START_TERRAIN = np.array(START_TERRAIN, dtype=np.int64)  # HL-2.1

# Observation offsets (hot_envs.heisse_luft.encoding.LAYOUT).
_HAND = LAYOUT.offset("hand")
_MY_REVEALED = LAYOUT.offset("my_revealed")
_OPPONENT_KNOWN = LAYOUT.offset("opponent_known")
_OPPONENT_HAND_SIZE = LAYOUT.offset("opponent_hand_size")
_EXCHANGE_SELECTION = LAYOUT.offset("exchange_selection")
_DISCARD_PILE = LAYOUT.offset("discard_pile")
_STAGE_IN_PLAY = LAYOUT.offset("stage_in_play")
_STAGE_MOUNTAIN = LAYOUT.offset("stage_mountain")
_STAGE_PRIZES = LAYOUT.offset("stage_prizes")
_STAGE_CARDS = LAYOUT.offset("stage_cards")
_STAGE_LAST = LAYOUT.offset("stage_last")
_STAGE_SUMS = LAYOUT.offset("stage_sums")
_STAGE_MISSING = LAYOUT.offset("stage_missing")
_STAGE_LEADING = LAYOUT.offset("stage_leading")
_PRIZES_WON = LAYOUT.offset("prizes_won")
_TROPHY_CARDS = LAYOUT.offset("trophy_cards")
_TROPHIES = LAYOUT.offset("trophies")
_AWARDED = LAYOUT.offset("awarded")
_PRIZE_DECK_COUNTS = LAYOUT.offset("prize_deck_counts")
_PRIZE_DECK_SIZE = LAYOUT.offset("prize_deck_size")
_DRAW_PILE_SIZE = LAYOUT.offset("draw_pile_size")
_PASS_STREAK = LAYOUT.offset("pass_streak")
_PHASE = LAYOUT.offset("phase")
_TROPHY_ROLE = LAYOUT.offset("trophy_role")
_TO_MOVE = LAYOUT.offset("to_move")
_THREE_FOR_ONE = LAYOUT.offset("three_for_one")
_TURN_PROGRESS = LAYOUT.offset("turn_progress")
_PRIZE_DECK_SCALE = 40  # encode() divides the prize deck's size by 40 (40 prize cards, HL-1.2)


GAME = np.dtype(
    [
        ("current", np.int64),  # the seat to move, −1 when over (published to _current)
        ("phase", np.int64),
        ("hands", np.int64, (2,)),  # bit sets
        ("hand_size", np.int64, (2,)),
        ("revealed", np.int64, (2,)),  # bit sets (HL-3.4)
        ("draw", np.int64, (NUM_CARDS,)),  # bottom first
        ("draw_size", np.int64),
        ("discard", np.int64, (NUM_CARDS,)),
        ("discard_size", np.int64),
        ("deck", np.int64, (NUM_CARDS,)),  # the prize deck
        ("deck_size", np.int64),
        ("deck_suits", np.int64, (NUM_SUITS,)),
        ("in_play", np.int64, (NUM_STAGES,)),
        ("terrain", np.int64, (NUM_STAGES,)),
        ("prizes", np.int64, (NUM_STAGES, MAX_SIDE)),
        ("need", np.int64, (NUM_STAGES, NUM_SUITS)),
        ("sides", np.int64, (NUM_STAGES, 2, MAX_SIDE)),  # by seat, in placement order
        ("side_size", np.int64, (NUM_STAGES, 2)),
        ("have", np.int64, (NUM_STAGES, 2, NUM_SUITS)),
        ("sums", np.int64, (NUM_STAGES, 2)),
        ("last", np.int64, (NUM_STAGES,)),
        ("won", np.int64, (2, NUM_SUITS)),
        ("paid", np.int64, (2, NUM_SUITS)),
        ("trophies", np.int64, (2, NUM_SUITS)),  # in the order claimed
        ("trophy_count", np.int64, (2,)),
        ("owner", np.int64, (NUM_SUITS,)),
        ("pass_streak", np.int64),
        ("turn", np.int64),
        ("selection", np.int64, (MAX_EXCHANGE,)),
        ("selection_size", np.int64),
        ("trophy_winner", np.int64),
        ("asking_winner", np.int64),
        ("winner", np.int64),
    ]
)
"""One game's record (module docstring). Every field is int64: the same arithmetic compiled
and as plain Python, where numpy keeps a small int type through sums and products."""


class ArrayHeisseLuft(ArrayGames):
    """``num_games`` games of Heiße Luft with the options of ``heisse_luft_v0.env()`` and
    ``State.new``: ``three_for_one`` (HL-6.2/6.3), ``starting_player`` (0, 1 or ``"random"``,
    drawn per game from its stream, HL-2.5) and ``turn_limit`` (HL-7.3)."""

    game_name = "heisse-luft"
    num_actions = NUM_ACTIONS
    observation_size = LAYOUT.size
    engine = State

    def __init__(self, num_games: int, **options: Any) -> None:
        checked = serialize.check_options(options)  # the engine's own checks and words
        super().__init__(num_games, State.num_players, checked)
        first = checked["starting_player"]
        self._starting_player = RANDOM_START if first == "random" else first
        self._three_for_one = checked["three_for_one"]
        self._turn_limit = checked["turn_limit"]
        self.table = np.zeros(self.num_games, dtype=GAME).view(np.recarray)
        self.table.phase = OVER
        self.table.current = -1

    # -- the kernels' calls ---------------------------------------------------------------------

    def _deal(self, where: np.ndarray) -> None:
        _deal(where, self.table, self._rng, self._current, self._starting_player, self._turn_limit)

    def _first_illegal(self, actions: np.ndarray) -> int:
        return _first_illegal(actions, self.table, self._done, self._three_for_one)

    def _apply(self, actions: np.ndarray) -> None:
        _apply(
            actions,
            self.table,
            self._rng,
            self._current,
            self._done,
            self._truncated,
            self._rewards,
            self._three_for_one,
            self._turn_limit,
        )

    def _legal(self, mask: np.ndarray) -> None:
        _legal(mask, self.table, self._done, self._three_for_one)

    def _observe(self, seats: np.ndarray, rows: np.ndarray, out: np.ndarray) -> None:
        _observe(seats, rows, out, self.table, self._three_for_one, self._turn_limit)

    def sample_legal(self, rng: np.random.Generator) -> np.ndarray:
        """As the base's (the ``floor(u * count)``-th legal action in id order, one uniform
        ``u`` per game, 0 where a game is over), counted from each game's record instead of a
        mask of 366 ids."""
        actions = np.zeros(self.num_games, dtype=np.int64)
        _sample(self.table, self._done, rng.random(self.num_games), actions, self._three_for_one)
        return actions

    # -- one game as the per-game engine's dict -----------------------------------------------

    def state_dict(self, game: int) -> dict:
        r = self.table[self._game_index(game)]
        phase = int(r.phase)
        current = int(r.current)
        trophy_phase = None
        if phase == TROPHY:
            asking = "winner" if r.asking_winner else "other"
            trophy_phase = {"winner": int(r.trophy_winner), "asking": asking}
        winner = int(r.winner)
        return {
            "game": serialize.GAME,
            "phase": PHASES[phase],
            "current_player": None if current < 0 else current,
            "discard_pile": _codes(r.discard[: r.discard_size][::-1]),
            "stages": [_stage_dict(r, s) for s in range(NUM_STAGES)],
            "prizes_won": [_suit_counts(r.won[p]) for p in (0, 1)],
            "trophies": [[SUITS[s] for s in r.trophies[p, : r.trophy_count[p]]] for p in (0, 1)],
            "trophy_cards": [_suit_counts(r.paid[p]) for p in (0, 1)],
            "pass_streak": int(r.pass_streak),
            "turn": int(r.turn),
            "exchange_selection": _codes(r.selection[: r.selection_size]),
            "revealed_cards": [_codes(_bits(int(r.revealed[p]))) for p in (0, 1)],
            "trophy_phase": trophy_phase,
            "winner": None if winner == NO_WINNER else DRAW if winner == DRAW_WINNER else winner,
            "options": dict(self.options),
            "hands": [_codes(_bits(int(r.hands[p]))) for p in (0, 1)],
            "draw_pile": _codes(r.draw[: r.draw_size][::-1]),
            "prize_deck": [SUITS[s] for s in r.deck[: r.deck_size][::-1]],
        }

    def _game_arrays(self) -> list[np.ndarray]:
        return [*super()._game_arrays(), self.table]

    def _determinise(self, games: np.ndarray, seat: int) -> None:
        _determinise(games, self.table, self._rng, seat)

    def _finish_randomly(self, where: np.ndarray, returns: np.ndarray) -> None:
        _finish_randomly(
            where, self.table, self._rng, returns, self._three_for_one, self._turn_limit
        )
        self._current[where] = -1
        self._done[where] = True
        self._truncated[where] = self.table.winner[where] == NO_WINNER

    def _load(self, g: int, loaded: State) -> None:
        # A dict is checked by State.from_dict, which also begins its mover's turn.
        if loaded.options != self.options:
            raise ValueError(
                f"the state has the options {loaded.options}; these games have {self.options}"
            )
        record = np.zeros((), dtype=GAME)
        r = _Fields(record)
        r.phase, r.current = loaded.phase, loaded.current_player
        for p in (0, 1):
            r.hands[p] = _bit_set(loaded.hands[p])
            r.hand_size[p] = len(loaded.hands[p])
            r.revealed[p] = _bit_set(loaded.revealed[p])
            r.won[p], r.paid[p] = loaded.prizes_won[p], loaded.trophy_cards[p]
            r.trophy_count[p] = len(loaded.trophies[p])
            r.trophies[p, : len(loaded.trophies[p])] = loaded.trophies[p]
        r.draw_size = _fill(r.draw, loaded.draw_pile)
        r.discard_size = _fill(r.discard, loaded.discard_pile)
        r.deck_size = _fill(r.deck, loaded.prize_deck)
        r.deck_suits = np.bincount(loaded.prize_deck, minlength=NUM_SUITS)
        r.owner = -1
        for p in (0, 1):
            r.owner[loaded.trophies[p]] = p
        for s in range(NUM_STAGES):
            r.in_play[s], r.terrain[s] = loaded.in_play[s], loaded.terrain[s]
            _fill(r.prizes[s], loaded.prizes[s])
            r.need[s] = loaded.need[s]
            r.last[s] = -1 if loaded.last_player[s] is None else loaded.last_player[s]
            for side in (0, 1):
                r.side_size[s, side] = _fill(r.sides[s, side], loaded.sides[s][side])
                r.have[s, side] = loaded.have[s][side]
                r.sums[s, side] = loaded.sums[s][side]
        r.pass_streak, r.turn = loaded.pass_streak, loaded.turn
        r.selection_size = _fill(r.selection, loaded.exchange_selection)
        r.trophy_winner = -1 if loaded.trophy_winner is None else loaded.trophy_winner
        r.asking_winner = loaded.asking_winner
        r.winner = NO_WINNER
        self.table[g] = record
        self._current[g] = loaded.current_player
        self._done[g] = self._truncated[g] = False


class _Fields:
    """A one-game record's fields as attributes, read and written in place: the syntax of
    ``np.recarray`` without its cost (a new view at every access, 0.25 ms a loaded game)."""

    __slots__ = ("_views",)

    def __init__(self, record: np.ndarray) -> None:
        object.__setattr__(self, "_views", {name: record[name] for name in GAME.names})

    def __getattr__(self, name: str) -> np.ndarray:
        return self._views[name]

    def __setattr__(self, name: str, value: Any) -> None:
        self._views[name][...] = value


def _stage_dict(r: np.record, s: int) -> dict:
    in_play = bool(r.in_play[s])
    last = int(r.last[s])
    return {
        "in_play": in_play,
        "terrain": TERRAINS[r.terrain[s]],
        "prizes": [SUITS[x] for x in r.prizes[s, : s + 1]] if in_play else [],
        "sides": [_codes(r.sides[s, side, : r.side_size[s, side]]) for side in (0, 1)],
        "last_player": None if last < 0 else last,
    }


def _codes(cards: Any) -> list[str]:
    return [CARD_CODES[c] for c in cards]


def _suit_counts(counts: np.ndarray) -> dict[str, int]:
    return {SUITS[s]: int(counts[s]) for s in range(NUM_SUITS)}


def _bits(bits: int) -> list[int]:
    """The cards of a bit set, ascending."""
    return [c for c in range(NUM_CARDS) if bits >> c & 1]


def _bit_set(cards: Any) -> int:
    return sum(1 << c for c in cards)


def _fill(pile: np.ndarray, cards: list[int]) -> int:
    """``cards`` into the start of ``pile`` (the rest 0); their number."""
    pile[:] = 0
    pile[: len(cards)] = cards
    return len(cards)


# -- kernels: a turn ------------------------------------------------------------------------------


@kernel
def _deal(where, t, rng, current, starting_player, turn_limit):
    """A new game where ``where`` is true (HL-2), from each game's own stream."""
    for g in range(where.shape[0]):
        if not where[g]:
            continue
        r = t[g]
        _clear_game(r)
        # HL-2.2 the prize deck shuffled, stages 1–4 filled from its top (HL-2.3 in _refill).
        k = np.int64(0)  # int64s, not literals, to shuffle and below: a literal compiles them again
        for suit in range(NUM_SUITS):
            for _ in range(_SUIT_SIZE[suit]):
                r.deck[k] = suit
                k += 1
            r.deck_suits[suit] = _SUIT_SIZE[suit]
        r.deck_size = k
        shuffle(rng, g, r.deck, k)
        for s in range(NUM_STAGES):
            r.in_play[s] = 1
            r.terrain[s] = _START_TERRAIN[s]  # HL-2.1
            _refill(r, s)
        # HL-2.4 the balloon cards shuffled, 8 to each player, the rest the draw pile (top last).
        for c in range(NUM_CARDS):
            r.draw[c] = c
        shuffle(rng, g, r.draw, np.int64(NUM_CARDS))
        for p in range(2):
            for k in range(HAND_SIZE * p, HAND_SIZE * (p + 1)):
                r.hands[p] |= np.int64(1) << r.draw[k]
            r.hand_size[p] = HAND_SIZE
        size = NUM_CARDS - 2 * HAND_SIZE
        for k in range(size):
            r.draw[k] = r.draw[k + 2 * HAND_SIZE]
        r.draw[size:] = 0
        r.draw_size = size
        # HL-2.5 the first player.
        first = starting_player
        if first == RANDOM_START:
            first = below(rng, g, np.int64(2))
        _start_turn(r, first, turn_limit)
        current[g] = r.current


@kernel
def _clear_game(r):
    """A game's record as an empty table."""
    r.hands[:] = 0
    r.hand_size[:] = 0
    r.revealed[:] = 0
    r.draw[:] = 0
    r.draw_size = 0
    r.discard[:] = 0
    r.discard_size = 0
    r.deck[:] = 0
    r.deck_size = 0
    r.deck_suits[:] = 0
    r.prizes[:, :] = 0
    r.need[:, :] = 0
    r.sides[:, :, :] = 0
    r.side_size[:, :] = 0
    r.have[:, :, :] = 0
    r.sums[:, :] = 0
    r.last[:] = -1
    r.won[:, :] = 0
    r.paid[:, :] = 0
    r.trophies[:, :] = 0
    r.trophy_count[:] = 0
    r.owner[:] = -1
    r.pass_streak = 0
    r.turn = 0
    r.selection[:] = 0
    r.selection_size = 0
    r.trophy_winner = -1
    r.asking_winner = 0
    r.winner = NO_WINNER


@kernel
def _refill(r, s):
    """HL-5.4 (and HL-2.2) put stage ``s``'s number of prizes out from the deck's top, or
    retire the stage when the deck cannot fill it; HL-2.3 never a fourth spade at a stage."""
    size = s + 1  # HL-1.3 stage n carries n prizes
    r.need[s, :] = 0
    r.prizes[s, :] = 0
    spades = r.deck_suits[SPADES]
    if r.deck_size - spades + min(spades, MAX_SPADES_AT_STAGE) < size:
        r.in_play[s] = 0
        return
    n = 0
    while n < size:
        r.deck_size -= 1
        suit = r.deck[r.deck_size]
        if suit == SPADES and r.need[s, SPADES] == MAX_SPADES_AT_STAGE:
            for k in range(r.deck_size, 0, -1):  # HL-2.3 a 4th spade goes under the deck
                r.deck[k] = r.deck[k - 1]
            r.deck[0] = suit
            r.deck_size += 1
            continue
        r.deck_suits[suit] -= 1
        r.prizes[s, n] = suit
        r.need[s, suit] += 1
        n += 1


@kernel
def _open_suits(r):
    """HL-3.1 the cards (as a bit set of their suits) that fit some side of a stage in play."""
    bits = np.int64(0)
    for s in range(NUM_STAGES):
        if not r.in_play[s]:
            continue
        for suit in range(NUM_SUITS):
            n = r.need[s, suit]
            if n > r.have[s, 0, suit] or n > r.have[s, 1, suit]:
                bits |= _SUIT_BITS[suit]
    return bits


@kernel
def _can_play(r, p):
    """HL-3.3 whether any card of player ``p``'s hand fits anywhere."""
    return (r.hands[p] & _open_suits(r)) != 0


@kernel
def _start_turn(r, p, turn_limit):
    """Begin player ``p``'s turn; a player with no fitting card starts a stuck turn."""
    while True:
        if r.turn >= turn_limit:  # HL-7.3 the turn limit truncates the game
            _end_game(r, np.int64(NO_WINNER))  # int64: a literal compiles _end_game again
            return
        r.phase = PLAY
        r.current = p
        if _can_play(r, p):
            return
        r.revealed[p] = r.hands[p]  # HL-3.4 stuck: the hand is shown
        if r.hands[p] != 0:
            r.phase = EXCHANGE
            r.selection_size = 0
            return
        p = _end_stuck_turn(r, p)  # HL-3.4 an empty hand has nothing to exchange


@kernel
def _end_stuck_turn(r, p):
    """A turn without a card played ends; HL-3.6 after two in a row nothing moves: every
    balloon card on the stages goes to the discard pile. Returns the next player."""
    r.turn += 1
    r.pass_streak += 1
    if r.pass_streak >= 2:
        for s in range(NUM_STAGES):
            _clear_stage(r, s)
        r.pass_streak = 0
    return 1 - p


@kernel
def _clear_stage(r, s):
    """Stage ``s``'s balloon cards to the discard pile, side 0 first (HL-3.6, HL-5.2)."""
    for side in range(2):
        for k in range(r.side_size[s, side]):
            r.discard[r.discard_size] = r.sides[s, side, k]
            r.discard_size += 1
            r.sides[s, side, k] = 0
        r.side_size[s, side] = 0
        r.have[s, side, :] = 0
        r.sums[s, side] = 0
    r.last[s] = -1


@kernel
def _draw(r, rng, g, p, n):
    """HL-3.5 ``n`` cards from the draw pile's top; an empty draw pile is refilled by the
    discard pile shuffled (from the game's stream); with both empty nothing is drawn."""
    for _ in range(n):
        if r.draw_size == 0:
            m = r.discard_size
            if m == 0:
                return
            for k in range(m):
                r.draw[k] = r.discard[k]
                r.discard[k] = 0
            shuffle(rng, g, r.draw, m)
            r.draw_size = m
            r.discard_size = 0
        r.draw_size -= 1
        card = r.draw[r.draw_size]
        r.draw[r.draw_size] = 0
        r.hands[p] |= np.int64(1) << card
        r.hand_size[p] += 1


@kernel
def _take_from_hand(r, p, card):
    """Card ``card`` leaves player ``p``'s hand; a shown card is no longer known (HL-3.4)."""
    bit = np.int64(1) << card
    r.hands[p] &= ~bit
    r.revealed[p] &= ~bit
    r.hand_size[p] -= 1


@kernel
def _play(r, rng, g, p, action, three_for_one, turn_limit):
    """HL-3.2 place a card on a side, draw one; the turn ends (HL-7.3 the counter moves); a
    completed stage flies (HL-4.1), else the opponent moves."""
    card = action >> 3
    s = (action & 7) >> 1
    side = p ^ (action & 1)  # the action's side is relative to the mover
    _take_from_hand(r, p, card)
    r.sides[s, side, r.side_size[s, side]] = card
    r.side_size[s, side] += 1
    r.have[s, side, _SUIT[card]] += 1
    r.sums[s, side] += _VALUE[card]
    r.last[s] = p
    _draw(r, rng, g, p, np.int64(1))  # int64: a literal compiles _draw again
    r.pass_streak = 0
    r.turn += 1
    if r.side_size[s, 0] + r.side_size[s, 1] == 2 * (s + 1):
        _fly(r, s, three_for_one, turn_limit)
    else:
        _start_turn(r, 1 - p, turn_limit)


@kernel
def _exchange(r, rng, g, p, three_for_one, turn_limit):
    """HL-3.4 discard the picked cards (in the order picked) and draw as many; if a card now
    fits the player must play one, else the hand is shown again and the turn ends."""
    m = r.selection_size
    for k in range(m):
        card = r.selection[k]
        _take_from_hand(r, p, card)
        r.discard[r.discard_size] = card
        r.discard_size += 1
        r.selection[k] = 0
    r.selection_size = 0
    _draw(r, rng, g, p, m)
    r.phase = PLAY
    if not _can_play(r, p):
        r.revealed[p] = r.hands[p]
        _start_turn(r, _end_stuck_turn(r, p), turn_limit)


# -- kernels: a flight and its trophies -----------------------------------------------------------


@kernel
def _stage_leader(r, s):
    """HL-4.2 over lowland the lower sum wins, over a mountain the higher; HL-4.3 a tie goes to
    the player who placed the stage's last card."""
    mine, theirs = r.sums[s, 0], r.sums[s, 1]
    if mine == theirs:
        return r.last[s]
    lower_wins = r.terrain[s] == LOWLAND
    return 0 if (mine < theirs) == lower_wins else 1


@kernel
def _fly(r, s, three_for_one, turn_limit):
    """HL-4 decide the stage, then HL-5.1–5.5 in order."""
    winner = _stage_leader(r, s)
    for k in range(s + 1):  # HL-5.1 the winner takes the prizes
        r.won[winner, r.prizes[s, k]] += 1
    _clear_stage(r, s)  # HL-5.2
    r.terrain[s] ^= 1  # HL-5.3
    _refill(r, s)  # HL-5.4
    r.trophy_winner = winner  # HL-5.5 the trophy phase
    _ask_for_claims(r, three_for_one, turn_limit)


@kernel
def _spare(r, p, three_for_one):
    """HL-6.2 how many missing cards player ``p`` can pay three for one (HL-6.3: none)."""
    spare = 0
    if three_for_one:
        for suit in range(NUM_SUITS):
            if r.owner[suit] >= 0:
                spare += r.won[p, suit] // THREE_FOR_ONE
    return spare


@kernel
def _can_claim(r, p, suit, three_for_one):
    """HL-6.1 a free trophy player ``p`` can pay for (HL-6.2 three for one included)."""
    if r.owner[suit] >= 0:
        return False
    return r.won[p, suit] + _spare(r, p, three_for_one) >= _PRICE[suit]


@kernel
def _can_claim_any(r, p, three_for_one):
    for suit in range(NUM_SUITS):  # noqa: SIM110 (numba compiles loops, not generators)
        if _can_claim(r, p, suit, three_for_one):
            return True
    return False


@kernel
def _ask_for_claims(r, three_for_one, turn_limit):
    """HL-6.4 the stage's winner decides first; a player who can claim nothing is not asked;
    if neither can, the flight ends."""
    winner = r.trophy_winner
    if _can_claim_any(r, winner, three_for_one):
        r.phase = TROPHY
        r.current = winner
        r.asking_winner = 1
    elif _can_claim_any(r, 1 - winner, three_for_one):
        r.phase = TROPHY
        r.current = 1 - winner
        r.asking_winner = 0
    else:
        _end_flight(r, turn_limit)


@kernel
def _claim(r, p, suit, three_for_one, turn_limit):
    """HL-6.1/6.2 pay for the trophy of ``suit``: its own suit first, then for each card missing
    three of the owned-trophy suit held most (ties ♥ ♦ ♣ ♠); HL-7.1 a second trophy wins."""
    own = min(r.won[p, suit], _PRICE[suit])
    r.won[p, suit] -= own
    r.paid[p, suit] += own
    for _ in range(_PRICE[suit] - own):
        source, most = -1, -1
        for s in range(NUM_SUITS):
            if r.owner[s] >= 0 and r.won[p, s] > most:
                source, most = s, r.won[p, s]
        r.won[p, source] -= THREE_FOR_ONE
        r.paid[p, source] += THREE_FOR_ONE
    r.trophies[p, r.trophy_count[p]] = suit
    r.trophy_count[p] += 1
    r.owner[suit] = p
    if r.trophy_count[p] >= TROPHIES_TO_WIN:
        _end_game(r, p)
    else:
        _ask_for_claims(r, three_for_one, turn_limit)


@kernel
def _stop_claiming(r, three_for_one, turn_limit):
    """HL-6.4 after the winner stops, the other player is asked if they can claim; when the
    other player stops, the phase ends."""
    other = 1 - r.trophy_winner
    if r.asking_winner and _can_claim_any(r, other, three_for_one):
        r.current = other
        r.asking_winner = 0
    else:
        _end_flight(r, turn_limit)


@kernel
def _end_flight(r, turn_limit):
    """HL-5.6 the stage's loser moves next; HL-7.2 with no stage left the game ends."""
    loser = 1 - r.trophy_winner
    r.trophy_winner = -1
    for s in range(NUM_STAGES):
        if r.in_play[s]:
            _start_turn(r, loser, turn_limit)
            return
    _end_game(r, _final_winner(r))


@kernel
def _final_winner(r):
    """HL-7.2 more trophies win, then more prize cards (those in trophies included), else a
    draw."""
    if r.trophy_count[0] != r.trophy_count[1]:
        return 0 if r.trophy_count[0] > r.trophy_count[1] else 1
    difference = 0
    for suit in range(NUM_SUITS):
        difference += r.won[0, suit] + r.paid[0, suit] - r.won[1, suit] - r.paid[1, suit]
    if difference != 0:
        return 0 if difference > 0 else 1
    return DRAW_WINNER


@kernel
def _end_game(r, winner):
    """The game is over: ``winner`` a seat, DRAW_WINNER, or NO_WINNER for a truncated game
    (HL-7.3); ``_apply`` hands out the rewards."""
    r.phase = OVER
    r.current = -1
    r.winner = winner
    r.trophy_winner = -1
    r.selection_size = 0


# -- kernels: the contract ------------------------------------------------------------------------


@kernel
def _apply(actions, t, rng, current, done, truncated, rewards, three_for_one, turn_limit):
    """One action in every game not over (all checked legal by ``_first_illegal``); the mover
    and the end of each game published to the base's arrays."""
    for g in range(actions.shape[0]):
        if done[g]:
            continue
        r = t[g]
        _act(r, rng, g, actions[g], three_for_one, turn_limit)
        current[g] = r.current
        if r.phase == OVER:
            done[g] = True
            truncated[g] = r.winner == NO_WINNER
            _returns(r, rewards, g)


@kernel
def _act(r, rng, g, action, three_for_one, turn_limit):
    """Play the legal ``action`` in game ``r`` (row ``g``)."""
    p = r.current
    phase = r.phase
    if phase == PLAY:
        _play(r, rng, g, p, action, three_for_one, turn_limit)
    elif phase == EXCHANGE:
        if action == EXCHANGE_DONE:
            _exchange(r, rng, g, p, three_for_one, turn_limit)
        else:  # HL-3.4 cards are picked one at a time; a fourth pick ends the choice
            r.selection[r.selection_size] = action - EXCHANGE_PICK
            r.selection_size += 1
            if r.selection_size == MAX_EXCHANGE:
                _exchange(r, rng, g, p, three_for_one, turn_limit)
    elif action == STOP_CLAIMING:
        _stop_claiming(r, three_for_one, turn_limit)
    else:
        _claim(r, p, action - CLAIM_TROPHY, three_for_one, turn_limit)


@kernel
def _returns(r, out, g):
    """HL-7.4 +1 the winner, −1 the loser; 0 each for a draw or a truncated game."""
    if r.winner == 0 or r.winner == 1:
        out[g, r.winner] = 1.0
        out[g, 1 - r.winner] = -1.0


@kernel
def _determinise(games, t, rng, seat):
    """The cards ``seat`` cannot see — the opponent's hand but for the cards it has shown
    (HL-3.4), and the draw pile — dealt again from the game's stream, and the prize deck
    shuffled: ``State.from_view``'s deal."""
    pool = np.empty(NUM_CARDS, dtype=np.int64)
    for g in games:
        r = t[g]
        opp = 1 - seat
        unknown = r.hands[opp] & ~r.revealed[opp]
        n = np.int64(0)  # not a literal 0, which would compile shuffle again
        for card in range(NUM_CARDS):
            if (unknown >> card) & 1:
                pool[n] = card
                n += 1
        hidden = n
        for k in range(r.draw_size):
            pool[n] = r.draw[k]
            n += 1
        shuffle(rng, g, pool, n)
        hand = r.revealed[opp]
        for k in range(hidden):
            hand |= np.int64(1) << pool[k]
        r.hands[opp] = hand
        for k in range(r.draw_size):
            r.draw[k] = pool[hidden + k]
        shuffle(rng, g, r.deck, r.deck_size)


@kernel
def _finish_randomly(where, t, rng, returns, three_for_one, turn_limit):
    """Uniformly random legal moves, drawn from each game's stream, until the games ``where``
    end; their returns into ``returns``."""
    for g in range(where.shape[0]):
        if not where[g]:
            continue
        r = t[g]
        while r.phase != OVER:
            uniform = below(rng, g, np.int64(_UNIFORM_STEPS)) / _UNIFORM_STEPS
            _act(r, rng, g, _sample_one(r, uniform, three_for_one), three_for_one, turn_limit)
        _returns(r, returns, g)


@kernel
def _is_legal(r, action, three_for_one):
    """Whether ``action`` is legal in the game ``r`` (not over), checked directly."""
    if action < 0 or action >= NUM_ACTIONS:
        return False
    p = r.current
    phase = r.phase
    if action < EXCHANGE_PICK:  # HL-3.1 a card of the hand that fits that side
        if phase != PLAY:
            return False
        card = action >> 3
        s = (action & 7) >> 1
        if not (r.hands[p] >> card) & 1 or not r.in_play[s]:
            return False
        suit = _SUIT[card]
        return r.need[s, suit] > r.have[s, p ^ (action & 1), suit]
    if action < EXCHANGE_DONE:  # HL-3.4 a hand card not picked yet
        if phase != EXCHANGE:
            return False
        card = action - EXCHANGE_PICK
        if not (r.hands[p] >> card) & 1:
            return False
        for k in range(r.selection_size):  # noqa: SIM110 (numba: a loop)
            if r.selection[k] == card:
                return False
        return True
    if action == EXCHANGE_DONE:
        return phase == EXCHANGE and r.selection_size > 0
    if phase != TROPHY:  # HL-6.4
        return False
    if action == STOP_CLAIMING:
        return True
    return _can_claim(r, p, action - CLAIM_TROPHY, three_for_one)


@kernel
def _first_illegal(actions, t, done, three_for_one):
    """The first game (not over) whose action is illegal, or −1."""
    for g in range(actions.shape[0]):
        if not done[g] and not _is_legal(t[g], actions[g], three_for_one):
            return g
    return -1


@kernel
def _legal(mask, t, done, three_for_one):
    """The mover's legal actions in every game not over (the action ids of docs/rules.md)."""
    for g in range(mask.shape[0]):
        if done[g]:
            continue
        r = t[g]
        p = r.current
        phase = r.phase
        hand = r.hands[p]
        if phase == PLAY:  # HL-3.1/3.3 every fitting card on every side it fits
            for s in range(NUM_STAGES):
                if not r.in_play[s]:
                    continue
                for side in range(2):
                    absolute = p ^ side
                    for suit in range(NUM_SUITS):
                        if r.need[s, suit] <= r.have[s, absolute, suit]:
                            continue
                        fitting = hand & _SUIT_BITS[suit]
                        while fitting != 0:
                            low = fitting & -fitting
                            card = _bit_index(low)
                            mask[g, 8 * card + 2 * s + side] = True
                            fitting ^= low
        elif phase == EXCHANGE:  # HL-3.4 pick a card not picked yet; done after one pick
            for card in range(NUM_CARDS):
                if (hand >> card) & 1:
                    mask[g, EXCHANGE_PICK + card] = True
            for k in range(r.selection_size):
                mask[g, EXCHANGE_PICK + r.selection[k]] = False
            if r.selection_size > 0:
                mask[g, EXCHANGE_DONE] = True
        elif phase == TROPHY:  # HL-6.4 claim what one can pay for, or stop
            for suit in range(NUM_SUITS):
                if _can_claim(r, p, suit, three_for_one):
                    mask[g, CLAIM_TROPHY + suit] = True
            mask[g, STOP_CLAIMING] = True


@kernel
def _slots(r, p):
    """HL-3.1 where each suit fits: bit ``8 * suit + 2 * stage + side`` (side relative to
    ``p``), so ``_slots(r, p) >> 8 * suit & 255`` are the slots of an action id."""
    slots = np.int64(0)
    for s in range(NUM_STAGES):
        if not r.in_play[s]:
            continue
        for side in range(2):
            for suit in range(NUM_SUITS):
                if r.need[s, suit] > r.have[s, p ^ side, suit]:
                    slots |= np.int64(1) << (8 * suit + 2 * s + side)
    return slots


@kernel
def _sample(t, done, uniform, out, three_for_one):
    """``out[g]``: the ``floor(uniform[g] * count)``-th of game ``g``'s legal actions in id
    order (``ArrayGames.sample_legal``), counted without a mask."""
    for g in range(t.shape[0]):
        if not done[g]:
            out[g] = _sample_one(t[g], uniform[g], three_for_one)


@kernel
def _sample_one(r, uniform, three_for_one):
    """The ``floor(uniform * count)``-th of game ``r``'s legal actions in id order."""
    action = 0
    p = r.current
    hand = r.hands[p]
    if r.phase == PLAY:  # ids 8 * card + slot: cards ascending, then slots
        slots = _slots(r, p)
        count = 0
        for suit in range(NUM_SUITS):
            free = (slots >> (8 * suit)) & 255
            count += bit_count(hand & _SUIT_BITS[suit]) * bit_count(free)
        pick = int(uniform * count)
        for card in range(NUM_CARDS):
            if not (hand >> card) & 1:
                continue
            free = (slots >> (8 * _SUIT[card])) & 255
            n = bit_count(free)
            if pick >= n:
                pick -= n
                continue
            for slot in range(8):
                if (free >> slot) & 1:
                    if pick == 0:
                        action = 8 * card + slot
                        break
                    pick -= 1
            break
    elif r.phase == EXCHANGE:  # picks ascending, then "done"
        left = hand
        for k in range(r.selection_size):
            left &= ~(np.int64(1) << r.selection[k])
        count = bit_count(left) + (1 if r.selection_size > 0 else 0)
        pick = int(uniform * count)
        action = EXCHANGE_DONE
        for card in range(NUM_CARDS):
            if (left >> card) & 1:
                if pick == 0:
                    action = EXCHANGE_PICK + card
                    break
                pick -= 1
    else:  # TROPHY: claims ascending, then "stop"
        count = 1
        for suit in range(NUM_SUITS):
            if _can_claim(r, p, suit, three_for_one):
                count += 1
        pick = int(uniform * count)
        action = STOP_CLAIMING
        for suit in range(NUM_SUITS):
            if _can_claim(r, p, suit, three_for_one):
                if pick == 0:
                    action = CLAIM_TROPHY + suit
                    break
                pick -= 1
    return action


@kernel
def _bit_index(bit):
    """The index of the single set bit of ``bit`` (a power of two below 2⁴⁰)."""
    index = 0
    if bit >= np.int64(1) << 32:
        bit >>= 32
        index += 32
    if bit >= 1 << 16:
        bit >>= 16
        index += 16
    if bit >= 1 << 8:
        bit >>= 8
        index += 8
    if bit >= 1 << 4:
        bit >>= 4
        index += 4
    if bit >= 1 << 2:
        bit >>= 2
        index += 2
    if bit >= 1 << 1:
        index += 1
    return index


@kernel
def _observe(seats, rows, out, t, three_for_one, turn_limit):
    """HL-8 what seat ``seats[g]`` may know of game ``g = rows[i]``, in ``out[i]`` in ``LAYOUT``
    (hot_envs.heisse_luft.encoding): the observer's pieces first, the same floats as
    ``encode``."""
    for i in range(rows.shape[0]):
        g = rows[i]
        me = seats[g]
        if me < 0:
            continue
        opp = 1 - me
        r = t[g]
        row = out[i]
        mine, known, seen = r.hands[me], r.revealed[me], r.revealed[opp]
        for card in range(NUM_CARDS):
            if (mine >> card) & 1:
                row[_HAND + card] = 1.0
            if (known >> card) & 1:
                row[_MY_REVEALED + card] = 1.0
            if (seen >> card) & 1:
                row[_OPPONENT_KNOWN + card] = 1.0
        row[_OPPONENT_HAND_SIZE] = r.hand_size[opp] / HAND_SIZE
        for k in range(r.selection_size):
            row[_EXCHANGE_SELECTION + r.selection[k]] = 1.0
        for k in range(r.discard_size):
            row[_DISCARD_PILE + r.discard[k]] = 1.0
        for s in range(NUM_STAGES):
            if r.in_play[s]:
                _observe_stage(r, s, me, row)
        for p in range(2):
            relative = p ^ me
            for suit in range(NUM_SUITS):
                at = 4 * relative + suit
                row[_PRIZES_WON + at] = r.won[p, suit] / _SUIT_SIZE[suit]
                row[_TROPHY_CARDS + at] = r.paid[p, suit] / _SUIT_SIZE[suit]
            for k in range(r.trophy_count[p]):
                row[_TROPHIES + 4 * relative + r.trophies[p, k]] = 1.0
                row[_AWARDED + r.trophies[p, k]] = 1.0
        for suit in range(NUM_SUITS):
            row[_PRIZE_DECK_COUNTS + suit] = r.deck_suits[suit] / _SUIT_SIZE[suit]
        row[_PRIZE_DECK_SIZE] = r.deck_size / _PRIZE_DECK_SCALE
        row[_DRAW_PILE_SIZE] = r.draw_size / NUM_CARDS
        row[_PASS_STREAK] = r.pass_streak
        phase = r.phase
        if phase != OVER:
            row[_PHASE + phase] = 1.0
        if phase == TROPHY:
            row[_TROPHY_ROLE + (1 if r.trophy_winner != me else 0)] = 1.0
        if r.current == me:
            row[_TO_MOVE] = 1.0
        if three_for_one:
            row[_THREE_FOR_ONE] = 1.0
        row[_TURN_PROGRESS] = min(r.turn / turn_limit, 1.0)


@kernel
def _observe_stage(r, s, me, row):
    """A stage in play seen from seat ``me`` (own side first): terrain, prizes, what each side
    still misses, its cards and sum, who placed the last card and who leads now."""
    opp = 1 - me
    row[_STAGE_IN_PLAY + s] = 1.0
    if r.terrain[s]:
        row[_STAGE_MOUNTAIN + s] = 1.0
    for suit in range(NUM_SUITS):
        need = r.need[s, suit]
        if need == 0:
            continue
        row[_STAGE_PRIZES + 4 * s + suit] = need / 4
        for relative in range(2):
            have = r.have[s, me ^ relative, suit]
            if need > have:
                row[_STAGE_MISSING + 8 * s + 4 * relative + suit] = (need - have) / 4
    for relative in range(2):
        side = me ^ relative
        size = r.side_size[s, side]
        for k in range(size):
            row[_STAGE_CARDS + NUM_CARDS * (2 * s + relative) + r.sides[s, side, k]] = 1.0
        if size > 0:
            row[_STAGE_SUMS + 2 * s + relative] = r.sums[s, side] / MAX_SIDE_SUM
    last = r.last[s]
    if last >= 0:
        row[_STAGE_LAST + 2 * s + (1 if last == opp else 0)] = 1.0
        leader = _stage_leader(r, s)
        row[_STAGE_LEADING + 2 * s + (1 if leader == opp else 0)] = 1.0

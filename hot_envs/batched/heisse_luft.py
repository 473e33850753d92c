"""Heiße Luft in arrays: :class:`ArrayHeisseLuft`, many games at once.

One row per game, rules in compiled kernels (HL-1 … HL-8 in docs/rules.md, each id named where
its rule is written); :class:`hot_envs.heisse_luft.State` is the rule book they are tested
against, action for action (``tests/batched``). The kernels follow the engine's order of
operations exactly — which card goes where in which pile, when the turn counter moves — so that
``state_dict(i)`` is the engine's ``to_dict()`` of the same game.

The arrays of game ``g`` (a table, :class:`Tables`; all int64, so the same arithmetic compiled
and as plain Python):

* ``hands[g, p]``, ``revealed[g, p]``: seat ``p``'s hand and the part of it the opponent has
  seen (HL-3.4) as bit sets, bit ``c`` for card ``c``; ``hand_size[g, p]``.
* ``draw[g, :draw_size[g]]``, ``discard[g, :discard_size[g]]``, ``deck[g, :deck_size[g]]``
  (the prize deck; ``deck_suits`` its cards by suit): piles bottom first, top card last, as the
  engine keeps them (the state dict lists them top first).
* ``in_play``, ``terrain`` per stage; ``prizes[g, s, :s + 1]`` the prize suits of stage ``s``
  while it is in play and ``need[g, s, suit]`` their counts; ``sides[g, s, side,
  :side_size[g, s, side]]`` the cards on a side in placement order, ``have`` their counts by
  suit, ``sums`` their values; ``last[g, s]`` the seat that placed the stage's last card, −1
  for none.
* ``won``, ``paid`` (prize cards held, and paid into trophies) by seat and suit;
  ``trophies[g, p, :trophy_count[g, p]]`` in the order claimed, ``owner[g, suit]`` (−1: free).
* ``phase``, ``pass_streak``, ``turn``; ``selection[g, :selection_size[g]]`` the exchange's
  picks in order; ``trophy_winner`` (−1 outside a trophy phase) and ``asking_winner``;
  ``winner`` (:data:`NO_WINNER`, a seat or :data:`DRAW_WINNER`); and the base's ``_current``,
  ``_done``, ``_truncated``, ``_rewards`` and ``_rng``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from hot_envs.batched.base import ArrayGames
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


class Tables(NamedTuple):
    """Every game's arrays (module docstring), handed to the kernels as one argument."""

    rng: np.ndarray
    current: np.ndarray
    done: np.ndarray
    truncated: np.ndarray
    rewards: np.ndarray
    phase: np.ndarray
    hands: np.ndarray
    hand_size: np.ndarray
    revealed: np.ndarray
    draw: np.ndarray
    draw_size: np.ndarray
    discard: np.ndarray
    discard_size: np.ndarray
    deck: np.ndarray
    deck_size: np.ndarray
    deck_suits: np.ndarray
    in_play: np.ndarray
    terrain: np.ndarray
    prizes: np.ndarray
    need: np.ndarray
    sides: np.ndarray
    side_size: np.ndarray
    have: np.ndarray
    sums: np.ndarray
    last: np.ndarray
    won: np.ndarray
    paid: np.ndarray
    trophies: np.ndarray
    trophy_count: np.ndarray
    owner: np.ndarray
    pass_streak: np.ndarray
    turn: np.ndarray
    selection: np.ndarray
    selection_size: np.ndarray
    trophy_winner: np.ndarray
    asking_winner: np.ndarray
    winner: np.ndarray


def _tables(games: ArrayGames) -> Tables:
    b, s, n = games.num_games, NUM_STAGES, NUM_CARDS

    def zeros(*shape: int) -> np.ndarray:
        return np.zeros((b, *shape), dtype=np.int64)

    return Tables(
        rng=games._rng,
        current=games._current,
        done=games._done,
        truncated=games._truncated,
        rewards=games._rewards,
        phase=np.full(b, OVER, dtype=np.int64),
        hands=zeros(2),
        hand_size=zeros(2),
        revealed=zeros(2),
        draw=zeros(n),
        draw_size=zeros(),
        discard=zeros(n),
        discard_size=zeros(),
        deck=zeros(n),
        deck_size=zeros(),
        deck_suits=zeros(NUM_SUITS),
        in_play=zeros(s),
        terrain=zeros(s),
        prizes=zeros(s, MAX_SIDE),
        need=zeros(s, NUM_SUITS),
        sides=zeros(s, 2, MAX_SIDE),
        side_size=zeros(s, 2),
        have=zeros(s, 2, NUM_SUITS),
        sums=zeros(s, 2),
        last=zeros(s),
        won=zeros(2, NUM_SUITS),
        paid=zeros(2, NUM_SUITS),
        trophies=zeros(2, NUM_SUITS),
        trophy_count=zeros(2),
        owner=zeros(NUM_SUITS),
        pass_streak=zeros(),
        turn=zeros(),
        selection=zeros(MAX_EXCHANGE),
        selection_size=zeros(),
        trophy_winner=np.full(b, -1, dtype=np.int64),
        asking_winner=zeros(),
        winner=np.full(b, NO_WINNER, dtype=np.int64),
    )


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
        self.tables = _tables(self)

    # -- the kernels' calls ---------------------------------------------------------------------

    def _deal(self, where: np.ndarray) -> None:
        _deal(where, self.tables, self._starting_player, self._three_for_one, self._turn_limit)

    def _first_illegal(self, actions: np.ndarray) -> int:
        return _first_illegal(actions, self.tables, self._three_for_one)

    def _apply(self, actions: np.ndarray) -> None:
        _apply(actions, self.tables, self._three_for_one, self._turn_limit)

    def _legal(self, mask: np.ndarray) -> None:
        _legal(mask, self.tables, self._three_for_one)

    def _observe(self, seats: np.ndarray, out: np.ndarray) -> None:
        _observe(seats, out, self.tables, self._three_for_one, self._turn_limit)

    # -- one game as the per-game engine's dict -----------------------------------------------

    def state_dict(self, game: int) -> dict:
        g, t = self._game_index(game), self.tables
        phase = int(t.phase[g])
        current = int(t.current[g])
        trophy_phase = None
        if phase == TROPHY:
            asking = "winner" if t.asking_winner[g] else "other"
            trophy_phase = {"winner": int(t.trophy_winner[g]), "asking": asking}
        winner = int(t.winner[g])
        return {
            "game": serialize.GAME,
            "phase": PHASES[phase],
            "current_player": None if current < 0 else current,
            "discard_pile": _codes(t.discard[g, : t.discard_size[g]][::-1]),
            "stages": [self._stage_dict(g, s) for s in range(NUM_STAGES)],
            "prizes_won": [_suit_counts(t.won[g, p]) for p in (0, 1)],
            "trophies": [
                [SUITS[s] for s in t.trophies[g, p, : t.trophy_count[g, p]]] for p in (0, 1)
            ],
            "trophy_cards": [_suit_counts(t.paid[g, p]) for p in (0, 1)],
            "pass_streak": int(t.pass_streak[g]),
            "turn": int(t.turn[g]),
            "exchange_selection": _codes(t.selection[g, : t.selection_size[g]]),
            "revealed_cards": [_codes(_bits(int(t.revealed[g, p]))) for p in (0, 1)],
            "trophy_phase": trophy_phase,
            "winner": None if winner == NO_WINNER else DRAW if winner == DRAW_WINNER else winner,
            "options": dict(self.options),
            "hands": [_codes(_bits(int(t.hands[g, p]))) for p in (0, 1)],
            "draw_pile": _codes(t.draw[g, : t.draw_size[g]][::-1]),
            "prize_deck": [SUITS[s] for s in t.deck[g, : t.deck_size[g]][::-1]],
        }

    def _stage_dict(self, g: int, s: int) -> dict:
        t = self.tables
        in_play = bool(t.in_play[g, s])
        last = int(t.last[g, s])
        return {
            "in_play": in_play,
            "terrain": TERRAINS[t.terrain[g, s]],
            "prizes": [SUITS[x] for x in t.prizes[g, s, : s + 1]] if in_play else [],
            "sides": [_codes(t.sides[g, s, side, : t.side_size[g, s, side]]) for side in (0, 1)],
            "last_player": None if last < 0 else last,
        }

    def load(self, game: int, state: dict) -> None:
        g, t = self._game_index(game), self.tables
        loaded = State.from_dict(state)  # checks the position and begins its mover's turn
        if loaded.options != self.options:
            raise ValueError(
                f"the state has the options {loaded.options}; these games have {self.options}"
            )
        if loaded.is_terminal():
            raise ValueError("the state is a finished game; load a game in progress")
        t.phase[g] = loaded.phase
        t.current[g] = loaded.current_player
        for p in (0, 1):
            t.hands[g, p] = _bit_set(loaded.hands[p])
            t.hand_size[g, p] = len(loaded.hands[p])
            t.revealed[g, p] = _bit_set(loaded.revealed[p])
            t.won[g, p] = loaded.prizes_won[p]
            t.paid[g, p] = loaded.trophy_cards[p]
            t.trophy_count[g, p] = len(loaded.trophies[p])
            t.trophies[g, p, : len(loaded.trophies[p])] = loaded.trophies[p]
        _fill(t.draw, t.draw_size, g, loaded.draw_pile)
        _fill(t.discard, t.discard_size, g, loaded.discard_pile)
        _fill(t.deck, t.deck_size, g, loaded.prize_deck)
        t.deck_suits[g] = np.bincount(loaded.prize_deck, minlength=NUM_SUITS)
        t.owner[g] = -1
        for p in (0, 1):
            for suit in loaded.trophies[p]:
                t.owner[g, suit] = p
        for s in range(NUM_STAGES):
            t.in_play[g, s] = loaded.in_play[s]
            t.terrain[g, s] = loaded.terrain[s]
            t.prizes[g, s] = 0
            t.prizes[g, s, : len(loaded.prizes[s])] = loaded.prizes[s]
            t.need[g, s] = loaded.need[s]
            t.last[g, s] = -1 if loaded.last_player[s] is None else loaded.last_player[s]
            for side in (0, 1):
                cards = loaded.sides[s][side]
                t.side_size[g, s, side] = len(cards)
                t.sides[g, s, side] = 0
                t.sides[g, s, side, : len(cards)] = cards
                t.have[g, s, side] = loaded.have[s][side]
                t.sums[g, s, side] = loaded.sums[s][side]
        t.pass_streak[g] = loaded.pass_streak
        t.turn[g] = loaded.turn
        _fill(t.selection, t.selection_size, g, loaded.exchange_selection)
        t.trophy_winner[g] = -1 if loaded.trophy_winner is None else loaded.trophy_winner
        t.asking_winner[g] = loaded.asking_winner
        t.winner[g] = NO_WINNER
        t.done[g] = t.truncated[g] = False


def _codes(cards: Any) -> list[str]:
    return [CARD_CODES[c] for c in cards]


def _suit_counts(counts: np.ndarray) -> dict[str, int]:
    return {SUITS[s]: int(counts[s]) for s in range(NUM_SUITS)}


def _bits(bits: int) -> list[int]:
    """The cards of a bit set, ascending."""
    return [c for c in range(NUM_CARDS) if bits >> c & 1]


def _bit_set(cards: Any) -> int:
    return sum(1 << c for c in cards)


def _fill(pile: np.ndarray, size: np.ndarray, g: int, cards: list[int]) -> None:
    pile[g] = 0
    pile[g, : len(cards)] = cards
    size[g] = len(cards)


# -- kernels: a turn ------------------------------------------------------------------------------


@kernel
def _deal(where, t, starting_player, three_for_one, turn_limit):
    """A new game where ``where`` is true (HL-2), from each game's own stream."""
    for g in range(where.shape[0]):
        if not where[g]:
            continue
        _clear_game(t, g)
        # HL-2.2 the prize deck shuffled, stages 1–4 filled from its top (HL-2.3 in _refill).
        k = 0
        for suit in range(NUM_SUITS):
            for _ in range(_SUIT_SIZE[suit]):
                t.deck[g, k] = suit
                k += 1
            t.deck_suits[g, suit] = _SUIT_SIZE[suit]
        t.deck_size[g] = k
        shuffle(t.rng, g, t.deck[g], k)
        for s in range(NUM_STAGES):
            t.in_play[g, s] = 1
            t.terrain[g, s] = _START_TERRAIN[s]  # HL-2.1
            _refill(t, g, s)
        # HL-2.4 the balloon cards shuffled, 8 to each player, the rest the draw pile (top last).
        for c in range(NUM_CARDS):
            t.draw[g, c] = c
        shuffle(t.rng, g, t.draw[g], NUM_CARDS)
        for p in range(2):
            for k in range(HAND_SIZE * p, HAND_SIZE * (p + 1)):
                t.hands[g, p] |= np.int64(1) << t.draw[g, k]
            t.hand_size[g, p] = HAND_SIZE
        size = NUM_CARDS - 2 * HAND_SIZE
        for k in range(size):
            t.draw[g, k] = t.draw[g, k + 2 * HAND_SIZE]
        t.draw[g, size:] = 0
        t.draw_size[g] = size
        # HL-2.5 the first player.
        first = starting_player
        if first == RANDOM_START:
            first = below(t.rng, g, 2)
        _start_turn(t, g, first, turn_limit)


@kernel
def _clear_game(t, g):
    """Game ``g``'s arrays as an empty table."""
    t.hands[g, :] = 0
    t.hand_size[g, :] = 0
    t.revealed[g, :] = 0
    t.draw[g, :] = 0
    t.draw_size[g] = 0
    t.discard[g, :] = 0
    t.discard_size[g] = 0
    t.deck[g, :] = 0
    t.deck_size[g] = 0
    t.deck_suits[g, :] = 0
    t.prizes[g, :, :] = 0
    t.need[g, :, :] = 0
    t.sides[g, :, :, :] = 0
    t.side_size[g, :, :] = 0
    t.have[g, :, :, :] = 0
    t.sums[g, :, :] = 0
    t.last[g, :] = -1
    t.won[g, :, :] = 0
    t.paid[g, :, :] = 0
    t.trophies[g, :, :] = 0
    t.trophy_count[g, :] = 0
    t.owner[g, :] = -1
    t.pass_streak[g] = 0
    t.turn[g] = 0
    t.selection[g, :] = 0
    t.selection_size[g] = 0
    t.trophy_winner[g] = -1
    t.asking_winner[g] = 0
    t.winner[g] = NO_WINNER


@kernel
def _refill(t, g, s):
    """HL-5.4 (and HL-2.2) put stage ``s``'s number of prizes out from the deck's top, or
    retire the stage when the deck cannot fill it; HL-2.3 never a fourth spade at a stage."""
    size = s + 1  # HL-1.3 stage n carries n prizes
    t.need[g, s, :] = 0
    t.prizes[g, s, :] = 0
    spades = t.deck_suits[g, SPADES]
    if t.deck_size[g] - spades + min(spades, MAX_SPADES_AT_STAGE) < size:
        t.in_play[g, s] = 0
        return
    n = 0
    while n < size:
        t.deck_size[g] -= 1
        suit = t.deck[g, t.deck_size[g]]
        if suit == SPADES and t.need[g, s, SPADES] == MAX_SPADES_AT_STAGE:
            for k in range(t.deck_size[g], 0, -1):  # HL-2.3 a 4th spade goes under the deck
                t.deck[g, k] = t.deck[g, k - 1]
            t.deck[g, 0] = suit
            t.deck_size[g] += 1
            continue
        t.deck_suits[g, suit] -= 1
        t.prizes[g, s, n] = suit
        t.need[g, s, suit] += 1
        n += 1


@kernel
def _open_suits(t, g):
    """HL-3.1 the cards (as a bit set of their suits) that fit some side of a stage in play."""
    bits = np.int64(0)
    for s in range(NUM_STAGES):
        if not t.in_play[g, s]:
            continue
        for suit in range(NUM_SUITS):
            n = t.need[g, s, suit]
            if n > t.have[g, s, 0, suit] or n > t.have[g, s, 1, suit]:
                bits |= _SUIT_BITS[suit]
    return bits


@kernel
def _can_play(t, g, p):
    """HL-3.3 whether any card of player ``p``'s hand fits anywhere."""
    return (t.hands[g, p] & _open_suits(t, g)) != 0


@kernel
def _start_turn(t, g, p, turn_limit):
    """Begin player ``p``'s turn; a player with no fitting card starts a stuck turn."""
    while True:
        if t.turn[g] >= turn_limit:  # HL-7.3 the turn limit truncates the game
            _end_game(t, g, NO_WINNER)
            return
        t.phase[g] = PLAY
        t.current[g] = p
        if _can_play(t, g, p):
            return
        t.revealed[g, p] = t.hands[g, p]  # HL-3.4 stuck: the hand is shown
        if t.hands[g, p] != 0:
            t.phase[g] = EXCHANGE
            t.selection_size[g] = 0
            return
        p = _end_stuck_turn(t, g, p)  # HL-3.4 an empty hand has nothing to exchange


@kernel
def _end_stuck_turn(t, g, p):
    """A turn without a card played ends; HL-3.6 after two in a row nothing moves: every
    balloon card on the stages goes to the discard pile. Returns the next player."""
    t.turn[g] += 1
    t.pass_streak[g] += 1
    if t.pass_streak[g] >= 2:
        for s in range(NUM_STAGES):
            _clear_stage(t, g, s)
        t.pass_streak[g] = 0
    return 1 - p


@kernel
def _clear_stage(t, g, s):
    """Stage ``s``'s balloon cards to the discard pile, side 0 first (HL-3.6, HL-5.2)."""
    for side in range(2):
        for k in range(t.side_size[g, s, side]):
            t.discard[g, t.discard_size[g]] = t.sides[g, s, side, k]
            t.discard_size[g] += 1
            t.sides[g, s, side, k] = 0
        t.side_size[g, s, side] = 0
        t.have[g, s, side, :] = 0
        t.sums[g, s, side] = 0
    t.last[g, s] = -1


@kernel
def _draw(t, g, p, n):
    """HL-3.5 ``n`` cards from the draw pile's top; an empty draw pile is refilled by the
    discard pile shuffled (from the game's stream); with both empty nothing is drawn."""
    for _ in range(n):
        if t.draw_size[g] == 0:
            m = t.discard_size[g]
            if m == 0:
                return
            for k in range(m):
                t.draw[g, k] = t.discard[g, k]
                t.discard[g, k] = 0
            shuffle(t.rng, g, t.draw[g], m)
            t.draw_size[g] = m
            t.discard_size[g] = 0
        t.draw_size[g] -= 1
        card = t.draw[g, t.draw_size[g]]
        t.draw[g, t.draw_size[g]] = 0
        t.hands[g, p] |= np.int64(1) << card
        t.hand_size[g, p] += 1


@kernel
def _take_from_hand(t, g, p, card):
    """Card ``card`` leaves player ``p``'s hand; a shown card is no longer known (HL-3.4)."""
    bit = np.int64(1) << card
    t.hands[g, p] &= ~bit
    t.revealed[g, p] &= ~bit
    t.hand_size[g, p] -= 1


@kernel
def _play(t, g, p, action, three_for_one, turn_limit):
    """HL-3.2 place a card on a side, draw one; the turn ends (HL-7.3 the counter moves); a
    completed stage flies (HL-4.1), else the opponent moves."""
    card = action >> 3
    s = (action & 7) >> 1
    side = p ^ (action & 1)  # the action's side is relative to the mover
    _take_from_hand(t, g, p, card)
    t.sides[g, s, side, t.side_size[g, s, side]] = card
    t.side_size[g, s, side] += 1
    t.have[g, s, side, _SUIT[card]] += 1
    t.sums[g, s, side] += _VALUE[card]
    t.last[g, s] = p
    _draw(t, g, p, 1)
    t.pass_streak[g] = 0
    t.turn[g] += 1
    if t.side_size[g, s, 0] + t.side_size[g, s, 1] == 2 * (s + 1):
        _fly(t, g, s, three_for_one, turn_limit)
    else:
        _start_turn(t, g, 1 - p, turn_limit)


@kernel
def _exchange(t, g, p, three_for_one, turn_limit):
    """HL-3.4 discard the picked cards (in the order picked) and draw as many; if a card now
    fits the player must play one, else the hand is shown again and the turn ends."""
    m = t.selection_size[g]
    for k in range(m):
        card = t.selection[g, k]
        _take_from_hand(t, g, p, card)
        t.discard[g, t.discard_size[g]] = card
        t.discard_size[g] += 1
        t.selection[g, k] = 0
    t.selection_size[g] = 0
    _draw(t, g, p, m)
    t.phase[g] = PLAY
    if not _can_play(t, g, p):
        t.revealed[g, p] = t.hands[g, p]
        _start_turn(t, g, _end_stuck_turn(t, g, p), turn_limit)


# -- kernels: a flight and its trophies -----------------------------------------------------------


@kernel
def _stage_leader(t, g, s):
    """HL-4.2 over lowland the lower sum wins, over a mountain the higher; HL-4.3 a tie goes to
    the player who placed the stage's last card."""
    mine, theirs = t.sums[g, s, 0], t.sums[g, s, 1]
    if mine == theirs:
        return t.last[g, s]
    lower_wins = t.terrain[g, s] == LOWLAND
    return 0 if (mine < theirs) == lower_wins else 1


@kernel
def _fly(t, g, s, three_for_one, turn_limit):
    """HL-4 decide the stage, then HL-5.1–5.5 in order."""
    winner = _stage_leader(t, g, s)
    for k in range(s + 1):  # HL-5.1 the winner takes the prizes
        t.won[g, winner, t.prizes[g, s, k]] += 1
    _clear_stage(t, g, s)  # HL-5.2
    t.terrain[g, s] ^= 1  # HL-5.3
    _refill(t, g, s)  # HL-5.4
    t.trophy_winner[g] = winner  # HL-5.5 the trophy phase
    _ask_for_claims(t, g, three_for_one, turn_limit)


@kernel
def _spare(t, g, p, three_for_one):
    """HL-6.2 how many missing cards player ``p`` can pay three for one (HL-6.3: none)."""
    spare = 0
    if three_for_one:
        for suit in range(NUM_SUITS):
            if t.owner[g, suit] >= 0:
                spare += t.won[g, p, suit] // THREE_FOR_ONE
    return spare


@kernel
def _can_claim(t, g, p, suit, three_for_one):
    """HL-6.1 a free trophy player ``p`` can pay for (HL-6.2 three for one included)."""
    if t.owner[g, suit] >= 0:
        return False
    return t.won[g, p, suit] + _spare(t, g, p, three_for_one) >= _PRICE[suit]


@kernel
def _can_claim_any(t, g, p, three_for_one):
    for suit in range(NUM_SUITS):  # noqa: SIM110 (numba compiles loops, not generators)
        if _can_claim(t, g, p, suit, three_for_one):
            return True
    return False


@kernel
def _ask_for_claims(t, g, three_for_one, turn_limit):
    """HL-6.4 the stage's winner decides first; a player who can claim nothing is not asked;
    if neither can, the flight ends."""
    winner = t.trophy_winner[g]
    if _can_claim_any(t, g, winner, three_for_one):
        t.phase[g] = TROPHY
        t.current[g] = winner
        t.asking_winner[g] = 1
    elif _can_claim_any(t, g, 1 - winner, three_for_one):
        t.phase[g] = TROPHY
        t.current[g] = 1 - winner
        t.asking_winner[g] = 0
    else:
        _end_flight(t, g, turn_limit)


@kernel
def _claim(t, g, p, suit, three_for_one, turn_limit):
    """HL-6.1/6.2 pay for the trophy of ``suit``: its own suit first, then for each card missing
    three of the owned-trophy suit held most (ties ♥ ♦ ♣ ♠); HL-7.1 a second trophy wins."""
    own = min(t.won[g, p, suit], _PRICE[suit])
    t.won[g, p, suit] -= own
    t.paid[g, p, suit] += own
    for _ in range(_PRICE[suit] - own):
        source, most = -1, -1
        for s in range(NUM_SUITS):
            if t.owner[g, s] >= 0 and t.won[g, p, s] > most:
                source, most = s, t.won[g, p, s]
        t.won[g, p, source] -= THREE_FOR_ONE
        t.paid[g, p, source] += THREE_FOR_ONE
    t.trophies[g, p, t.trophy_count[g, p]] = suit
    t.trophy_count[g, p] += 1
    t.owner[g, suit] = p
    if t.trophy_count[g, p] >= TROPHIES_TO_WIN:
        _end_game(t, g, p)
    else:
        _ask_for_claims(t, g, three_for_one, turn_limit)


@kernel
def _stop_claiming(t, g, three_for_one, turn_limit):
    """HL-6.4 after the winner stops, the other player is asked if they can claim; when the
    other player stops, the phase ends."""
    other = 1 - t.trophy_winner[g]
    if t.asking_winner[g] and _can_claim_any(t, g, other, three_for_one):
        t.current[g] = other
        t.asking_winner[g] = 0
    else:
        _end_flight(t, g, turn_limit)


@kernel
def _end_flight(t, g, turn_limit):
    """HL-5.6 the stage's loser moves next; HL-7.2 with no stage left the game ends."""
    loser = 1 - t.trophy_winner[g]
    t.trophy_winner[g] = -1
    for s in range(NUM_STAGES):
        if t.in_play[g, s]:
            _start_turn(t, g, loser, turn_limit)
            return
    _end_game(t, g, _final_winner(t, g))


@kernel
def _final_winner(t, g):
    """HL-7.2 more trophies win, then more prize cards (those in trophies included), else a
    draw."""
    if t.trophy_count[g, 0] != t.trophy_count[g, 1]:
        return 0 if t.trophy_count[g, 0] > t.trophy_count[g, 1] else 1
    difference = 0
    for suit in range(NUM_SUITS):
        difference += (
            t.won[g, 0, suit] + t.paid[g, 0, suit] - t.won[g, 1, suit] - t.paid[g, 1, suit]
        )
    if difference != 0:
        return 0 if difference > 0 else 1
    return DRAW_WINNER


@kernel
def _end_game(t, g, winner):
    """The game is over; HL-7.4 +1 to the winner, −1 to the loser, 0 each for a draw or a
    truncated game (``winner`` NO_WINNER, HL-7.3)."""
    t.phase[g] = OVER
    t.current[g] = -1
    t.winner[g] = winner
    t.trophy_winner[g] = -1
    t.selection_size[g] = 0
    t.done[g] = True
    t.truncated[g] = winner == NO_WINNER
    if winner == 0 or winner == 1:
        t.rewards[g, winner] = 1.0
        t.rewards[g, 1 - winner] = -1.0


# -- kernels: the contract ------------------------------------------------------------------------


@kernel
def _apply(actions, t, three_for_one, turn_limit):
    """One action in every game not over (all checked legal by ``_first_illegal``)."""
    for g in range(actions.shape[0]):
        if t.done[g]:
            continue
        action = actions[g]
        p = t.current[g]
        phase = t.phase[g]
        if phase == PLAY:
            _play(t, g, p, action, three_for_one, turn_limit)
        elif phase == EXCHANGE:
            if action == EXCHANGE_DONE:
                _exchange(t, g, p, three_for_one, turn_limit)
            else:  # HL-3.4 cards are picked one at a time; a fourth pick ends the choice
                t.selection[g, t.selection_size[g]] = action - EXCHANGE_PICK
                t.selection_size[g] += 1
                if t.selection_size[g] == MAX_EXCHANGE:
                    _exchange(t, g, p, three_for_one, turn_limit)
        elif action == STOP_CLAIMING:
            _stop_claiming(t, g, three_for_one, turn_limit)
        else:
            _claim(t, g, p, action - CLAIM_TROPHY, three_for_one, turn_limit)


@kernel
def _is_legal(t, g, action, three_for_one):
    """Whether ``action`` is legal in game ``g`` (not over), checked directly."""
    if action < 0 or action >= NUM_ACTIONS:
        return False
    p = t.current[g]
    phase = t.phase[g]
    if action < EXCHANGE_PICK:  # HL-3.1 a card of the hand that fits that side
        if phase != PLAY:
            return False
        card = action >> 3
        s = (action & 7) >> 1
        if not (t.hands[g, p] >> card) & 1 or not t.in_play[g, s]:
            return False
        suit = _SUIT[card]
        return t.need[g, s, suit] > t.have[g, s, p ^ (action & 1), suit]
    if action < EXCHANGE_DONE:  # HL-3.4 a hand card not picked yet
        if phase != EXCHANGE:
            return False
        card = action - EXCHANGE_PICK
        if not (t.hands[g, p] >> card) & 1:
            return False
        for k in range(t.selection_size[g]):  # noqa: SIM110 (numba: a loop)
            if t.selection[g, k] == card:
                return False
        return True
    if action == EXCHANGE_DONE:
        return phase == EXCHANGE and t.selection_size[g] > 0
    if phase != TROPHY:  # HL-6.4
        return False
    if action == STOP_CLAIMING:
        return True
    return _can_claim(t, g, p, action - CLAIM_TROPHY, three_for_one)


@kernel
def _first_illegal(actions, t, three_for_one):
    """The first game (not over) whose action is illegal, or −1."""
    for g in range(actions.shape[0]):
        if not t.done[g] and not _is_legal(t, g, actions[g], three_for_one):
            return g
    return -1


@kernel
def _legal(mask, t, three_for_one):
    """The mover's legal actions in every game not over (the action ids of docs/rules.md)."""
    for g in range(mask.shape[0]):
        if t.done[g]:
            continue
        p = t.current[g]
        phase = t.phase[g]
        hand = t.hands[g, p]
        if phase == PLAY:  # HL-3.1/3.3 every fitting card on every side it fits
            for s in range(NUM_STAGES):
                if not t.in_play[g, s]:
                    continue
                for side in range(2):
                    absolute = p ^ side
                    for suit in range(NUM_SUITS):
                        if t.need[g, s, suit] <= t.have[g, s, absolute, suit]:
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
            for k in range(t.selection_size[g]):
                mask[g, EXCHANGE_PICK + t.selection[g, k]] = False
            if t.selection_size[g] > 0:
                mask[g, EXCHANGE_DONE] = True
        elif phase == TROPHY:  # HL-6.4 claim what one can pay for, or stop
            for suit in range(NUM_SUITS):
                if _can_claim(t, g, p, suit, three_for_one):
                    mask[g, CLAIM_TROPHY + suit] = True
            mask[g, STOP_CLAIMING] = True


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
def _observe(seats, out, t, three_for_one, turn_limit):
    """HL-8 what seat ``seats[g]`` may know, in ``LAYOUT`` (hot_envs.heisse_luft.encoding): the
    observer's pieces first, the same floats as ``encode``."""
    for g in range(seats.shape[0]):
        me = seats[g]
        if me < 0:
            continue
        opp = 1 - me
        row = out[g]
        mine, known, seen = t.hands[g, me], t.revealed[g, me], t.revealed[g, opp]
        for card in range(NUM_CARDS):
            if (mine >> card) & 1:
                row[_HAND + card] = 1.0
            if (known >> card) & 1:
                row[_MY_REVEALED + card] = 1.0
            if (seen >> card) & 1:
                row[_OPPONENT_KNOWN + card] = 1.0
        row[_OPPONENT_HAND_SIZE] = t.hand_size[g, opp] / HAND_SIZE
        for k in range(t.selection_size[g]):
            row[_EXCHANGE_SELECTION + t.selection[g, k]] = 1.0
        for k in range(t.discard_size[g]):
            row[_DISCARD_PILE + t.discard[g, k]] = 1.0
        for s in range(NUM_STAGES):
            if t.in_play[g, s]:
                _observe_stage(t, g, s, me, row)
        for p in range(2):
            relative = p ^ me
            for suit in range(NUM_SUITS):
                at = 4 * relative + suit
                row[_PRIZES_WON + at] = t.won[g, p, suit] / _SUIT_SIZE[suit]
                row[_TROPHY_CARDS + at] = t.paid[g, p, suit] / _SUIT_SIZE[suit]
            for k in range(t.trophy_count[g, p]):
                row[_TROPHIES + 4 * relative + t.trophies[g, p, k]] = 1.0
                row[_AWARDED + t.trophies[g, p, k]] = 1.0
        for suit in range(NUM_SUITS):
            row[_PRIZE_DECK_COUNTS + suit] = t.deck_suits[g, suit] / _SUIT_SIZE[suit]
        row[_PRIZE_DECK_SIZE] = t.deck_size[g] / _PRIZE_DECK_SCALE
        row[_DRAW_PILE_SIZE] = t.draw_size[g] / NUM_CARDS
        row[_PASS_STREAK] = t.pass_streak[g]
        phase = t.phase[g]
        if phase != OVER:
            row[_PHASE + phase] = 1.0
        if phase == TROPHY:
            row[_TROPHY_ROLE + (1 if t.trophy_winner[g] != me else 0)] = 1.0
        if t.current[g] == me:
            row[_TO_MOVE] = 1.0
        if three_for_one:
            row[_THREE_FOR_ONE] = 1.0
        row[_TURN_PROGRESS] = min(t.turn[g] / turn_limit, 1.0)


@kernel
def _observe_stage(t, g, s, me, row):
    """A stage in play seen from seat ``me`` (own side first): terrain, prizes, what each side
    still misses, its cards and sum, who placed the last card and who leads now."""
    opp = 1 - me
    row[_STAGE_IN_PLAY + s] = 1.0
    if t.terrain[g, s]:
        row[_STAGE_MOUNTAIN + s] = 1.0
    for suit in range(NUM_SUITS):
        need = t.need[g, s, suit]
        if need == 0:
            continue
        row[_STAGE_PRIZES + 4 * s + suit] = need / 4
        for relative in range(2):
            have = t.have[g, s, me ^ relative, suit]
            if need > have:
                row[_STAGE_MISSING + 8 * s + 4 * relative + suit] = (need - have) / 4
    for relative in range(2):
        side = me ^ relative
        size = t.side_size[g, s, side]
        for k in range(size):
            row[_STAGE_CARDS + NUM_CARDS * (2 * s + relative) + t.sides[g, s, side, k]] = 1.0
        if size > 0:
            row[_STAGE_SUMS + 2 * s + relative] = t.sums[g, s, side] / MAX_SIDE_SUM
    last = t.last[g, s]
    if last >= 0:
        row[_STAGE_LAST + 2 * s + (1 if last == opp else 0)] = 1.0
        leader = _stage_leader(t, g, s)
        row[_STAGE_LEADING + 2 * s + (1 if leader == opp else 0)] = 1.0

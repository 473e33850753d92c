"""The Heiße Luft rules engine: one :class:`State` per game (HL-1 … HL-8 in docs/rules.md).

The state is plain Python lists of small ints, so that ``legal_actions``/``apply`` and ``clone``
stay cheap. Piles are stored with their top card *last* (``list.pop()`` draws); the dict format
(:mod:`hot_envs.heisse_luft.serialize`) lists them top card first. Sides are indexed by seat
(``sides[stage][0]`` is player_0's side); action ids name sides relative to the mover. Where the
rules leave a point open, the engine does what docs/rules.md settles (HL-3.4, HL-3.6, HL-7.3 and
"Settled points").
"""

from __future__ import annotations

from bisect import insort
from typing import Any

from hot_envs.core.engine import (
    ChanceSource,
    EngineSeed,
    Seed,
    as_int,
    copy_chance,
    make_chance,
)
from hot_envs.core.errors import IllegalActionError
from hot_envs.heisse_luft import serialize
from hot_envs.heisse_luft.facts import (
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
    STAGE_SIZES,
    STOP_CLAIMING,
    SUIT_SIZES,
    TROPHIES_TO_WIN,
    TROPHY,
    action_name,
    claimable_trophies,
    trophy_payment,
)
from hot_envs.heisse_luft.render import render
from hot_envs.heisse_luft.table import Table

_SUIT_IDS = range(4)


class State(Table):
    """A game of Heiße Luft in progress: the :class:`~hot_envs.heisse_luft.table.Table` with its
    rules. Create one with :meth:`new` or :meth:`from_dict`."""

    __slots__ = ()
    num_players = 2
    num_actions = NUM_ACTIONS

    # ------------------------------------------------------------------ creation

    @classmethod
    def new(cls, seed: EngineSeed = None, **options: Any) -> State:
        """A freshly dealt game (HL-2). ``options``: three_for_one, starting_player, turn_limit.
        Every chance event of the game comes from ``seed``'s chance source
        (:func:`~hot_envs.core.engine.make_chance`: an int's stream deals and reshuffles the cards
        that the array engine's row seeded with it does)."""
        state = cls(serialize.check_options(options), make_chance(seed))
        rng = state._rng
        # HL-2.2 shuffle the prize deck and fill stages 1–4 from the top.
        deck = [suit for suit, size in enumerate(SUIT_SIZES) for _ in range(size)]
        state.prize_deck = [deck[i] for i in rng.permutation(len(deck))]
        for stage in range(NUM_STAGES):
            state._refill(stage)
        # HL-2.4 shuffle the balloon cards and deal 8 to each player.
        order = [int(c) for c in rng.permutation(NUM_CARDS)]
        state.hands = [sorted(order[:HAND_SIZE]), sorted(order[HAND_SIZE : 2 * HAND_SIZE])]
        state.draw_pile = order[2 * HAND_SIZE :]
        # HL-2.5 starting player.
        first = state.options["starting_player"]
        if first == "random":
            first = int(rng.integers(2))
        state._start_turn(first)
        return state

    def clone(self) -> State:
        """An independent copy. The chance source is shared until either copy first needs it,
        then copied (``copy_chance``): both copies draw the same."""
        other = State.__new__(State)
        other.options = self.options
        other.phase = self.phase
        other.current_player = self.current_player
        other.hands = [self.hands[0][:], self.hands[1][:]]
        other.draw_pile = self.draw_pile[:]
        other.discard_pile = self.discard_pile[:]
        other.prize_deck = self.prize_deck[:]
        other.in_play = self.in_play[:]
        other.terrain = self.terrain[:]
        other.prizes = [p[:] for p in self.prizes]
        other.need = [n[:] for n in self.need]
        other.sides = [[s[0][:], s[1][:]] for s in self.sides]
        other.have = [[h[0][:], h[1][:]] for h in self.have]
        other.sums = [s[:] for s in self.sums]
        other.last_player = self.last_player[:]
        other.prizes_won = [self.prizes_won[0][:], self.prizes_won[1][:]]
        other.trophy_cards = [self.trophy_cards[0][:], self.trophy_cards[1][:]]
        other.trophies = [self.trophies[0][:], self.trophies[1][:]]
        other.pass_streak = self.pass_streak
        other.turn = self.turn
        other.exchange_selection = self.exchange_selection[:]
        other.revealed = [set(self.revealed[0]), set(self.revealed[1])]
        other.trophy_winner = self.trophy_winner
        other.asking_winner = self.asking_winner
        other.winner = self.winner
        other._rng = self._rng
        other._rng_shared = self._rng_shared = True
        other._legal = self._legal
        return other

    @property
    def rng(self) -> ChanceSource:
        """This game's own chance source (reshuffles of HL-3.5)."""
        if self._rng_shared:
            self._rng = copy_chance(self._rng)
            self._rng_shared = False
        return self._rng

    # ------------------------------------------------------------------ queries

    def legal_actions(self) -> list[int]:
        """Sorted legal action ids for the player to move (empty when the game is over)."""
        return self._legal_list()[:]

    def _legal_list(self) -> list[int]:
        """The cached legal actions themselves (callers must not modify the list)."""
        if self._legal is None:
            self._legal = self._compute_legal()
        return self._legal

    def _compute_legal(self) -> list[int]:
        if self.phase == PLAY:
            return self._play_actions(self.current_player)
        if self.phase == EXCHANGE:
            chosen = self.exchange_selection
            picks = [EXCHANGE_PICK + c for c in self.hands[self.current_player] if c not in chosen]
            return picks + [EXCHANGE_DONE] if chosen else picks
        if self.phase == TROPHY:
            p = self.current_player
            return [CLAIM_TROPHY + s for s in self._claimable(p)] + [STOP_CLAIMING]
        return []

    def _play_actions(self, p: int) -> list[int]:
        """HL-3.1 a card fits a side while that side lacks a card of its suit at the stage."""
        open_slots: tuple[list[int], ...] = ([], [], [], [])  # by suit, in slot order
        have_all, in_play = self.have, self.in_play
        for stage, need in enumerate(self.need):
            if not in_play[stage]:
                continue
            have = have_all[stage]
            own, opp = have[p], have[1 - p]
            slot = 2 * stage
            for suit in _SUIT_IDS:
                n = need[suit]
                if n:
                    if n > own[suit]:
                        open_slots[suit].append(slot)
                    if n > opp[suit]:
                        open_slots[suit].append(slot + 1)
        return [8 * card + slot for card in self.hands[p] for slot in open_slots[CARD_SUIT[card]]]

    def _claimable(self, p: int) -> list[int]:
        """HL-6.1/6.2 the free trophies player ``p`` could pay for now."""
        return claimable_trophies(
            self.prizes_won[p], self._awarded_suits(), self.options["three_for_one"]
        )

    def _awarded_suits(self) -> list[int]:
        return self.trophies[0] + self.trophies[1]

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def is_truncated(self) -> bool:
        """HL-7.3 the game ended by reaching the turn limit, without a winner."""
        return self.phase == OVER and self.winner is None

    def returns(self) -> list[float]:
        """HL-7.4 +1 winner, −1 loser; 0 each for a draw, a truncation or a game not over."""
        if self.phase != OVER or self.winner not in (0, 1):
            return [0.0, 0.0]
        return [1.0, -1.0] if self.winner == 0 else [-1.0, 1.0]

    def total_prizes(self, p: int) -> int:
        """Prize cards of player ``p``, those inside trophies included (HL-7.2 tie-break)."""
        return sum(self.prizes_won[p]) + sum(self.trophy_cards[p])

    def action_name(self, action: int) -> str:
        return action_name(action)

    # ------------------------------------------------------------------ acting

    def apply(self, action: int) -> None:
        """Play one action; ``IllegalActionError`` (state unchanged) if it is not legal."""
        if type(action) is not int:  # a numpy integer or 0-d array is an id too (as_int)
            action_id = as_int(action)
            if action_id is None:
                expected = f"expected an int in 0..{NUM_ACTIONS - 1}"
                raise IllegalActionError(f"action {action!r} is not an action id: {expected}")
            action = action_id
        if action not in self._legal_list():
            raise IllegalActionError(self._why_illegal(action))
        self._legal = None
        p = self.current_player
        if self.phase == PLAY:
            self._play(p, action)
        elif self.phase == EXCHANGE:
            if action == EXCHANGE_DONE:
                self._exchange(p)
            else:
                self.exchange_selection.append(action - EXCHANGE_PICK)
                if len(self.exchange_selection) == MAX_EXCHANGE:
                    self._exchange(p)
        elif action == STOP_CLAIMING:
            self._stop_claiming()
        else:
            self._claim(p, action - CLAIM_TROPHY)

    def _why_illegal(self, action: int) -> str:
        head = f"action {action} ({action_name(action)}) is illegal"
        if not 0 <= action < NUM_ACTIONS:
            return f"action {action} is out of range 0..{NUM_ACTIONS - 1}"
        if self.phase == OVER:
            return f"{head}: the game is over"
        phase = PHASES[self.phase]
        p = self.current_player
        if action < EXCHANGE_PICK:
            if self.phase != PLAY:
                return f"{head}: it is the {phase} phase, not the play phase"
            card, slot = divmod(action, 8)
            if card not in self.hands[p]:
                return f"{head}: player_{p} does not hold that card"
            stage = slot // 2
            if not self.in_play[stage]:
                return f"{head}: stage {stage + 1} is out of the game"
            return f"{head}: that side of stage {stage + 1} needs no more cards of that suit"
        if action <= EXCHANGE_DONE:
            if self.phase != EXCHANGE:
                return f"{head}: it is the {phase} phase, not an exchange (HL-3.4)"
            if action == EXCHANGE_DONE:
                return f"{head}: choose at least one card first"
            card = action - EXCHANGE_PICK
            if card in self.exchange_selection:
                return f"{head}: that card is already chosen"
            return f"{head}: player_{p} does not hold that card"
        if self.phase != TROPHY:
            return f"{head}: trophies are claimed only in the trophy phase (HL-6.4)"
        return f"{head}: player_{p} cannot claim that trophy (HL-6.1)"

    def _play(self, p: int, action: int) -> None:
        """HL-3.2 place a card, draw one; the turn ends; a completed stage flies (HL-4.1)."""
        card, slot = divmod(action, 8)
        stage, relative_side = divmod(slot, 2)
        side = p ^ relative_side
        self.hands[p].remove(card)
        self.revealed[p].discard(card)
        self.sides[stage][side].append(card)
        self.have[stage][side][CARD_SUIT[card]] += 1
        self.sums[stage][side] += CARD_VALUE[card]
        self.last_player[stage] = p
        self._draw(p, 1)
        self.pass_streak = 0
        self.turn += 1
        if len(self.sides[stage][0]) + len(self.sides[stage][1]) == 2 * STAGE_SIZES[stage]:
            self._fly(stage)
        else:
            self._start_turn(1 - p)

    def _draw(self, p: int, n: int) -> None:
        """HL-3.5 draw from the top; reshuffle the discard pile when the draw pile is empty."""
        hand = self.hands[p]
        for _ in range(n):
            if not self.draw_pile:
                if not self.discard_pile:
                    return
                discard = self.discard_pile
                self.draw_pile = [discard[i] for i in self.rng.permutation(len(discard))]
                self.discard_pile = []
            insort(hand, self.draw_pile.pop())

    def _start_turn(self, p: int) -> None:
        """Begin player ``p``'s turn; a player with no fitting card starts a stuck turn."""
        while True:
            if self.turn >= self.options["turn_limit"]:  # HL-7.3
                self._end_game(None)
                return
            self.phase = PLAY
            self.current_player = p
            self._legal = self._play_actions(p)
            if self._legal:
                return
            # HL-3.4 stuck: the hand is revealed, then 1–4 cards are exchanged.
            self.revealed[p] = set(self.hands[p])
            if self.hands[p]:
                self.phase = EXCHANGE
                self.exchange_selection = []
                self._legal = None
                return
            p = self._end_stuck_turn(p)

    def _exchange(self, p: int) -> None:
        """HL-3.4 discard the chosen cards and draw as many; play if a card now fits."""
        chosen, self.exchange_selection = self.exchange_selection, []
        hand = self.hands[p]
        for card in chosen:
            hand.remove(card)
            self.revealed[p].discard(card)
        self.discard_pile.extend(chosen)
        self._draw(p, len(chosen))
        self.phase = PLAY
        self._legal = self._play_actions(p)
        if not self._legal:
            self.revealed[p] = set(hand)  # shown again; the turn ends without a play
            self._start_turn(self._end_stuck_turn(p))

    def _end_stuck_turn(self, p: int) -> int:
        """A turn without a card played ends; HL-3.6 after two in a row nothing moves."""
        self.turn += 1
        self.pass_streak += 1
        if self.pass_streak >= 2:
            for stage in range(NUM_STAGES):
                self._clear_stage(stage)
            self.pass_streak = 0
        return 1 - p

    def _clear_stage(self, stage: int) -> None:
        """Balloon cards of ``stage`` to the discard pile (HL-3.6, HL-5.2)."""
        for side in (0, 1):
            self.discard_pile.extend(self.sides[stage][side])
            self.sides[stage][side] = []
            self.have[stage][side] = [0] * 4
            self.sums[stage][side] = 0
        self.last_player[stage] = None

    def _fly(self, stage: int) -> None:
        """HL-4 decide the stage, then HL-5.1–5.5 in order."""
        winner = self.stage_leader(stage)
        for suit in self.prizes[stage]:  # HL-5.1
            self.prizes_won[winner][suit] += 1
        self._clear_stage(stage)  # HL-5.2
        self.terrain[stage] ^= 1  # HL-5.3
        self._refill(stage)  # HL-5.4
        self.trophy_winner = winner  # HL-5.5
        self._ask_for_claims()

    def stage_leader(self, stage: int) -> int:
        """Who wins ``stage`` with the cards on it now (HL-4.2, HL-4.3)."""
        own, opp = self.sums[stage]
        if own == opp:
            return self.last_player[stage]  # HL-4.3 tie: the last card's player wins
        lower_wins = self.terrain[stage] == LOWLAND
        return 0 if (own < opp) == lower_wins else 1

    def _refill(self, stage: int) -> None:
        """HL-5.4 (and HL-2.2/2.3) put ``stage``'s number of prizes out, or retire the stage."""
        size = STAGE_SIZES[stage]
        deck = self.prize_deck
        spades = deck.count(SPADES)
        fillable = len(deck) - spades + min(spades, MAX_SPADES_AT_STAGE)
        prizes = self.prizes[stage] = []
        need = self.need[stage] = [0] * 4
        if fillable < size:
            self.in_play[stage] = False
            return
        while len(prizes) < size:
            suit = deck.pop()
            if suit == SPADES and need[SPADES] == MAX_SPADES_AT_STAGE:
                deck.insert(0, suit)  # HL-2.3 a 4th spade goes under the prize deck
                continue
            prizes.append(suit)
            need[suit] += 1

    def _ask_for_claims(self) -> None:
        """HL-6.4 the stage winner decides first; a player who could claim nothing is not asked."""
        winner = self.trophy_winner
        if self._claimable(winner):
            self.phase, self.current_player, self.asking_winner = TROPHY, winner, True
        elif self._claimable(1 - winner):
            self.phase, self.current_player, self.asking_winner = TROPHY, 1 - winner, False
        else:
            self._end_flight()

    def _claim(self, p: int, suit: int) -> None:
        """HL-6.1/6.2 pay for and take a trophy; HL-7.1 a second trophy wins at once."""
        held, paid = self.prizes_won[p], self.trophy_cards[p]
        for s, n in enumerate(trophy_payment(held, suit, self._awarded_suits())):
            held[s] -= n
            paid[s] += n
        self.trophies[p].append(suit)
        if len(self.trophies[p]) >= TROPHIES_TO_WIN:
            self._end_game(p)
        else:
            self._ask_for_claims()

    def _stop_claiming(self) -> None:
        if self.asking_winner and self._claimable(1 - self.trophy_winner):
            self.current_player, self.asking_winner = 1 - self.trophy_winner, False
        else:
            self._end_flight()

    def _end_flight(self) -> None:
        loser, self.trophy_winner = 1 - self.trophy_winner, None
        if any(self.in_play):
            self._start_turn(loser)  # HL-5.6 the loser moves next
        else:
            self._end_game(self._final_winner())

    def _final_winner(self) -> int | str:
        """HL-7.2 more trophies, then more prize cards (trophies included), else a draw."""
        for key in (lambda p: len(self.trophies[p]), self.total_prizes):
            a, b = key(0), key(1)
            if a != b:
                return 0 if a > b else 1
        return DRAW

    def _end_game(self, winner: int | str | None) -> None:
        """Game over; ``winner`` is a seat, ``"draw"``, or None for a truncated game."""
        self.phase = OVER
        self.current_player = None
        self.winner = winner
        self.trophy_winner = None
        self.exchange_selection = []
        self._legal = []

    # ------------------------------------------------------------------ formats

    def to_dict(self) -> dict:
        """The full state as a JSON-compatible dict (docs/environments.md, "Setting up a
        position")."""
        return serialize.state_to_dict(self)

    @classmethod
    def from_dict(cls, d: dict, seed: EngineSeed = None) -> State:
        """A state from :meth:`to_dict`'s format; ``ValueError`` names the first problem."""
        state = cls(serialize.state_dict_options(d), make_chance(seed))
        serialize.read_state_dict(state, d)
        state._resume()
        return state

    def _resume(self) -> None:
        """After :meth:`from_dict` has read a position: the rules its phase keeps, and the
        mover's turn begun as play would begin it."""
        p = self.current_player
        if self.phase == OVER:
            self._legal = []
        elif self.phase == TROPHY:
            if not self._claimable(p):
                raise ValueError(f"player {p} can claim no trophy, so is not asked (HL-6.4)")
        elif self.phase == EXCHANGE:
            if self._play_actions(p):
                raise ValueError(f"player {p} has a fitting card, so cannot exchange (HL-3.3)")
        else:
            self._start_turn(p)  # a mover with no fitting card starts a stuck turn (HL-3.4)

    def view(self, player: int) -> dict:
        """Exactly what ``player`` may know (HL-8), as a JSON-compatible dict."""
        return serialize.state_view(self, player, self._legal_list())

    @classmethod
    def from_view(cls, view: dict, rng: Seed = None) -> State:
        """A full state consistent with ``view``, hidden cards dealt at random."""
        return serialize.state_from_view(cls.from_dict, view, rng)

    def render(self, viewer: int | None = None) -> str:
        """The table as text; ``viewer``'s hand is shown, no hidden card ever is. A viewer who
        is not a seat is a ``ValueError``, as in :meth:`view`."""
        if viewer is not None:
            viewer = serialize.check_seat(viewer, "viewer")
        return render(self, viewer)

    def __repr__(self) -> str:
        return f"<heisse_luft.State turn={self.turn} phase={PHASES[self.phase]}>"

"""The Heiße Karten rules engine: one :class:`State` per game or match (HK-1 … HK-5 in
docs/rules.md).

The state is plain Python lists of small ints, so that ``legal_actions``/``apply`` and ``clone``
stay cheap. Hands are kept sorted. The draw pile is stored with its top card *last*
(``list.pop()`` draws); the dict format lists it top card first. The trick holds cards only: the
i-th card was played by seat ``leader + i``.

Where the rules leave a point open, the engine does what docs/rules.md settles (the deal of
HK-2.2/2.3, the rewards of HK-4.3, the matches of HK-4.4, "Settled points"). Beyond them:

* The next round of a match is dealt by the action that ends a round, so the state never rests
  between rounds; ``round_finished`` and :meth:`round_returns` report the round that action ended.
* ``totals`` hold the finished rounds' scores (the last round's too once the match is over);
  ``scores`` are the current round's.
* The chance source (an int seed's :class:`~hot_envs.core.chance.Stream`, the array engine's
  too) is used only to deal (and to draw a random first leader). ``clone`` shares it and each
  copy takes a private copy of it before its first use, so clones deal identical rounds.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hot_envs.core.engine import (
    ChanceSource,
    EngineSeed,
    Seed,
    copy_chance,
    make_chance,
    make_rng,
)
from hot_envs.core.errors import IllegalActionError
from hot_envs.heisse_karten import serialize
from hot_envs.heisse_karten.facts import (
    CARD_VALUE,
    GAME_NAME,
    HAND_SIZE,
    NUM_ACTIONS,
    NUM_CARDS,
    SET_ASIDE,
    action_card,
    action_name,
    card_label,
    score_returns,
    seat_name,
    trick_winner,
    win_returns,
)


@dataclass(slots=True, eq=False, repr=False)
class State:
    """A game (or match) of Heiße Karten. Create one with :meth:`new` or :meth:`from_dict` (the
    constructor makes the empty table they fill). The public fields are read-only."""

    num_actions = NUM_ACTIONS

    num_players: int
    _rng: ChanceSource
    options: dict[str, Any] = field(default_factory=dict)
    current_player: int | None = None  # None once the match is over
    leader: int = 0
    hands: list[list[int]] = field(default_factory=list)  # sorted
    trick: list[int] = field(default_factory=list)  # cards in play order
    played: list[tuple[int, int]] = field(default_factory=list)  # (seat, card) this round
    taken: list[list[int]] = field(default_factory=list)
    set_aside: list[int] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)
    round: int = 0  # 0-based
    round_finished: bool = False
    _round_returns: list[float] | None = None
    _draw_pile: list[int] = field(default_factory=list)
    _rng_shared: bool = False

    # -- creation ------------------------------------------------------------------------------

    @classmethod
    def new(cls, seed: EngineSeed = None, num_players: int = 4, **options: Any) -> State:
        """A freshly dealt game for ``num_players`` (2–6). ``options`` (keywords, HK-2.4, HK-4.3,
        HK-4.4): first_leader, reward_mode, rounds, target; an unknown one is a ``ValueError``.
        Every chance event comes from ``seed``'s chance source
        (:func:`~hot_envs.core.engine.make_chance`: an int's stream deals the rounds that the
        array engine's row seeded with it does)."""
        num_players = serialize.check_num_players(num_players)
        state = cls(num_players, make_chance(seed))
        state.options = serialize.resolve_options(num_players, state._rng, **options)
        state.totals = [0] * num_players
        state._deal(0)
        return state

    @classmethod
    def from_dict(cls, d: dict, seed: EngineSeed = None) -> State:
        """The state a dict describes (docs/environments.md, "Setting up a position");
        ``ValueError`` names the first problem.

        ``seed`` (as in :meth:`new`) is the chance source that deals later rounds of a match.
        """
        rng = make_chance(seed)
        parts = serialize.parse_state_dict(d, rng)
        state = cls(parts.pop("num_players"), rng)
        state._draw_pile = parts.pop("draw_pile")[::-1]
        for name, value in parts.items():
            setattr(state, name, value)
        return state

    @classmethod
    def from_view(cls, view: dict, rng: Seed = None) -> State:
        """A full state that gives ``view``: the cards the viewer cannot see (other hands, draw
        pile, set-aside cards) are dealt at random from ``rng``; ``ValueError`` names the first
        problem of a malformed view."""
        rng = make_rng(rng)
        return cls.from_dict(serialize.deal_view(view, rng), seed=rng)

    def _deal(self, round_index: int) -> None:
        """HK-2.2/2.3 shuffle and deal round ``round_index``; HK-2.4/4.4 its first leader."""
        n = self.num_players
        deck = [int(k) + 1 for k in self.rng.permutation(NUM_CARDS)]
        self.hands = [sorted(deck[HAND_SIZE * s : HAND_SIZE * (s + 1)]) for s in range(n)]
        pile = deck[HAND_SIZE * n :]
        set_aside = SET_ASIDE.get(n, 0)
        self.set_aside = pile[:set_aside]
        self._draw_pile = pile[set_aside:][::-1]
        self.trick, self.played = [], []
        self.taken = [[] for _ in range(n)]
        self.scores = [0] * n
        self.round = round_index
        self.leader = self.current_player = (self.options["first_leader"] + round_index) % n

    @property
    def rng(self) -> ChanceSource:
        """This game's own chance source (the next rounds' deals), copied from a clone's
        shared one at its first use (``copy_chance``)."""
        if self._rng_shared:
            self._rng, self._rng_shared = copy_chance(self._rng), False
        return self._rng

    # -- play ----------------------------------------------------------------------------------

    def legal_actions(self) -> list[int]:
        """HK-3.1 any hand card may be played: the sorted action ids of the mover's hand."""
        if self.current_player is None:
            return []
        return [card - 1 for card in self.hands[self.current_player]]

    def apply(self, action: int) -> None:
        """Play card ``action + 1`` for the current player; ``IllegalActionError`` if not legal."""
        player = self.current_player
        if type(action) is int and player is not None and action + 1 in self.hands[player]:
            card = action + 1
        else:
            card = self._check(action)
        hand = self.hands[player]
        hand.remove(card)
        if self._draw_pile:  # HK-3.1 draw at once while the pile lasts
            insort(hand, self._draw_pile.pop())
        self.round_finished = False
        self.trick.append(card)
        self.played.append((player, card))
        if len(self.trick) < self.num_players:
            self.current_player = player + 1 if player + 1 < self.num_players else 0
        else:
            self._finish_trick()

    def _check(self, action: Any) -> int:
        """The card ``action`` plays, or ``IllegalActionError`` saying why it cannot be played."""
        if isinstance(action, np.integer):
            action = int(action)
        try:
            card = action_card(action)
        except ValueError as error:
            raise IllegalActionError(f"action {action!r} is illegal: {error}") from None
        what = f"action {card - 1} ({action_name(card - 1)}) is illegal"
        if self.current_player is None:
            raise IllegalActionError(f"{what}: the game is over")
        player = seat_name(self.current_player)
        if any(card == c for _, c in self.played):
            raise IllegalActionError(f"{what}: card {card} has already been played")
        if card not in self.hands[self.current_player]:
            raise IllegalActionError(f"{what}: card {card} is not in {player}'s hand")
        return card

    def _finish_trick(self) -> None:
        trick, n = self.trick, self.num_players
        winner = trick_winner(self.leader, trick, n)  # HK-3.2
        self.taken[winner].extend(trick)  # HK-3.3 the winner takes the trick
        self.scores[winner] += sum(map(CARD_VALUE.__getitem__, trick))  # HK-4.1
        self.trick = []
        self.leader = self.current_player = winner  # HK-3.3 and leads the next one
        # Hands are equally long at the end of a trick, so one empty hand means all are (HK-3.4).
        if not self.hands[winner]:
            self._finish_round()

    def _finish_round(self) -> None:
        """HK-3.4 the round is over: add it to the totals, then deal the next or end (HK-4.4)."""
        self.round_finished = True
        self._round_returns = self._rewards(self.scores, 1)
        self.totals = [t + s for t, s in zip(self.totals, self.scores, strict=True)]
        target = self.options["target"]
        if self.round + 1 >= self.options["rounds"] or (
            target is not None and max(self.totals) >= target
        ):
            self.current_player = None
        else:
            self._deal(self.round + 1)

    # -- results -------------------------------------------------------------------------------

    def is_terminal(self) -> bool:
        return self.current_player is None

    def is_truncated(self) -> bool:
        """Heiße Karten always ends: a round has a fixed number of tricks."""
        return False

    def _rewards(self, points: list[int], rounds: int) -> list[float]:
        if self.options["reward_mode"] == "win":
            return win_returns(points)
        return score_returns(points, rounds)

    def returns(self) -> list[float]:
        """Per-seat rewards of the match by totals (HK-4.3); zeros before the end."""
        if self.current_player is not None:
            return [0.0] * self.num_players
        return self._rewards(self.totals, self.round + 1)

    def round_returns(self) -> list[float] | None:
        """Rewards of the round the last action finished (HK-4.3 on its scores), else ``None``."""
        return list(self._round_returns) if self.round_finished else None

    def winners(self) -> list[int]:
        """Seats with the highest total once the match is over (HK-4.2); empty before."""
        if self.current_player is not None:
            return []
        best = max(self.totals)
        return [seat for seat, total in enumerate(self.totals) if total == best]

    # -- copies, dicts, views --------------------------------------------------------------------

    def clone(self) -> State:
        """An independent copy; the generator is copied lazily (module docstring)."""
        other = object.__new__(type(self))
        other.num_players = self.num_players
        other.options = self.options  # never changed after creation
        other.current_player = self.current_player
        other.leader = self.leader
        other.hands = [hand.copy() for hand in self.hands]
        other.trick = self.trick.copy()
        other.played = self.played.copy()
        other.taken = [pile.copy() for pile in self.taken]
        other.set_aside = self.set_aside.copy()
        other.scores = self.scores.copy()
        other.totals = self.totals.copy()
        other.round = self.round
        other.round_finished = self.round_finished
        other._round_returns = self._round_returns  # replaced, never changed
        other._draw_pile = self._draw_pile.copy()
        other._rng = self._rng
        self._rng_shared = other._rng_shared = True
        return other

    @property
    def draw_pile_size(self) -> int:
        return len(self._draw_pile)

    def _public(self) -> dict:
        """What every seat sees (HK-5), in the state dict and in every view: ``taken`` too (each
        taken card was seen when played and the trick's winner is public), ``totals``, ``round``
        and ``options``."""
        n = self.num_players
        return {
            "game": GAME_NAME,
            "num_players": n,
            "current_player": self.current_player,
            "leader": self.leader,
            "trick": [[(self.leader + i) % n, card] for i, card in enumerate(self.trick)],
            "played": [[seat, card] for seat, card in self.played],
            "taken": [pile.copy() for pile in self.taken],
            "totals": self.totals.copy(),
            "round": self.round,
            "options": dict(self.options),
        }

    def to_dict(self) -> dict:
        """The full state as a JSON-compatible dict (the schema :meth:`from_dict` reads)."""
        return {
            **self._public(),
            "hands": [hand.copy() for hand in self.hands],
            "draw_pile": self._draw_pile[::-1],
            "set_aside": self.set_aside.copy(),
        }

    def view(self, player: int) -> dict:
        """What ``player`` may know (HK-5) as a JSON-compatible dict."""
        player = serialize.check_int(player, "player", 0, self.num_players - 1)
        return {
            **self._public(),
            "player": player,
            "hand": self.hands[player].copy(),
            "hand_sizes": [len(hand) for hand in self.hands],
            "draw_pile_size": len(self._draw_pile),
            "set_aside_count": len(self.set_aside),
            "scores": self.scores.copy(),
            "legal_actions": self.legal_actions() if player == self.current_player else [],
        }

    # -- text ----------------------------------------------------------------------------------

    def action_name(self, action: int) -> str:
        """``play 36`` for action 35."""
        return action_name(action)

    def render(self, viewer: int | None = None) -> str:
        """The public table as text, plus ``viewer``'s hand when a viewer is given (one who is
        not a seat is a ``ValueError``, as in :meth:`view`).

        Cards read ``36b`` (black, counts +36) and ``17r`` (red, counts -17), as in HK-1.1. The
        last trick taken is shown with the seat that took it until the next one is taken.
        """
        if viewer is not None:
            viewer = serialize.check_int(viewer, "viewer", 0, self.num_players - 1)
        n, options = self.num_players, self.options
        rounds = options["rounds"]
        match = f"round {self.round + 1} of {rounds}"
        if options["target"] is not None:
            match = f"round {self.round + 1}, target {options['target']} (at most {rounds} rounds)"
        trick = _plays(((self.leader + i) % n, card) for i, card in enumerate(self.trick))
        waiting = "empty" if self.current_player is None else f"{seat_name(self.leader)} leads"
        lines = [
            f"Heiße Karten, {n} players, {match}; draw pile {self.draw_pile_size}"
            + (f", set aside {len(self.set_aside)}" if self.set_aside else ""),
            f"Trick: {trick or waiting}",
            "Scores: " + _per_seat(self.scores),
        ]
        complete = len(self.played) // n
        if complete:  # HK-5 the last trick taken is public; its winner leads the current one
            last = _plays(self.played[(complete - 1) * n : complete * n])
            lines.insert(2, f"Last trick: {last} — taken by {seat_name(self.leader)}")
        if rounds > 1:
            lines.append("Totals: " + _per_seat(self.totals))
        lines.append(
            "Hand sizes: "
            + "  ".join(f"{seat_name(seat)} {len(hand)}" for seat, hand in enumerate(self.hands))
        )
        if viewer is not None:
            lines.append(f"Hand of {seat_name(viewer)}: {_cards(self.hands[viewer])}")
        if self.current_player is None:
            winners = ", ".join(seat_name(seat) for seat in self.winners())
            returns = "  ".join(f"{r:+.3f}" for r in self.returns())
            lines.append(f"Game over. Winners: {winners}. Returns: {returns}")
        else:
            lines.append(f"To move: {seat_name(self.current_player)}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.render()


def _cards(cards: list[int]) -> str:
    return " ".join(card_label(card) for card in cards) or "-"


def _plays(plays: Iterable[tuple[int, int]]) -> str:
    """(seat, card) pairs as ``player_0 36b, player_1 17r``."""
    return ", ".join(f"{seat_name(seat)} {card_label(card)}" for seat, card in plays)


def _per_seat(values: list[int]) -> str:
    return "  ".join(f"{seat_name(seat)} {value:+d}" for seat, value in enumerate(values))

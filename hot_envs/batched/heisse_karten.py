"""Heiße Karten in arrays: :class:`ArrayHeisseKarten`, many games (or matches) at once.

One row per game, rules in compiled kernels (HK-1 … HK-5 in docs/rules.md, each id named where
its rule is written); :class:`hot_envs.heisse_karten.State` is the rule book they are tested
against, action for action (``tests/batched``).

The arrays of game ``b`` (``n`` seats):

* ``hands[b, s]``: seat ``s``'s hand as a bit set, bit ``k - 1`` for card ``k`` — a legal mask,
  a play and a draw are one bit operation each.
* ``pile[b, top[b]:end[b]]``: the draw pile, top card first (as the state dict lists it);
  ``set_aside[b, :aside[b]]`` the cards set aside unseen (HK-2.3).
* ``trick[b, :trick_len[b]]``: the current trick in play order, led by ``leader[b]``.
* ``played_seat``/``played_card[b, :played_len[b]]``: every card of the round so far, in order.
* ``taken[b, s, :taken_len[b, s]]``: the cards seat ``s`` took, in the order it took them.
* ``scores``, ``totals``, ``round_index``, ``first_leader`` (drawn per game where the option is
  ``"random"``) and the base's ``_current``, ``_done``, ``_rewards``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hot_envs.batched.base import ArrayGames, bit_count, check_num_games
from hot_envs.batched.jit import kernel
from hot_envs.batched.streams import below, shuffle
from hot_envs.heisse_karten import serialize
from hot_envs.heisse_karten.encoding import LAYOUT, MAX_SET_ASIDE
from hot_envs.heisse_karten.facts import (
    BLACK_SUM,
    CARD_VALUE,
    GAME_NAME,
    HAND_SIZE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_ACTIONS,
    NUM_CARDS,
    SCORE_SCALE,
    SET_ASIDE,
    TRICK_RANK,
    TRICKS_PER_ROUND,
)
from hot_envs.heisse_karten.state import State

_VALUE = np.array(CARD_VALUE, dtype=np.int64)  # by card, 1..48
_RANK = np.array(TRICK_RANK, dtype=np.int64)  # HK-3.2 by card: every black card above every red
_SET_ASIDE = np.array([SET_ASIDE.get(n, 0) for n in range(MAX_PLAYERS + 1)], dtype=np.int64)
_TRICKS = np.array([TRICKS_PER_ROUND.get(n, 1) for n in range(MAX_PLAYERS + 1)], dtype=np.int64)
# Observation offsets (hot_envs.heisse_karten.encoding.LAYOUT).
_HAND = LAYOUT.offset("hand")
_TRICK = LAYOUT.offset("trick")
_PLAYED = LAYOUT.offset("played")
_SCORES = LAYOUT.offset("scores")
_TOTALS = LAYOUT.offset("totals")
_HAND_SIZES = LAYOUT.offset("hand_sizes")
_DRAW_PILE = LAYOUT.offset("draw_pile")
_SET_ASIDE_AT = LAYOUT.offset("set_aside")
_NUM_PLAYERS = LAYOUT.offset("num_players")
_SEATS = LAYOUT.offset("seats")
_LEADER = LAYOUT.offset("leader")
_TRICK_POSITION = LAYOUT.offset("trick_position")
_TRICKS_DONE = LAYOUT.offset("tricks_done")
_MATCH_ROUND = LAYOUT.offset("match_round")
_TARGET_MATCH = LAYOUT.offset("target_match")
_NO_TARGET = -1
# The arrays with one row per game (``ArrayGames.copy_games`` copies them).
_GAME_ARRAYS = (
    "hands",
    "pile",
    "top",
    "end",
    "set_aside",
    "aside",
    "trick",
    "trick_len",
    "leader",
    "played_seat",
    "played_card",
    "played_len",
    "taken",
    "taken_len",
    "scores",
    "totals",
    "round_index",
    "first_leader",
)


class ArrayHeisseKarten(ArrayGames):
    """``num_games`` games of Heiße Karten for ``num_players`` (2–6) with the options of
    ``heisse_karten_v0.env()``: ``first_leader`` (a seat or ``"random"``, drawn per game),
    ``reward_mode``, ``rounds``, ``target`` and ``round_rewards`` (each round's rewards on the
    step that ends it, as the environment gives them). ``num_players`` may also give each game
    its own count (an int array of ``num_games``; :meth:`set_players` changes a finished
    game's): the arrays then have room for the largest, and rewards and observations are
    padded with zeros past a game's seats."""

    game_name = "heisse-karten"
    num_actions = NUM_ACTIONS
    observation_size = LAYOUT.size
    engine = State

    def __init__(
        self,
        num_games: int,
        num_players: int = 4,
        round_rewards: bool = False,
        **options: Any,
    ) -> None:
        players = _player_counts(num_players, check_num_games(num_games))
        n = int(players.max())
        if not isinstance(round_rewards, bool):
            raise ValueError(f"round_rewards must be a bool, not {round_rewards!r}")
        self._random_leader = options.get("first_leader") == "random"
        if self._random_leader:
            options = {**options, "first_leader": 0}
        fewest = int(players.min())  # a fixed first leader must be a seat of every game
        resolved = serialize.resolve_options(fewest, np.random.default_rng(0), **options)
        super().__init__(num_games, n, resolved)
        self.round_rewards = round_rewards
        self.players = players  # each game's seat count (HK-2.1)
        self._target = _NO_TARGET if resolved["target"] is None else resolved["target"]
        self._score_mode = resolved["reward_mode"] == "score"
        b = self.num_games
        self.hands = np.zeros((b, n), dtype=np.int64)
        self.pile = np.zeros((b, NUM_CARDS), dtype=np.int64)
        self.top = np.zeros(b, dtype=np.int64)
        self.end = np.zeros(b, dtype=np.int64)
        self.set_aside = np.zeros((b, MAX_SET_ASIDE), dtype=np.int64)
        self.aside = np.zeros(b, dtype=np.int64)
        self.trick = np.zeros((b, n), dtype=np.int64)
        self.trick_len = np.zeros(b, dtype=np.int64)
        self.leader = np.zeros(b, dtype=np.int64)
        self.played_seat = np.zeros((b, NUM_CARDS), dtype=np.int64)
        self.played_card = np.zeros((b, NUM_CARDS), dtype=np.int64)
        self.played_len = np.zeros(b, dtype=np.int64)
        self.taken = np.zeros((b, n, NUM_CARDS), dtype=np.int64)
        self.taken_len = np.zeros((b, n), dtype=np.int64)
        self.scores = np.zeros((b, n), dtype=np.int64)
        self.totals = np.zeros((b, n), dtype=np.int64)
        self.round_index = np.zeros(b, dtype=np.int64)
        self.first_leader = np.full(b, resolved["first_leader"], dtype=np.int64)
        self._deck = np.zeros(NUM_CARDS, dtype=np.int64)  # scratch for shuffling

    @classmethod
    def options_for(cls, state: State) -> dict[str, Any]:
        """``state``'s seat count and options; each loaded game keeps its own first leader."""
        options = {k: v for k, v in state.options.items() if k != "first_leader"}
        return {"num_players": state.num_players, **options}

    # -- the kernels' calls ---------------------------------------------------------------------

    def _deal(self, where: np.ndarray) -> None:
        _new_matches(
            where,
            self._random_leader,
            self._rng,
            self.first_leader,
            self.totals,
            self.players,
            self.options["first_leader"],
        )
        _deal(where, *self._round_arrays(), self._deck)

    def _round_arrays(self) -> tuple:
        return (
            self._rng,
            self.players,
            self.hands,
            self.pile,
            self.top,
            self.end,
            self.set_aside,
            self.aside,
            self.trick_len,
            self.played_len,
            self.taken_len,
            self.scores,
            self.round_index,
            self.first_leader,
            self.leader,
            self._current,
        )

    def _first_illegal(self, actions: np.ndarray) -> int:
        return _first_illegal(actions, self._done, self._current, self.hands)

    def _apply(self, actions: np.ndarray) -> None:
        self._apply_where(actions, self._done, self._rewards)

    def _apply_where(self, actions: np.ndarray, done: np.ndarray, rewards: np.ndarray) -> None:
        _apply(
            actions,
            done,
            rewards,
            self.trick,
            self.played_seat,
            self.played_card,
            self.taken,
            self.totals,
            self.options["rounds"],
            self._target,
            self._score_mode,
            self.round_rewards,
            self._deck,
            *self._round_arrays(),
        )

    def _legal(self, mask: np.ndarray) -> None:
        _legal(mask, self._current, self.hands)

    def _observe(self, seats: np.ndarray, rows: np.ndarray, out: np.ndarray) -> None:
        _observe(
            seats,
            rows,
            out,
            self.players,
            self.hands,
            self.top,
            self.end,
            self.aside,
            self.trick,
            self.trick_len,
            self.leader,
            self.played_seat,
            self.played_card,
            self.played_len,
            self.taken_len,
            self.scores,
            self.totals,
            self.round_index,
            self.options["rounds"],
            self._target,
        )

    # -- one game as the per-game engine's dict -----------------------------------------------

    def state_dict(self, game: int) -> dict:
        b = self._game_index(game)
        n = int(self.players[b])
        leader = int(self.leader[b])
        current = int(self._current[b])
        return {
            "game": GAME_NAME,
            "num_players": n,
            "current_player": None if current < 0 else current,
            "leader": leader,
            "hands": [_cards(int(self.hands[b, s])) for s in range(n)],
            "draw_pile": self.pile[b, self.top[b] : self.end[b]].tolist(),
            "set_aside": self.set_aside[b, : self.aside[b]].tolist(),
            "trick": [[(leader + i) % n, int(self.trick[b, i])] for i in range(self.trick_len[b])],
            "taken": [self.taken[b, s, : self.taken_len[b, s]].tolist() for s in range(n)],
            "played": [
                [int(self.played_seat[b, i]), int(self.played_card[b, i])]
                for i in range(self.played_len[b])
            ],
            "options": {**self.options, "first_leader": int(self.first_leader[b])},
            "totals": self.totals[b, :n].tolist(),
            "round": int(self.round_index[b]),
        }

    def _game_arrays(self) -> list[np.ndarray]:
        return [*super()._game_arrays(), *(getattr(self, name) for name in _GAME_ARRAYS)]

    def chance_rows(self, games: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """HK-3.4/4.4 the last card of a round when the match has rounds left: the next
        round's deal."""
        if self.options["rounds"] <= 1:
            return np.zeros(len(games), dtype=bool)
        cards = np.zeros(len(games), dtype=np.int64)
        for seat in range(self.hands.shape[1]):
            cards += _bit_counts(self.hands[games, seat])
        return cards <= 1

    def _determinise(self, games: np.ndarray, seat: int) -> None:
        _determinise(games, seat, *self._round_arrays())

    def _finish_randomly(self, where: np.ndarray, returns: np.ndarray) -> None:
        skip = ~where  # the games _apply passes over; it marks each game that ends
        actions = np.zeros(self.num_games, dtype=np.int64)
        scratch = np.zeros_like(self._rewards)
        while not skip.all():
            _random_cards(skip, self._rng, self._current, self.hands, actions)
            self._apply_where(actions, skip, scratch)
        _match_returns(
            where, self.players, self.totals, self.round_index, self._score_mode, returns
        )
        self._done[where] = True

    def _load(self, b: int, loaded: State) -> None:
        mine = {**self.options, "first_leader": loaded.options["first_leader"]}
        if loaded.num_players > self.num_players or loaded.options != mine:
            raise ValueError(
                f"the state is for {loaded.num_players} players with options "
                f"{loaded.options}; these games have at most {self.num_players} with "
                f"{self.options}"
            )
        n = self.players[b] = loaded.num_players
        pile = loaded.to_dict()["draw_pile"]
        self.pile[b, : len(pile)] = pile
        self.top[b], self.end[b] = 0, len(pile)
        self.aside[b] = len(loaded.set_aside)
        self.set_aside[b, : len(loaded.set_aside)] = loaded.set_aside
        self.trick_len[b] = len(loaded.trick)
        self.trick[b, : len(loaded.trick)] = loaded.trick
        self.played_len[b] = len(loaded.played)
        for i, (seat, card) in enumerate(loaded.played):
            self.played_seat[b, i], self.played_card[b, i] = seat, card
        for s in range(n):
            self.hands[b, s] = sum(1 << (card - 1) for card in loaded.hands[s])
            self.taken_len[b, s] = len(loaded.taken[s])
            self.taken[b, s, : len(loaded.taken[s])] = loaded.taken[s]
        self.scores[b], self.totals[b] = 0, 0
        self.scores[b, :n], self.totals[b, :n] = loaded.scores, loaded.totals
        self.round_index[b], self.leader[b] = loaded.round, loaded.leader
        self.first_leader[b] = loaded.options["first_leader"]
        self._current[b] = loaded.current_player
        self._done[b] = self._truncated[b] = False

    def set_players(self, games: np.ndarray, counts: np.ndarray) -> None:
        """Give finished games ``games`` (indices) the seat counts ``counts`` (2–6, HK-2.1)
        for their next deal (:meth:`reset_done`)."""
        games = np.asarray(games, dtype=np.int64)
        counts = np.broadcast_to(np.asarray(counts), games.shape)
        self._check_seats(counts)
        if not self._done[games].all():
            raise ValueError("only a finished game can change its seat count")
        self.players[games] = counts

    def _set_seats(self, games: np.ndarray, counts: np.ndarray) -> None:
        self._check_seats(counts)
        self.players[games] = counts

    def _check_seats(self, counts: np.ndarray) -> None:
        if counts.dtype.kind not in "iu" or ((counts < MIN_PLAYERS) | (counts > MAX_PLAYERS)).any():
            raise ValueError(f"seat counts must be ints from {MIN_PLAYERS} to {MAX_PLAYERS}")
        if (counts > self.num_players).any():
            raise ValueError(f"these games have room for {self.num_players} seats at most")


def _bit_counts(bits: np.ndarray) -> np.ndarray:
    """The set bits of each of ``bits`` (hands as bit sets)."""
    bits = bits.astype(np.uint64)
    count = np.zeros(bits.shape, dtype=np.int64)
    while bits.any():
        count += (bits & np.uint64(1)).astype(np.int64)
        bits >>= np.uint64(1)
    return count


def rollout_values(games: ArrayHeisseKarten, rows: Any, returns: np.ndarray) -> np.ndarray:
    """The search's ``rollout_value`` (``hot_envs.heisse_karten.spec``) of the finished games
    ``rows``: their ``returns`` plus half the score rewards of their totals (HK-4.3)."""
    rows = np.asarray(rows, dtype=np.int64)
    if not games.done[rows].all():
        raise ValueError("rollout values are for finished games only")
    where = np.zeros(games.num_games, dtype=bool)
    where[rows] = True
    scores = np.zeros((games.num_games, games.num_players))
    _match_returns(where, games.players, games.totals, games.round_index, True, scores)
    return returns + 0.5 * scores[rows]


def _player_counts(num_players: Any, num_games: int) -> np.ndarray:
    """Each game's seat count: one count for all, or one per game (HK-2.1: 2–6)."""
    if isinstance(num_players, int | np.integer) and not isinstance(num_players, bool):
        return np.full(num_games, serialize.check_num_players(num_players), dtype=np.int64)
    counts = np.asarray(num_players)
    if counts.shape != (num_games,) or counts.dtype.kind not in "iu":
        serialize.check_num_players(num_players)  # the usual message for a bad single count
        raise ValueError(f"num_players must be one count or {num_games} counts")
    for count in set(counts.tolist()):
        serialize.check_num_players(count)
    return counts.astype(np.int64)


def _cards(bits: int) -> list[int]:
    """The cards of a hand's bit set, ascending."""
    return [k + 1 for k in range(NUM_CARDS) if bits >> k & 1]


# -- kernels -------------------------------------------------------------------------------------


@kernel
def _new_matches(where, random_leader, rng, first_leader, totals, players, fixed_leader):
    """A new game or match: no totals yet; HK-2.4 the first leader (drawn where it is random)."""
    for b in range(where.shape[0]):
        if where[b]:
            totals[b, :] = 0
            first_leader[b] = below(rng, b, players[b]) if random_leader else fixed_leader


@kernel
def _deal(
    where,
    rng,
    players,
    hands,
    pile,
    top,
    end,
    set_aside,
    aside,
    trick_len,
    played_len,
    taken_len,
    scores,
    round_index,
    first_leader,
    leader,
    current,
    deck,
):
    """Deal the next round (``round_index[b]``, 0 for a new game) where ``where`` is true."""
    for b in range(where.shape[0]):
        if where[b]:
            round_index[b] = 0
            _deal_round(
                b,
                rng,
                players,
                hands,
                pile,
                top,
                end,
                set_aside,
                aside,
                trick_len,
                played_len,
                taken_len,
                scores,
                round_index,
                first_leader,
                leader,
                current,
                deck,
            )


@kernel
def _deal_round(
    b,
    rng,
    players,
    hands,
    pile,
    top,
    end,
    set_aside,
    aside,
    trick_len,
    played_len,
    taken_len,
    scores,
    round_index,
    first_leader,
    leader,
    current,
    deck,
):
    """HK-2.2 shuffle the 48 cards, deal 8 to each seat, the rest is the draw pile, top first;
    HK-2.3 with 5 players its top 3 cards are set aside unseen; HK-2.4/HK-4.4 round r is led by
    the seat after round r-1's first leader."""
    n = players[b]
    for k in range(NUM_CARDS):
        deck[k] = k + 1
    shuffle(rng, b, deck, NUM_CARDS)
    for s in range(n):
        bits = 0
        for k in range(HAND_SIZE * s, HAND_SIZE * (s + 1)):
            bits |= 1 << (deck[k] - 1)
        hands[b, s] = bits
        taken_len[b, s] = 0
        scores[b, s] = 0
    first = HAND_SIZE * n
    aside[b] = _SET_ASIDE[n]
    for k in range(aside[b]):
        set_aside[b, k] = deck[first + k]
    count = 0
    for k in range(first + aside[b], NUM_CARDS):
        pile[b, count] = deck[k]
        count += 1
    top[b] = 0
    end[b] = count
    trick_len[b] = 0
    played_len[b] = 0
    leader[b] = (first_leader[b] + round_index[b]) % n
    current[b] = leader[b]


@kernel
def _first_illegal(actions, done, current, hands):
    """HK-3.1 a player may play any card of their hand, and nothing else."""
    for b in range(actions.shape[0]):
        if done[b]:
            continue
        action = actions[b]
        if action < 0 or action >= NUM_ACTIONS or not (hands[b, current[b]] >> action) & 1:
            return b
    return -1


@kernel
def _legal(mask, current, hands):
    """HK-3.1 the cards of the mover's hand."""
    for b in range(mask.shape[0]):
        if current[b] < 0:
            continue
        bits = hands[b, current[b]]
        for k in range(NUM_ACTIONS):
            if bits >> k & 1:
                mask[b, k] = True


@kernel
def _determinise(
    games,
    seat,
    rng,
    players,
    hands,
    pile,
    top,
    end,
    set_aside,
    aside,
    trick_len,
    played_len,
    taken_len,
    scores,
    round_index,
    first_leader,
    leader,
    current,
):
    """The cards ``seat`` cannot see — the other hands, the draw pile and the set-aside cards
    (HK-2.2) — dealt again from the game's stream in the same sizes: ``State.from_view``'s
    deal. Takes the round's arrays as ``_deal`` does (``ArrayHeisseKarten._round_arrays``)."""
    pool = np.empty(NUM_CARDS, dtype=np.int64)
    for b in games:
        n = 0
        for s in range(players[b]):
            if s != seat:
                for k in range(NUM_ACTIONS):
                    if hands[b, s] >> k & 1:
                        pool[n] = k + 1
                        n += 1
        for k in range(top[b], end[b]):
            pool[n] = pile[b, k]
            n += 1
        for k in range(aside[b]):
            pool[n] = set_aside[b, k]
            n += 1
        shuffle(rng, b, pool, n)
        n = 0
        for s in range(players[b]):
            if s != seat:
                count = bit_count(hands[b, s])
                hand = 0
                for k in range(count):
                    hand |= 1 << (pool[n + k] - 1)
                hands[b, s] = hand
                n += count
        for k in range(top[b], end[b]):
            pile[b, k] = pool[n]
            n += 1
        for k in range(aside[b]):
            set_aside[b, k] = pool[n]
            n += 1


@kernel
def _random_cards(skip, rng, current, hands, out):
    """``out[b]``: a card of the mover's hand, uniformly from game ``b``'s stream, in each game
    not skipped."""
    for b in range(skip.shape[0]):
        if skip[b]:
            continue
        bits = hands[b, current[b]]
        pick = below(rng, b, bit_count(bits))
        for k in range(NUM_ACTIONS):
            if bits >> k & 1:
                if pick == 0:
                    out[b] = k
                    break
                pick -= 1


@kernel
def _match_returns(where, players, totals, round_index, score_mode, out):
    """HK-4.3 each finished match's returns by its totals, into ``out``."""
    for b in range(where.shape[0]):
        if where[b]:
            _returns(totals[b], players[b], round_index[b] + 1, score_mode, out, b)


@kernel
def _returns(points, n, rounds, score_mode, out, b):
    """HK-4.3 rewards by ``points`` into ``out[b]``: zero-sum win shares, or score margins over
    ``SCORE_SCALE`` per round played (``hot_envs.heisse_karten.facts``)."""
    if score_mode:
        total = 0
        for s in range(n):
            total += points[s]
        for s in range(n):
            out[b, s] = (points[s] - (total - points[s]) / (n - 1)) / (SCORE_SCALE * rounds)
        return
    best = points[0]
    for s in range(1, n):
        best = max(best, points[s])
    winners = 0
    for s in range(n):
        if points[s] == best:
            winners += 1
    if winners == n:  # HK-4.2 everybody ties: nobody wins
        for s in range(n):
            out[b, s] = 0.0
        return
    for s in range(n):
        out[b, s] = 1.0 / winners if points[s] == best else -1.0 / (n - winners)


@kernel
def _apply(
    actions,
    done,
    rewards,
    trick,
    played_seat,
    played_card,
    taken,
    totals,
    rounds,
    target,
    score_mode,
    round_rewards,
    deck,
    rng,
    players,
    hands,
    pile,
    top,
    end,
    set_aside,
    aside,
    trick_len,
    played_len,
    taken_len,
    scores,
    round_index,
    first_leader,
    leader,
    current,
):
    """One card in every game not over: HK-3.1 play and draw, HK-3.2/3.3 a full trick goes to
    its winner, who leads next, HK-3.4/4.4 the round's end, the next round or the match's end."""
    for b in range(actions.shape[0]):
        if done[b]:
            continue
        n = players[b]
        p = current[b]
        card = actions[b] + 1
        hands[b, p] &= ~(1 << (card - 1))
        if top[b] < end[b]:  # HK-3.1 draw at once while the pile lasts
            hands[b, p] |= 1 << (pile[b, top[b]] - 1)
            top[b] += 1
        trick[b, trick_len[b]] = card
        trick_len[b] += 1
        played_seat[b, played_len[b]] = p
        played_card[b, played_len[b]] = card
        played_len[b] += 1
        if trick_len[b] < n:
            current[b] = p + 1 if p + 1 < n else 0
            continue
        best = 0  # HK-3.2 the highest black card, else the highest red one
        for i in range(1, n):
            if _RANK[trick[b, i]] > _RANK[trick[b, best]]:
                best = i
        winner = (leader[b] + best) % n
        for i in range(n):  # HK-3.3 the winner takes the trick; HK-4.1 its cards count
            taken[b, winner, taken_len[b, winner]] = trick[b, i]
            taken_len[b, winner] += 1
            scores[b, winner] += _VALUE[trick[b, i]]
        trick_len[b] = 0
        leader[b] = winner
        current[b] = winner
        if hands[b, winner] != 0:
            continue
        # HK-3.4 hands run out together: the round is over; HK-4.4 add it to the totals.
        if round_rewards:
            _returns(scores[b], n, 1, score_mode, rewards, b)
        reached = False
        for s in range(n):
            totals[b, s] += scores[b, s]
            reached = reached or (target != _NO_TARGET and totals[b, s] >= target)
        if round_index[b] + 1 >= rounds or reached:
            done[b] = True
            current[b] = -1
            if not round_rewards:
                _returns(totals[b], n, round_index[b] + 1, score_mode, rewards, b)
        else:
            round_index[b] += 1
            _deal_round(
                b,
                rng,
                players,
                hands,
                pile,
                top,
                end,
                set_aside,
                aside,
                trick_len,
                played_len,
                taken_len,
                scores,
                round_index,
                first_leader,
                leader,
                current,
                deck,
            )


@kernel
def _observe(
    seats,
    rows,
    out,
    players,
    hands,
    top,
    end,
    aside,
    trick,
    trick_len,
    leader,
    played_seat,
    played_card,
    played_len,
    taken_len,
    scores,
    totals,
    round_index,
    rounds,
    target,
):
    """HK-5 what seat ``seats[b]`` may know of game ``b = rows[i]``, in ``out[i]`` in
    ``LAYOUT`` (hot_envs.heisse_karten.encoding): seats relative to the observer, padded to 6;
    the same floats as ``encode``."""
    scale = target if target != _NO_TARGET else BLACK_SUM * rounds
    for i in range(rows.shape[0]):
        b = rows[i]
        player = seats[b]
        if player < 0:
            continue
        n = players[b]
        row = out[i]
        bits = hands[b, player]
        for k in range(NUM_CARDS):
            if bits >> k & 1:
                row[_HAND + k] = 1.0
        lead = (leader[b] - player) % n
        for i in range(trick_len[b]):
            row[_TRICK + ((lead + i) % n) * NUM_CARDS + trick[b, i] - 1] = 1.0
        for i in range(played_len[b]):
            seat = (played_seat[b, i] - player) % n
            row[_PLAYED + seat * NUM_CARDS + played_card[b, i] - 1] = 1.0
        taken_cards = 0
        for r in range(n):
            s = (player + r) % n
            row[_SCORES + r] = scores[b, s] / BLACK_SUM
            total = totals[b, s]
            if -scale <= total <= scale:
                row[_TOTALS + r] = total / scale
            else:
                row[_TOTALS + r] = 1.0 if total > 0 else -1.0
            size = 0
            for k in range(NUM_CARDS):
                size += (hands[b, s] >> k) & 1
            row[_HAND_SIZES + r] = size / HAND_SIZE
            row[_SEATS + r] = 1.0
            taken_cards += taken_len[b, s]
        row[_DRAW_PILE] = (end[b] - top[b]) / NUM_CARDS
        row[_SET_ASIDE_AT] = aside[b] / MAX_SET_ASIDE
        row[_NUM_PLAYERS + n - MIN_PLAYERS] = 1.0
        row[_LEADER + lead] = 1.0
        row[_TRICK_POSITION + trick_len[b]] = 1.0
        row[_TRICKS_DONE] = min(1.0, (taken_cards // n) / _TRICKS[n])
        row[_MATCH_ROUND] = round_index[b] / rounds
        if target != _NO_TARGET:
            row[_TARGET_MATCH] = 1.0

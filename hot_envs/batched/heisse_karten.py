"""Heiße Karten in arrays: :class:`ArrayHeisseKarten`, many games (or matches) at once.

One row per game, rules in compiled kernels (HK-1 … HK-5 in docs/rules.md, each id named where
its rule is written); :class:`hot_envs.heisse_karten.State` is the rule book they are tested
against, action for action (``tests/batched``).

Each game is one record of :data:`GAME` in ``table`` (a structured array, one row per game),
as in :mod:`hot_envs.batched.heisse_luft`: the kernels take a batch as one array and hand a
game's record from helper to helper as one pointer, and everything a move reads lies together
in memory. Its fields, by seat up to 6 (a game of ``n`` seats uses the first ``n``):

* ``hands[s]``: seat ``s``'s hand as a bit set, bit ``k - 1`` for card ``k`` — a legal mask,
  a play and a draw are one bit operation each.
* ``pile[top:end]``: the draw pile, top card first (as the state dict lists it);
  ``set_aside[:aside]`` the cards set aside unseen (HK-2.3).
* ``trick[:trick_len]``: the current trick in play order, led by ``leader``.
* ``played_seat``/``played_card[:played_len]``: every card of the round so far, in order.
* ``taken[s, :taken_len[s]]``: the cards seat ``s`` took, in the order it took them.
* ``scores``, ``totals``, ``round_index``, ``first_leader`` (drawn per game where the option is
  ``"random"``).

The class shows each field of every game as an attribute (``games.hands[b, s]``, a writable
view of ``table`` cut to the largest seat count); the base's ``_current``, ``_done``,
``_rewards`` and ``players`` stay arrays of their own, and ``_rng`` holds the games' streams.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hot_envs.batched.base import ArrayGames, bit_count, check_num_games
from hot_envs.batched.jit import COMPILED, kernel
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
_RANDOM_LEADER = -1  # the option first_leader="random" (HK-2.4), drawn per game

GAME = np.dtype(
    [  # what a move reads, the most often read first (the heuristic: up to played_seat)
        ("hands", np.int64, (MAX_PLAYERS,)),  # bit sets
        ("top", np.int64),
        ("end", np.int64),
        ("trick_len", np.int64),
        ("played_len", np.int64),
        ("leader", np.int64),
        ("trick", np.int64, (MAX_PLAYERS,)),  # in play order
        ("played_card", np.int64, (NUM_CARDS,)),
        ("played_seat", np.int64, (NUM_CARDS,)),
        ("scores", np.int64, (MAX_PLAYERS,)),
        ("taken_len", np.int64, (MAX_PLAYERS,)),
        ("totals", np.int64, (MAX_PLAYERS,)),
        ("round_index", np.int64),
        ("first_leader", np.int64),
        ("aside", np.int64),
        ("set_aside", np.int64, (MAX_SET_ASIDE,)),
        ("pile", np.int64, (NUM_CARDS,)),  # top card first
        ("taken", np.int64, (MAX_PLAYERS, NUM_CARDS)),
    ]
)
"""One game's record (module docstring). Every field is int64, as in Heiße Luft's: the same
arithmetic compiled and as plain Python."""


def _field(name: str, by_seat: bool = False) -> property:
    """Field ``name`` of every game as an attribute: a writable view of ``table``, a field by
    seat (or trick place) cut to the largest seat count."""

    def every_game(self: ArrayHeisseKarten) -> np.ndarray:
        view = self.table[name]
        return view[:, : self.num_players] if by_seat else view

    return property(every_game)


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

    hands = _field("hands", by_seat=True)
    pile = _field("pile")
    top = _field("top")
    end = _field("end")
    set_aside = _field("set_aside")
    aside = _field("aside")
    trick = _field("trick", by_seat=True)
    trick_len = _field("trick_len")
    leader = _field("leader")
    played_seat = _field("played_seat")
    played_card = _field("played_card")
    played_len = _field("played_len")
    taken = _field("taken", by_seat=True)
    taken_len = _field("taken_len", by_seat=True)
    scores = _field("scores", by_seat=True)
    totals = _field("totals", by_seat=True)
    round_index = _field("round_index")
    first_leader = _field("first_leader")

    def __init__(
        self,
        num_games: int,
        num_players: int = 4,
        round_rewards: bool = False,
        **options: Any,
    ) -> None:
        players = _player_counts(num_players, check_num_games(num_games))
        if not isinstance(round_rewards, bool):
            raise ValueError(f"round_rewards must be a bool, not {round_rewards!r}")
        random_leader = options.get("first_leader") == "random"
        if random_leader:
            options = {**options, "first_leader": 0}
        fewest = int(players.min())  # a fixed first leader must be a seat of every game
        resolved = serialize.resolve_options(fewest, np.random.default_rng(0), **options)
        super().__init__(num_games, int(players.max()), resolved)
        self.players = players  # each game's seat count (HK-2.1)
        self.round_rewards = round_rewards
        self._score_mode = resolved["reward_mode"] == "score"
        target, first_leader = resolved["target"], resolved["first_leader"]
        # What the kernels take of the options, a plain tuple in this order (numba takes one
        # as quickly as an int, a named tuple five times as slowly).
        self._rules = (
            int(resolved["rounds"]),
            _NO_TARGET if target is None else int(target),
            self._score_mode,
            round_rewards,
            _RANDOM_LEADER if random_leader else int(first_leader),
        )
        table = np.zeros(self.num_games, dtype=GAME)
        table["first_leader"] = first_leader
        # The kernels read a game's fields as attributes (r.hands): compiled, from a plain
        # structured array (numba takes a np.recarray five times as slowly); as Python
        # (NUMBA_DISABLE_JIT), from np.recarray's records.
        self.table = table if COMPILED else table.view(np.recarray)

    @classmethod
    def options_for(cls, state: State) -> dict[str, Any]:
        """``state``'s seat count and options; each loaded game keeps its own first leader."""
        options = {k: v for k, v in state.options.items() if k != "first_leader"}
        return {"num_players": state.num_players, **options}

    # -- the kernels' calls ---------------------------------------------------------------------

    def _deal(self, where: np.ndarray) -> None:
        _deal(where, self.table, self._rng, self.players, self._current, self._rules)

    def _first_illegal(self, actions: np.ndarray) -> int:
        return _first_illegal(actions, self.table, self._done, self._current)

    def _apply(self, actions: np.ndarray) -> None:
        self._apply_where(actions, self._done, self._rewards)

    def _apply_where(self, actions: np.ndarray, done: np.ndarray, rewards: np.ndarray) -> None:
        _apply(
            actions, self.table, self._rng, self.players, self._current, done, rewards, self._rules
        )

    def _legal(self, mask: np.ndarray) -> None:
        _legal(mask, self.table, self._current)

    def _observe(self, seats: np.ndarray, rows: np.ndarray, out: np.ndarray) -> None:
        _observe(seats, rows, out, self.table, self.players, self._rules)

    # -- one game as the per-game engine's dict -----------------------------------------------

    def state_dict(self, game: int) -> dict:
        b = self._game_index(game)
        r = self.table.view(np.ndarray)[b]  # a plain record's fields: quicker
        n = int(self.players[b])
        leader = int(r["leader"])
        current = int(self._current[b])
        trick = r["trick"][: r["trick_len"]].tolist()
        m = r["played_len"]
        return {
            "game": GAME_NAME,
            "num_players": n,
            "current_player": None if current < 0 else current,
            "leader": leader,
            "hands": [_cards(bits) for bits in r["hands"][:n].tolist()],
            "draw_pile": r["pile"][r["top"] : r["end"]].tolist(),
            "set_aside": r["set_aside"][: r["aside"]].tolist(),
            "trick": [[(leader + i) % n, card] for i, card in enumerate(trick)],
            "taken": [r["taken"][s, : r["taken_len"][s]].tolist() for s in range(n)],
            "played": np.column_stack((r["played_seat"][:m], r["played_card"][:m])).tolist(),
            "options": {**self.options, "first_leader": int(r["first_leader"])},
            "totals": r["totals"][:n].tolist(),
            "round": int(r["round_index"]),
        }

    def _game_arrays(self) -> list[np.ndarray]:
        return [*super()._game_arrays(), self.table]

    def _determinise(self, games: np.ndarray, seat: int) -> None:
        _determinise(games, seat, self.table, self._rng, self.players)

    def _finish_randomly(self, where: np.ndarray, returns: np.ndarray) -> None:
        skip = ~where  # the games _apply passes over; it marks each game that ends
        actions = np.zeros(self.num_games, dtype=np.int64)
        scratch = np.zeros_like(self._rewards)
        while not skip.all():
            _random_cards(skip, self.table, self._rng, self._current, actions)
            self._apply_where(actions, skip, scratch)
        _match_returns(where, self.table, self.players, self._score_mode, returns)
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
        record = np.zeros((), dtype=GAME)
        pile = loaded.to_dict()["draw_pile"]
        record["pile"][: len(pile)] = pile
        record["end"] = len(pile)
        record["aside"] = len(loaded.set_aside)
        record["set_aside"][: len(loaded.set_aside)] = loaded.set_aside
        record["trick_len"] = len(loaded.trick)
        record["trick"][: len(loaded.trick)] = loaded.trick
        record["played_len"] = len(loaded.played)
        for i, (seat, card) in enumerate(loaded.played):
            record["played_seat"][i], record["played_card"][i] = seat, card
        for s in range(n):
            record["hands"][s] = sum(1 << (card - 1) for card in loaded.hands[s])
            record["taken_len"][s] = len(loaded.taken[s])
            record["taken"][s, : len(loaded.taken[s])] = loaded.taken[s]
        record["scores"][:n], record["totals"][:n] = loaded.scores, loaded.totals
        record["round_index"], record["leader"] = loaded.round, loaded.leader
        record["first_leader"] = loaded.options["first_leader"]
        self.table[b] = record
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


def rollout_values(games: ArrayHeisseKarten, rows: Any, returns: np.ndarray) -> np.ndarray:
    """The search's ``rollout_value`` (``hot_envs.heisse_karten.spec``) of the finished games
    ``rows``: their ``returns`` plus half the score rewards of their totals (HK-4.3)."""
    rows = np.asarray(rows, dtype=np.int64)
    if not games.done[rows].all():
        raise ValueError("rollout values are for finished games only")
    where = np.zeros(games.num_games, dtype=bool)
    where[rows] = True
    scores = np.zeros((games.num_games, games.num_players))
    _match_returns(where, games.table, games.players, True, scores)
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
def _deal(where, t, rng, players, current, rules):
    """A new game or match where ``where`` is true: no totals yet, HK-2.4 the first leader
    (drawn from the game's stream where it is random), round 0 dealt."""
    first_leader = rules[4]
    deck = np.empty(NUM_CARDS, dtype=np.int64)
    for b in range(where.shape[0]):
        if not where[b]:
            continue
        r = t[b]
        r.totals[:] = 0
        if first_leader == _RANDOM_LEADER:
            r.first_leader = below(rng, b, players[b])
        else:
            r.first_leader = first_leader
        r.round_index = 0
        current[b] = _deal_round(r, rng, b, players[b], deck)


@kernel
def _deal_round(r, rng, b, n, deck):
    """HK-2.2 shuffle the 48 cards (``deck`` is scratch), deal 8 to each of the ``n`` seats,
    the rest is the draw pile, top first; HK-2.3 with 5 players its top 3 cards are set aside
    unseen; HK-2.4/HK-4.4 round r is led by the seat after round r-1's first leader. Returns
    the leader, the first to move."""
    for k in range(NUM_CARDS):
        deck[k] = k + 1
    shuffle(rng, b, deck, np.int64(NUM_CARDS))  # an int64: a literal compiles shuffle again
    for s in range(n):
        bits = 0
        for k in range(HAND_SIZE * s, HAND_SIZE * (s + 1)):
            bits |= 1 << (deck[k] - 1)
        r.hands[s] = bits
        r.taken_len[s] = 0
        r.scores[s] = 0
    first = HAND_SIZE * n
    r.aside = _SET_ASIDE[n]
    for k in range(r.aside):
        r.set_aside[k] = deck[first + k]
    count = 0
    for k in range(first + r.aside, NUM_CARDS):
        r.pile[count] = deck[k]
        count += 1
    r.top = 0
    r.end = count
    r.trick_len = 0
    r.played_len = 0
    r.leader = (r.first_leader + r.round_index) % n
    return r.leader


@kernel
def _first_illegal(actions, t, done, current):
    """HK-3.1 a player may play any card of their hand, and nothing else."""
    for b in range(actions.shape[0]):
        if done[b]:
            continue
        action = actions[b]
        if action < 0 or action >= NUM_ACTIONS or not (t[b].hands[current[b]] >> action) & 1:
            return b
    return -1


@kernel
def _legal(mask, t, current):
    """HK-3.1 the cards of the mover's hand."""
    for b in range(mask.shape[0]):
        if current[b] < 0:
            continue
        bits = t[b].hands[current[b]]
        for k in range(NUM_ACTIONS):
            if bits >> k & 1:
                mask[b, k] = True


@kernel
def _determinise(games, seat, t, rng, players):
    """The cards ``seat`` cannot see — the other hands, the draw pile and the set-aside cards
    (HK-2.2) — dealt again from the game's stream in the same sizes: ``State.from_view``'s
    deal."""
    pool = np.empty(NUM_CARDS, dtype=np.int64)
    for b in games:
        r = t[b]
        n = np.int64(0)  # not a literal 0, which would compile shuffle again
        for s in range(players[b]):
            if s != seat:
                for k in range(NUM_ACTIONS):
                    if r.hands[s] >> k & 1:
                        pool[n] = k + 1
                        n += 1
        for k in range(r.top, r.end):
            pool[n] = r.pile[k]
            n += 1
        for k in range(r.aside):
            pool[n] = r.set_aside[k]
            n += 1
        shuffle(rng, b, pool, n)
        n = 0
        for s in range(players[b]):
            if s != seat:
                count = bit_count(r.hands[s])
                hand = 0
                for k in range(count):
                    hand |= 1 << (pool[n + k] - 1)
                r.hands[s] = hand
                n += count
        for k in range(r.top, r.end):
            r.pile[k] = pool[n]
            n += 1
        for k in range(r.aside):
            r.set_aside[k] = pool[n]
            n += 1


@kernel
def _random_cards(skip, t, rng, current, out):
    """``out[b]``: a card of the mover's hand, uniformly from game ``b``'s stream, in each game
    not skipped."""
    for b in range(skip.shape[0]):
        if skip[b]:
            continue
        bits = t[b].hands[current[b]]
        pick = below(rng, b, bit_count(bits))
        for k in range(NUM_ACTIONS):
            if bits >> k & 1:
                if pick == 0:
                    out[b] = k
                    break
                pick -= 1


@kernel
def _match_returns(where, t, players, score_mode, out):
    """HK-4.3 each finished match's returns by its totals, into ``out``."""
    for b in range(where.shape[0]):
        if where[b]:
            _returns(t[b].totals, players[b], t[b].round_index + 1, score_mode, out, b)


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
def _apply(actions, t, rng, players, current, done, rewards, rules):
    """One card in every game not over: HK-3.1 play and draw, HK-3.2/3.3 a full trick goes to
    its winner, who leads next, HK-3.4/4.4 the round's end, the next round or the match's end."""
    rounds, target, score_mode, round_rewards, _ = rules
    deck = np.empty(NUM_CARDS, dtype=np.int64)
    for b in range(actions.shape[0]):
        if done[b]:
            continue
        r = t[b]
        n = players[b]
        p = current[b]
        card = actions[b] + 1
        r.hands[p] &= ~(1 << (card - 1))
        if r.top < r.end:  # HK-3.1 draw at once while the pile lasts
            r.hands[p] |= 1 << (r.pile[r.top] - 1)
            r.top += 1
        r.trick[r.trick_len] = card
        r.trick_len += 1
        r.played_seat[r.played_len] = p
        r.played_card[r.played_len] = card
        r.played_len += 1
        if r.trick_len < n:
            current[b] = p + 1 if p + 1 < n else 0
            continue
        best = 0  # HK-3.2 the highest black card, else the highest red one
        for i in range(1, n):
            if _RANK[r.trick[i]] > _RANK[r.trick[best]]:
                best = i
        winner = (r.leader + best) % n
        for i in range(n):  # HK-3.3 the winner takes the trick; HK-4.1 its cards count
            r.taken[winner, r.taken_len[winner]] = r.trick[i]
            r.taken_len[winner] += 1
            r.scores[winner] += _VALUE[r.trick[i]]
        r.trick_len = 0
        r.leader = winner
        current[b] = winner
        if r.hands[winner] != 0:
            continue
        # HK-3.4 hands run out together: the round is over; HK-4.4 add it to the totals.
        if round_rewards:  # one round (an int64: a literal 1 would compile _returns again)
            _returns(r.scores, n, np.int64(1), score_mode, rewards, b)
        reached = False
        for s in range(n):
            r.totals[s] += r.scores[s]
            reached = reached or (target != _NO_TARGET and r.totals[s] >= target)
        if r.round_index + 1 >= rounds or reached:
            done[b] = True
            current[b] = -1
            if not round_rewards:
                _returns(r.totals, n, r.round_index + 1, score_mode, rewards, b)
        else:
            r.round_index += 1
            current[b] = _deal_round(r, rng, b, n, deck)


@kernel
def _observe(seats, rows, out, t, players, rules):
    """HK-5 what seat ``seats[b]`` may know of game ``b = rows[i]``, in ``out[i]`` in
    ``LAYOUT`` (hot_envs.heisse_karten.encoding): seats relative to the observer, padded to 6;
    the same floats as ``encode``."""
    rounds, target = rules[0], rules[1]
    scale = target if target != _NO_TARGET else BLACK_SUM * rounds
    for i in range(rows.shape[0]):
        b = rows[i]
        player = seats[b]
        if player < 0:
            continue
        n = players[b]
        r = t[b]
        row = out[i]
        bits = r.hands[player]
        for k in range(NUM_CARDS):
            if bits >> k & 1:
                row[_HAND + k] = 1.0
        lead = (r.leader - player) % n
        for j in range(r.trick_len):
            row[_TRICK + ((lead + j) % n) * NUM_CARDS + r.trick[j] - 1] = 1.0
        for j in range(r.played_len):
            seat = (r.played_seat[j] - player) % n
            row[_PLAYED + seat * NUM_CARDS + r.played_card[j] - 1] = 1.0
        taken_cards = 0
        for k in range(n):
            s = (player + k) % n
            row[_SCORES + k] = r.scores[s] / BLACK_SUM
            total = r.totals[s]
            if -scale <= total <= scale:
                row[_TOTALS + k] = total / scale
            else:
                row[_TOTALS + k] = 1.0 if total > 0 else -1.0
            row[_HAND_SIZES + k] = bit_count(r.hands[s]) / HAND_SIZE
            row[_SEATS + k] = 1.0
            taken_cards += r.taken_len[s]
        row[_DRAW_PILE] = (r.end - r.top) / NUM_CARDS
        row[_SET_ASIDE_AT] = r.aside / MAX_SET_ASIDE
        row[_NUM_PLAYERS + n - MIN_PLAYERS] = 1.0
        row[_LEADER + lead] = 1.0
        row[_TRICK_POSITION + r.trick_len] = 1.0
        row[_TRICKS_DONE] = min(1.0, (taken_cards // n) / _TRICKS[n])
        row[_MATCH_ROUND] = r.round_index / rounds
        if target != _NO_TARGET:
            row[_TARGET_MATCH] = 1.0

"""What both array engines share: :class:`ArrayGames`, many games of one kind as arrays.

A game's array engine (:mod:`hot_envs.batched.heisse_karten`, :mod:`hot_envs.batched.heisse_luft`)
keeps the state of ``num_games`` games as arrays, one row per game (structure of arrays, as Pgx
does), and plays them with compiled kernels (:mod:`hot_envs.batched.jit`). It subclasses
:class:`ArrayGames` and writes the rules: ``_deal``, ``_apply``, ``_legal``, ``_observe``,
``_first_illegal``, ``state_dict`` and ``load``. Everything else — the public contract, seeding,
checking actions, dealing again where games ended — is written here once.

The per-game engine (``hot_envs.<game>.State``) stays the rule book: ``state_dict(i)`` is game
``i`` as that engine's dict, and the differential tests (``tests/batched``) play both side by
side and compare every state, mask, observation, reward and ending. Both engines draw every
chance event from the same per-game source (:mod:`hot_envs.core.chance`): a game dealt with
:meth:`ArrayGames.deal` from seed ``s`` is ``State.new(seed=s)``, and a State loaded with
:meth:`ArrayGames.load_state` brings its stream along, so each goes on exactly as the other.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from hot_envs.batched.jit import kernel
from hot_envs.batched.streams import seed_streams
from hot_envs.core.chance import Stream, stream_of
from hot_envs.core.engine import as_int

MAX_GAMES = 1 << 20
"""The most games one batch holds (a million: several GB for Heiße Luft's observations)."""


def check_num_games(num_games: Any) -> int:
    """``num_games`` as an int in 1..MAX_GAMES, else a ``ValueError`` saying why."""
    value = as_int(num_games)
    if value is None or not 1 <= value <= MAX_GAMES:
        raise ValueError(f"num_games must be an int from 1 to {MAX_GAMES}, not {num_games!r}")
    return value


class ArrayGames:
    """``num_games`` games of one kind as arrays (module docstring). The public contract:

    ``reset(seed)`` deals every game; ``current_player`` (int ``(B,)``, −1 where a game is
    over); ``legal_mask()`` (bool ``(B, num_actions)``); ``observe()`` (float32
    ``(B, observation_size)``, the seat to move, the environment's layout); ``step(actions)`` →
    ``(rewards, done)``; ``reset_done(seed)`` deals again where games are over;
    ``state_dict(i)`` / ``load(i, d)``. Arrays handed out are read-only views of the engine's
    own and change as it plays: copy what you keep.
    """

    game_name: ClassVar[str]
    num_actions: ClassVar[int]
    observation_size: ClassVar[int]
    engine: ClassVar[type]  # the per-game State: the rule book and the oracle

    def __init__(self, num_games: int, num_players: int, options: dict[str, Any]) -> None:
        self.num_games = check_num_games(num_games)
        self.num_players = num_players
        self.options = options
        self._rng = seed_streams(0, self.num_games)
        self._current = np.full(self.num_games, -1, dtype=np.int64)
        self._done = np.ones(self.num_games, dtype=bool)
        self._truncated = np.zeros(self.num_games, dtype=bool)
        self._rewards = np.zeros((self.num_games, num_players), dtype=np.float64)
        self.players = np.full(self.num_games, num_players, dtype=np.int64)  # seats per game
        self._all = np.ones(self.num_games, dtype=bool)
        self._every_row = np.arange(self.num_games, dtype=np.int64)

    @classmethod
    def options_for(cls, state: Any) -> dict[str, Any]:
        """The options of games that can hold the per-game engine's ``state``
        (:meth:`load_state`): ``cls(num_games, **options_for(state))``."""
        return dict(state.options)

    # -- the contract ---------------------------------------------------------------------------

    @property
    def current_player(self) -> np.ndarray:
        """The seat to move in each game, −1 where the game is over; int64 ``(B,)``."""
        return _read_only(self._current)

    @property
    def done(self) -> np.ndarray:
        """Which games are over (ended or truncated); bool ``(B,)``."""
        return _read_only(self._done)

    @property
    def truncated(self) -> np.ndarray:
        """Which games were cut off by a turn limit rather than ended by the rules."""
        return _read_only(self._truncated)

    def reset(self, seed: int | np.random.Generator | None = None) -> None:
        """Deal every game from fresh streams drawn from ``seed``: the same seed deals the
        same games (game ``i``'s deal depends on the seed and ``i`` only, each game's stream
        drawn at random from ``seed``'s generator, none a neighbour's). To deal game ``i`` as
        the per-game engine's ``State.new(seed=s)`` deals, give it that seed: :meth:`deal`."""
        self._rng[:] = seed_streams(seed, self.num_games)
        self._deal_where(self._all)

    def reset_done(self, seed: int | np.random.Generator | None = None) -> np.ndarray:
        """Deal again where games are over; returns which games were dealt. Without ``seed``
        each game's own stream goes on; with one, those games get fresh streams from it."""
        dealt = self._done.copy()
        if seed is not None:
            self._rng[dealt] = seed_streams(seed, int(dealt.sum()))
        self._deal_where(dealt)
        return dealt

    def deal(self, games: Any, seeds: Any, players: Any = None) -> None:
        """Deal games ``games`` (indices) anew, in progress or not: game ``games[j]`` from a
        fresh stream seeded by the int ``seeds[j]`` — the game ``State.new(seed=seeds[j])``
        deals and plays, chance events included (:mod:`hot_envs.core.chance`) — with
        ``players[j]`` seats where the game lets the count vary (None: as before)."""
        games = np.asarray(games, dtype=np.int64).reshape(-1)
        seeds = [as_int(seed) for seed in np.asarray(seeds, dtype=object).reshape(-1)]
        if len(seeds) != len(games) or any(
            seed is None or not 0 <= seed < 1 << 64 for seed in seeds
        ):
            raise ValueError(f"seeds must be {len(games)} ints from 0 to 2**64 - 1")
        if len(games) and (games.min() < 0 or games.max() >= self.num_games):
            raise ValueError(f"games must be indices from 0 to {self.num_games - 1}")
        if players is not None:
            self._set_seats(games, np.broadcast_to(np.asarray(players), games.shape))
        for game, seed in zip(games.tolist(), seeds, strict=True):
            self._rng[game] = stream_of(seed)
        where = np.zeros(self.num_games, dtype=bool)
        where[games] = True
        self._deal_where(where)

    def reseed(self, game: int, seed: int) -> None:
        """Give game ``game`` a fresh stream seeded by ``seed`` for its later chance events
        (a position loaded with :meth:`load` goes on from it)."""
        index, value = self._game_index(game), as_int(seed)
        if value is None or not 0 <= value < 1 << 64:
            raise ValueError(f"seed must be an int from 0 to 2**64 - 1, not {seed!r}")
        self._rng[index] = stream_of(value)

    def _set_seats(self, games: np.ndarray, counts: np.ndarray) -> None:
        """Give games ``games`` ``counts`` seats for their next deal (a game of one size:
        only its own count)."""
        if counts.dtype.kind not in "iu" or (counts != self.num_players).any():
            raise ValueError(f"these games have {self.num_players} seats, not {counts!r}"[:200])

    def legal_mask(self) -> np.ndarray:
        """The legal actions of the seat to move, bool ``(B, num_actions)`` in the
        environment's action ids; all ``False`` where a game is over."""
        mask = np.zeros((self.num_games, self.num_actions), dtype=bool)
        self._legal(mask)
        return mask

    def observe(
        self, seats: np.ndarray | None = None, rows: np.ndarray | None = None
    ) -> np.ndarray:
        """Observations, float32 ``(B, observation_size)``, the same floats as the
        environment's ``encode``: of the seat to move, or of ``seats`` (one per game; −1 gives
        a row of zeros, as does a finished game without ``seats``). With ``rows`` (game
        indices) only those games, one row each: ``observe(seats)[rows]`` without the rest."""
        if seats is None:
            seats = self._current
        else:
            seats = np.asarray(seats)
            if seats.shape != (self.num_games,) or seats.dtype.kind not in "iu":
                raise ValueError(f"seats must be {self.num_games} ints, not {seats!r}"[:200])
            if ((seats < -1) | (seats >= self.players)).any():
                raise ValueError("seats must lie in -1 .. each game's seat count - 1")
            seats = seats.astype(np.int64, copy=False)
        if rows is None:
            rows = self._every_row
        else:
            rows = np.asarray(rows)
            if rows.ndim != 1 or (rows.size and rows.dtype.kind not in "iu"):
                raise ValueError(f"rows must be game indices, not {rows!r}"[:200])
            if ((rows < 0) | (rows >= self.num_games)).any():
                raise ValueError(f"rows must lie in 0 .. {self.num_games - 1}")
            rows = rows.astype(np.int64, copy=False)
        out = np.zeros((len(rows), self.observation_size), dtype=np.float32)
        self._observe(seats, rows, out)
        return out

    def sample_legal(self, rng: np.random.Generator) -> np.ndarray:
        """One legal action per game, uniformly at random from ``rng`` (one draw per game);
        0 where a game is over. Random play's policy, without building a mask in Python."""
        actions = np.zeros(self.num_games, dtype=np.int64)
        _pick_legal(self.legal_mask(), rng.random(self.num_games), actions)
        return actions

    def step(self, actions: Any, where: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Play one action in every game that is not over, or only in the games ``where``
        (bool ``(B,)``) marks; the action of any other game is ignored. Returns ``rewards``
        (float64 ``(B, num_players)``, each game's returns on the step that ends it, else 0) and
        ``done`` (bool ``(B,)``): whether each game *is over* after this step — ended by the
        rules or truncated, on this step or before it (until ``reset_done`` deals it again) —
        a read-only view of the flags :attr:`done` shows, which change as the games play.
        The games that ended on this step are ``done & ~before``, with
        ``before = games.done.copy()`` taken before it. An illegal action in any game played
        is a ``ValueError`` naming the game, the action and why, and no game changes."""
        # The kernels pass over games that are over: the games left out are marked so for
        # the call, and their flags put back after it.
        left_out = None
        if where is not None:
            where = np.asarray(where)
            if where.shape != (self.num_games,) or where.dtype != bool:
                raise ValueError(f"where must be a bool array of shape ({self.num_games},)")
            left_out = ~where & ~self._done
            self._done[left_out] = True
        try:
            actions = self._check_actions(actions)
            self._rewards[:] = 0.0
            self._apply(actions)
        finally:
            if left_out is not None:
                self._done[left_out] = False
        return _read_only(self._rewards), _read_only(self._done)

    # -- checking -------------------------------------------------------------------------------

    def _check_actions(self, actions: Any) -> np.ndarray:
        array = np.asarray(actions)
        if array.shape != (self.num_games,) or array.dtype.kind not in "iu":
            raise ValueError(
                f"actions must be an int array of shape ({self.num_games},), "
                f"not {array.dtype} of shape {array.shape}"
            )
        array = array.astype(np.int64, copy=False)
        game = self._first_illegal(array)
        if game >= 0:
            raise ValueError(f"game {game}: {self._why_illegal(game, array[game])}")
        return array

    def _why_illegal(self, game: int, action: int) -> str:
        """The per-game engine's own words for why ``action`` is illegal in game ``game``."""
        state = self.engine.from_dict(self.state_dict(game))
        try:
            state.apply(int(action))
        except ValueError as error:
            return str(error)
        return f"action {action} was refused"  # pragma: no cover - the engines disagree

    def _deal_where(self, where: np.ndarray) -> None:
        self._done[where] = False
        self._truncated[where] = False
        self._deal(where)

    # -- what a game's engine writes -----------------------------------------------

    def _deal(self, where: np.ndarray) -> None:
        """Deal a new game in every row where ``where`` is true (from ``self._rng``)."""
        raise NotImplementedError

    def _first_illegal(self, actions: np.ndarray) -> int:
        """The first game (not over) whose action is illegal, or −1."""
        raise NotImplementedError

    def _apply(self, actions: np.ndarray) -> None:
        """Play ``actions`` (all legal) in the games not over; set ``_rewards``, ``_done``,
        ``_truncated`` and ``_current``."""
        raise NotImplementedError

    def _legal(self, mask: np.ndarray) -> None:
        raise NotImplementedError

    def _observe(self, seats: np.ndarray, rows: np.ndarray, out: np.ndarray) -> None:
        """``out[i]``: game ``rows[i]`` seen by seat ``seats[rows[i]]`` (left zero where
        that is −1)."""
        raise NotImplementedError

    def state_dict(self, game: int) -> dict:
        """Game ``game`` as the per-game engine's ``to_dict()`` gives it."""
        raise NotImplementedError

    def _load(self, game: int, state: Any) -> None:
        """Set row ``game`` to the checked per-game ``state`` (not finished)."""
        raise NotImplementedError

    def _determinise(self, games: np.ndarray, seat: int) -> None:
        """Deal what ``seat`` cannot see in ``games`` again (checked indices, in progress)."""
        raise NotImplementedError

    def _finish_randomly(self, where: np.ndarray, returns: np.ndarray) -> None:
        """Random moves from each game's stream until the games ``where`` end; their returns
        into ``returns``."""
        raise NotImplementedError

    def load(self, game: int, state: dict) -> None:
        """Set game ``game`` to the position ``state`` (a ``to_dict()`` dict, checked by the
        per-game engine's ``from_dict``); a finished position is a ``ValueError``. A dict holds
        no chance source: the game's later chance events come from its stream as it stands
        (:meth:`reseed` gives it another)."""
        self._load(self._game_index(game), self._checked(self.engine.from_dict(state)))

    def load_state(self, game: int, state: Any) -> None:
        """Set game ``game`` to the position of the per-game engine's ``state`` (a ``State``
        of this game with these games' options, not finished), without a round trip through
        its dict, and its stream to the State's chance source where that is a
        :class:`~hot_envs.core.chance.Stream` (an int seed's): the game then goes on exactly as
        the State goes on, chance events included. With another source (a numpy Generator)
        the game's own stream goes on as it stands."""
        index = self._game_index(game)
        self._load(index, self._checked(state))
        chance = state.rng
        if isinstance(chance, Stream):
            self._rng[index] = chance.state

    def _checked(self, state: Any) -> Any:
        """``state`` if it is a ``State`` of this game in progress, else a ``ValueError``."""
        if not isinstance(state, self.engine):
            raise ValueError(f"state must be a {self.game_name} State, not {type(state).__name__}")
        if state.is_terminal():
            raise ValueError("the state is a finished game; load a game in progress")
        return state

    def copy_games(self, source: Any, target: Any) -> None:
        """Make each game ``target[j]`` a copy of game ``source[j]``: its position, its stream
        and its seat count. Many copies of one position, each played on differently, are what
        a search needs."""
        source = np.asarray(source, dtype=np.int64).reshape(-1)
        target = np.asarray(target, dtype=np.int64).reshape(-1)
        if source.shape != target.shape:
            raise ValueError("source and target must name as many games")
        for index in (source, target):
            if len(index) and (index.min() < 0 or index.max() >= self.num_games):
                raise ValueError(f"games must be indices from 0 to {self.num_games - 1}")
        for array in self._game_arrays():
            array[target] = array[source]

    def determinise(self, games: Any, seat: int) -> None:
        """Deal again, at random from each game's stream, every card that ``seat`` cannot see
        in the games ``games`` (indices): each stays a game that gives ``seat`` the same view
        (``State.view(seat)``), drawn as ``State.from_view`` draws one. A search samples the
        worlds it plays in with it."""
        games = np.asarray(games, dtype=np.int64).reshape(-1)
        if len(games) and (games.min() < 0 or games.max() >= self.num_games):
            raise ValueError(f"games must be indices from 0 to {self.num_games - 1}")
        if len(games) and self._done[games].any():
            raise ValueError("only games in progress can be dealt again")
        value = as_int(seat)
        if value is None or not (0 <= value < self.players[games]).all():
            raise ValueError(f"seat must be a seat of every game, not {seat!r}")
        self._determinise(games, value)

    def finish_randomly(self, where: np.ndarray | None = None) -> np.ndarray:
        """Play the games ``where`` marks (default: all) to their end by uniformly random legal
        moves drawn from each game's stream; returns each game's returns, float64
        ``(B, num_players)`` (0 in the rows not played). Random rollouts in one call."""
        where = self._all if where is None else np.asarray(where, dtype=bool)
        if where.shape != (self.num_games,):
            raise ValueError(f"where must be a bool array of shape ({self.num_games},)")
        returns = np.zeros((self.num_games, self.num_players), dtype=np.float64)
        self._finish_randomly(where & ~self._done, returns)
        return returns

    def _game_arrays(self) -> list[np.ndarray]:
        """Every array with one row per game: what :meth:`copy_games` copies."""
        return [self._rng, self._current, self._done, self._truncated, self.players]

    def _game_index(self, game: Any) -> int:
        index = as_int(game)
        if index is None or not 0 <= index < self.num_games:
            raise ValueError(f"game must be an int from 0 to {self.num_games - 1}, not {game!r}")
        return index


@kernel
def bit_count(bits):
    """The number of set bits of ``bits`` (≥ 0): the cards of a hand held as a bit set."""
    count = 0
    while bits != 0:
        bits &= bits - 1
        count += 1
    return count


@kernel
def _pick_legal(mask: np.ndarray, uniform: np.ndarray, out: np.ndarray) -> None:
    """``out[b]``: the ``floor(uniform[b] * count)``-th legal action of row ``b``."""
    for b in range(mask.shape[0]):
        count = 0
        for a in range(mask.shape[1]):
            count += mask[b, a]
        if count == 0:
            continue
        pick = int(uniform[b] * count)
        for a in range(mask.shape[1]):
            if mask[b, a]:
                if pick == 0:
                    out[b] = a
                    break
                pick -= 1


def _read_only(array: np.ndarray) -> np.ndarray:
    view = array.view()
    view.flags.writeable = False
    return view

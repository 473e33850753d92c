"""The one step loop of the single-agent environments: :class:`Driver` (docs/environments.md,
"One learner, many games").

``num_envs`` games side by side, one *learner* seat in each, every other seat played by an agent
of an :class:`~hot_envs.agents.opponents.OpponentPool`: the driver deals, plays the opponents
until the learner's turn, applies the learners' actions and scores the games that end, once for
every env over it (as Pgx's ``core.Env``). The games are rows of the game's array engine
(:mod:`hot_envs.batched`); the opponents move in rounds, the games whose seat to move is played by
one agent decided in one ``act_arrays`` call (:mod:`hot_envs.agents.arrays`), every action
checked, then one step of the engine for the round. A learner's row is the engine's observation
or a policy's :class:`PolicyInput`, and with ``critic_state=True`` the full state after it (an
actor reads the leading ``actor_size`` entries only, :mod:`hot_envs.training.policies`).

Each new game draws its player count, its deal seed (``deal_seeds[i]``: the game is the per-game
``State.new(seed=deal_seeds[i])``, and the array engine's ``deal([i], [seed])`` deals it again),
the learner's seat and its opponents from the game's generator (a position set up instead gets
its chance source from it), so the same generator gives the same game however many games the
driver plays. Each opponent a new game seats starts afresh (its ``reset()``, where it has one).

>>> driver = Driver("heisse-karten", num_envs=2, players=3)
>>> driver.reset([np.random.default_rng(0), np.random.default_rng(1)])
>>> rewards, terminated, truncated, finals = driver.step([int(m.argmax()) for m in driver.masks])
>>> driver.observe()
>>> driver.observations.shape, rewards.dtype
((2, 670), dtype('float32'))
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from typing import Any, Protocol

import numpy as np
from gymnasium import spaces

from hot_envs import batched
from hot_envs.agents.arrays import ArrayAgent, as_array_agent
from hot_envs.agents.opponents import Opponent, OpponentPool, OpponentSource
from hot_envs.core.engine import GameState
from hot_envs.core.games import DEFAULT_GAME, get_game
from hot_envs.core.scoring import score_returns

ROTATE = "rotate"
_LEARNER = -1  # the learner's seat in the table of each game's seat agents


class PolicyInput(Protocol):
    """What a policy reads in place of the observation (``policy_input=`` of the envs): ``size``
    entries, one row from an observation and a view (``one``), or the same rows for many games of
    an array engine at once (``arrays``: row ``j`` for seat ``seats[j]`` of game ``which[j]``)."""

    @property
    def size(self) -> int: ...

    def one(self, observation: np.ndarray, view: dict[str, Any]) -> np.ndarray: ...

    def arrays(
        self,
        games: batched.ArrayGames,
        which: np.ndarray,
        seats: np.ndarray,
        observations: np.ndarray,
        out: np.ndarray,
    ) -> None: ...


@dataclass(frozen=True)
class DriverOptions:
    """What the games of a :class:`Driver` are: the keyword arguments of the driver and every env
    over it, each explained in docs/environments.md ("One learner against opponents"). ``players``
    may be given as ``num_players`` (:meth:`of`); ``policy_input`` and ``critic_state`` are what
    the learners' rows hold (module docstring)."""

    game: str = DEFAULT_GAME
    opponents: OpponentPool | Iterable[Opponent | OpponentSource | tuple] | None = None
    learner_seat: int | str = ROTATE
    players: int | Sequence[int] | None = None
    game_options: dict[str, Any] | None = None
    shaping: float = 0.0
    policy_input: PolicyInput | None = None
    critic_state: bool = False

    @classmethod
    def of(cls, game: str = DEFAULT_GAME, **options: Any) -> DriverOptions:
        """The options from keyword arguments (``TypeError`` for one that is no option, or for
        both ``players`` and ``num_players``)."""
        num_players = options.pop("num_players", None)
        if num_players is not None:
            if options.get("players") is not None:
                raise TypeError("give players= or num_players= (the same option), not both")
            options["players"] = num_players
        unknown = sorted(set(options) - {f.name for f in fields(cls)})
        if unknown:
            raise TypeError(f"unexpected keyword argument {', '.join(map(repr, unknown))}")
        return cls(game, **options)

    def __post_init__(self) -> None:
        # The player count is an option of its own: in game_options it would clash with it.
        if self.game_options and "num_players" in self.game_options:
            count = self.game_options["num_players"]
            raise ValueError(
                f"game_options takes no player count: give num_players={count!r} (or "
                f"players={count!r}) as an argument of its own"
            )


class FromDriver:
    """An attribute of an env that is its driver's (where the env's state lives): read through,
    and written through where ``writable``."""

    def __init__(self, writable: bool = False) -> None:
        self.writable = writable

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, env: Any, owner: type | None = None) -> Any:
        return self if env is None else getattr(env.driver, self.name)

    def __set__(self, env: Any, value: Any) -> None:
        if not self.writable:
            raise AttributeError(f"{type(env).__name__}.{self.name} is read-only")
        setattr(env.driver, self.name, value)


class DrivenEnv:
    """What the envs over a :class:`Driver` share: the driver's settings as their own attributes
    (read through to the driver; ``pool`` and ``shaping`` written there too), and changes to the
    opponent pool, which reach new games (games in progress keep their opponents)."""

    driver: Driver
    description = FromDriver()
    game_name = FromDriver()
    engine = FromDriver()
    game_options = FromDriver()
    player_counts = FromDriver()
    learner_seat_option = FromDriver()
    policy_input = FromDriver()
    critic_state = FromDriver()
    actor_size = FromDriver()
    pool = FromDriver(writable=True)
    shaping = FromDriver(writable=True)

    def set_opponent(self, name: str, source: OpponentSource | None, weight: float = 1.0) -> None:
        """Add or replace a pool entry, or (``source=None``) change its weight."""
        self.pool.set(name, source, weight)

    def remove_opponent(self, name: str) -> None:
        """Remove a pool entry (no error if it is not there)."""
        self.pool.remove(name)


class Driver:
    """``num_envs`` games, one learner seat each, against a pool (module docstring).

    ``game`` and ``options``: the fields of :class:`DriverOptions`, as the envs take them. Bad
    arguments fail here: one game is dealt per player count."""

    def __init__(self, game: str = DEFAULT_GAME, num_envs: int = 1, **options: Any) -> None:
        self.options = DriverOptions.of(game, **options)
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, not {num_envs!r}")
        self.num_envs = num_envs
        self.description = get_game(self.options.game)
        self.game_name, self.engine = self.description.name, self.description.engine
        opponents = ["random"] if self.options.opponents is None else self.options.opponents
        self.pool = opponents if isinstance(opponents, OpponentPool) else OpponentPool(opponents)
        self.game_options = dict(self.options.game_options or {})
        players = self.options.players
        single = players is None or isinstance(players, int)
        self.player_counts: tuple[int | None, ...] = (players,) if single else tuple(players)
        for n in self.player_counts:
            if n is not None:
                self.description.check_players(n)
        # One game dealt per player count: bad options fail here.
        deals = [self.description.options(n, self.game_options) for n in self.player_counts]
        seats = {self.engine.State.new(seed=0, **options).num_players for options in deals}
        learner_seat = self.learner_seat_option = self.options.learner_seat
        if learner_seat != ROTATE and not (
            isinstance(learner_seat, int) and 0 <= learner_seat < min(seats)
        ):
            raise ValueError(f"learner_seat must be a seat below {min(seats)} or 'rotate'")
        if self.options.shaping and self.description.shaping is None:
            raise ValueError(f"{self.description.title} has no reward shaping (its spec's shaping)")
        self.shaping = float(self.options.shaping)
        self.policy_input = self.options.policy_input
        if self.policy_input is None:
            low, high = self.engine.LAYOUT.low, self.engine.LAYOUT.high
        else:
            high = np.full(self.policy_input.size, np.inf, dtype=np.float32)
            low = -high
        #: the entries of a learner's row its actor reads (all of them without ``critic_state``)
        self.actor_size = len(low)
        self.critic_state = self.options.critic_state
        if not isinstance(self.critic_state, bool):
            raise ValueError(f"critic_state must be True or False, not {self.critic_state!r}")
        if self.critic_state:  # the state's entries follow, for the critic alone
            raw_env = self.description.env.raw_env
            self._encode_state, state = raw_env.encode_state, raw_env.state_layout
            low, high = np.concatenate([low, state.low]), np.concatenate([high, state.high])
        self.observation_space = spaces.Box(low, high, dtype=np.float32)

        # The games, as rows of the game's array engine (room for the most seats drawn).
        self.max_seats = max(seats)
        self._counts_vary = self.description.min_players != self.description.max_players
        sizes = {"num_players": np.full(num_envs, self.max_seats)} if self._counts_vary else {}
        self.arrays = batched.make(self.game_name, num_envs, **sizes, **self.game_options)
        self.dealt = False  # whether reset has dealt the games
        # Per game: the learner's seat, the pool entry and array agent of every other seat.
        self.seats = np.zeros(num_envs, dtype=np.int64)
        self.num_players = np.zeros(num_envs, dtype=np.int64)
        self.deal_seeds: list[int] = [0] * num_envs
        self.opponent_names: list[list[str | None]] = [[] for _ in range(num_envs)]
        self.seat_agents: list[list[ArrayAgent | None]] = [[] for _ in range(num_envs)]
        self._codes = np.full((num_envs, self.max_seats), _LEARNER, dtype=np.int64)
        self._array_agents: dict[str, tuple[Any, ArrayAgent, int]] = {}  # entry → agent, code
        self._by_code: dict[int, ArrayAgent] = {}  # the agents games in progress may seat
        self._next_code = 0
        self._drawn: tuple[tuple, tuple[list[str], np.ndarray]] | None = None  # _entries' last
        self._potentials = np.zeros(num_envs, dtype=np.float64)
        self._returns = np.zeros((num_envs, self.max_seats), dtype=np.float64)  # at each end
        self._all = np.arange(num_envs)
        # Buffers reused by every step: the learners' rows and masks.
        self.observations = np.zeros((num_envs, *self.observation_space.shape), dtype=np.float32)
        self.masks = np.zeros((num_envs, self.engine.NUM_ACTIONS), dtype=np.int8)

    # ------------------------------------------------------------------ the loop

    def reset(
        self,
        rngs: Sequence[np.random.Generator],
        state: dict[str, Any] | None = None,
        seat: int | str | None = None,
    ) -> None:
        """Deal every game anew (game ``i`` from generator ``rngs[i]``) and observe the
        learners; ``state`` and ``seat`` as :meth:`new_games`."""
        self.dealt = False
        self.new_games(range(self.num_envs), rngs, state, seat)
        self.dealt = True
        self.observe()

    def new_games(
        self,
        indices: Iterable[int],
        rngs: Sequence[np.random.Generator],
        state: dict[str, Any] | None = None,
        seat: int | str | None = None,
    ) -> None:
        """Deal game ``i`` of ``indices`` from ``rngs[i]`` (or set up ``state``, a
        ``State.to_dict()`` game in progress), seat the learner (``seat`` overrides the rule),
        draw the opponents, then play them up to every learner's first decision."""
        indices = sorted(indices)
        if not indices:
            return
        names, p = self._entries()
        seeds, counts = [], []
        for i in indices:
            deal = self._new_game(i, rngs[i], names, p, state, seat)
            if deal is not None:
                seeds.append(deal[0])
                counts.append(deal[1])
        if seeds:  # the batch's deals, in one call of the engine
            dealt = indices if state is None else []
            self.arrays.deal(dealt, seeds, counts if self._counts_vary else None)
        for i in indices:
            self.num_players[i] = self.arrays.players[i]
        self._forget_unseated()
        self.play_opponents(np.array(indices))
        for i in indices:
            if self.arrays.done[i]:
                raise ValueError(
                    f"game {i} ends before the learner's first decision (learner seat "
                    f"{self.seats[i]}; a turn_limit that small leaves the learner no move)"
                )
            if self.shaping:
                self._potentials[i] = self._potential(i)

    def step(
        self, actions: Sequence[int]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[int, dict[str, Any]]]:
        """Apply each learner's (legal) action and play the opponents up to each learner's next
        decision or the end: rewards (the learner's return at the end, plus shaping),
        terminated, truncated, and the final info of each game that ended, by index."""
        rewards, terminated, truncated, finals = self._advance(actions)
        return rewards.astype(np.float32), terminated, truncated, finals

    def _advance(
        self, actions: Sequence[int]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[int, dict[str, Any]]]:
        """:meth:`step` with the rewards in float64."""
        self._step(np.asarray(actions, dtype=np.int64), ~self.arrays.done)
        self.play_opponents(self._all)
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        done = self.arrays.done
        truncated = done & self.arrays.truncated
        terminated = done & ~truncated
        finals = {}
        for i in np.flatnonzero(done).tolist():
            seat = int(self.seats[i])
            returns = self._returns[i, : self.num_players[i]].tolist()
            finals[i] = final = {**self.info(i), **score_returns(returns, seat)}
            rewards[i] = final["returns"][seat]
        if self.shaping:  # c · (Φ(s') − Φ(s)); Φ = 0 at the end; a new game's Φ is no reward
            after = np.array([self._potential(i) for i in range(self.num_envs)])
            rewards += self.shaping * (after - self._potentials)
            self._potentials = after
        return rewards, terminated, truncated, finals

    def step_one(self, action: int) -> tuple[float, bool, bool, dict[str, Any] | None]:
        """:meth:`step` of a one-game driver (``num_envs=1``) as Python values: the reward (in
        float64, not rounded to the batch's float32), terminated, truncated and the final info
        (``None`` while the game goes on)."""
        if self.num_envs != 1:
            raise ValueError(f"step_one steps a one-game driver, not one of {self.num_envs} games")
        rewards, terminated, truncated, finals = self._advance([action])
        return float(rewards[0]), bool(terminated[0]), bool(truncated[0]), finals.get(0)

    def observe(self) -> None:
        """``observations`` and ``masks``: every learner's input and legal actions now (no legal
        action where its game is over)."""
        to_move = self.arrays.current_player == self.seats
        np.copyto(self.masks, self.arrays.legal_mask() & to_move[:, None], casting="unsafe")
        self._learner_rows(None, self.observations)

    def learner_observation(self, i: int) -> np.ndarray:
        """The learner's observation in game ``i`` (also of a finished game: a truncated
        episode's value is bootstrapped from it)."""
        row = np.zeros((1, *self.observation_space.shape), dtype=np.float32)
        self._learner_rows(np.array([i]), row)
        return row[0]

    def _learner_rows(self, which: np.ndarray | None, out: np.ndarray) -> None:
        """The learners' rows of games ``which`` (``None``: every game) into ``out``: the
        observation, or the policy's input (its ``arrays``, or else one row at a time from the
        per-game state's view), then the full state where ``critic_state`` asks for it."""
        observed = self.arrays.observe(self.seats, rows=which)
        which = self._all if which is None else which
        actor, policy_input = out[:, : self.actor_size], self.policy_input
        if policy_input is None:
            actor[:] = observed
        elif callable(getattr(policy_input, "arrays", None)):
            policy_input.arrays(self.arrays, which, self.seats[which], observed, actor)
        else:
            for j, i in enumerate(which.tolist()):
                seat = int(self.seats[i])
                actor[j] = policy_input.one(observed[j], self.state(i).view(seat))
        if self.critic_state:
            for j, i in enumerate(which.tolist()):
                out[j, self.actor_size :] = self._encode_state(self.state(i))

    def info(self, i: int) -> dict[str, Any]:
        """Game ``i``'s ``learner_seat``, ``num_players`` and ``opponents`` (per seat)."""
        return {
            "learner_seat": int(self.seats[i]),
            "num_players": int(self.num_players[i]),
            "opponents": list(self.opponent_names[i]),
        }

    def state(self, i: int) -> GameState:
        """Game ``i`` as the per-game engine's ``State`` (a copy: playing it moves nothing
        here)."""
        return self.engine.State.from_dict(self.arrays.state_dict(i))

    @property
    def games(self) -> list[GameState]:
        """Every game as the per-game engine's ``State`` (copies; empty before ``reset``)."""
        return [self.state(i) for i in range(self.num_envs)] if self.dealt else []

    # ------------------------------------------------------------------ opponents

    def play_opponents(self, indices: np.ndarray) -> None:
        """Play the non-learner seats of the games ``indices`` until each is at its learner or
        over: in rounds, one ``act_arrays`` call per agent and one step of the engine a round."""
        arrays = self.arrays
        chosen = np.zeros(self.num_envs, dtype=np.int64)
        considered = np.zeros(self.num_envs, dtype=bool)
        considered[indices] = True
        while True:
            current = arrays.current_player
            pending = considered & (current >= 0) & (current != self.seats)
            which = np.flatnonzero(pending)
            if not len(which):
                return
            codes = self._codes[which, current[which]]
            for code in [codes[0]] if (codes == codes[0]).all() else np.unique(codes).tolist():
                members = which[codes == code]
                actions = np.asarray(self._by_code[code].act_arrays(arrays, members))
                if actions.shape != members.shape or actions.dtype.kind not in "iu":
                    raise ValueError(
                        f"{self._by_code[code]!r}.act_arrays gave {actions!r}, not "
                        f"{len(members)} action ids"
                    )
                chosen[members] = actions
            try:  # the engine checks every action before any game moves
                self._step(chosen, pending)
            except ValueError:
                self._name_illegal(which, current, chosen)
                raise

    def _name_illegal(self, which: np.ndarray, current: np.ndarray, chosen: np.ndarray) -> None:
        """Raise the error that names the opponent whose action the engine refused."""
        legal = self.arrays.legal_mask()
        for i in which.tolist():
            action, seat = int(chosen[i]), int(current[i])
            if not (0 <= action < legal.shape[1] and legal[i, action]):
                raise ValueError(
                    f"opponent {self.opponent_names[i][seat]!r} in seat {seat} of game {i} "
                    f"chose the illegal action {action!r}; "
                    f"legal: {np.flatnonzero(legal[i]).tolist()}"
                )

    def _step(self, actions: np.ndarray, where: np.ndarray) -> None:
        """One step of the engine in the games ``where``; the returns of those that end."""
        was_done = self.arrays.done.copy()
        rewards, done = self.arrays.step(actions, where=where)
        ended = done & ~was_done
        self._returns[ended] = rewards[ended]

    def _array_entry(self, name: str, rng: np.random.Generator) -> tuple[Any, ArrayAgent, int]:
        agent = self.pool.agent(name, self.game_name, rng)
        cached = self._array_agents.get(name)
        if cached is None or cached[0] is not agent:
            array_agent = as_array_agent(self.game_name, agent)
            self._by_code[self._next_code] = array_agent
            cached = self._array_agents[name] = (agent, array_agent, self._next_code)
            self._next_code += 1
        return cached

    def _forget_unseated(self) -> None:
        """Drop the agents no pool entry holds and no game seats any more (a league's replaced
        snapshots: their networks would pile up over a long run)."""
        kept = {entry[2] for entry in self._array_agents.values()}
        kept.update(np.unique(self._codes).tolist())
        for code in set(self._by_code) - kept:
            del self._by_code[code]

    def _entries(self) -> tuple[list[str], np.ndarray]:
        """The pool's entry names and draw probabilities now (stale array agents dropped;
        kept from the last deal while the names and weights are the same)."""
        key = tuple((name, entry.weight) for name, entry in self.pool.entries.items())
        if self._drawn is not None and self._drawn[0] == key:
            return self._drawn[1]
        names = list(self.pool.entries)
        weights = np.array([self.pool.entries[n].weight for n in names], dtype=np.float64)
        if weights.sum() <= 0.0:
            raise ValueError("every opponent in the pool has weight 0")
        for name in set(self._array_agents) - set(names):
            del self._array_agents[name]
        self._drawn = key, (names, weights / weights.sum())
        return self._drawn[1]

    def _new_game(
        self,
        i: int,
        rng: np.random.Generator,
        names: list[str],
        p: np.ndarray,
        state: dict[str, Any] | None,
        seat: int | str | None,
    ) -> tuple[int, int] | None:
        """Game ``i``: its deal, learner seat and opponents, drawn from ``rng``. Returns the
        deal's seed and player count for the engine to deal, or ``None`` where the game is
        set up here from ``state`` (with a chance source seeded from ``rng``)."""
        counts, deal = self.player_counts, None
        if state is not None:
            game = self.engine.State.from_dict(state, seed=int(rng.integers(2**63)))
            if game.is_terminal():
                raise ValueError("reset's state must be a game in progress")
            self.arrays.load_state(i, game)  # its stream too: later shuffles as the State's
            n = game.num_players
        else:
            count = counts[int(rng.integers(len(counts)))] if len(counts) > 1 else counts[0]
            self.deal_seeds[i] = int(rng.integers(2**63))
            n = self.max_seats if count is None else count
            deal = (self.deal_seeds[i], n)
        option = self.learner_seat_option if seat is None else seat
        learner = int(rng.integers(n)) if option == ROTATE else int(option)
        if not 0 <= learner < n:
            raise ValueError(f"learner seat {learner} in a {n}-player game")
        self.seats[i] = learner
        drawn = iter(rng.choice(len(names), size=n - 1, p=p).tolist())
        self.opponent_names[i] = [None if s == learner else names[next(drawn)] for s in range(n)]
        entries = [
            None if name is None else self._array_entry(name, rng)
            for name in self.opponent_names[i]
        ]
        self.seat_agents[i] = [None if entry is None else entry[1] for entry in entries]
        self._codes[i] = _LEARNER
        self._codes[i, :n] = [_LEARNER if entry is None else entry[2] for entry in entries]
        for entry in {id(e[0]): e for e in entries if e is not None}.values():
            if callable(getattr(entry[0], "reset", None)):  # a new game: it starts afresh
                entry[0].reset()
        return deal

    # ------------------------------------------------------------------ shaping

    def _potential(self, i: int) -> float:
        if self.arrays.done[i]:
            return 0.0
        seat = int(self.seats[i])
        return self.description.shaping(self.state(i).view(seat), seat)

"""The one step loop of the single-agent environments: :class:`Driver`.

``num_envs`` games side by side, one *learner* seat in each, every other seat played by an agent
of an :class:`~hot_envs.agents.opponents.OpponentPool`. The driver deals a game, plays the opponents
until the learner's turn, applies the learners' actions and scores the games that end (returns,
winners, win share, success, shaping rewards) — once, for every consumer, as Pgx's ``core.Env``
is one step that its users batch: :class:`~hot_envs.envs.single_agent.SingleAgentEnv` is its
one-game view, :class:`~hot_envs.envs.vector.VectorSingleAgentEnv` its Gymnasium batch (which deals
a finished game anew), and the worker-process and stable-baselines3 envs move that batch's data.

The opponents' moves are batched: each round, the games whose seat to move is played by one
agent are decided in one ``act_batch`` call (:mod:`hot_envs.agents.batched`); ordinary agents
play seat by seat through ``act(observation, view)``, but a game's own heuristic decides a round
with the batched feature arithmetic where the game has that
(:func:`~hot_envs.agents.features_batch.batched_heuristic`: the same actions and the same draws
from its generator as its ``act``). Every opponent action is checked first. The environments
emit the game's observation (of many games at once through the engine's ``encode_rows`` where
it has one); a policy that reads something else gives them its :class:`PolicyInput` (the action
scorers' is :class:`~hot_envs.agents.features_batch.ActionScorerInput`), which the driver
computes for all learners at once, from their observations and views. A training run whose
critic sees the whole table (``critic_state=True``) gets the game's full state (the env's
``state()``, hidden cards included) appended to each learner's row, after what its policy reads:
the actor must read the leading ``actor_size`` entries only (:mod:`hot_envs.training.policies`).

``single=True`` keeps the one-game env's own conventions, so a seed deals the games it always
dealt: a deal draws from the game's generator itself (the batched env draws an int seed per deal
instead, kept in ``deal_seeds`` so the game can be dealt again, and draws a player count only
where there is a choice); every opponent plays through ``act``, move by move, and is reset at
each deal (it may keep memory within its one game); rewards are float64 (the batched env's
float32), and :meth:`Driver.step_one` gives one game's step as Python values.

>>> driver = Driver("heisse-karten", num_envs=2, players=3)
>>> driver.reset([np.random.default_rng(0), np.random.default_rng(1)])
>>> rewards, terminated, truncated, finals = driver.step([int(m.argmax()) for m in driver.masks])
>>> driver.observe()
>>> driver.observations.shape, rewards.dtype
((2, 670), dtype('float32'))
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import chain
from typing import Any, Protocol

import numpy as np
from gymnasium import spaces

from hot_envs.agents.base import observe
from hot_envs.agents.batched import BatchedAgent, PerSeatAgent, as_batched
from hot_envs.agents.features_batch import batched_heuristic
from hot_envs.agents.opponents import Opponent, OpponentPool, OpponentSource
from hot_envs.core.engine import GameState, SeatViews
from hot_envs.core.games import DEFAULT_GAME, get_game
from hot_envs.core.scoring import score

ROTATE = "rotate"
# An ordinary agent's seats go through the shared buffers (and PerSeatAgent) from this many
# rows on, where that costs less per row than a fresh observation each; fewer, as in a one-game
# env, are observed one by one (measured: ~15 µs a decision less for one row, ~2 µs more at 64).
_BUFFERED_ROWS = 8


class PolicyInput(Protocol):
    """What a policy reads in place of the observation, computed from the learner's observation
    and view (``policy_input=`` of the envs): ``size`` entries, one row (``one``) or a batch of
    rows (``batch``, the same rows as ``one`` gives one by one; its views are a
    :class:`~hot_envs.core.engine.SeatViews`, each made only if read)."""

    @property
    def size(self) -> int: ...

    def one(self, observation: np.ndarray, view: dict[str, Any]) -> np.ndarray: ...

    def batch(self, observations: np.ndarray, views: Sequence[dict[str, Any]]) -> np.ndarray: ...


def driven(name: str, writable: bool = False) -> property:
    """A property of an env that reads (and, ``writable``, sets) attribute ``name`` of its
    ``driver``: the env's state lives in the driver alone."""

    def get(env: Any) -> Any:
        return getattr(env.driver, name)

    def set_(env: Any, value: Any) -> None:
        setattr(env.driver, name, value)

    return property(get, set_ if writable else None, doc=f"The driver's ``{name}``.")


class DrivenEnv:
    """What the envs over a :class:`Driver` share: its settings as attributes, and changes to
    the opponent pool, which reach new games (games in progress keep their opponents)."""

    driver: Driver
    description, game_name, engine = driven("description"), driven("game_name"), driven("engine")
    game_options, player_counts = driven("game_options"), driven("player_counts")
    learner_seat_option, policy_input = driven("learner_seat_option"), driven("policy_input")
    pool, shaping = driven("pool", writable=True), driven("shaping", writable=True)
    critic_state, actor_size = driven("critic_state"), driven("actor_size")

    def set_opponent(self, name: str, source: OpponentSource | None, weight: float = 1.0) -> None:
        """Add or replace a pool entry, or (``source=None``) change its weight."""
        self.pool.set(name, source, weight)

    def remove_opponent(self, name: str) -> None:
        """Remove a pool entry (no error if it is not there)."""
        self.pool.remove(name)


class Driver:
    """``num_envs`` games, one learner seat each, against a pool (module docstring).

    Arguments as the envs': ``game``; ``opponents`` (an :class:`OpponentPool` or its entries);
    ``learner_seat`` (a seat or ``"rotate"``); ``players`` (a count or counts drawn per game);
    ``game_options``; ``shaping``; ``policy_input``; ``critic_state`` (the full state after
    each row, for a centralised critic); ``single`` (the one-game env's conventions). Bad
    arguments fail here: one game is dealt per player count."""

    def __init__(
        self,
        game: str = DEFAULT_GAME,
        num_envs: int = 1,
        opponents: OpponentPool | Iterable[Opponent | OpponentSource | tuple] | None = None,
        learner_seat: int | str = ROTATE,
        players: int | Sequence[int] | None = None,
        game_options: dict[str, Any] | None = None,
        shaping: float = 0.0,
        policy_input: PolicyInput | None = None,
        single: bool = False,
        critic_state: bool = False,
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, not {num_envs!r}")
        self.description = get_game(game)
        self.game_name, self.engine = self.description.name, self.description.engine
        if isinstance(opponents, OpponentPool):
            self.pool = opponents
        else:
            self.pool = OpponentPool(["random"] if opponents is None else opponents)
        self.game_options = dict(game_options or {})
        if players is None:
            self.player_counts: tuple[int | None, ...] = (None,)
        else:
            self.player_counts = (players,) if isinstance(players, int) else tuple(players)
        for n in self.player_counts:
            if n is not None:
                self.description.check_players(n)
        seats = {self.deal(n, np.random.default_rng(0)).num_players for n in self.player_counts}
        if learner_seat != ROTATE and not (
            isinstance(learner_seat, int) and 0 <= learner_seat < min(seats)
        ):
            raise ValueError(f"learner_seat must be a seat below {min(seats)} or 'rotate'")
        self.learner_seat_option = learner_seat
        if shaping and self.description.shaping is None:
            raise ValueError(f"{self.description.title} has no reward shaping (its spec's shaping)")
        self.shaping = float(shaping)
        self.policy_input = policy_input
        self.single = single
        self.num_envs = num_envs
        layout, num_actions = self.engine.LAYOUT, self.engine.NUM_ACTIONS
        if policy_input is not None:
            size = (policy_input.size,)
            self.observation_space = spaces.Box(-np.inf, np.inf, size, dtype=np.float32)
        else:
            self.observation_space = spaces.Box(layout.low, layout.high, dtype=np.float32)
        #: the entries of a learner's row its actor reads (all of them without ``critic_state``)
        self.actor_size = int(self.observation_space.shape[0])
        if not isinstance(critic_state, bool):
            raise ValueError(f"critic_state must be True or False, not {critic_state!r}")
        self.critic_state = critic_state
        if critic_state:  # the state's entries follow, for the critic alone
            raw_env = self.description.env.raw_env
            self._encode_state, state = raw_env.encode_state, raw_env.state_layout
            self.observation_space = spaces.Box(
                np.concatenate([self.observation_space.low, state.low]),
                np.concatenate([self.observation_space.high, state.high]),
                dtype=np.float32,
            )
        self._encode, self._legal = self.engine.encode, self.engine.State.legal_actions
        self._encode_rows = getattr(self.engine, "encode_rows", None)  # where the engine has it
        self._layout_size = layout.size

        # Per game: the state, the learner's seat, the batched agent of every seat.
        self.games: list[GameState] = []
        self.seats = np.zeros(num_envs, dtype=np.int64)
        self.num_players = np.zeros(num_envs, dtype=np.int64)
        self.deal_seeds: list[int] = [0] * num_envs
        self.opponent_names: list[list[str | None]] = [[] for _ in range(num_envs)]
        self.seat_agents: list[list[BatchedAgent | None]] = [[] for _ in range(num_envs)]
        self._batched: dict[str, tuple[Any, BatchedAgent]] = {}  # pool entry → its batched agent
        self._drawn: tuple[tuple, tuple[list[str], np.ndarray]] | None = None  # _entries' last
        self._potentials = np.zeros(num_envs, dtype=np.float64)
        # Buffers reused by every step: the learners' and one round of opponents' inputs.
        self.observations = np.zeros((num_envs, *self.observation_space.shape), dtype=np.float32)
        self._actor_rows = self.observations[:, : self.actor_size]  # a view: what actors read
        self._observed = (  # the learners' observations, where a policy input replaces them
            self._actor_rows
            if policy_input is None
            else np.zeros((num_envs, layout.size), dtype=np.float32)
        )
        self.masks = np.zeros((num_envs, num_actions), dtype=np.int8)
        self._opponent_observations = np.zeros((num_envs, layout.size), dtype=np.float32)
        self._opponent_masks = np.zeros_like(self.masks)

    # ------------------------------------------------------------------ the loop

    def reset(
        self,
        rngs: Sequence[np.random.Generator],
        state: dict[str, Any] | None = None,
        seat: int | str | None = None,
    ) -> None:
        """Deal every game anew (game ``i`` from generator ``rngs[i]``) and observe the
        learners; ``state`` and ``seat`` as :meth:`new_games`."""
        self.games = [None] * self.num_envs  # type: ignore[list-item]
        self.new_games(range(self.num_envs), rngs, state, seat)
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
        indices = list(indices)
        if not indices:
            return
        names, p = self._entries()
        for i in indices:
            self._new_game(i, rngs[i], names, p, state, seat)
        self.play_opponents(indices)
        for i in indices:
            if self.games[i].is_terminal():
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
        for game, action in zip(self.games, actions, strict=True):
            game.apply(action)
        self.play_opponents(range(self.num_envs))
        rewards = np.zeros(self.num_envs, dtype=np.float64 if self.single else np.float32)
        terminated = np.zeros(self.num_envs, dtype=bool)
        truncated = np.zeros(self.num_envs, dtype=bool)
        finals = {}
        for i, game in enumerate(self.games):
            if game.is_terminal():
                seat = int(self.seats[i])
                finals[i] = final = {**self.info(i), **score(game, seat)}
                rewards[i] = final["returns"][seat]
                truncated[i] = game.is_truncated()
                terminated[i] = not truncated[i]
        if self.shaping:
            rewards += self._shaping_rewards().astype(rewards.dtype)
        return rewards, terminated, truncated, finals

    def step_one(self, action: int) -> tuple[float, bool, bool, dict[str, Any] | None]:
        """:meth:`step` of a one-game driver (``num_envs=1``) as Python values: the reward,
        terminated, truncated and the final info (``None`` while the game goes on) — the same
        numbers, without the arrays."""
        if self.num_envs != 1:
            raise ValueError(f"step_one steps a one-game driver, not one of {self.num_envs} games")
        game = self.games[0]
        game.apply(action)
        self.play_opponents((0,))
        reward, terminated, truncated, final = 0.0, False, False, None
        if game.is_terminal():
            seat = int(self.seats[0])
            final = {**self.info(0), **score(game, seat)}
            reward = final["returns"][seat]
            truncated = game.is_truncated()
            terminated = not truncated
        if self.shaping:
            rewards = np.array([reward], dtype=np.float64 if self.single else np.float32)
            rewards += self._shaping_rewards().astype(rewards.dtype)
            reward = float(rewards[0])
        return reward, terminated, truncated, final

    def observe(self) -> None:
        """``observations`` and ``masks``: every learner's input and legal actions now (no legal
        action where its game is over)."""
        seats = self.seats.tolist()
        self._fill(self.games, seats, self._observed, self.masks)
        if self.policy_input is not None:  # the policy's input, from observations and views
            views = SeatViews(self.games, seats)  # each made only if the input reads it
            if len(views) == 1:  # one game: the per-decision function costs less
                self._actor_rows[0] = self.policy_input.one(self._observed[0], views[0])
            else:  # all games at once, the same rows bit for bit
                self._actor_rows[:] = self.policy_input.batch(self._observed, views)
        if self.critic_state:
            for i, game in enumerate(self.games):
                self.observations[i, self.actor_size :] = self._encode_state(game)

    def learner_observation(self, i: int) -> np.ndarray:
        """The learner's observation in game ``i`` (also of a finished game: a truncated
        episode's value is bootstrapped from it)."""
        game, seat = self.games[i], int(self.seats[i])
        observation = self._encode(game, seat)
        if self.policy_input is not None:
            observation = self.policy_input.one(observation, game.view(seat))
        if self.critic_state:
            return np.concatenate([observation, self._encode_state(game)])
        return observation

    def info(self, i: int) -> dict[str, Any]:
        """Game ``i``'s ``learner_seat``, ``num_players`` and ``opponents`` (per seat)."""
        return {
            "learner_seat": int(self.seats[i]),
            "num_players": self.games[i].num_players,
            "opponents": list(self.opponent_names[i]),
        }

    def deal(self, count: int | None, seed: int | np.random.Generator) -> GameState:
        """A new game with ``count`` players (``None``: the game's default) and the options."""
        return self.engine.State.new(
            seed=seed, **self.description.options(count, self.game_options)
        )

    # ------------------------------------------------------------------ opponents

    def play_opponents(self, indices: Iterable[int]) -> None:
        """Play the non-learner seats of the games ``indices`` until each is at its learner or
        over: in rounds, one ``act_batch`` call per agent and round."""
        if self.single:  # one game (the one-game env): its seats in turn, without rounds
            for i in indices:
                self._play_alone(i)
            return
        games, seats, agents = self.games, self.seats.tolist(), self.seat_agents
        pending = [i for i in indices if games[i].current_player not in (None, seats[i])]
        while pending:
            groups: dict[int, tuple[BatchedAgent, list[int]]] = {}
            for i in pending:
                agent = agents[i][games[i].current_player]
                groups.setdefault(id(agent), (agent, []))[1].append(i)
            for agent, members in groups.values():
                self._decide(agent, members)
            pending = [i for i in pending if games[i].current_player not in (None, seats[i])]

    def batched_agent(self, name: str, rng: np.random.Generator) -> BatchedAgent:
        """Pool entry ``name`` as a batched agent (built on first use, seeded from ``rng``)."""
        agent = self.pool.agent(name, self.game_name, rng)
        cached = self._batched.get(name)
        if cached is None or cached[0] is not agent:
            if self.single:
                batched = PerSeatAgent(agent)
            else:  # the game's heuristic decides with array arithmetic where it has that
                batched = batched_heuristic(self.game_name, agent) or as_batched(agent)
            cached = self._batched[name] = (agent, batched)
        return cached[1]

    def _entries(self) -> tuple[list[str], np.ndarray]:
        """The pool's entry names and draw probabilities now (stale batched agents dropped;
        kept from the last deal while the names and weights are the same)."""
        key = tuple((name, entry.weight) for name, entry in self.pool.entries.items())
        if self._drawn is not None and self._drawn[0] == key:
            return self._drawn[1]
        names = list(self.pool.entries)
        weights = np.array([self.pool.entries[n].weight for n in names], dtype=np.float64)
        if weights.sum() <= 0.0:
            raise ValueError("every opponent in the pool has weight 0")
        for name in set(self._batched) - set(names):
            del self._batched[name]
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
    ) -> None:
        """Game ``i``: its deal, learner seat and opponents, drawn from ``rng``."""
        counts = self.player_counts
        if state is not None:
            game = self.engine.State.from_dict(state, seed=rng)
            if game.is_terminal():
                raise ValueError("reset's state must be a game in progress")
        elif self.single:
            game = self.deal(counts[rng.integers(len(counts))], rng)
        else:
            count = counts[int(rng.integers(len(counts)))] if len(counts) > 1 else counts[0]
            self.deal_seeds[i] = int(rng.integers(2**63))
            game = self.deal(count, self.deal_seeds[i])
        self.games[i] = game
        n = self.num_players[i] = game.num_players
        option = self.learner_seat_option if seat is None else seat
        learner = int(rng.integers(n)) if option == ROTATE else int(option)
        if not 0 <= learner < n:
            raise ValueError(f"learner seat {learner} in a {n}-player game")
        self.seats[i] = learner
        drawn = iter(rng.choice(len(names), size=n - 1, p=p).tolist())
        self.opponent_names[i] = [None if s == learner else names[next(drawn)] for s in range(n)]
        self.seat_agents[i] = [
            None if name is None else self.batched_agent(name, rng)
            for name in self.opponent_names[i]
        ]
        if self.single:  # an agent of one game may remember it: it starts afresh
            for name in dict.fromkeys(n for n in self.opponent_names[i] if n is not None):
                agent = self._batched[name][0]
                if callable(getattr(agent, "reset", None)):
                    agent.reset()

    def _play_alone(self, i: int) -> None:
        """Play game ``i``'s opponents up to its learner or the end, move by move: an ordinary
        agent through ``act`` on a fresh observation (what :meth:`_decide` does for few rows,
        without its rounds' bookkeeping)."""
        state, learner, agents = self.games[i], int(self.seats[i]), self.seat_agents[i]
        engine = self.engine
        while (seat := state.current_player) is not None and seat != learner:
            agent = agents[seat]
            if not isinstance(agent, PerSeatAgent):
                self._decide(agent, [i])
                continue
            observation = observe(engine, state, seat)
            action = int(agent.agent.act(observation, state.view(seat)))
            mask = observation["action_mask"]
            if not (0 <= action < len(mask) and mask[action]):
                self._play(i, seat, action, mask)  # names the opponent and its illegal action
            state.apply(action)

    def _decide(self, agent: BatchedAgent, members: list[int]) -> None:
        """Decide and play the seats to move in games ``members``: in one ``act_batch`` call,
        or (an ordinary agent in fewer than ``_BUFFERED_ROWS`` games) seat by seat through
        ``act`` on a fresh observation each — the same actions either way."""
        games = self.games
        if isinstance(agent, PerSeatAgent) and len(members) < _BUFFERED_ROWS:
            act, engine = agent.agent.act, self.engine
            for i in members:
                state = games[i]
                seat = state.current_player
                observation = observe(engine, state, seat)
                action = act(observation, state.view(seat))
                self._play(i, seat, int(action), observation["action_mask"])
            return
        observations, masks = self._opponent_observations, self._opponent_masks
        k = len(members)
        states = [games[i] for i in members]
        to_move = [state.current_player for state in states]
        self._fill(states, to_move, observations, masks, getattr(agent, "reads_observations", True))
        chosen = np.asarray(agent.act_batch(states, np.array(to_move), observations[:k], masks[:k]))
        if chosen.shape != (k,) or not np.issubdtype(chosen.dtype, np.integer):
            raise ValueError(f"{agent!r}.act_batch gave {chosen!r}, not {k} action ids")
        for j, (i, seat, action) in enumerate(zip(members, to_move, chosen.tolist(), strict=True)):
            self._play(i, seat, action, masks[j])

    def _play(self, i: int, seat: int, action: int, mask: np.ndarray) -> None:
        """Play opponent ``seat``'s ``action`` in game ``i``, if ``mask`` holds it."""
        if not (0 <= action < len(mask) and mask[action]):
            name = self.opponent_names[i][seat]
            raise ValueError(
                f"opponent {name!r} in seat {seat} of game {i} chose the illegal action "
                f"{action!r}; legal: {np.flatnonzero(mask).tolist()}"
            )
        self.games[i].apply(action)

    def _fill(
        self,
        states: Sequence[GameState],
        seats: Sequence[int],
        observations: np.ndarray,
        masks: np.ndarray,
        encode: bool = True,
    ) -> None:
        """Rows ``0…k-1`` of ``observations`` and ``masks``: each seat's observation (not
        written unless ``encode``: for an agent that reads the views alone) and legal actions
        (a mask of zeros where the game is over)."""
        legal, d = self._legal, self._layout_size
        if len(states) == 1:  # one game (the one-game env): the same rows, fewer numpy calls
            state, seat, row = states[0], seats[0], masks[0]
            if encode:
                observations[0, :d] = self._encode(state, seat)
            row.fill(0)
            if state.current_player == seat:
                row.put(legal(state), 1)
            return
        k = len(states)
        if encode and self._encode_rows is not None:  # the engine's encoding of many rows
            self._encode_rows(states, seats, observations[:k, :d])
        elif encode:
            for j, (state, seat) in enumerate(zip(states, seats, strict=True)):
                observations[j, :d] = self._encode(state, seat)
        rows = [
            legal(state) if state.current_player == seat else []
            for state, seat in zip(states, seats, strict=True)
        ]
        lengths = np.fromiter(map(len, rows), np.intp, k)
        flat = np.fromiter(chain.from_iterable(rows), np.intp, int(lengths.sum()))
        width = masks.shape[1]
        masks[:k] = 0
        masks[:k].put(flat + np.repeat(np.arange(0, k * width, width), lengths), 1)

    # ------------------------------------------------------------------ shaping

    def _potential(self, i: int) -> float:
        game, seat = self.games[i], int(self.seats[i])
        if game.is_terminal():
            return 0.0
        return self.description.shaping(game.view(seat), seat)

    def _shaping_rewards(self) -> np.ndarray:
        """``c · (Φ(s') − Φ(s))`` per game, before finished games are replaced (Φ = 0 at the
        end; a new game starts from its own Φ, without a reward)."""
        after = np.array([self._potential(i) for i in range(self.num_envs)])
        shaping = self.shaping * (after - self._potentials)
        self._potentials = after
        return shaping

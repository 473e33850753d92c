"""Many games in one process, one learner seat in each: :class:`VectorSingleAgentEnv`.

The vectorised :class:`~hot_envs.single_agent.SingleAgentEnv`: ``num_envs`` games side by side,
each with one learner seat; ``step(actions)`` plays the learner's action in every game, then every
other seat of every game until each game is back at its learner (or over). The opponents' moves
are batched: in each round, all the games whose seat to move is played by the same agent are
decided by one ``act_batch`` call (:mod:`hot_envs.agents.batched`) — a numpy checkpoint or league
snapshot runs one forward pass for all of them; ordinary agents (heuristic, random, search) play
their seats one by one through ``act(observation, view)``. A Gymnasium
``gymnasium.vector.VectorEnv``; :mod:`hot_envs.vector_sb3` hands it to stable-baselines3 as one
``VecEnv`` for sb3-contrib's ``MaskablePPO``.

## Spaces
``single_observation_space`` is the game's observation ``Box`` (644 floats for Heiße Luft, 670
for Heiße Karten), ``single_action_space`` ``Discrete(366)`` / ``Discrete(48)``;
``observation_space`` and ``action_space`` are their batches (``(num_envs, obs_dim)`` float32,
``MultiDiscrete``). :meth:`VectorSingleAgentEnv.action_masks` gives the ``(num_envs,
num_actions)`` bool masks of the learners' legal actions. With ``action_features=True`` the
learners' observations are the packed inputs of action-scoring policies
(:func:`hot_envs.agents.features.policy_input`), as in ``SingleAgentEnv``.

## Rewards, episode end, autoreset
As in ``SingleAgentEnv``: the learner's own return when its game ends, whoever made the last
move (0 for a draw and for a truncated game; optional potential-based ``shaping``). A finished
game is replaced by a new deal in the same ``step`` (``metadata["autoreset_mode"]`` is
``SAME_STEP``): the returned observation is the new game's first decision, and ``info`` holds
``final_obs`` (``(num_envs, obs_dim)``: the learner's last observation of the finished games, 0
elsewhere) and ``final_info`` (an object array: for a finished game the dict ``SingleAgentEnv``
ends with — ``learner_seat``, ``num_players``, ``opponents``, ``returns``, ``winners``,
``win_share``, ``is_success`` — else ``None``), each with its bool mask ``_final_obs`` /
``_final_info``. Every ``info`` also has ``learner_seat`` and ``num_players`` per game. An
illegal learner action raises ``ValueError`` before any game moves.

## Opponents and seeding
Each new game draws its player count (``players``), the learner's seat (``"rotate"``: uniform)
and, independently for every other seat, an entry of the :class:`OpponentPool` with probability
weight / total weight. :meth:`set_opponent` / :meth:`remove_opponent` change the pool while
training (a league adds snapshots); a game keeps its opponents until it ends. Entries are shared
by every game that draws them, so they must not keep per-game memory (no agent of hot_envs
does). ``reset(seed=s)`` gives every game its own generator (``SeedSequence(s).spawn``): the same
seed, pool and learner actions give the same games; ``deal_seeds[i]`` is the seed of game
``i``'s deal (``State.new(seed=deal_seeds[i], …)`` deals it again).

>>> env = VectorSingleAgentEnv("heisse-karten", num_envs=4, players=[2, 6], seed=0)
>>> observations, info = env.reset()
>>> observations.shape, env.action_masks().shape
((4, 670), (4, 48))
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from hot_envs.agents.batched import BatchedAgent, as_batched
from hot_envs.agents.features import policy_input
from hot_envs.engine import GameState
from hot_envs.single_agent import (
    ROTATE,
    Opponent,
    OpponentPool,
    OpponentSource,
    SingleAgentEnv,
    shaping_potential,
)


class VectorSingleAgentEnv(VectorEnv):
    """``num_envs`` games, one learner seat each, batched opponents (module docstring).

    Arguments as :class:`~hot_envs.single_agent.SingleAgentEnv`: ``game``; ``num_envs``;
    ``opponents`` (an :class:`OpponentPool` or its entries: agents, batched agents, specs,
    factories, ``(source, weight)`` pairs; default ``["random"]``); ``learner_seat`` (a seat or
    ``"rotate"``); ``players`` (Heiße Karten: a count or counts drawn per game);
    ``game_options``; ``shaping``; ``seed`` (for the first ``reset`` without one);
    ``action_features`` (packed observations for action-scoring policies).
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(
        self,
        game: str = "heisse-luft",
        num_envs: int = 16,
        opponents: OpponentPool | Iterable[Opponent | OpponentSource | tuple] | None = None,
        learner_seat: int | str = ROTATE,
        players: int | Sequence[int] | None = None,
        game_options: dict[str, Any] | None = None,
        shaping: float = 0.0,
        seed: int | None = None,
        action_features: bool = False,
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, not {num_envs!r}")
        # SingleAgentEnv checks the arguments (one deal per player count) and holds the pool.
        self._template = SingleAgentEnv(
            game, opponents, learner_seat, players, game_options, action_features=action_features
        )
        self.game_name, self.engine = self._template.game_name, self._template.engine
        self.pool: OpponentPool = self._template.pool
        self.player_counts = self._template.player_counts
        self.learner_seat_option = learner_seat
        self.shaping = float(shaping)
        self.num_envs = num_envs
        layout, num_actions = self.engine.LAYOUT, self.engine.NUM_ACTIONS
        self.action_features = bool(action_features)
        self.single_observation_space = self._template.observation_space
        self.single_action_space = spaces.Discrete(num_actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._encode, self._legal = self.engine.encode, self.engine.State.legal_actions

        # Per game: the state, the learner's seat, the batched agent of every seat.
        self.games: list[GameState] = []
        self.seats = np.zeros(num_envs, dtype=np.int64)
        self.num_players = np.zeros(num_envs, dtype=np.int64)
        self.deal_seeds: list[int] = [0] * num_envs
        self.opponent_names: list[list[str | None]] = [[] for _ in range(num_envs)]
        self._seat_agents: list[list[BatchedAgent | None]] = [[] for _ in range(num_envs)]
        self._batched: dict[str, tuple[Any, BatchedAgent]] = {}  # pool entry → its batched agent
        self._rngs: list[np.random.Generator] = []
        self._potentials = np.zeros(num_envs, dtype=np.float64)
        self._initial_seed = seed
        # Buffers reused by every step: the learners' and one round of opponents' inputs.
        self._observations = np.zeros(self.observation_space.shape, dtype=np.float32)
        self._masks = np.zeros((num_envs, num_actions), dtype=np.int8)
        self._opponent_observations = np.zeros((num_envs, layout.size), dtype=np.float32)
        self._layout_size = layout.size
        self._opponent_masks = np.zeros_like(self._masks)
        self._rows = np.arange(num_envs)

    # ------------------------------------------------------------------ Gymnasium API

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal ``num_envs`` new games and play their opponents up to each learner's first
        decision. ``seed`` seeds every game's generator (module docstring)."""
        if options:
            raise ValueError(f"reset takes no options, not {sorted(options)}")
        if seed is None and self._initial_seed is not None:
            seed, self._initial_seed = self._initial_seed, None
        if seed is not None or not self._rngs:
            sequences = np.random.SeedSequence(seed).spawn(self.num_envs)
            self._rngs = [np.random.default_rng(s) for s in sequences]
        self.games = [None] * self.num_envs  # type: ignore[list-item]
        self._new_games(range(self.num_envs))
        self._observe_learners()
        return self._observations.copy(), self._info()

    def step(
        self, actions: np.ndarray | Sequence[int]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Play every learner's action, then the opponents up to each learner's next decision;
        finished games are replaced by new ones (module docstring)."""
        if not self.games:
            raise RuntimeError("call reset() before step()")
        actions = check_actions(actions, self._masks, self.seats)
        for game, action in zip(self.games, actions, strict=True):
            game.apply(action)
        self._play_opponents(self._rows)
        rewards = np.zeros(self.num_envs, dtype=np.float32)
        terminated = np.zeros(self.num_envs, dtype=bool)
        truncated = np.zeros(self.num_envs, dtype=bool)
        done = [i for i, game in enumerate(self.games) if game.is_terminal()]
        finals = self._finish(done, rewards, terminated, truncated) if done else None
        if self.shaping:
            rewards += self._shaping_rewards()
        self._new_games(done)
        self._observe_learners()
        info = self._info()
        if finals is not None:
            info.update(finals)
        return self._observations.copy(), rewards, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """``(num_envs, num_actions)`` bool: the learners' legal actions now."""
        return self._masks.astype(bool)

    # ------------------------------------------------------------------ the pool

    def set_opponent(self, name: str, source: OpponentSource | None, weight: float = 1.0) -> None:
        """Add or replace a pool entry, or (``source=None``) change its weight; new games draw
        from the changed pool, games in progress keep their opponents."""
        self.pool.set(name, source, weight)

    def remove_opponent(self, name: str) -> None:
        """Remove a pool entry (no error if it is not there), from the next new game on."""
        self.pool.remove(name)

    # ------------------------------------------------------------------ internals

    def _agents(self) -> tuple[list[str], np.ndarray]:
        """The pool's entry names and draw probabilities now (stale batched agents dropped)."""
        names = list(self.pool.entries)
        weights = np.array([self.pool.entries[n].weight for n in names], dtype=np.float64)
        if weights.sum() <= 0.0:
            raise ValueError("every opponent in the pool has weight 0")
        for name in set(self._batched) - set(names):
            del self._batched[name]
        return names, weights / weights.sum()

    def _batched_agent(self, name: str, rng: np.random.Generator) -> BatchedAgent:
        agent = self.pool.agent(name, self.game_name, rng)
        cached = self._batched.get(name)
        if cached is None or cached[0] is not agent:
            cached = self._batched[name] = (agent, as_batched(agent))
        return cached[1]

    def _new_games(self, indices: Iterable[int]) -> None:
        """Deal, seat the learner and draw the opponents in each game of ``indices``, then play
        up to every learner's first decision."""
        indices = list(indices)
        if not indices:
            return
        names, p = self._agents()
        counts = self.player_counts
        for i in indices:
            rng = self._rngs[i]
            count = counts[int(rng.integers(len(counts)))] if len(counts) > 1 else counts[0]
            self.deal_seeds[i] = seed = int(rng.integers(2**63))
            game = self.games[i] = self._template._deal(count, seed)
            n = self.num_players[i] = game.num_players
            option = self.learner_seat_option
            seat = self.seats[i] = int(rng.integers(n)) if option == ROTATE else option
            drawn = iter(rng.choice(len(names), size=n - 1, p=p).tolist())
            self.opponent_names[i] = [None if s == seat else names[next(drawn)] for s in range(n)]
            self._seat_agents[i] = [
                None if name is None else self._batched_agent(name, rng)
                for name in self.opponent_names[i]
            ]
        self._play_opponents(indices)
        for i in indices:
            if self.games[i].is_terminal():
                raise ValueError(
                    f"game {i} ends before the learner's first decision (learner seat "
                    f"{self.seats[i]}; a turn_limit that small leaves the learner no move)"
                )
            if self.shaping:
                self._potentials[i] = self._potential(i)

    def _play_opponents(self, indices: Iterable[int]) -> None:
        """Play the non-learner seats of the games ``indices`` until each is at its learner or
        over: in rounds, one ``act_batch`` call per agent and round."""
        games, seats, agents = self.games, self.seats, self._seat_agents
        pending = [i for i in indices if games[i].current_player not in (None, seats[i])]
        while pending:
            groups: dict[int, tuple[BatchedAgent, list[int]]] = {}
            for i in pending:
                agent = agents[i][games[i].current_player]
                groups.setdefault(id(agent), (agent, []))[1].append(i)
            for agent, members in groups.values():
                self._decide(agent, members)
            pending = [i for i in pending if games[i].current_player not in (None, seats[i])]

    def _decide(self, agent: BatchedAgent, members: list[int]) -> None:
        """One ``act_batch`` call for the seats to move in games ``members``; play the actions."""
        observations, masks = self._opponent_observations, self._opponent_masks
        k = len(members)
        states = [self.games[i] for i in members]
        to_move = [state.current_player for state in states]
        self._fill(states, to_move, observations, masks)
        chosen = np.asarray(agent.act_batch(states, np.array(to_move), observations[:k], masks[:k]))
        if chosen.shape != (k,) or not np.issubdtype(chosen.dtype, np.integer):
            raise ValueError(f"{agent!r}.act_batch gave {chosen!r}, not {k} action ids")
        num_actions = masks.shape[1]
        for j, (state, seat, action) in enumerate(
            zip(states, to_move, chosen.tolist(), strict=True)
        ):
            if not (0 <= action < num_actions and masks[j, action]):
                name = self.opponent_names[members[j]][seat]
                raise ValueError(
                    f"opponent {name!r} in seat {seat} of game {members[j]} chose the illegal "
                    f"action {action!r}; legal: {np.flatnonzero(masks[j]).tolist()}"
                )
            state.apply(action)

    def _fill(
        self,
        states: Sequence[GameState],
        seats: Sequence[int],
        observations: np.ndarray,
        masks: np.ndarray,
    ) -> None:
        """Rows ``0…k-1`` of ``observations`` and ``masks``: each seat's observation and legal
        actions (a mask of zeros where the game is over)."""
        encode, legal, d = self._encode, self._legal, self._layout_size
        masks[: len(states)] = 0
        for j, (state, seat) in enumerate(zip(states, seats, strict=True)):
            observations[j, :d] = encode(state, seat)
            if state.current_player == seat:
                masks[j].put(legal(state), 1)

    def _observe_learners(self) -> None:
        self._fill(self.games, self.seats.tolist(), self._observations, self._masks)
        if self.action_features:  # the observation, then the features of each legal action
            d = self._layout_size
            for i, (game, seat) in enumerate(zip(self.games, self.seats.tolist(), strict=True)):
                self._observations[i] = policy_input(
                    self.game_name, self._observations[i, :d], game.view(seat)
                )

    def _finish(
        self, done: list[int], rewards: np.ndarray, terminated: np.ndarray, truncated: np.ndarray
    ) -> dict[str, Any]:
        """Rewards, flags and ``final_obs`` / ``final_info`` of the games that just ended."""
        final_obs = np.zeros_like(self._observations)
        final_info = np.full(self.num_envs, None, dtype=object)
        mask = np.zeros(self.num_envs, dtype=bool)
        mask[done] = True
        for i in done:
            game, seat = self.games[i], int(self.seats[i])
            observation = self._encode(game, seat)
            if self.action_features:
                observation = policy_input(self.game_name, observation, game.view(seat))
            final_obs[i] = observation
            returns = [float(r) for r in game.returns()]
            best = max(returns)
            winners = [p for p, r in enumerate(returns) if r == best]
            rewards[i] = returns[seat]
            truncated[i] = game.is_truncated()
            terminated[i] = not truncated[i]
            final_info[i] = {
                "learner_seat": seat,
                "num_players": game.num_players,
                "opponents": list(self.opponent_names[i]),
                "returns": returns,
                "winners": winners,
                "win_share": 1.0 / len(winners) if seat in winners else 0.0,
                "is_success": winners == [seat],
            }
        return {
            "final_obs": final_obs,
            "_final_obs": mask,
            "final_info": final_info,
            "_final_info": mask.copy(),
        }

    def _potential(self, i: int) -> float:
        game, seat = self.games[i], int(self.seats[i])
        if game.is_terminal():
            return 0.0
        return shaping_potential(self.game_name, game.view(seat), seat)

    def _shaping_rewards(self) -> np.ndarray:
        """``c · (Φ(s') − Φ(s))`` per game, before finished games are replaced (Φ = 0 at the
        end; a new game starts from its own Φ, without a reward)."""
        after = np.array([self._potential(i) for i in range(self.num_envs)])
        shaping = self.shaping * (after - self._potentials)
        self._potentials = after
        return shaping.astype(np.float32)

    def _info(self) -> dict[str, Any]:
        return {"learner_seat": self.seats.copy(), "num_players": self.num_players.copy()}


def check_actions(
    actions: np.ndarray | Sequence[int], masks: np.ndarray, seats: np.ndarray | None = None
) -> list[int]:
    """One learner action per row of ``masks`` (the games' legal actions), as ints; a
    ``ValueError`` names the first illegal one (and its learner's seat, if ``seats`` is given)."""
    array = np.asarray(actions)
    num_envs, num_actions = masks.shape
    if array.shape != (num_envs,) or not np.issubdtype(array.dtype, np.integer):
        raise ValueError(f"actions must be {num_envs} integers, not {actions!r}")
    in_range = (array >= 0) & (array < num_actions)
    legal = in_range & (masks[np.arange(num_envs), np.where(in_range, array, 0)] != 0)
    if not legal.all():
        i = int(np.flatnonzero(~legal)[0])
        seat = "" if seats is None else f" (seat {seats[i]})"
        raise ValueError(
            f"illegal action {int(array[i])} for the learner in game {i}{seat}; "
            f"legal: {np.flatnonzero(masks[i]).tolist()}"
        )
    return array.tolist()

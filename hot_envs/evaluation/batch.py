"""The arena's games played many at a time on the game's array engine (:mod:`hot_envs.batched`).

:func:`play_groups` plays the arena's groups (one deal, once per seat rotation:
:func:`hot_envs.evaluation.arena.play_group`) side by side: each of up to ``BATCH`` rows of
one array engine plays one group's games one after another, and every step decides the seat to
move of every row at once — per agent spec one call, then one step of the engine. Every game
is the one the per-game engine plays from the same deal with the same agents, one game at a
time (``tests/evaluation/test_batched_arena.py`` holds the two to the same records):

* **The same deals.** A group's deal is the per-game engine's ``State.new(seed=deal_seed)``,
  loaded with its stream into a row of its own (``load_state``) and copied into the playing
  row for each rotation (``copy_games``). Both engines draw every chance event from that
  stream (:mod:`hot_envs.core.chance`) — HL-3.5's reshuffles, HK-4.4's next rounds — so each
  game is the one the per-game engine plays from the same seed and actions, and
  ``records.replay`` replays it on either engine.
* **The same decisions.** Each group builds its own agents from their specs with the same seeds,
  and a group's games are played in order, so every agent meets its decisions in the order it
  meets them one game at a time: an agent that draws numbers (ties broken at random,
  ``epsilon``, sampling) draws the same ones. Agents of one spec decide together: the array
  heuristics and styles in one call of their kernels, each agent then drawing its own ties
  (:func:`hot_envs.agents.arrays.draw_rows`); a checkpoint that plays its argmax in one forward
  pass (one copy serving every group: it draws nothing); any other agent on its own rows
  (``act_arrays``, or ``act`` on each game's state through
  :class:`~hot_envs.agents.arrays.PerGameAgent`).

The time of a call is shared equally by the decisions it made (``GameRecord.seconds``).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hot_envs import batched
from hot_envs.agents.arrays import PerGameAgent, as_array_agent, draw_rows, fill_policy_input
from hot_envs.batched import jit
from hot_envs.core.games import get_game

BATCH = 512
"""The most games one array engine plays at once (one per group in play)."""


@dataclass
class _Group:
    """One group in a row: its agents, its deal and the games played so far."""

    task: tuple  # play_group's arguments: (game, lineup, matchup, group, seed, options)
    position: int  # the task's position in play_groups' list
    agents: list[Any]  # per lineup slot
    keys: list[Any]  # per lineup slot: agents of one key decide together (decide)
    deal_seed: int
    deal: Any  # State.new(seed=deal_seed): the deal, not played on
    records: list = field(default_factory=list)


@dataclass
class _Game:
    """The game a row plays now."""

    rotation: int
    seats: tuple[int, ...]  # lineup slot per seat
    actions: list[int] = field(default_factory=list)


def play_groups(
    tasks: Sequence[tuple],
    build: Callable[[Any, str, int], Any],
    seed_of: Callable[..., int],
    record: Callable[..., Any],
    on_group: Callable[[int, list], None] | None = None,
    on_moves: Callable[[int], None] | None = None,
) -> list:
    """Play every task (``play_group``'s arguments, one game and one set of options) in batches;
    ``build(spec, game, seed)`` makes an agent, ``seed_of(*parts)`` derives seeds and
    ``record(...)`` makes a ``GameRecord`` — the arena's own, so both paths share them. Each
    finished group's records go to ``on_group(position of its task, records)`` at once, and
    after each step ``on_moves`` gets the number of moves it made; returns the records."""
    if not tasks:
        return []
    game, options = tasks[0][0], tasks[0][5] or {}
    engine = get_game(game).engine
    size = min(BATCH, len(tasks))
    games = batched.make(game, 2 * size, **options)  # rows to play, then their groups' deals
    rows = _Rows(games, engine, options, size)
    pending: Iterator[tuple[int, tuple]] = iter(enumerate(tasks))
    finished: list = []
    shared: dict[str, Any] = {}
    starts: list[tuple[int, int]] = []  # (row, rotation): the games to start, all at once
    for row in range(size):
        task = next(pending, None)
        if task is not None:
            rows.start_group(row, _new_group(task, build, seed_of, engine, options, shared))
            starts.append((row, 0))
    rows.start_games(starts)
    while rows.active.any():
        starts = []
        moved = int(np.count_nonzero(rows.active))  # every active row's seat to move plays
        for row in rows.step():
            group = rows.groups[row]
            game_now = rows.games_now[row]
            seconds, decisions = rows.finish(row)
            group.records.append(record(group, game_now, rows.returns[row], seconds, decisions))
            if game_now.rotation + 1 < len(group.agents):
                starts.append((row, game_now.rotation + 1))
                continue
            finished.extend(group.records)
            if on_group is not None:
                on_group(group.position, group.records)
            task = next(pending, None)
            if task is not None:
                rows.start_group(row, _new_group(task, build, seed_of, engine, options, shared))
                starts.append((row, 0))
        rows.start_games(starts)
        if on_moves is not None:
            on_moves(moved)
    return finished


def _new_group(
    item: tuple[int, tuple],
    build: Callable,
    seed_of: Callable,
    engine: Any,
    options: dict,
    shared: dict,
) -> _Group:
    """A group's agents and deal. A checkpoint that plays its argmax draws nothing, so one
    copy of it (in ``shared``, by spec) serves every group rather than one loaded per group."""
    position, task = item
    game, lineup, matchup, group, seed, _ = task
    agents = []
    for slot, spec in enumerate(lineup):
        agent = None
        if isinstance(spec, str):
            agent = shared.get(spec)
            if agent is None and spec not in shared:
                agent = shared[spec] = _loaded_checkpoint(spec, game)
        if agent is None:
            agent = build(spec, game, seed_of(seed, matchup, group, slot))
            if _keep_checkpoint(spec, game, agent):
                shared[spec] = agent
        agents.append(agent)
    keys = [spec if isinstance(spec, str) else id(spec) for spec in lineup]
    deal_seed = seed_of(seed, group)
    state = engine.State.new(seed=deal_seed, **options)
    if state.num_players != len(lineup):
        raise ValueError(
            f"the lineup has {len(lineup)} agents for a {state.num_players}-player game"
        )
    return _Group(task, position, agents, keys, deal_seed, state)


_LOADED: dict[tuple[str, str, str], tuple[tuple, Any]] = {}
"""Argmax checkpoints this process has loaded, by (spec, game, working folder): the arena's
worker plays several chunks of groups, each a :func:`play_groups` call, and one copy serves
them all, as one serves every group of a call. An entry holds the files' stat: a checkpoint
written again since (a training run's) is loaded again."""


def _loaded_checkpoint(spec: str, game: str) -> Any:
    """The argmax checkpoint ``spec`` names, as this process loaded it, if its files have not
    changed since; else ``None``."""
    entry = _LOADED.get((spec, game, os.getcwd()))
    if entry is None or entry[0] != _stamp(spec):
        return None
    return entry[1]


def load_once(spec: str, game: str) -> Any:
    """``make_agent(spec, game, 0)`` — how a command checks a spec before any game — where a
    checkpoint playing its argmax (which draws nothing: one copy serves every seed) is loaded
    once per process and kept for the batches to play (and for worker processes forked later)."""
    from hot_envs.agents import make_agent

    game = get_game(game).name
    agent = _loaded_checkpoint(spec, game) if isinstance(spec, str) else None
    if agent is None:
        agent = make_agent(spec, game, 0)
        _keep_checkpoint(spec, game, agent)
    return agent


def _keep_checkpoint(spec: Any, game: str, agent: Any) -> bool:
    """Keep ``agent``, built from ``spec``, for this process if it is a checkpoint playing its
    argmax (in :data:`_LOADED`); whether it is one."""
    if not (isinstance(spec, str) and _argmax_checkpoint(agent)):
        return False
    stamp = _stamp(spec)
    if stamp is not None:
        _LOADED[(spec, game, os.getcwd())] = (stamp, agent)
    return True


def _stamp(spec: str) -> tuple | None:
    """The stat of checkpoint ``spec``'s metadata and weights (``None``: not found)."""
    from hot_envs.agents.shipped import find_checkpoint

    try:
        stem = find_checkpoint(spec)
        files = [os.stat(stem.with_suffix(suffix)) for suffix in (".json", ".npz")]
    except (OSError, ValueError):
        return None
    return tuple((f.st_mtime_ns, f.st_size, f.st_ino) for f in files)


class _Rows:
    """The rows of one array engine, each playing one group's games in turn."""

    def __init__(self, games: batched.ArrayGames, engine: Any, options: dict, size: int) -> None:
        self.games = games  # rows 0 .. size - 1 play; row size + r keeps the deal of row r
        self.engine = engine
        self.options = options
        self.size = size
        b, n = games.num_games, games.num_players
        self.active = np.zeros(b, dtype=bool)
        self.groups: list[_Group | None] = [None] * b
        self.games_now: list[_Game | None] = [None] * b
        self.returns: list[tuple[float, ...] | None] = [None] * b
        self.agent_at: list[list[Any]] = [[] for _ in range(b)]  # per row, per seat
        self.key_at = np.zeros((b, n), dtype=np.int64)  # per row and seat: its agent's key
        self.codes: dict[Any, int] = {}  # key → its code in key_at
        self.seconds = np.zeros((b, n))
        self.decisions = np.zeros((b, n), dtype=np.int64)
        self.forms: dict[int, Any] = {}  # id(agent) → (agent, its array agent)

    def start_group(self, row: int, group: _Group) -> None:
        """The row's next group: its deal loaded beside the row (:meth:`start_games` then
        starts its first game)."""
        self.groups[row] = group
        self.games.load_state(self.size + row, group.deal)

    def start_games(self, starts: list[tuple[int, int]]) -> None:
        """:meth:`start_game` for each ``(row, rotation)``, the deals copied in one call."""
        if not starts:
            return
        rows = [row for row, _ in starts]
        self.games.copy_games([self.size + row for row in rows], rows)
        for row, rotation in starts:
            self.start_game(row, rotation, copied=True)

    def start_game(self, row: int, rotation: int, copied: bool = False) -> None:
        """Rotation ``rotation`` of the row's group: lineup slot ``(seat + rotation) % N`` in
        each seat, the deal loaded (unless ``copied`` already), the agents reset (each game
        starts afresh)."""
        group = self.groups[row]
        n = len(group.agents)
        seats = tuple((seat + rotation) % n for seat in range(n))
        if not copied:
            self.games.copy_games([self.size + row], [row])
        for agent in group.agents:
            if callable(getattr(agent, "reset", None)):
                agent.reset()
        self.games_now[row] = _Game(rotation, seats)
        self.agent_at[row] = [group.agents[slot] for slot in seats]
        for seat, slot in enumerate(seats):
            key = group.keys[slot]
            self.key_at[row, seat] = self.codes.setdefault(key, len(self.codes))
        self.seconds[row] = 0.0
        self.decisions[row] = 0
        self.active[row] = True

    def finish(self, row: int) -> tuple[list[float], list[int]]:
        """The thinking time and decisions per seat of the row's game."""
        n = len(self.groups[row].agents)
        return self.seconds[row, :n].tolist(), self.decisions[row, :n].tolist()

    def step(self) -> list[int]:
        """Every active row's seat to move decides and plays; returns the rows whose game
        ended (their returns in ``self.returns``)."""
        rows = np.flatnonzero(self.active)
        current = self.games.current_player[rows]
        keys = self.key_at[rows, current]
        actions = np.zeros(self.games.num_games, dtype=np.int64)
        for code in np.unique(keys).tolist():
            members = np.flatnonzero(keys == code)
            which, seats = rows[members], current[members]
            first = self.agent_at[int(which[0])][int(seats[0])]
            if _argmax_checkpoint(first):  # one network for the key: no list of its agents
                agents = [first]
            else:
                agents = [
                    self.agent_at[r][s] for r, s in zip(which.tolist(), seats.tolist(), strict=True)
                ]
            start = time.process_time()
            actions[which] = _decide_key(self.games, which, agents, self.forms)
            self.seconds[which, seats] += (time.process_time() - start) / len(members)
            self.decisions[which, seats] += 1
        try:
            rewards, done = self.games.step(actions, self.active)  # checks every action first
        except ValueError:
            self._check(rows, current, actions)
            raise
        for row, action in zip(rows.tolist(), actions[rows].tolist(), strict=True):
            self.games_now[row].actions.append(action)
        ended = rows[done[rows]].tolist()
        for row in ended:
            self.returns[row] = tuple(rewards[row].tolist())
            self.active[row] = False
        return ended

    def _check(self, rows: np.ndarray, current: np.ndarray, actions: np.ndarray) -> None:
        """After the engine refused an action: a ``ValueError`` for the first illegal one,
        naming the agent's spec and seat and the per-game engine's reason."""
        mask = self.games.legal_mask()
        chosen = actions[rows]
        inside = (chosen >= 0) & (chosen < mask.shape[1])
        legal = inside & mask[rows, np.clip(chosen, 0, mask.shape[1] - 1)]
        if legal.all():
            return
        j = int(np.flatnonzero(~legal)[0])
        row, seat = int(rows[j]), int(current[j])
        state = self.engine.State.from_dict(self.games.state_dict(row))
        spec = self.groups[row].task[1][self.games_now[row].seats[seat]]
        try:
            state.apply(int(chosen[j]))
        except (ValueError, TypeError) as error:
            raise ValueError(f"agent {spec!r} in seat {seat}: {error}") from None
        raise ValueError(f"agent {spec!r} in seat {seat}: action {chosen[j]} is illegal")


def _decide_key(
    games: Any, which: np.ndarray, agents: list[Any], forms: dict[int, Any]
) -> np.ndarray:
    """Agents of one spec deciding games ``which`` (ascending), one game each or more (an
    argmax checkpoint: its one agent for them all)."""
    first = _form(games, agents[0], forms)
    if callable(getattr(first, "candidates", None)):
        # the array heuristics and styles: one call of the kernels (the candidates depend on the
        # class and its tolerance, the same for one spec), then each agent draws its own
        # (the wrappers' agents are the agents themselves)
        legal, top, counts = first.candidates(games, which)
        return draw_rows(agents, legal, top, counts)
    if _argmax_checkpoint(agents[0]):
        return np.asarray(first.act_arrays(games, which), dtype=np.int64)  # draws nothing
    chosen = np.empty(len(which), dtype=np.int64)
    by_agent: dict[int, list[int]] = {}
    for j, agent in enumerate(agents):
        by_agent.setdefault(id(agent), []).append(j)
    for members in by_agent.values():
        form = _form(games, agents[members[0]], forms)
        chosen[members] = np.asarray(form.act_arrays(games, which[members]), dtype=np.int64)
    return chosen


def _form(games: Any, agent: Any, forms: dict[int, Any]) -> Any:
    """``agent`` as an array agent (:func:`~hot_envs.agents.arrays.as_array_agent`), cached;
    one whose ``act_arrays`` comes from a class above the one that gives its ``act`` (a
    subclass that plays otherwise) plays through its ``act``."""
    entry = forms.get(id(agent))
    if entry is None or entry[0] is not agent:
        if inherited_act_arrays(agent):
            form = PerGameAgent(agent)
        else:
            form = as_array_agent(games.game_name, agent)
        entry = forms[id(agent)] = (agent, form)
    return entry[1]


@contextmanager
def compiled_kernels(tasks: Sequence[tuple]) -> Iterator[None]:
    """While the arena plays ``tasks`` (``play_group``'s arguments, one game): the game's
    kernels compiled or loaded first, here (a worker forked inside inherits them), and one line
    on stderr while they compile (:func:`hot_envs.batched.jit.announcing`) — a first run after
    install says why it waits.

    The groups (:func:`hot_envs.batched.jit.compile_groups`), about as long to compile, and
    sharing no kernels: the heuristic's decisions, with the policy input where a lineup names
    a checkpoint (:func:`compile_decisions`: the two share the heuristic's scores, so they
    compile in one process), then the engine and the ratings (:func:`compile_engine`). What
    no group calls (a style's kernel, the checkpoints' first layer) compiles or loads when
    first needed, the line coming then if it has not come."""
    from hot_envs.agents.shipped import is_checkpoint

    description = get_game(tasks[0][0])
    specs = {spec for task in tasks for spec in task[1] if isinstance(spec, str)}
    policy_input = any(is_checkpoint(spec) for spec in specs)
    decisions = (f"{__name__}:compile_decisions", description.name, policy_input)
    engine = (f"{__name__}:compile_engine", description.name)
    with jit.announcing(f"{description.title}'s kernels", description.compile_seconds):
        jit.compile_groups([decisions, engine])
        yield


def compile_decisions(game: str, policy_input: bool) -> None:
    """The heuristic's candidates of one decision on a fresh deal, and the policy input
    (checkpoints decide with it) of that decision if ``policy_input``."""
    from hot_envs.agents import make_agent
    from hot_envs.agents.features import SPECS

    games, which = _one_game(game)
    as_array_agent(game, make_agent("heuristic", game, 0)).candidates(games, which)
    if policy_input:
        observations = np.zeros((1, games.observation_size), dtype=np.float32)
        packed = np.zeros((1, SPECS[game].input_size), dtype=np.float32)
        fill_policy_input(games, which, games.current_player[which], observations, packed)


def compile_engine(game: str) -> None:
    """The engine's observation, legal actions and step, and the ratings' kernel, each called
    once on a fresh deal."""
    from hot_envs.evaluation.rating_kernel import compile_ratings

    games, which = _one_game(game)
    games.observe(rows=which)
    mask = games.legal_mask()
    games.step(mask.argmax(axis=1), np.ones(1, dtype=bool))
    compile_ratings()


def _one_game(game: str) -> tuple[batched.ArrayGames, np.ndarray]:
    """One game of ``game`` dealt as the arena deals it, and its index."""
    games = batched.make(game, 1)
    games.load_state(0, get_game(game).engine.State.new(seed=0))
    return games, np.zeros(1, dtype=np.int64)


def load_compiler() -> None:
    """numba's implementations loaded now, once per process: before the first kernel, and
    before the arena forks its workers, which then inherit them rather than each loading them
    again (a few tenths of a second of CPU each)."""
    if "numba.np.arraymath" in sys.modules:
        return
    from numba.core.registry import cpu_target

    cpu_target.target_context.refresh()


def inherited_act_arrays(agent: Any) -> bool:
    """Whether ``agent``'s ``act_arrays`` is defined above the class that defines its ``act``."""
    mro = type(agent).__mro__
    acts = next((i for i, cls in enumerate(mro) if "act" in vars(cls)), None)
    arrays = next((i for i, cls in enumerate(mro) if "act_arrays" in vars(cls)), None)
    return acts is not None and arrays is not None and arrays > acts


def _argmax_checkpoint(agent: Any) -> bool:
    """A checkpoint that plays its argmax: one spec, one network, no draws."""
    from hot_envs.agents.checkpoint import CheckpointAgent

    return type(agent) is CheckpointAgent and not agent.sample

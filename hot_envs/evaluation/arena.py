"""The arena: play many games between agents, fairly, reproducibly and on every core.

A *matchup* is one lineup of agent specs, one per seat (``["heuristic", "random"]``, or for a
4-player Heiße Karten game ``["search", "random", "random", "random"]``). It is played in groups
of ``N`` games on the same deal, seats rotated by one each game, so every lineup entry sits in
every seat equally often and meets the same cards (duplicate play); game counts are rounded up to
a multiple of ``N``. Deal ``d`` is seeded from ``(seed, d)`` and the agents of each group from
``(seed, matchup, group, slot)``, so the same seed gives the same games whatever the number of
workers. The groups play in batches on the game's array engine, many side by side
(:mod:`hot_envs.evaluation.batch`), in this process or in worker processes
(``concurrent.futures``); the agents are built from their specs inside the workers, so nothing
but strings crosses process boundaries. Every game keeps its deal seed and its actions, so it
can be replayed on either engine (:meth:`MatchResult.game_records`,
:mod:`hot_envs.evaluation.records`): both draw its chance events from the deal seed's stream.

The Python API also takes agent objects (anything with ``act(observation, view)``) in place of
specs. Objects are not rebuilt per group: by default a run with an object plays every game in
this process (``workers=1``); with ``workers`` > 1 each worker gets a pickled copy, so the object
must pickle, and what a copy learns stays in its worker. An object that decides in arrays
(``act_arrays``: one agent for many games, no memory of a game; its draws then come in the
batch's order) plays in full batches; any other may remember its game, so its groups play one
at a time (a batch of one group, its games in turn).

Per agent the arena reports wins, draws and losses, the *win share* (a win counts 1, a win shared
by W tied players 1/W each — so a 2-player draw counts ½) with its 95 % Wilson interval, the mean
reward, the mean game length (actions) and the mean time per decision.

:func:`round_robin` plays every pair of agents: in a 2-player game each pair once; with N > 2
players, each agent alone against N−1 copies of each other agent (the win-rate matrix's cell
``[i][j]`` is i's win share there, 1/N being even). Ratings come from openskill's Plackett–Luce
model over all games in a fixed order; an agent with several seats in a game enters the update
once per seat and takes the mean of those updates. :mod:`hot_envs.evaluation.report` prints and
saves it.
"""

from __future__ import annotations

import math
import os
import pickle
import re
import time
import warnings
from collections.abc import Callable, Collection, Sequence
from concurrent.futures import FIRST_EXCEPTION, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from hot_envs.agents import Agent, make_agent
from hot_envs.core import shared_count
from hot_envs.core.blas import one_blas_thread
from hot_envs.core.games import get_game
from hot_envs.evaluation.records import make_record


@dataclass(frozen=True)
class GameRecord:
    """One finished game: ``lineup[seats[s]]`` sat in seat ``s``."""

    matchup: int
    index: int  # game number inside the matchup; deal = index // N
    seats: tuple[int, ...]  # lineup slot per seat
    returns: tuple[float, ...]  # per seat
    length: int  # actions played
    seconds: tuple[float, ...] = field(compare=False)  # thinking time per seat
    decisions: tuple[int, ...] = field(compare=False)  # decisions per seat
    deal_seed: int = 0  # State.new(seed=deal_seed, **options) deals this game's cards
    actions: tuple[int, ...] = ()  # every action, in play order (hot_envs.evaluation.records)


@dataclass
class AgentStats:
    """Totals of one agent over the games it played (several seats of a game count each)."""

    name: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    share: float = 0.0  # summed win shares
    reward: float = 0.0
    length: int = 0
    seconds: float = 0.0
    decisions: int = 0

    def add(self, returns: Sequence[float], seat: int, length: int) -> None:
        best = max(returns)
        winners = sum(r == best for r in returns)
        mine = returns[seat] == best
        self.games += 1
        self.wins += mine and winners == 1
        self.draws += mine and winners > 1
        self.losses += not mine
        self.share += 1 / winners if mine else 0.0
        self.reward += returns[seat]
        self.length += length

    def summary(self) -> dict[str, Any]:
        n = max(self.games, 1)
        low, high = wilson_interval(self.share, self.games)
        return {
            "agent": self.name,
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "win_share": self.share / n,
            "ci_low": low,
            "ci_high": high,
            "mean_reward": self.reward / n,
            "mean_length": self.length / n,
            "ms_per_decision": 1000 * self.seconds / max(self.decisions, 1),
        }


def wilson_interval(successes: float, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval for a proportion (95 % by default); ``(0, 1)`` when n = 0.

    Fractional successes (shared wins) are allowed."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    # The interval holds p; rounding alone could put an end a hair inside it (1 - 1e-16 at p = 1).
    return max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half))


def derive_seed(*parts: int) -> int:
    """A 63-bit seed from a tuple of non-negative ints (numpy's SeedSequence)."""
    return int(np.random.SeedSequence(list(parts)).generate_state(2, np.uint64)[0] >> 1)


AgentSpec = str | Agent  # a spec (hot_envs.agents.make_agent) or an agent object


def _agent(spec: AgentSpec, game: str, seed: int) -> Agent:
    """The agent ``spec`` names, built with ``seed``; an agent object as it is."""
    if isinstance(spec, str):
        return make_agent(spec, game, seed)
    if not callable(getattr(spec, "act", None)):
        raise ValueError(f"{spec!r} is neither an agent spec (a str) nor an agent (no act())")
    return spec


def _check_workers(specs: Sequence[AgentSpec], workers: int | None) -> int | None:
    """Agent objects play in this process unless more workers are asked for; then they must
    pickle (module docstring)."""
    if workers is not None and (isinstance(workers, bool) or workers < 1):
        raise ValueError(f"workers must be a positive int or None (all cores), not {workers!r}")
    objects = [spec for spec in specs if not isinstance(spec, str)]
    if not objects or workers is None:
        return 1 if objects else workers
    if workers > 1:
        for agent in objects:
            try:
                pickle.dumps(agent)
            except Exception as error:  # noqa: BLE001 (any pickling failure means the same)
                raise ValueError(
                    f"agent {agent!r} cannot be sent to worker processes ({error}): "
                    "use workers=1, or give it as a spec"
                ) from None
    return workers


def num_players(game: str, players: int | None, options: dict | None = None) -> int:
    """Seats of ``game`` with these options (checks them by dealing one game)."""
    return (
        get_game(game).engine.State.new(seed=0, **game_options(game, players, options)).num_players
    )


def game_options(game: str, players: int | None, options: dict | None = None) -> dict:
    """Engine options for ``State.new``: ``options`` plus the player count where the game has
    one to choose (:meth:`hot_envs.core.games.Game.options`)."""
    return get_game(game).options(players, options)


def play_group(
    game: str,
    lineup: Sequence[AgentSpec],
    matchup: int,
    group: int,
    seed: int,
    options: dict | None = None,
) -> list[GameRecord]:
    """Play deal ``group`` once per seat rotation (N games) with freshly built agents: a batch
    of this one group (:func:`play_batches`)."""
    records: list[GameRecord] = []
    play_batches([(game, lineup, matchup, group, seed, options)], lambda _, r: records.extend(r))
    return records


def _run_groups(
    tasks: list[tuple],
    workers: int | None,
    progress: bool,
    on_group: Callable[[list[GameRecord]], None] | None = None,
) -> list[GameRecord]:
    """Run ``play_group(*task)`` for every task, in parallel, with a progress bar; each finished
    group goes to ``on_group`` at once."""
    records: list[GameRecord] = []

    def finished(_: int, group: list[GameRecord]) -> None:
        records.extend(group)
        if on_group is not None:
            on_group(group)

    bar = progress_bar(sum(len(task[1]) for task in tasks)) if progress else None
    play_tasks(tasks, workers, finished, bar)
    if bar is not None:
        bar.close()
    records.sort(key=lambda r: (r.matchup, r.index))
    return records


def play_tasks(
    tasks: list[tuple],
    workers: int | None,
    on_group: Callable[[int, list[GameRecord]], None],
    bar: Any = None,
) -> None:
    """Play ``play_group(*task)`` for every task — in batches on the array engines
    (:func:`play_batches`) — in this process or in ``workers`` processes (``None``: all cores,
    as many as have a full batch each). Each
    finished group's records go at once to ``on_group(position of its task, records)`` and
    move ``bar``. The gauntlet plays all its matchups' tasks in one call."""
    with one_blas_thread():
        _play_tasks(tasks, workers, on_group, bar)


def _play_tasks(
    tasks: list[tuple],
    workers: int | None,
    on_group: Callable[[int, list[GameRecord]], None],
    bar: Any,
) -> None:
    if workers is None:
        # all cores, but a worker process pays its imports and kernels: each gets a full batch
        from hot_envs.evaluation.batch import BATCH

        workers = max(1, min(os.cpu_count() or 1, len(tasks) // BATCH))
    workers = min(workers, len(tasks)) if tasks else 1
    from hot_envs.evaluation.batch import compiled_kernels, load_compiler

    load_compiler()  # numba's implementations, once, before any worker is forked
    if tasks:
        # the game's kernels here, before any worker: the workers inherit them
        with compiled_kernels(tasks):
            _play_compiled(tasks, workers, on_group, bar)


def _play_compiled(
    tasks: list[tuple],
    workers: int,
    on_group: Callable[[int, list[GameRecord]], None],
    bar: Any,
) -> None:
    def finished(position: int, group: list[GameRecord]) -> None:
        on_group(position, group)
        if bar is not None:
            bar.update(len(group))

    moves = _MovesShown(bar)
    if workers <= 1:
        play_batches(tasks, finished, moves.add)
    else:
        # a few chunks of groups per worker (a chunk's groups are reported, and kept by a
        # resumable run, when it ends)
        size = math.ceil(len(tasks) / (4 * workers))
        remaining = {start: tasks[start : start + size] for start in range(0, len(tasks), size)}
        for attempt in range(_POOL_ATTEMPTS):
            try:
                _run_pool(remaining, min(workers, len(remaining)), finished, moves)
                break
            except BrokenProcessPool:
                if attempt + 1 == _POOL_ATTEMPTS:
                    raise
                warnings.warn(
                    f"an arena worker process died; the {len(remaining)} job(s) not yet "
                    "finished are played again in a fresh pool (same deals, same seeds)",
                    RuntimeWarning,
                    stacklevel=4,
                )
    moves.show(force=True)


class _MovesShown:
    """The moves played so far, beside a bar of games (``set_postfix_str``) at most twice a
    second: in batches the games of a batch end together, so a bar of games alone stands still
    for most of a long run (a search agent's, say)."""

    def __init__(self, bar: Any) -> None:
        self.bar = bar
        self.total = 0
        self.shown = 0.0

    def add(self, moves: int) -> None:
        self.total += moves
        self.show()

    def show(self, total: int | None = None, force: bool = False) -> None:
        if total is not None:
            self.total = total
        now = time.monotonic()
        if self.bar is not None and self.total and (force or now - self.shown >= 0.5):
            self.bar.set_postfix_str(f"{self.total:,} moves")
            self.shown = now


_POOL_ATTEMPTS = 2  # a pool whose worker died (killed by the OS, say) is replaced once


def _run_pool(
    remaining: dict[int, list[tuple]],
    workers: int,
    finished: Callable[[int, list[GameRecord]], None],
    moves: _MovesShown,
) -> None:
    """Play the ``remaining`` chunks of tasks (by the position of their first) in one process
    pool; each finished one leaves ``remaining`` (so a broken pool's caller knows what is left;
    groups are deterministic, so playing one again gives the same games). The workers count
    their moves in batches into one shared counter, shown by ``moves``."""
    counter = shared_count.new(moves.total)
    with ProcessPoolExecutor(workers, initializer=shared_count.share, initargs=(counter,)) as pool:
        futures = {pool.submit(_play_chunk, chunk): start for start, chunk in remaining.items()}
        try:
            pending = set(futures)
            while pending:
                done, pending = wait(pending, timeout=0.5, return_when=FIRST_EXCEPTION)
                for future in done:
                    groups = future.result()
                    start = futures[future]
                    del remaining[start]
                    for position, group in groups:
                        finished(start + position, group)
                moves.show(counter.value)
        except BaseException:
            for future in futures:
                future.cancel()
            raise


def _play_chunk(tasks: list[tuple]) -> list[tuple[int, list[GameRecord]]]:
    """A worker's job: the groups of ``tasks``, each group's records with its task's position."""
    groups: list[tuple[int, list[GameRecord]]] = []

    def keep(position: int, group: list[GameRecord]) -> None:
        groups.append((position, group))

    with one_blas_thread():
        play_batches(tasks, keep, shared_count.add)
    return groups


def _remembers(spec: AgentSpec) -> bool:
    """Whether ``spec`` is an agent object that may remember its game: one that does not decide
    in arrays (no ``act_arrays`` of its own, :mod:`hot_envs.agents.arrays`)."""
    from hot_envs.evaluation.batch import inherited_act_arrays

    if isinstance(spec, str):
        return False
    return not callable(getattr(spec, "act_arrays", None)) or inherited_act_arrays(spec)


def play_batches(
    tasks: list[tuple],
    on_group: Callable[[int, list[GameRecord]], None],
    on_moves: Callable[[int], None] | None = None,
) -> None:
    """Play ``tasks`` (``play_group``'s arguments) in batches on the game's array engine, one
    engine per game and set of options (module docstring of :mod:`hot_envs.evaluation.batch`),
    each group's records to ``on_group(position of its task, records)`` as it ends;
    ``on_moves(n)`` after each step, its ``n`` moves. A group with an agent object that may
    remember its game (:func:`_remembers`) is a batch of its own, so the object meets one game
    at a time."""
    from hot_envs.evaluation import batch

    def record(
        group: Any, game: Any, returns: tuple[float, ...], seconds: list, decisions: list
    ) -> GameRecord:
        _, lineup, matchup, index, _, _ = group.task
        n = len(lineup)
        return GameRecord(
            matchup,
            index * n + game.rotation,
            game.seats,
            returns,
            len(game.actions),
            tuple(seconds),
            tuple(decisions),
            group.deal_seed,
            tuple(game.actions),
        )

    by_kind: dict[str, list[int]] = {}
    for position, task in enumerate(tasks):  # one array engine per game and set of options
        kind = repr((task[0], sorted((task[5] or {}).items())))
        if any(_remembers(spec) for spec in task[1]):
            kind = f"{kind} group {position}"
        by_kind.setdefault(kind, []).append(position)
    for positions in by_kind.values():
        batch.play_groups(
            [tasks[p] for p in positions],
            _agent,
            derive_seed,
            record,
            lambda k, group, positions=positions: on_group(positions[k], group),
            on_moves,
        )


def progress_bar(total: int, unit: str = "game", desc: str = "games") -> Any:
    """A tqdm bar over ``total`` items, or ``None`` without tqdm (it is optional)."""
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    return tqdm(total=total, unit=unit, desc=desc, smoothing=0.05)


@dataclass
class MatchResult:
    """Records of the games of one or more matchups, with per-agent statistics."""

    game: str
    agents: list[str]
    lineups: list[tuple[int, ...]]  # per matchup: agent index per lineup slot
    records: list[GameRecord]
    seed: int
    specs: list[str] = field(default_factory=list)  # agent spec (an object: its name) per agent
    options: dict[str, Any] = field(default_factory=dict)  # State.new options of every game

    def stats(self, matchup: int | None = None) -> list[AgentStats]:
        """Per-agent totals, over all matchups or one."""
        stats = [AgentStats(name) for name in self.agents]
        for record in self.records:
            if matchup is not None and record.matchup != matchup:
                continue
            lineup = self.lineups[record.matchup]
            for seat, slot in enumerate(record.seats):
                s = stats[lineup[slot]]
                s.add(record.returns, seat, record.length)
                s.seconds += record.seconds[seat]
                s.decisions += record.decisions[seat]
        return [s for s in stats if s.games]

    def summary(self) -> list[dict[str, Any]]:
        return [s.summary() for s in self.stats()]

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "seed": self.seed,
            "agents": self.agents,
            "lineups": [list(lineup) for lineup in self.lineups],
            "summary": self.summary(),
            # Actions are kept in games.jsonl (game_records), not here.
            "games": [
                {name: getattr(record, name) for name in _SAVED_FIELDS} for record in self.records
            ],
        }

    def game_records(self) -> list[dict[str, Any]]:
        """Every game as a replayable record (:mod:`hot_envs.evaluation.records`), in play order."""
        specs = self.specs or self.agents
        return [
            make_record(
                self.game,
                self.options,
                r.deal_seed,
                [specs[self.lineups[r.matchup][slot]] for slot in r.seats],
                r.actions,
                r.returns,
                r.matchup,
                r.index,
            )
            for r in self.records
        ]


_SAVED_FIELDS = tuple(f.name for f in fields(GameRecord) if f.name != "actions")
"""A game's fields in ``MatchResult.to_dict`` (its actions go to games.jsonl)."""


_OWN_AGENT = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")  # package.module:factory


def display_name(spec: AgentSpec, agent: Agent | None = None) -> str:
    """How the tables name an agent: a spec as written, but your own agent's
    ``package.module:factory`` spec by the ``name`` attribute (a non-empty str) of ``agent``,
    the agent it built, when it has one; an agent object by its ``name``, else its class."""
    if not isinstance(spec, str):
        return getattr(spec, "name", type(spec).__name__)
    name = getattr(agent, "name", None) if _OWN_AGENT.match(spec) else None
    return name if isinstance(name, str) and name else spec


def unique_names(
    specs: Sequence[AgentSpec], agents: Sequence[Agent | None] | None = None
) -> list[str]:
    """The specs as display names (:func:`display_name`, with the agent each spec built where
    ``agents`` gives them), ``random#2`` for the second ``random``."""
    names: list[str] = []
    built = list(agents) if agents is not None else [None] * len(specs)
    for spec, agent in zip(specs, built, strict=True):
        base = display_name(spec, agent)
        name, k = base, 2
        while name in names:
            name, k = f"{base}#{k}", k + 1
        names.append(name)
    return names


def play_matchups(
    game: str,
    specs: Sequence[AgentSpec],
    lineups: Sequence[Sequence[int]],
    games: int | Sequence[int],
    seed: int = 0,
    players: int | None = None,
    options: dict | None = None,
    workers: int | None = None,
    progress: bool = True,
    skip: Collection[tuple[int, int]] = (),
    on_group: Callable[[list[GameRecord]], None] | None = None,
) -> MatchResult:
    """Play ``games`` games (rounded up to whole seat rotations) of each lineup of agents.

    ``specs`` are agent specs (:func:`hot_envs.agents.make_agent`) or agent objects (module
    docstring); a lineup lists, per seat slot, the index of the spec that sits there.
    ``games`` may give one count per lineup.
    A group of games is one deal played once per seat rotation; ``(matchup, group)`` pairs in
    ``skip`` are not played (their games are the same whenever they are played: a resumed run
    passes the ones it kept), and ``on_group`` receives each group's records as it finishes.
    """
    game = get_game(game).name
    options = game_options(game, players, options)
    n = num_players(game, None, options)
    # Fail early, in this process, on a spec nobody understands; the agents name the tables.
    agents = [_agent(spec, game, 0) for spec in specs]
    workers = _check_workers(specs, workers)
    counts = [games] * len(lineups) if isinstance(games, int) else list(games)
    if len(counts) != len(lineups) or min(counts, default=1) < 1:
        raise ValueError(f"games must be a positive int or one per lineup, not {games!r}")
    tasks = []
    for m, (lineup, count) in enumerate(zip(lineups, counts, strict=True)):
        if len(lineup) != n:
            raise ValueError(f"a lineup needs {n} agents for this game, got {len(lineup)}")
        specs_here = [specs[i] for i in lineup]
        groups = (g for g in range(math.ceil(count / n)) if (m, g) not in skip)
        tasks += [(game, specs_here, m, g, seed, options) for g in groups]
    records = _run_groups(tasks, workers, progress, on_group)
    lineups = [tuple(x) for x in lineups]
    names = unique_names(specs, agents)
    kept = [
        spec if isinstance(spec, str) else name for spec, name in zip(specs, names, strict=True)
    ]
    return MatchResult(game, names, lineups, records, seed, kept, options)


def play_match(game: str, lineup: Sequence[AgentSpec], games: int, **kwargs: Any) -> MatchResult:
    """Play ``games`` games of one lineup of agent specs, one per seat (rotated fairly); the
    lineup's length is the number of players unless ``players`` says otherwise."""
    kwargs.setdefault("players", len(lineup))
    return play_matchups(game, list(lineup), [list(range(len(lineup)))], games, **kwargs)


def round_robin_lineups(num_agents: int, players: int) -> list[tuple[int, ...]]:
    """2 players: each pair once. More: each agent alone against N−1 copies of each other."""
    if players == 2:
        return [(i, j) for i in range(num_agents) for j in range(i + 1, num_agents)]
    return [
        (i,) + (j,) * (players - 1) for i in range(num_agents) for j in range(num_agents) if i != j
    ]


def round_robin(game: str, specs: Sequence[AgentSpec], games: int, **kwargs: Any) -> MatchResult:
    """Every pair of agents plays ``games`` games (module docstring)."""
    if len(specs) < 2:
        raise ValueError("a round robin needs at least two agents")
    n = num_players(game, kwargs.get("players"), kwargs.get("options"))
    return play_matchups(game, specs, round_robin_lineups(len(specs), n), games, **kwargs)


def win_matrix(result: MatchResult) -> list[list[float | None]]:
    """``[i][j]``: agent i's win share in its games against agent j (None if they never met)."""
    k = len(result.agents)
    share = [[0.0] * k for _ in range(k)]
    games = [[0] * k for _ in range(k)]
    for m, lineup in enumerate(result.lineups):
        if len(set(lineup)) != 2:
            continue
        lone = lineup[0]  # 2 players: either; N players: the agent alone vs the copies
        other = next(i for i in lineup if i != lone)
        for s in result.stats(m):
            i = result.agents.index(s.name)
            if len(lineup) == 2 or i == lone:
                j = other if i == lone else lone
                share[i][j] += s.share
                games[i][j] += s.games
    return [
        [share[i][j] / games[i][j] if games[i][j] else None for j in range(k)] for i in range(k)
    ]


def ratings(result: MatchResult, passes: int = 10) -> list[dict[str, float]]:
    """Plackett–Luce ratings (openskill) of every agent: mu, sigma and ordinal (mu − 3 sigma).

    openskill updates game by game, so the last games weigh most; the ratings are the mean over
    ``passes`` seeded shuffles of the game order. The updates are openskill's ``PlackettLuce``
    model with its defaults, made by a kernel (:mod:`hot_envs.evaluation.rating_kernel`: its
    numbers, bit for bit, without its objects — thousands of games in milliseconds).
    """
    from openskill.models import PlackettLuce

    from hot_envs.evaluation.rating_kernel import rate_games

    model = PlackettLuce()
    rng = np.random.default_rng(result.seed)
    games = [_rated_game(result, record) for record in result.records]
    width = max((len(agent_at) for agent_at, _ in games), default=1)
    agents = np.zeros((len(games), width), dtype=np.int64)
    ranks = np.zeros((len(games), width), dtype=np.int64)
    seats = np.array([len(agent_at) for agent_at, _ in games], dtype=np.int64)
    for g, (agent_at, rank) in enumerate(games):
        agents[g, : len(agent_at)] = agent_at
        ranks[g, : len(rank)] = rank
    constants = float(model.beta), float(model.kappa), float(model.tau)
    mu = np.zeros(len(result.agents))
    sigma = np.zeros(len(result.agents))
    for _ in range(passes):
        order = rng.permutation(len(result.records)).astype(np.int64)
        mu_now = np.full(len(result.agents), float(model.mu))
        sigma_now = np.full(len(result.agents), float(model.sigma))
        rate_games(order, agents, ranks, seats, mu_now, sigma_now, *constants)
        mu += mu_now
        sigma += sigma_now
    mu, sigma = mu / passes, sigma / passes
    return [
        {"agent": name, "mu": float(m), "sigma": float(s), "ordinal": float(m - 3 * s)}
        for name, m, s in zip(result.agents, mu, sigma, strict=True)
    ]


def _rated_game(result: MatchResult, record: GameRecord) -> tuple[list[int], list[int]]:
    """The agent in each seat and each seat's rank (0 the best; tied returns share a rank)."""
    lineup = result.lineups[record.matchup]
    agent_at = [lineup[slot] for slot in record.seats]
    ranks = [sum(other > r for other in record.returns) for r in record.returns]
    return agent_at, ranks

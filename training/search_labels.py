"""The labels of expert iteration (:mod:`hot_envs.training.expert_iteration`): the apprentice
plays, the search labels its decisions, and the labels go to disk in shards.

A shard is one job: ``labels`` decisions of the apprentice from whole games, each game at a
table size drawn from ``player_counts``, the apprentice in a seat drawn at random and opponents
drawn by weight from a mix (agent specs; ``self``: the apprentice's argmax, ``snapshot``: an
earlier round's apprentice) in the others. The apprentice plays a draw from its softmax at
``temperature`` (0: its argmax); at each of its decisions with a choice the search
(:meth:`hot_envs.agents.search.SearchAgent.action_values`) judges every legal action. A label
keeps the policy's input, each legal action's mean rollout return and rollout count, the
apprentice's logits, the search's choice, the apprentice's move and the game's outcome for
the seat. ``guide`` lets the apprentice guide the search: ``prior`` makes the apprentice's move
the search's default (kept unless an action is better by ``margin``), ``rollout`` has the
apprentice play the rollouts' first plies in place of the search's own rollout policy.

A shard is a compressed ``.npz`` written atomically (a temporary file renamed to its name), so a
shard on disk is whole: a rerun skips it, and a temporary file left by a stopped run is never
read. :func:`write_shards` runs the missing ones over a process pool with a progress bar of
labels.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np

from hot_envs.agents import make_agent
from hot_envs.agents.arrays import ActionScorerInput
from hot_envs.agents.base import observe
from hot_envs.agents.checkpoint import CheckpointAgent, atomic_file
from hot_envs.agents.search import SearchAgent
from hot_envs.core import shared_count
from hot_envs.core.games import get_game
from hot_envs.evaluation.arena import progress_bar

GUIDES = ("prior", "rollout")  # how the apprentice may guide the search
OWN = ("self", "snapshot")  # opponent specs that name the apprentice's own networks


@dataclass(frozen=True)
class ShardJob:
    """One shard to write (module docstring); picklable, for a worker process."""

    path: str  # the shard's file
    game: str
    player_counts: tuple[int | None, ...]
    labels: int  # decisions to label (the last game may add a few)
    seed: int
    apprentice: str  # its checkpoint
    teacher: str  # a search spec
    opponents: tuple[tuple[str, float], ...]  # (spec, weight)
    snapshots: tuple[str, ...] = ()  # earlier apprentices' checkpoints ("snapshot")
    guide: tuple[str, ...] = ()
    margin: float | None = None  # with guide "prior"; None: the teacher's own
    temperature: float = 1.0
    scorer: bool = True  # the policy reads the action scorer's input (else the observation)


@dataclass
class Labels:
    """Labels as arrays: one row per decision, its legal actions' entries flat (``offsets``:
    row ``i``'s are ``offsets[i]:offsets[i + 1]``, the actions ascending)."""

    observations: np.ndarray  # float32 (n, input): the policy's input
    offsets: np.ndarray  # int64 (n + 1,)
    actions: np.ndarray  # int64 (m,): the legal actions
    values: np.ndarray  # float32 (m,): their mean rollout returns
    counts: np.ndarray  # int32 (m,): their rollouts
    prior: np.ndarray  # float32 (m,): the apprentice's logits
    choice: np.ndarray  # int64 (n,): the search's choice
    played: np.ndarray  # int64 (n,): the apprentice's move
    outcome: np.ndarray  # float32 (n,): the seat's return at the end of the game
    later: np.ndarray  # int32 (n,): the seat's decisions after this one
    players: np.ndarray  # int8 (n,): the table size
    game: np.ndarray  # int32 (n,): the game in its shard
    num_actions: int = 0

    def __len__(self) -> int:
        return len(self.choice)

    def rows(self, which: np.ndarray) -> Labels:
        """The labels of rows ``which`` (ascending or not)."""
        which = np.asarray(which, dtype=np.int64)
        flat = segment_positions(self.offsets, which)
        lengths = self.offsets[which + 1] - self.offsets[which]
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        parts = {
            name: getattr(self, name)[flat] for name in ("actions", "values", "counts", "prior")
        }
        rows = {name: getattr(self, name)[which] for name in PER_ROW}
        return Labels(offsets=offsets, num_actions=self.num_actions, **parts, **rows)


PER_ROW = ("observations", "choice", "played", "outcome", "later", "players", "game")


def segment_positions(offsets: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The flat positions of ``rows``' entries, row after row."""
    starts, ends = offsets[rows], offsets[rows + 1]
    lengths = ends - starts
    firsts = np.repeat(starts - np.cumsum(lengths) + lengths, lengths)
    return firsts + np.arange(lengths.sum())


def concatenate(parts: Sequence[Labels]) -> Labels:
    """``parts`` one after the other."""
    shifts = np.cumsum([0] + [part.offsets[-1] for part in parts[:-1]])
    offsets = [parts[0].offsets[:1]] + [
        part.offsets[1:] + shift for part, shift in zip(parts, shifts, strict=True)
    ]
    joined = {
        f.name: np.concatenate([getattr(part, f.name) for part in parts])
        for f in fields(Labels)
        if f.name not in ("offsets", "num_actions")
    }
    return Labels(offsets=np.concatenate(offsets), num_actions=parts[0].num_actions, **joined)


# --- Writing a shard (in a worker) ----------------------------------------------------------------


def write_shard(job: ShardJob, progress: Callable[[int], Any] | None = None) -> int:
    """Play and label ``job``'s games and write its shard; the labels written. ``progress``
    gets the labels of each game as it ends (a pool's workers add them to its shared count)."""
    description = get_game(job.game)
    engine = description.engine
    rng = np.random.default_rng(job.seed)
    apprentice = CheckpointAgent.load(job.apprentice, job.game)
    teacher = guided_search(job, apprentice)
    opponents = _Opponents(job, apprentice)
    policy_input = ActionScorerInput(job.game) if job.scorer else None
    rows: dict[str, list[Any]] = {name: [] for name in PER_ROW}
    flat: dict[str, list[np.ndarray]] = {n: [] for n in ("actions", "values", "counts", "prior")}
    game = 0
    while len(rows["choice"]) < job.labels:
        count = job.player_counts[rng.integers(len(job.player_counts))]
        state = engine.State.new(seed=rng, **description.options(count))
        seat_of_apprentice = int(rng.integers(state.num_players))
        seated = opponents.draw(state.num_players, seat_of_apprentice, rng)
        decisions = 0  # the apprentice's, so far
        firsts = len(rows["choice"])
        marks: list[int] = []  # the apprentice's decision count at each label
        while not state.is_terminal():
            seat = state.current_player
            observation = observe(engine, state, seat)
            view = state.view(seat)
            if seat != seat_of_apprentice:
                state.apply(int(seated[seat].act(observation, view)))
                continue
            legal = np.flatnonzero(observation["action_mask"])
            decisions += 1
            if len(legal) == 1:  # nothing to judge
                state.apply(int(legal[0]))
                continue
            logits = apprentice.legal_logits(observation, view, legal)
            choice, judged = teacher.action_values(observation, view)
            move = int(legal[_draw(logits, job.temperature, rng)])
            rows["observations"].append(
                policy_input.one(observation["observation"], view)
                if policy_input is not None
                else observation["observation"]
            )
            flat["actions"].append(legal)
            flat["values"].append(np.array([judged[a][0] for a in legal.tolist()]))
            flat["counts"].append(np.array([judged[a][1] for a in legal.tolist()]))
            flat["prior"].append(logits)
            rows["choice"].append(choice)
            rows["played"].append(move)
            rows["players"].append(state.num_players)
            rows["game"].append(game)
            marks.append(decisions)
            state.apply(move)
        outcome = state.returns()[seat_of_apprentice]
        rows["outcome"] += [outcome] * len(marks)
        rows["later"] += [decisions - mark for mark in marks]
        (progress or shared_count.add)(len(rows["choice"]) - firsts)
        game += 1
    labels = _as_labels(rows, flat, description.engine)
    save(labels, job.path)
    return len(labels)


def guided_search(job: ShardJob, apprentice: CheckpointAgent) -> SearchAgent:
    """``job``'s teacher, with the apprentice as its prior and / or rollout policy (``guide``)."""
    teacher = make_agent(job.teacher, job.game, job.seed)
    if not isinstance(teacher, SearchAgent):
        raise ValueError(f"the teacher must be a search spec, not {job.teacher!r}")
    if not job.guide:
        return teacher
    prior = "prior" in job.guide
    return SearchAgent(
        teacher.engine,
        simulations=teacher.simulations,
        seconds=teacher.seconds,
        rollout=apprentice if "rollout" in job.guide else teacher.rollout,
        seed=job.seed,
        rollout_plies=teacher.rollout_plies,
        prior=apprentice if prior else teacher.prior,
        margin=job.margin if prior and job.margin is not None else teacher.margin,
        value=teacher.value,
        array_value=teacher.array_value,
    )


class _Opponents:
    """The opponents' mix: one agent per spec, made once; ``snapshot`` draws an earlier
    apprentice (the apprentice itself while there is none)."""

    def __init__(self, job: ShardJob, apprentice: CheckpointAgent) -> None:
        weights = np.array([weight for _, weight in job.opponents], dtype=float)
        self.shares = weights / weights.sum()
        self.agents: list[Any] = []
        for k, (spec, _) in enumerate(job.opponents):
            if spec == "self":
                self.agents.append([apprentice])
            elif spec == "snapshot":
                earlier = [CheckpointAgent.load(path, job.game) for path in job.snapshots]
                self.agents.append(earlier or [apprentice])
            else:
                self.agents.append([make_agent(spec, job.game, job.seed + 1 + k)])

    def draw(self, players: int, apprentice_seat: int, rng: np.random.Generator) -> dict:
        seated = {}
        for seat in range(players):
            if seat != apprentice_seat:
                group = self.agents[rng.choice(len(self.shares), p=self.shares)]
                seated[seat] = group[rng.integers(len(group))]
                if hasattr(seated[seat], "reset"):
                    seated[seat].reset()
        return seated


def _draw(logits: np.ndarray, temperature: float, rng: np.random.Generator) -> int:
    """An index drawn from ``softmax(logits / temperature)``; the argmax at temperature 0."""
    if temperature == 0:
        return int(logits.argmax())
    scaled = (logits - logits.max()) / temperature
    p = np.exp(scaled)
    return int(rng.choice(len(p), p=p / p.sum()))


def _as_labels(
    rows: dict[str, list[Any]], flat: dict[str, list[np.ndarray]], engine: Any
) -> Labels:
    lengths = [len(a) for a in flat["actions"]]
    return Labels(
        observations=np.asarray(rows["observations"], dtype=np.float32),
        offsets=np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64),
        actions=np.concatenate(flat["actions"]).astype(np.int64),
        values=np.concatenate(flat["values"]).astype(np.float32),
        counts=np.concatenate(flat["counts"]).astype(np.int32),
        prior=np.concatenate(flat["prior"]).astype(np.float32),
        choice=np.asarray(rows["choice"], dtype=np.int64),
        played=np.asarray(rows["played"], dtype=np.int64),
        outcome=np.asarray(rows["outcome"], dtype=np.float32),
        later=np.asarray(rows["later"], dtype=np.int32),
        players=np.asarray(rows["players"], dtype=np.int8),
        game=np.asarray(rows["game"], dtype=np.int32),
        num_actions=engine.NUM_ACTIONS,
    )


# --- Shards on disk -------------------------------------------------------------------------------


def save(labels: Labels, path: str | Path) -> None:
    """Write ``labels`` to ``path`` atomically (a compressed ``.npz``)."""
    arrays = {f.name: getattr(labels, f.name) for f in fields(Labels) if f.name != "num_actions"}
    with atomic_file(path) as file:
        np.savez_compressed(file, num_actions=labels.num_actions, **arrays)


def load(path: str | Path) -> Labels:
    """The labels of one shard."""
    with np.load(path) as data:
        arrays = {name: data[name] for name in data.files}
    return Labels(**{**arrays, "num_actions": int(arrays["num_actions"])})


def held_out_rows(labels: Labels, name: str, share: float) -> np.ndarray:
    """Whether each row of shard ``name``'s ``labels`` is held out: whole games, each with
    probability ``share``, drawn from the shard's name (the same split in every session)."""
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    games = rng.random(int(labels.game.max()) + 1 if len(labels) else 0) < share
    return games[labels.game]


def write_shards(jobs: Sequence[ShardJob], workers: int, progress: bool = False) -> int:
    """Write the shards of ``jobs`` not on disk yet, over ``workers`` processes (1: in this one),
    with a progress bar of labels; the labels written. A pool whose worker died is replaced once
    (the shards written stay written)."""
    import warnings
    from concurrent.futures import FIRST_EXCEPTION, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    missing = [job for job in jobs if not Path(job.path).is_file()]
    total = sum(job.labels for job in missing)
    if not missing:
        return 0
    bar = progress_bar(total, unit="label", desc="search labels") if progress else None
    written = 0
    if workers <= 1:
        shown = (lambda labels: bar.update(min(labels, total - bar.n))) if bar else None
        for job in missing:
            written += write_shard(job, shown)
    else:
        counter = shared_count.new()
        for attempt in range(2):
            missing = [job for job in missing if not Path(job.path).is_file()]
            try:
                with ProcessPoolExecutor(
                    workers, initializer=shared_count.share, initargs=(counter,)
                ) as pool:
                    pending = {pool.submit(write_shard, job) for job in missing}
                    while pending:
                        done, pending = wait(pending, timeout=0.5, return_when=FIRST_EXCEPTION)
                        if bar is not None:
                            bar.update(min(counter.value, total) - bar.n)
                        for future in done:
                            written += future.result()  # raises a worker's exception
                break
            except BrokenProcessPool:
                if attempt:
                    raise
                warnings.warn(
                    "a worker process writing search labels died; writing the missing shards "
                    "in a fresh pool",
                    RuntimeWarning,
                    stacklevel=2,
                )
    if bar is not None:
        bar.close()
    return written

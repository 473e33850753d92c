"""Who plays a browser table's agent seats, and within what budget a decision is made
(docs/web.md, "Limits", gives the numbers and why).

Every agent seat gets a :class:`SeatAgent`: the agent its spec names, built for the table, and the
game's heuristic, whose move the seat plays past the decision's wall-clock cap (:class:`Referee`;
a search stops itself there, any other agent's late answer is dropped) and the table's log marks.
Searches and the operator's own agents (``--agents``) think in a fixed pool of threads shared
fairly between clients (:class:`FairPool`), the quick agents in the request's thread; a
checkpoint seat is one agent per checkpoint file for the whole server (shared weights).
"""

from __future__ import annotations

import asyncio
import math
import threading
import time
from collections import Counter, OrderedDict, deque
from collections.abc import Callable
from concurrent.futures import Future
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import Any

from hot_envs.agents import SearchAgent, make_agent
from hot_envs.agents.base import Agent, decide
from hot_envs.agents.shipped import SUFFIXES, find_checkpoint, is_checkpoint
from hot_envs.core.engine import GameState

DECISION_SECONDS = 4.0  # the wall-clock cap of one decision
DECISION_WORKERS = 4  # threads the searches and the operator's agents think in
# How long past the cap an agent that cannot stop itself is waited for before the stand-in plays.
GRACE_SECONDS = 0.5


class DecisionTimeout(Exception):
    """Raised inside a search that ran past its decision's cap."""


class SeatAgent:
    """One agent seat of a new game: ``agent`` (reset) and the heuristic that stands in for it
    past the cap.

    ``busy`` while a decision of its agent runs (an agent is not made to think twice at once: a
    seat whose last decision is still running past the cap plays the stand-in's move)."""

    def __init__(self, spec: str, game: str, seed: int | None) -> None:
        self.spec, self.game, self.seed = spec, game, seed
        self.deadline = math.inf  # read by a search after each batch of rollouts
        self.agent = _table_agent(spec, game, seed, self)
        if callable(getattr(self.agent, "reset", None)):
            self.agent.reset()
        self.search = isinstance(self.agent, SearchAgent)  # keeps more: see Table.memory_estimate
        self.slow = not _quick(spec)
        self._stand_in: Agent | None = None
        self._busy = threading.Lock()

    def check_clock(self) -> None:
        if time.monotonic() > self.deadline:
            raise DecisionTimeout

    def stand_in(self, engine: ModuleType, state: GameState, seat: int) -> int:
        """The heuristic's move (made on first need: most seats never need one)."""
        if self._stand_in is None:
            self._stand_in = make_agent("heuristic", self.game, self.seed)
        return decide(self._stand_in, engine, state, seat)

    def think(
        self, engine: ModuleType, state: GameState, seat: int, until: float
    ) -> tuple[int, bool]:
        """The agent's move and False, or past ``until`` the stand-in's move and True. The
        caller holds :meth:`claim`; this releases it."""
        self.deadline = until
        try:
            return decide(self.agent, engine, state, seat), False
        except DecisionTimeout:
            return self.stand_in(engine, state, seat), True
        finally:
            self.deadline = math.inf
            self.forget()
            self.release()

    def forget(self) -> None:
        """Let the agent drop what it keeps only while it decides (a search's rollout arrays,
        tens of MiB): many tables keep their seats between decisions."""
        if callable(getattr(self.agent, "release", None)):
            self.agent.release()

    def claim(self) -> bool:
        """Whether the agent is free to think now (and is then taken until :meth:`think` ends)."""
        return self._busy.acquire(blocking=False)

    def release(self) -> None:
        """Free a claim that :meth:`think` never got to."""
        self._busy.release()


class FairPool:
    """``workers`` threads that run jobs in turns between clients: a free thread takes the
    oldest job of the client with the fewest jobs running (of those with jobs waiting; the one
    whose turn came longest ago among equals). :meth:`submit` returns a
    :class:`concurrent.futures.Future`; one cancelled before it runs is skipped."""

    def __init__(self, workers: int, name: str = "hot-envs-decision") -> None:
        self._waiting: OrderedDict[str, deque] = OrderedDict()  # by turn, the longest ago first
        self._running: Counter[str] = Counter()
        self._changed = threading.Condition()
        self._closed = False
        for k in range(workers):
            threading.Thread(target=self._work, name=f"{name}-{k}", daemon=True).start()

    def submit(self, client: str, job: Callable[..., Any], *args: Any) -> Future:
        future: Future = Future()
        with self._changed:
            if self._closed:
                raise RuntimeError("the pool is closed")
            self._waiting.setdefault(client, deque()).append((future, job, args))
            self._changed.notify()
        return future

    def waiting(self) -> int:
        """Jobs submitted that no thread has taken yet."""
        with self._changed:
            return sum(map(len, self._waiting.values()))

    def close(self) -> None:
        """Cancel the waiting jobs; running ones end by themselves, then the threads."""
        with self._changed:
            self._closed = True
            for jobs in self._waiting.values():
                for future, _, _ in jobs:
                    future.cancel()
            self._waiting.clear()
            self._changed.notify_all()

    def _take(self) -> tuple[str, tuple] | None:
        with self._changed:
            while not self._waiting and not self._closed:
                self._changed.wait()
            if not self._waiting:
                return None
            client = min(self._waiting, key=self._running.__getitem__)  # the first of equals
            jobs = self._waiting.pop(client)
            job = jobs.popleft()
            if jobs:
                self._waiting[client] = jobs  # its next turn after everyone else's
            self._running[client] += 1
            return client, job

    def _work(self) -> None:
        while (taken := self._take()) is not None:
            client, (future, job, args) = taken
            try:
                if future.set_running_or_notify_cancel():
                    try:
                        future.set_result(job(*args))
                    except BaseException as error:  # the caller sees it
                        future.set_exception(error)
            finally:
                with self._changed:
                    self._running[client] -= 1
                    if not self._running[client]:
                        del self._running[client]


class Referee:
    """Runs agent decisions within ``seconds`` each (module docstring)."""

    def __init__(self, seconds: float = DECISION_SECONDS, workers: int = DECISION_WORKERS) -> None:
        if not seconds > 0 or workers < 1:
            raise ValueError(
                f"a decision needs seconds > 0 and workers ≥ 1, not {seconds}, {workers}"
            )
        self.seconds = seconds
        self.pool = FairPool(workers)

    async def decide(
        self, agent: SeatAgent, engine: ModuleType, state: GameState, seat: int, client: str = ""
    ) -> tuple[int, bool]:
        """``agent``'s move for ``seat`` in ``state`` (a copy no one else touches), and whether
        the stand-in played it because the agent ran out of time. A slow agent's decision waits
        its ``client``'s turn for a thread (:class:`FairPool`)."""
        from starlette.concurrency import run_in_threadpool

        until = time.monotonic() + self.seconds
        if not agent.claim():  # its previous decision still runs past the cap
            return await run_in_threadpool(agent.stand_in, engine, state, seat), True
        if not agent.slow:
            return await run_in_threadpool(agent.think, engine, state, seat, until)
        future = self.pool.submit(client, agent.think, engine, state, seat, until)
        try:
            waited = asyncio.wrap_future(future)
            return await asyncio.wait_for(asyncio.shield(waited), self.seconds + GRACE_SECONDS)
        except asyncio.TimeoutError:
            if future.cancel():  # still queued: it never ran, so nothing holds the agent
                agent.release()
            return await run_in_threadpool(agent.stand_in, engine, state, seat), True

    def close(self) -> None:
        """Stop taking decisions; queued ones are dropped, running ones end by themselves."""
        self.pool.close()


SEARCHES = ("search", "search-strong")  # the built-in searches' specs (never a checkpoint)


def _table_agent(spec: str, game: str, seed: int | None, seat: SeatAgent) -> Agent:
    """The agent ``spec`` names, built for a browser table: a checkpoint shared, a search held to
    ``seat``'s clock."""
    if _is_checkpoint_spec(spec):
        try:
            stem = find_checkpoint(spec).resolve()
        except FileNotFoundError as error:
            raise ValueError(str(error)) from None
        try:
            return _shared_checkpoint(str(stem), stem.with_suffix(".npz").stat().st_mtime_ns, game)
        except ValueError as error:  # another game's: named as the spec, not where it lies
            raise ValueError(str(error).replace(str(stem), spec)) from None
    agent = make_agent(spec, game, seed)
    if isinstance(agent, SearchAgent):  # it looks at the clock after every batch of rollouts
        agent.on_rollouts = seat.check_clock
    return agent


def _quick(spec: str) -> bool:
    """Built-in leaf agents and checkpoints decide in milliseconds; anything else may not."""
    return spec == "random" or spec.partition(":")[0] == "heuristic" or _is_checkpoint_spec(spec)


def _is_checkpoint_spec(spec: str) -> bool:
    """Whether ``make_agent`` reads ``spec`` as a checkpoint (the order it tries the forms)."""
    if spec.partition(":")[0] in ("random", "heuristic", *SEARCHES):
        return False
    return spec.endswith(SUFFIXES) or Path(spec).is_file() or is_checkpoint(spec)


class SharedCheckpointAgent:
    """One checkpoint agent for every table that seats it: argmax play is the same for every
    seed and keeps nothing between decisions; the lock is there because the MLP policy computes
    in buffers of its own (:class:`hot_envs.agents.checkpoint.NumpyPolicy`)."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self._lock = threading.Lock()

    def act(self, observation: dict, view: dict) -> int:
        with self._lock:
            return self.agent.act(observation, view)


@lru_cache(maxsize=32)  # offered checkpoints are few; a file changed on disk is a new key
def _shared_checkpoint(stem: str, mtime_ns: int, game: str) -> SharedCheckpointAgent:
    from hot_envs.agents.checkpoint import load_agent

    return SharedCheckpointAgent(load_agent(stem, game=game))

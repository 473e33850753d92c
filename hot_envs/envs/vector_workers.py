""":class:`~hot_envs.envs.vector.VectorSingleAgentEnv` on several cores:
:class:`SubprocVectorSingleAgentEnv` (docs/training.md, "Where the games run").

``SubprocVectorSingleAgentEnv(game, num_envs, workers=K, seed=s, …)`` is the same Gymnasium
``VectorEnv`` with the games split over ``K`` workers, each a ``VectorSingleAgentEnv`` of the same
arguments with its share (``num_envs // K``, the first ``num_envs % K`` workers one more). Worker
0 is this process, which plays its games while the K−1 worker processes play theirs; the answers
are joined in game order, every ``info`` array included. The policy's forward pass and the
learning update run here while the worker processes wait.

- **Shared memory.** Each worker writes its games' observations and action masks into its rows
  of two shared arrays (a pipe would copy 800 KB of packed Heiße Luft observations a step); the
  pipes carry the commands, rewards, flags and ``info`` (``final_obs`` only for the games that
  ended). So :meth:`action_masks` costs no round trip, and an illegal learner action raises
  ``ValueError`` in the main process before any worker moves.
- **Opponents.** Each worker has its own pool; :meth:`set_opponent`, :meth:`remove_opponent`,
  :meth:`call` and :meth:`set_attr` reach every worker, so the pools stay alike. Arguments travel
  by cloudpickle (a factory may be a lambda); an agent arrives as a copy in every worker.
- **Seeding.** Worker ``k`` is seeded with ``seed + k`` (as stable-baselines3's ``make_vec_env``
  seeds ``seed + rank``): its games are those of a ``VectorSingleAgentEnv`` with its share of the
  games and seed ``seed + k``.
- **Processes.** Started by ``forkserver`` where the platform has it, else ``spawn`` (like
  stable-baselines3's ``SubprocVecEnv``: safe with torch's threads in the main process), so a
  script needs the ``if __name__ == "__main__":`` guard; they inherit the environment, so
  ``OPENBLAS_NUM_THREADS=1`` keeps each worker's numpy on its one core. An exception in a worker
  is raised again in the main process — its type and message, the worker's traceback as its
  cause (:class:`WorkerError`) — and :meth:`close` ends the workers.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import pickle
import traceback
from collections.abc import Sequence
from multiprocessing.connection import Connection
from typing import Any

import cloudpickle
import numpy as np
from gymnasium.vector import VectorEnv
from gymnasium.vector.utils import batch_space

from hot_envs.agents.opponents import OpponentSource
from hot_envs.core.games import DEFAULT_GAME
from hot_envs.envs.vector import VectorSingleAgentEnv, check_actions


class WorkerError(RuntimeError):
    """A worker process failed: the traceback of its exception, or that it ended."""


class SubprocVectorSingleAgentEnv(VectorEnv):
    """``num_envs`` games of :class:`VectorSingleAgentEnv` over ``workers`` processes, this one
    included (module docstring). The other arguments as ``VectorSingleAgentEnv``'s;
    ``start_method`` of :mod:`multiprocessing` (default ``forkserver`` where available, else
    ``spawn``)."""

    metadata = VectorSingleAgentEnv.metadata

    def __init__(
        self,
        game: str = DEFAULT_GAME,
        num_envs: int = 16,
        workers: int = 2,
        seed: int | None = None,
        start_method: str | None = None,
        **arguments: Any,
    ) -> None:
        self._remotes: list[Connection] = []
        self._processes: list[mp.process.BaseProcess] = []
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, not {num_envs!r}")
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers must be a positive int, not {workers!r}")
        if workers > num_envs:
            raise ValueError(f"{workers} workers need at least as many games, not {num_envs}")
        sizes = [num_envs // workers + (k < num_envs % workers) for k in range(workers)]
        # Worker 0 is this process; bad arguments fail here, before any process starts.
        self._local = VectorSingleAgentEnv(game, sizes[0], seed=seed, **arguments)
        methods = mp.get_all_start_methods()
        context = mp.get_context(
            start_method or ("forkserver" if "forkserver" in methods else "spawn")
        )
        self.num_envs, self.workers = num_envs, workers
        self.single_observation_space = self._local.single_observation_space
        self.actor_size = self._local.actor_size
        self.single_action_space = self._local.single_action_space
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        #: the worker that holds each game
        self.worker_of = np.repeat(np.arange(workers), sizes)
        self._sizes = sizes
        self._bounds = np.cumsum([0, *sizes]).tolist()
        # The observations and masks come back through shared memory, the rest through pipes.
        shapes = (self.observation_space.shape, (num_envs, self.single_action_space.n))
        buffers = (
            context.RawArray("f", int(np.prod(shapes[0]))),
            context.RawArray("b", int(np.prod(shapes[1]))),
        )
        self._observations, self._shared_masks = _views(buffers, shapes)
        self._local_rows = (self._observations[: sizes[0]], self._shared_masks[: sizes[0]])
        self._masks = self._shared_masks.astype(bool)
        self._dealt = False
        try:
            for k, size in enumerate(sizes[1:], start=1):
                options = {"game": game, "num_envs": size, **arguments}
                options["seed"] = None if seed is None else seed + k
                rows = (self._bounds[k], self._bounds[k + 1])
                remote, work_remote = context.Pipe()
                process = context.Process(
                    target=_work,
                    args=(work_remote, remote, cloudpickle.dumps(options), buffers, shapes, rows),
                    name=f"hot-envs-vector-worker-{k}",
                    daemon=True,  # a crashed main process leaves no workers behind
                )
                process.start()
                work_remote.close()
                self._remotes.append(remote)
                self._processes.append(process)
            self._exchange([])  # each process's "ready", or the error that its env raised
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------------ Gymnasium API

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal new games in every worker; worker ``k`` is seeded with ``seed + k``."""
        seeds = [None if seed is None else seed + k for k in range(self.workers)]
        infos = self._exchange([("reset", (s, options)) for s in seeds])
        self._dealt = True
        return self._observations.copy(), self._join_infos(infos)

    def step(
        self, actions: np.ndarray | Sequence[int]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Every worker plays its slice of ``actions``; the answers joined in game order."""
        if not self._dealt:
            raise RuntimeError("call reset() before step()")
        actions = check_actions(actions, self._masks)
        slices = zip(self._bounds, self._bounds[1:], strict=False)
        answers = self._exchange([("step", actions[start:stop]) for start, stop in slices])
        rewards, terminated, truncated, infos = zip(*answers, strict=True)
        return (
            self._observations.copy(),
            np.concatenate(rewards),
            np.concatenate(terminated),
            np.concatenate(truncated),
            self._join_infos(infos),
        )

    def action_masks(self) -> np.ndarray:
        """``(num_envs, num_actions)`` bool: the learners' legal actions now (no round trip)."""
        return self._masks.copy()

    # ------------------------------------------------------------------ every worker

    def set_opponent(self, name: str, source: OpponentSource | None, weight: float = 1.0) -> None:
        """``VectorSingleAgentEnv.set_opponent`` in every worker."""
        self.call("set_opponent", name, source, weight)

    def remove_opponent(self, name: str) -> None:
        """``VectorSingleAgentEnv.remove_opponent`` in every worker."""
        self.call("remove_opponent", name)

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """Call method ``name`` of every worker's ``VectorSingleAgentEnv``: one result per
        worker."""
        return self._run(lambda env: getattr(env, name)(*args, **kwargs))

    def get_attr(self, name: str) -> tuple[Any, ...]:
        """Attribute ``name`` of every worker's ``VectorSingleAgentEnv``: one per worker."""
        return self._run(lambda env: getattr(env, name))

    def set_attr(self, name: str, value: Any) -> None:
        """Set attribute ``name`` to ``value`` in every worker."""
        self._run(lambda env: setattr(env, name, value))

    def _run(self, function: Any) -> tuple[Any, ...]:
        """``function(env)`` with every worker's ``VectorSingleAgentEnv`` (sent by cloudpickle):
        one result per worker."""
        return tuple(self._exchange([("run", cloudpickle.dumps(function))] * self.workers))

    def close_extras(self, **kwargs: Any) -> None:
        """End the workers (they finish the command in hand; after 5 s they are terminated)."""
        for remote in self._remotes:
            with contextlib.suppress(OSError):  # a worker that has ended already
                remote.send(("close", None))
        for process in self._processes:
            process.join(timeout=5)
            if process.is_alive():
                process.terminate()
                process.join()
        for remote in self._remotes:
            remote.close()
        if hasattr(self, "_local"):
            self._local.close()

    # ------------------------------------------------------------------ internals

    def _exchange(self, messages: list[tuple[str, Any]]) -> list[Any]:
        """Send each worker process its message, carry out worker 0's here meanwhile, then
        gather the answers (one per worker; no messages: only listen to the processes) and the
        masks from shared memory. Raises the first error once all have answered, so the pipes
        stay in step."""
        answers, failure = [], None
        for remote, message in zip(self._remotes, messages[1:], strict=False):
            with contextlib.suppress(OSError):  # a worker that has ended: recv reports it
                remote.send(message)
        if messages:  # worker 0, in this process, as the others do it
            observations, masks = self._local_rows
            try:
                answers.append(_answer(self._local, *messages[0], observations))
            except Exception as error:
                answers.append(None)
                failure = error
            masks[:] = self._local.action_masks()
        for k, (remote, process) in enumerate(
            zip(self._remotes, self._processes, strict=True), start=1
        ):
            try:
                status, answer = remote.recv()
            except (EOFError, OSError):
                process.join(timeout=1)
                status, answer = "ended", None
                failure = failure or WorkerError(
                    f"worker {k} (pid {process.pid}) ended, exit code {process.exitcode}"
                )
            if status == "error" and failure is None:
                error, text = answer
                error.__cause__ = WorkerError(f"in worker {k}:\n{text}")
                failure = error
            answers.append(answer)
        self._masks = self._shared_masks.astype(bool)
        if failure is not None:
            raise failure
        return answers

    def _join_infos(self, infos: Sequence[dict[str, Any]]) -> dict[str, Any]:
        """The workers' ``info`` dicts as one: each array concatenated in game order; a worker
        without a key (no game of it ended) stands for 0 / ``False`` / ``None`` rows.
        ``final_obs`` comes with the finished games' rows only (less to send)."""
        joined = {}
        for key in dict.fromkeys(key for info in infos for key in info):
            example = next(info[key] for info in infos if key in info)
            fill = None if example.dtype == object else 0
            parts = []
            for info, size in zip(infos, self._sizes, strict=True):
                part = np.full((size, *example.shape[1:]), fill, example.dtype)
                if key == "final_obs" and key in info:
                    part[info["_final_obs"]] = info[key]
                elif key in info:
                    part = info[key]
                parts.append(part)
            joined[key] = np.concatenate(parts)
        return joined


def _views(
    buffers: tuple[Any, Any], shapes: tuple[tuple[int, ...], ...]
) -> tuple[np.ndarray, np.ndarray]:
    """The shared observations (float32) and masks (int8) of all games as arrays."""
    observations, masks = buffers
    return (
        np.frombuffer(observations, np.float32).reshape(shapes[0]),
        np.frombuffer(masks, np.int8).reshape(shapes[1]),
    )


def _work(
    remote: Connection,
    parent_remote: Connection,
    options: bytes,
    buffers: tuple[Any, Any],
    shapes: tuple[tuple[int, ...], ...],
    rows: tuple[int, int],
) -> None:
    """A worker: build the env, then answer the main process's commands until ``close``.
    Before each answer (``(status, result)``) it writes its games' masks, and after ``reset``
    and ``step`` their observations, into its rows of the shared arrays."""
    parent_remote.close()
    observations, masks = (view[rows[0] : rows[1]] for view in _views(buffers, shapes))
    try:
        env = VectorSingleAgentEnv(**pickle.loads(options))
    except Exception as error:
        remote.send(("error", _failure(error)))
        return
    remote.send(("ok", None))
    while True:
        try:
            command, data = remote.recv()
            if command == "close":
                break
            try:
                answer = ("ok", _answer(env, command, data, observations))
            except Exception as error:
                answer = ("error", _failure(error))
            masks[:] = env.action_masks()
            remote.send(answer)
        except (EOFError, KeyboardInterrupt):  # the main process has gone, or Ctrl-C
            break
    env.close()


def _answer(env: VectorSingleAgentEnv, command: str, data: Any, observations: np.ndarray) -> Any:
    """The result of one command of the main process (observations go to ``observations``)."""
    if command == "step":
        observations[:], rewards, terminated, truncated, info = env.step(data)
        if "final_obs" in info:  # only the finished games' rows
            info["final_obs"] = info["final_obs"][info["_final_obs"]]
        return rewards, terminated, truncated, info
    if command == "reset":
        seed, options = data
        observations[:], info = env.reset(seed=seed, options=options)
        return info
    if command == "run":
        result = pickle.loads(data)(env)
        pickle.dumps(result)  # an unpicklable result fails here, as the worker's error
        return result
    raise ValueError(f"unknown worker command {command!r}")


def _failure(error: Exception) -> tuple[Exception, str]:
    """``error`` (or a ``WorkerError`` with its text, if it does not survive pickling) and the
    traceback, to raise again in the main process."""
    text = traceback.format_exc()
    try:
        pickle.loads(pickle.dumps(error))
    except Exception:
        error = WorkerError(f"{type(error).__name__}: {error}")
    return error, text

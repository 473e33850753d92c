"""A run directory that survives faults: atomic checkpoints, the latest complete one, and
Ctrl-C / SIGTERM turned into a clean stop.

**Checkpoints.** ``RUN/rllib_checkpoint/`` is always a complete ``Algorithm.save_to_path``
folder. A new one is written beside it (``rllib_checkpoint.partial/``), finished with
``run_state.json`` (the iteration, env steps, seconds and league of that moment: the mark of a
complete checkpoint), and only then swapped in: the old one is renamed to
``rllib_checkpoint.previous/``, the new one to ``rllib_checkpoint/``, and the old one removed. A
crash at any moment leaves a complete checkpoint that :func:`latest_checkpoint` finds — the new
one, or the previous one while the swap was under way — and never the partial one.

**Resuming.** :func:`resume_settings` reads a run's ``args.json`` for ``--resume RUN_DIR`` and
lets only the options in ``RESUMABLE`` change; :func:`trim_progress` cuts the progress log back
to the checkpoint's iteration.

**Signals.** :class:`StopOnSignal` makes SIGINT (Ctrl-C) and SIGTERM (a cluster's preemption)
raise :class:`Interrupted` in the main thread (while Ray waits, it passes it on as a plain
``KeyboardInterrupt``; ``StopOnSignal.received`` tells which signal it was); the training loop
then saves and exits with ``128 + signal`` (130, 143). A second signal while saving raises
again, so the save is abandoned (the last complete checkpoint stays) and the run ends at once.

**Lost env runners.** :func:`wait_for_env_runners` holds the next iteration while every env
runner is down, until Ray has restarted one.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType, TracebackType
from typing import Any

from hot_envs.training.run_folder import STATE_FILE, Interrupted, write_atomically

CHECKPOINT = "rllib_checkpoint"
PARTIAL = CHECKPOINT + ".partial"
PREVIOUS = CHECKPOINT + ".previous"
RUN_STATE = STATE_FILE


# What a resumed run may set anew: where and how fast it runs, and how far it goes. Everything
# that shapes the learning comes from the run's args.json.
RESUMABLE = ("iterations", "address", "env_runners", "torch_threads", "checkpoint_every")


def resume_settings(cli: dict[str, Any], known: set[str]) -> dict[str, Any]:
    """The settings of ``--resume RUN_DIR`` (or ``RUN_DIR/rllib_checkpoint``): the run's own
    ``args.json`` (its keys in ``known``), with the options in ``RESUMABLE`` from ``cli`` (the
    options given on the command line) and ``out`` / ``resume`` set to the run directory.
    ``ValueError`` for a folder that is no run or has no complete checkpoint, another game, or
    any other option that differs from the run's."""
    run = Path(cli["resume"]).resolve()
    if run.name == CHECKPOINT:  # the checkpoint folder itself: its run directory
        run = run.parent
    if not (run / "args.json").is_file():
        raise ValueError(f"--resume {cli['resume']}: not an RLlib run directory (no args.json)")
    if latest_checkpoint(run) is None:
        raise ValueError(f"--resume {cli['resume']}: no complete checkpoint in {run}")
    saved = {k: v for k, v in json.loads((run / "args.json").read_text()).items() if k in known}
    if saved.get("game") != cli["game"]:
        raise ValueError(f"--resume {run} is a {saved.get('game')} run, not {cli['game']}")
    if "out" in cli and Path(cli["out"]).resolve() != run:
        raise ValueError("--resume writes into the run directory; leave out --out")
    fixed = [
        "--" + k.replace("_", "-")
        for k, v in cli.items()
        if k not in (*RESUMABLE, "resume", "out", "game") and v != saved.get(k)
    ]
    if fixed:
        raise ValueError(
            f"--resume continues {run} with its own settings; {', '.join(fixed)} cannot change "
            f"(only {', '.join('--' + k.replace('_', '-') for k in RESUMABLE)} can)"
        )
    chosen = {k: cli[k] for k in RESUMABLE if k in cli}
    return {**saved, **chosen, "out": str(run), "resume": str(run)}


def save_checkpoint(save: Callable[[Path], Any], run: Path, state: dict[str, Any]) -> Path:
    """Write a checkpoint with ``save(folder)`` (e.g. ``algorithm.save_to_path``) plus
    ``state`` as ``run_state.json``, and swap it in atomically (module docstring); returns
    ``RUN/rllib_checkpoint``."""
    run = Path(run)
    partial, current, previous = run / PARTIAL, run / CHECKPOINT, run / PREVIOUS
    shutil.rmtree(partial, ignore_errors=True)  # left by a crash or an abandoned save
    save(partial)
    # The mark comes last: complete from here.
    write_atomically(partial / RUN_STATE, json.dumps(state, indent=2) + "\n")
    if is_complete(current):
        shutil.rmtree(previous, ignore_errors=True)
        os.replace(current, previous)
    else:  # no checkpoint yet, or a crash mid-swap left only the previous one: keep that
        shutil.rmtree(current, ignore_errors=True)
    os.replace(partial, current)
    shutil.rmtree(previous, ignore_errors=True)
    return current


def is_complete(folder: Path) -> bool:
    return (folder / RUN_STATE).is_file()


def latest_checkpoint(run: str | Path) -> Path | None:
    """The newest complete checkpoint of a run directory, or ``None``."""
    for name in (CHECKPOINT, PREVIOUS):
        if is_complete(Path(run) / name):
            return Path(run) / name
    return None


def read_run_state(checkpoint: Path) -> dict[str, Any]:
    return json.loads((checkpoint / RUN_STATE).read_text())


def trim_progress(path: Path, iterations: int) -> dict[str, Any] | None:
    """Cut a run's ``progress.jsonl`` back to the checkpoint's iterations (the ones after it are run
    again) and return the last row kept; the file is replaced atomically."""
    rows = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
    rows = [row for row in rows if row["iteration"] <= iterations]
    write_atomically(path, "".join(json.dumps(row) + "\n" for row in rows))
    return rows[-1] if rows else None


def wait_for_env_runners(algorithm: Any, timeout_s: float = 600.0, poll_s: float = 1.0) -> int:
    """With every remote env runner down, wait until Ray has restarted one and RLlib has synced
    it (``Algorithm.restore_env_runners``), so the next iteration has something to sample with
    instead of training on nothing; returns the healthy count. ``TimeoutError`` after
    ``timeout_s``."""
    group = algorithm.env_runner_group
    deadline = time.monotonic() + timeout_s
    while group.num_remote_env_runners() and not group.num_healthy_remote_workers():
        if time.monotonic() > deadline:
            raise TimeoutError(f"no env runner came back within {timeout_s:.0f} s")
        algorithm.restore_env_runners(group)
        time.sleep(poll_s)
    return group.num_healthy_remote_workers()


class StopOnSignal:
    """While active, SIGINT and SIGTERM raise :class:`Interrupted` (each one, so a second
    signal also ends the save that follows the first) until :meth:`hold`; the previous
    handlers come back on exit. While Ray waits it may turn that into a plain
    ``KeyboardInterrupt``: ``received`` (the first signal's number) and :meth:`interrupted` say
    which signal it was. Inside an active one it reports the enclosing one's signal; outside
    the main thread (where Python allows no handlers) it does nothing."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self) -> None:
        self._received: int | None = None
        self.holding = False
        self._previous: dict[int, Any] = {}
        self._outer: StopOnSignal | None = None

    @property
    def received(self) -> int | None:
        return self._outer.received if self._outer is not None else self._received

    def interrupted(self, error: KeyboardInterrupt) -> Interrupted:
        """``error`` as an :class:`Interrupted` of the signal received (SIGINT if none was:
        a ``KeyboardInterrupt`` raised some other way)."""
        if isinstance(error, Interrupted):
            return error
        return Interrupted(self.received or signal.SIGINT)

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self._received is None:
            self._received = signum
        if not self.holding:
            raise Interrupted(signum)

    def hold(self) -> None:
        """From now on signals are only recorded (for clean-up that must not be cut short)."""
        if self._outer is not None:
            self._outer.hold()
        self.holding = True

    def __enter__(self) -> StopOnSignal:
        if threading.current_thread() is not threading.main_thread():
            return self
        outer = getattr(signal.getsignal(signal.SIGINT), "__self__", None)
        if isinstance(outer, StopOnSignal):
            self._outer = outer
        # Installed again even inside an enclosing one: ray.init puts a C handler for SIGTERM
        # (it aborts the process) in place of Python's without Python knowing.
        for signum in self.SIGNALS:
            self._previous[signum] = signal.signal(signum, (self._outer or self)._handle)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        self._previous.clear()

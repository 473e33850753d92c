"""Runs that survive faults: periodic checkpoints, Ctrl-C and SIGTERM that save, exact resumes.

**What is kept.** A *run checkpoint* is a folder ``RUN_DIR/resume/step-N-…/`` with a complete
checkpoint ``latest`` (``.zip`` with the optimizer state, ``.npz``, ``.json``) and ``state.pkl``:
the step count, the seconds of learning used, the random streams of this process (Python,
numpy, torch), the episode buffer behind ``rollout/ep_rew_mean`` and what ``train.py`` hands over
(the league's snapshots and scores, the evaluation log, …). ``RUN_DIR/run_state.json`` names the
current folder, with a SHA-256 per file, and says in plain JSON where the run stands (steps,
budget, league, the command that resumes it); ``RUN_DIR/latest.*`` are copies for people.

**When.** :class:`Checkpointer` saves at the start of a rollout (just after an update, where the
model, the league and the counters agree) once the next rollout would end past
``checkpoint_minutes`` since the last save, at the end of learning, and when a stop is asked
for. Then it saves the state of the last rollout start: the steps of an unfinished rollout are
collected again after a resume, as they were never learnt from.

**Atomic.** Every file is written beside its place, flushed and renamed
(:func:`hot_envs.agents.checkpoint.atomic_file`); the folder is complete before
``run_state.json`` names it, and ``run_state.json`` is replaced in one rename. A crash at any
moment leaves the previous ``run_state.json`` and the folder it names.

**Stopping.** :class:`StopSignals` turns the first SIGINT / SIGTERM during learning into a
request (the update in hand finishes, ``latest`` is written, the exit code is 130 / 143); before
or after learning it raises :class:`Interrupted` at once. A second signal ends the worker
processes and exits at once.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import multiprocessing
import os
import pickle
import random
import shlex
import shutil
import signal
import sys
import time
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import torch
from stable_baselines3.common.callbacks import BaseCallback

from hot_envs.agents.checkpoint import atomic_file, fsync_dir, read_metadata
from hot_envs.training.export import export_checkpoint, sb3_custom_objects
from hot_envs.training.run_folder import STATE_FILE, Interrupted, write_atomically

FORMAT = "hot_envs-run-state"
FORMAT_VERSION = 1
RESUMABLE = {"game", "resume", "out", "progress_bar", "checkpoint_minutes"}  # may go with RUN_DIR


class StopSignals:
    """SIGINT and SIGTERM handlers for a run (module docstring), installed by ``with``. Set
    ``learning`` while the model learns; ``signum`` is the first signal that came, if any."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self) -> None:
        self.signum: int | None = None
        self.learning = False
        self._previous: dict[int, Any] = {}
        self._close: list[Callable[[], Any]] = []
        self._pid = os.getpid()

    def __enter__(self) -> StopSignals:
        self._pid = os.getpid()  # a forked worker inherits the handlers, not the role
        for signum in self.SIGNALS:
            self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(self, *_: object) -> None:
        try:
            for close in reversed(self._close):
                try:
                    close()
                except Exception:
                    if self.signum is None:  # after a signal the workers may be gone already
                        raise
        finally:
            for signum, handler in self._previous.items():
                signal.signal(signum, handler)

    def closing(self, thing: Any) -> Any:
        """``thing``, closed when the ``with`` block ends however it ends (envs: no worker
        outlives the run); closing twice must be harmless."""
        self._close.append(thing.close)
        return thing

    @property
    def exit_code(self) -> int:
        """``128 + signum`` (130 for SIGINT, 143 for SIGTERM); 0 without a signal."""
        return 128 + self.signum if self.signum else 0

    @contextlib.contextmanager
    def children_ignore_sigint(self) -> Iterator[None]:
        """Worker processes started in the block ignore SIGINT (they inherit the setting), so a
        Ctrl-C, which reaches the terminal's whole process group, leaves stopping to this one."""
        handler = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, handler)

    def _handle(self, signum: int, _frame: Any) -> None:
        if os.getpid() != self._pid:  # in a forked worker: end as without these handlers
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        name = signal.Signals(signum).name
        if self.signum is not None:  # the second: no saving, no waiting
            print(f"\n{name} again: stopping at once", file=sys.stderr, flush=True)
            end_children()
            os._exit(128 + signum)
        self.signum = signum
        if not self.learning:  # nothing new to save: no process pool may keep the run waiting
            end_children()
            raise Interrupted(signum)
        print(
            f"\n{name}: finishing the update in hand and saving latest (again: stop at once)",
            file=sys.stderr,
            flush=True,
        )


def end_children() -> None:
    """Terminate this process's worker processes (env workers, process pools)."""
    for process in multiprocessing.active_children():
        process.terminate()


def report_stop(game: str, run_dir: str | Path, code: int) -> int:
    """Say how a stopped run goes on (or that it cannot); return its exit ``code``."""
    if is_run_dir(run_dir):
        steps = json.loads((Path(run_dir) / STATE_FILE).read_text())["steps"]
        print(f"stopped at step {steps}; go on with:\n  {resume_command(game, run_dir)}")
    else:
        print("stopped before the first checkpoint: nothing to resume", file=sys.stderr)
    return code


def is_run_dir(path: str | Path | None) -> bool:
    """Whether ``path`` is a run folder that can be resumed (it has ``run_state.json``)."""
    return path is not None and (Path(path) / STATE_FILE).is_file()


def resume_command(game: str, run_dir: str | Path) -> str:
    """The command line that continues the run in ``run_dir``."""
    return f"hot-envs train {game} --resume {shlex.quote(str(run_dir))}"


def rng_states() -> dict[str, Any]:
    """The random streams of this process: Python's, numpy's global one and torch's."""
    return {
        "python": random.getstate(),
        "numpy": np.random.get_state(),
        "torch": torch.get_rng_state(),
    }


def set_rng_states(states: dict[str, Any]) -> None:
    """Put back what :func:`rng_states` returned."""
    random.setstate(states["python"])
    np.random.set_state(states["numpy"])
    torch.set_rng_state(states["torch"])


def read_run_state(run_dir: str | Path) -> dict[str, Any]:
    """``run_state.json`` of ``run_dir``, its checkpoint folder checked against the SHA-256s;
    ``ValueError`` when something is missing or damaged."""
    run_dir = Path(run_dir)
    try:
        state = json.loads((run_dir / STATE_FILE).read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise ValueError(f"{run_dir / STATE_FILE}: cannot be read ({error})") from None
    if state.get("format") != FORMAT or state.get("format_version") != FORMAT_VERSION:
        raise ValueError(f"{run_dir / STATE_FILE}: not a {FORMAT} {FORMAT_VERSION} file")
    folder = run_dir / state["checkpoint"]
    for name, digest in state["sha256"].items():
        if not (folder / name).is_file() or _sha256(folder / name) != digest:
            raise ValueError(f"{folder / name}: missing or damaged; the run cannot be resumed")
    return state


def continuing_args(cli: dict[str, Any], known: set[str]) -> dict[str, Any]:
    """The arguments of the run that ``cli["resume"]`` (a run folder) continues: its own, with
    only :data:`RESUMABLE` options taken from the command line."""
    run_dir = Path(cli["resume"])
    state = read_run_state(run_dir)
    extra = sorted(set(cli) - RESUMABLE)
    if extra:
        options = ", ".join("--" + key.replace("_", "-") for key in extra)
        raise ValueError(
            f"--resume {run_dir} continues that run with its own settings; drop {options}"
        )
    if "out" in cli and Path(cli["out"]).resolve() != run_dir.resolve():
        raise ValueError(f"--resume {run_dir} continues in that folder, not in --out {cli['out']}")
    args = state["args"]
    if cli["game"] != args["game"]:
        raise ValueError(f"--resume {run_dir} is a {args['game']} run, not {cli['game']}")
    values = {k: v for k, v in args.items() if k in known}
    values.update({k: cli[k] for k in ("progress_bar", "checkpoint_minutes") if k in cli})
    return {**values, "out": str(run_dir), "resume": str(run_dir)}


class Resume:
    """The last run checkpoint of a run folder, to continue from: ``state`` is its
    ``run_state.json``, ``saved`` the pickled rest (:meth:`Checkpointer.capture`)."""

    def __init__(self, run_dir: str | Path) -> None:
        self.run_dir = Path(run_dir)
        self.state = read_run_state(self.run_dir)
        self.folder = self.run_dir / self.state["checkpoint"]
        with open(self.folder / "state.pkl", "rb") as file:
            self.saved: dict[str, Any] = pickle.load(file)
        self.steps: int = self.saved["steps"]

    def part(self, name: str) -> Any:
        """What the part ``name`` of :class:`Checkpointer` gave at the save."""
        return self.saved["parts"][name]

    def env_seed(self, seed: int) -> int:
        """The envs' seed after the resume: new games, the same for the same stop."""
        return int(np.random.SeedSequence([seed, self.steps]).generate_state(1)[0] % 2**31)

    def time_limit(self, seconds: float) -> float:
        """What is left of a time budget of ``seconds`` (0: none, as before)."""
        return max(seconds - self.saved["learn_seconds"], 1e-6) if seconds > 0 else 0.0

    def load_model(self, envs: Any, seed: int, **kwargs: Any) -> Any:
        """The saved ``MaskablePPO`` (network, optimizer, counters, settings) on ``envs``, which
        it seeds with :meth:`env_seed`; ``kwargs`` go to ``MaskablePPO.load``."""
        from sb3_contrib import MaskablePPO

        path = self.folder / "latest.zip"
        objects = sb3_custom_objects(read_metadata(path))
        model = MaskablePPO.load(path, env=envs, device="cpu", custom_objects=objects, **kwargs)
        envs.seed(self.env_seed(seed))  # loading seeded them with the run's seed
        return model

    def restore_streams(self, model: Any) -> None:
        """The random streams and the episode buffer as they were at the save; call it last
        before ``learn``."""
        set_rng_states(self.saved["rng"])
        model.ep_info_buffer = deque(self.saved["ep_info_buffer"], maxlen=model._stats_window_size)


class Checkpointer(BaseCallback):
    """Run checkpoints during ``learn`` (module docstring) and the stop request of ``stop``.

    ``parts`` name what else a resume needs: each function's (picklable) result comes back as
    :meth:`Resume.part`; ``summary()`` goes into ``run_state.json``, ``metadata()`` into the
    checkpoint; ``resume`` continues the counters of a resumed run."""

    def __init__(
        self,
        out: Path,
        minutes: float,
        stop: StopSignals,
        game: str,
        args: dict[str, Any],
        parts: dict[str, Callable[[], Any]],
        summary: Callable[[], dict[str, Any]],
        metadata: Callable[[], dict[str, Any]],
        resume: Resume | None = None,
    ) -> None:
        super().__init__()
        self.out, self.interval, self.stop = out, 60.0 * minutes, stop
        self.game, self.args = game, args
        self.parts, self.summary, self.metadata = parts, summary, metadata
        self.seconds_before = resume.saved["learn_seconds"] if resume else 0.0
        self.learn_start: int | None = resume.saved["learn_start"] if resume else None
        self.captured: dict[str, Any] | None = None
        self.started = self.last_save = self.last_rollout = time.perf_counter()
        self.rollout_seconds = 0.0

    def learn(self, model: Any, **kwargs: Any) -> bool:
        """``model.learn(**kwargs)`` with this callback last, the stop request honoured: saved
        at the end; False if a signal stopped it (its envs closed, the last rollout start saved)."""
        self.stop.learning = True
        try:
            model.learn(callback=[*kwargs.pop("callback"), self], **kwargs)
        except Exception:
            if self.stop.signum is None:
                raise  # else the workers ended with the signal (a Ctrl-C reaches them too)
        finally:
            self.stop.learning = False
        if self.stop.signum is not None:
            with contextlib.suppress(Exception):  # workers that a signal ended cannot answer
                model.get_env().close()
            self.save()
            return False
        self.save(self.capture(), learning_done=True)
        return True

    def learn_seconds(self) -> float:
        """Seconds of learning in this run so far, earlier sittings included."""
        return self.seconds_before + time.perf_counter() - self.started

    def _on_training_start(self) -> None:
        self.started = self.last_save = self.last_rollout = time.perf_counter()
        if self.learn_start is None:
            self.learn_start = self.model.num_timesteps

    def _on_rollout_start(self) -> None:
        now = time.perf_counter()
        if self.captured is not None:  # a rollout and its update since the last start
            self.rollout_seconds = now - self.last_rollout
        self.last_rollout = now
        self.captured = self.capture()
        # Save now if waiting for the next rollout start would overrun the interval.
        if now + self.rollout_seconds - self.last_save >= self.interval:
            self.save()

    def _on_step(self) -> bool:
        return self.stop.signum is None

    def capture(self) -> dict[str, Any]:
        """Everything a resume at this moment needs, the model's weights aside."""
        buffer = self.model.ep_info_buffer
        return {
            "steps": self.model.num_timesteps,
            "learn_seconds": self.learn_seconds(),
            "learn_start": self.learn_start,
            "rng": rng_states(),
            "ep_info_buffer": list(buffer) if buffer is not None else [],
            "parts": {name: part() for name, part in self.parts.items()},
            "summary": self.summary(),
        }

    def save(self, captured: dict[str, Any] | None = None, learning_done: bool = False) -> Path:
        """Write a run checkpoint of ``captured`` (default: the last rollout start's state) with
        the model's current weights, name it in ``run_state.json``, copy it to ``latest``."""
        captured = captured or self.captured or self.capture()
        steps = captured["steps"]
        folders = self.out / "resume"
        folders.mkdir(parents=True, exist_ok=True)
        partial = folders / f".partial-{os.getpid()}"
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir()
        # The model's counter as at the capture: an unfinished rollout's steps are not kept.
        current, self.model.num_timesteps = self.model.num_timesteps, steps
        try:
            export_checkpoint(self.model, partial / "latest", self.metadata())
        finally:
            self.model.num_timesteps = current
        with atomic_file(partial / "state.pkl") as file:
            pickle.dump(captured, file)
        name = f"step-{steps}-{time.time_ns() // 1_000_000}"
        os.replace(partial, folders / name)
        fsync_dir(folders)
        files = sorted(p.name for p in (folders / name).iterdir())
        state = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "game": self.game,
            "checkpoint": f"resume/{name}",
            "sha256": {f: _sha256(folders / name / f) for f in files},
            "steps": steps,
            "learn_seconds": round(captured["learn_seconds"], 3),
            "learning_done": learning_done,
            "saved_at": time.time(),
            "tensorboard_step": steps,
            **captured["summary"],
            "resume": resume_command(self.game, self.out),
            "args": self.args,
        }
        write_atomically(self.out / STATE_FILE, json.dumps(state, indent=2, default=str) + "\n")
        for suffix in (".zip", ".npz", ".json"):  # the copies people open
            with atomic_file((self.out / "latest").with_suffix(suffix)) as file:
                file.write((folders / name / f"latest{suffix}").read_bytes())
        for old in folders.iterdir():  # the folders run_state.json no longer names
            if old.name != name and old.name.startswith("step-"):
                shutil.rmtree(old, ignore_errors=True)
        self.last_save = time.perf_counter()
        return folders / name


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()

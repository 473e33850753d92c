"""Runs that survive faults: Ctrl-C / SIGTERM save and exit 130 / 143 with no worker left,
``--resume RUN_DIR`` continues exactly, a SIGKILL loses at most one checkpoint interval, and a
run checkpoint cut off mid-write is never what a resume reads (:mod:`training.run_state`)."""

from __future__ import annotations

import copy
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

import torch  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402
from stable_baselines3.common.vec_env import DummyVecEnv  # noqa: E402

from hot_envs.envs.single_agent import SingleAgentEnv  # noqa: E402
from hot_envs.training import run_state  # noqa: E402
from hot_envs.training.callbacks import AnnealedLearningRate  # noqa: E402
from hot_envs.training.league import LeagueCallback  # noqa: E402
from hot_envs.training.processes import PROC, alive, descendants  # noqa: E402
from hot_envs.training.run_state import (  # noqa: E402
    STATE_FILE,
    Checkpointer,
    Resume,
    StopSignals,
    is_run_dir,
)
from hot_envs.training.settings import CONFIGS, load_config, parse_args  # noqa: E402
from hot_envs.training.train import main  # noqa: E402

needs_proc = pytest.mark.skipif(not PROC.is_dir(), reason="process tree read from /proc")

# A checkpoint at every update, an evaluation only at the start and the end, no imitation.
TINY = """
[run]
{envs}
progress_bar = false
verbose = 0
checkpoint_minutes = {minutes}
[ppo]
rollout_steps = 128
batch_size = 64
n_epochs = 1
net_arch = [32, 32]
{ppo}
[imitation]
bc_decisions = 0
[league]
snapshot_every = 256
max_snapshots = 2
curriculum_window = 5
pfsp = true
opponents = [{{ spec = "random" }}, {{ spec = "heuristic", weight = 2, curriculum = true }}]
[eval]
eval_every = 1_000_000
eval_games = 4
final_eval_games = 4
eval_workers = 1
"""
BATCHED = "batched_envs = 4\nbatched_workers = 2"  # 1 worker process
SUBPROC = "n_envs = 2"  # SubprocVecEnv: 2 worker processes


def tiny(tmp_path: Path, envs: str, minutes: float = 0.0001, ppo: str = "") -> Path:
    path = tmp_path / "tiny.toml"
    path.write_text(TINY.format(envs=envs, minutes=minutes, ppo=ppo))
    return path


def start(tmp_path: Path, *argv: str) -> subprocess.Popen[str]:
    """``hot-envs train heisse-luft ARGV`` in its own session (a terminal's process group)."""
    command = [sys.executable, "-m", "hot_envs.cli", "train", "heisse-luft", *argv]
    return subprocess.Popen(
        command,
        cwd=tmp_path,
        start_new_session=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "OPENBLAS_NUM_THREADS": "1"},
    )


def wait_for_state(run: Path, process: subprocess.Popen[str], past: int = 0) -> dict:
    """The run state once it shows more than ``past`` steps (the run still going)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert process.poll() is None, process.communicate()
        if is_run_dir(run):
            state = json.loads((run / STATE_FILE).read_text())
            if state["steps"] > past:
                return state
        time.sleep(0.1)
    raise AssertionError("no run checkpoint in 120 s")


def stop_and_check(process: subprocess.Popen[str], how: signal.Signals, group: bool) -> str:
    """Send ``how`` (to the whole process group, as a terminal's Ctrl-C, or to the run alone,
    as ``kill``); the run exits with 128 + signal within seconds and leaves no process."""
    workers = descendants(process.pid)
    assert workers  # the env worker processes (and multiprocessing's helpers)
    sent = time.monotonic()
    if group:
        os.killpg(process.pid, how)
    else:
        process.send_signal(how)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 128 + how, (out, err)
    assert time.monotonic() - sent < 15, "stopping took too long"
    deadline = time.monotonic() + 10
    while alive(workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(workers), f"left behind: {alive(workers)}"
    return out


@needs_proc
@pytest.mark.slow
def test_ctrl_c_saves_latest_ends_the_workers_and_exits_130(tmp_path):
    process = start(tmp_path, "--config", str(tiny(tmp_path, BATCHED)), "--out", "run")
    run = tmp_path / "run"
    wait_for_state(run, process, past=128)
    out = stop_and_check(process, signal.SIGINT, group=True)
    state = json.loads((run / STATE_FILE).read_text())
    assert state["steps"] > 128 and not state["learning_done"]
    assert f"hot-envs train heisse-luft --resume {run.name}" in out  # what to type next
    latest = json.loads((run / "latest.json").read_text())
    assert latest["training"]["steps"] == state["steps"]  # latest is the state kept
    assert Resume(run).steps == state["steps"]


@needs_proc
@pytest.mark.slow
def test_sigterm_and_ctrl_c_then_resume_reach_the_budget_with_everything_carried_over(
    tmp_path, monkeypatch
):
    config = tiny(tmp_path, SUBPROC, ppo="learning_rate = 1e-3\nanneal_lr = true")
    run = tmp_path / "run"
    process = start(tmp_path, "--config", str(config), "--out", "run", "--timesteps", "2048")
    first = wait_for_state(run, process, past=256)
    stop_and_check(process, signal.SIGTERM, group=False)
    first = json.loads((run / STATE_FILE).read_text())
    history = json.loads((run / "evaluations.json").read_text())
    # Resumed, and stopped a second time.
    process = start(tmp_path, "--resume", "run")
    wait_for_state(run, process, past=first["steps"] + 256)
    stop_and_check(process, signal.SIGINT, group=True)
    second = json.loads((run / STATE_FILE).read_text())
    saved = Resume(run)
    saved_model = MaskablePPO.load(saved.folder / "latest.zip", device="cpu")
    saved_optimizer = saved_model.policy.optimizer.state_dict()

    # Resumed again, here, to the end; what it starts from is recorded on the way.
    seen = {}
    load_model = Resume.load_model

    def recording_load(self, *args, **kwargs):
        model = load_model(self, *args, **kwargs)
        seen["steps"] = model.num_timesteps
        seen["optimizer"] = copy.deepcopy(model.policy.optimizer.state_dict())  # learn moves it
        return model

    on_training_start = LeagueCallback._on_training_start

    def recording_start(self):
        on_training_start(self)
        seen["snapshots"] = list(self.league.snapshots)
        seen["epsilon"] = self.league.epsilon
        seen["schedule"] = self.model.lr_schedule

    monkeypatch.setattr(Resume, "load_model", recording_load)
    monkeypatch.setattr(LeagueCallback, "_on_training_start", recording_start)
    assert main(["heisse-luft", "--resume", str(run)]) == 0

    assert seen["steps"] == second["steps"] > first["steps"] > 256  # the step count
    assert seen["snapshots"] == second["snapshots"]  # the league, no new snapshot at the start
    assert seen["epsilon"] == second["final_epsilon"]
    # The learning rate falls on as it would have without the stops: over the run's 2,048 steps.
    assert seen["schedule"] == AnnealedLearningRate(1e-3, 0, 2048)
    assert seen["schedule"](1 - second["steps"] / 2048) < 1e-3
    assert len(second["snapshots"]) == 2 and second["snapshot_scores"] is not None
    # The optimizer's moments and step counts, not a fresh Adam.
    loaded, kept = seen["optimizer"]["state"], saved_optimizer["state"]
    assert loaded and loaded.keys() == kept.keys()
    for key in kept:
        assert float(kept[key]["step"]) > 0
        for name in ("step", "exp_avg", "exp_avg_sq"):
            assert torch.equal(torch.as_tensor(loaded[key][name]), kept[key][name])
    final = json.loads((run / "final.json").read_text())
    assert final["training"]["steps"] >= 2048  # the run's budget, not 2048 more
    assert final["training"]["steps"] < 2048 + 128
    rows = {(row["checkpoint"], row["opponent"]) for row in final["evaluation"]["final"]}
    assert rows == {(c, o) for c in ("start", "final") for o in ("random", "heuristic")} | {
        ("final", "start")
    }
    evaluations = json.loads((run / "evaluations.json").read_text())
    assert evaluations[: len(history)] == history  # the log goes on
    assert [entry["steps"] for entry in evaluations] == [0, final["training"]["steps"]]
    assert sorted(os.listdir(run / "tb")) == ["ppo_1"]  # one TensorBoard run, steps going on
    assert json.loads((run / STATE_FILE).read_text())["learning_done"]


@pytest.mark.slow
def test_sigkill_loses_at_most_one_checkpoint_interval(tmp_path):
    minutes = 0.02  # 1.2 s
    process = start(tmp_path, "--config", str(tiny(tmp_path, BATCHED, minutes)), "--out", "run")
    run = tmp_path / "run"
    first = wait_for_state(run, process)
    time.sleep(2 * 60 * minutes)  # it goes on saving meanwhile
    assert process.poll() is None
    process.kill()
    killed = time.time()
    process.communicate(timeout=30)
    state = json.loads((run / STATE_FILE).read_text())
    assert state["steps"] > first["steps"]  # it kept saving
    assert killed - state["saved_at"] < 60 * minutes + 1.0  # one interval (and some slack)
    assert Resume(run).steps == state["steps"]  # and that checkpoint is whole


def tiny_model() -> MaskablePPO:
    env = DummyVecEnv([lambda: SingleAgentEnv("heisse-luft", opponents=["random"])])
    return MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0)


def checkpointed(tmp_path: Path, steps: int) -> tuple[MaskablePPO, Checkpointer]:
    """A tiny model that learnt ``steps`` with a Checkpointer saving at every update."""
    model = tiny_model()
    stop = StopSignals()
    metadata = {"game": "heisse-luft"}
    checkpointer = Checkpointer(
        tmp_path, 1e-6, stop, "heisse-luft", {}, {"n": lambda: 7}, dict, lambda: metadata
    )
    assert checkpointer.learn(model, total_timesteps=steps, callback=[])
    return model, checkpointer


def test_a_checkpoint_cut_off_mid_write_is_never_what_resume_reads(tmp_path, monkeypatch):
    model, checkpointer = checkpointed(tmp_path, 192)
    before = json.loads((tmp_path / STATE_FILE).read_text())
    assert before["steps"] == 192 and Resume(tmp_path).part("n") == 7

    # A crash after the new folder, before run_state.json names it …
    replace = os.replace

    def crash_at_the_state(source, target):
        if Path(target).name == STATE_FILE:
            Path(source).write_bytes(b'{"format": "hot_en')  # half the new file …
            raise OSError("power cut")
        replace(source, target)

    monkeypatch.setattr(run_state.os, "replace", crash_at_the_state)  # os: every module
    model.num_timesteps = 256
    with pytest.raises(OSError, match="power cut"):
        checkpointer.save(checkpointer.capture())
    monkeypatch.undo()
    # … and one in the middle of the next folder's model file.
    partial = tmp_path / "resume" / ".partial-12345"
    partial.mkdir()
    (partial / "latest.zip").write_bytes((tmp_path / "latest.zip").read_bytes()[:100])
    (tmp_path / "latest.zip").write_bytes(b"PK\x03\x04")  # and latest itself damaged by hand

    resume = Resume(tmp_path)
    assert resume.state == before and resume.steps == 192  # the last whole set
    assert not list(tmp_path.glob(f".{STATE_FILE}*"))  # the half-written file was removed
    reloaded = MaskablePPO.load(resume.folder / "latest.zip", device="cpu")
    assert reloaded.num_timesteps == 192
    # A damaged file of the set named is refused, not loaded.
    (resume.folder / "latest.npz").write_bytes(b"\x00")
    with pytest.raises(ValueError, match="damaged"):
        Resume(tmp_path)


def test_a_save_replaces_the_last_set_and_keeps_only_it(tmp_path):
    model, checkpointer = checkpointed(tmp_path, 128)
    captured = checkpointer.capture()
    model.num_timesteps = 200  # an unfinished rollout: the captured step count is kept
    folder = checkpointer.save(captured)
    assert [p.name for p in (tmp_path / "resume").iterdir()] == [folder.name]
    assert Resume(tmp_path).steps == 128 and model.num_timesteps == 200
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith(".partial")]


def test_resume_options_are_checked(tmp_path):
    _, _ = checkpointed(tmp_path, 64)
    state = json.loads((tmp_path / STATE_FILE).read_text())
    state["args"] = {"game": "heisse-luft", "timesteps": 5000, "seed": 4}
    (tmp_path / STATE_FILE).write_text(json.dumps(state))
    args = parse_args(["heisse-luft", "--resume", str(tmp_path), "--checkpoint-minutes", "5"])
    assert (args.timesteps, args.seed, args.checkpoint_minutes) == (5000, 4, 5.0)
    assert args.out == str(tmp_path)
    for extra, message in [
        (["--timesteps", "10"], "its own settings; drop --timesteps"),
        (["--out", str(tmp_path / "other")], "continues in that folder"),
    ]:
        with pytest.raises(ValueError, match=message):
            parse_args(["heisse-luft", "--resume", str(tmp_path), *extra])
    with pytest.raises(ValueError, match="heisse-luft run, not heisse-karten"):
        parse_args(["heisse-karten", "--resume", str(tmp_path)])
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ValueError, match="without run_state.json"):
        parse_args(["heisse-luft", "--resume", str(empty)])
    with pytest.raises(ValueError, match="checkpoint_minutes must be > 0"):
        parse_args(["heisse-luft", "--checkpoint-minutes", "0"])
    for game in ("heisse_luft", "heisse_karten"):
        assert 0 < load_config(CONFIGS / f"{game}.toml")["checkpoint_minutes"] <= 2


@needs_proc
@pytest.mark.slow
def test_a_second_signal_stops_at_once_and_ends_the_workers(tmp_path):
    script = textwrap.dedent(
        """
        import multiprocessing, os, signal, sys, time
        from hot_envs.training.run_state import StopSignals

        if __name__ == "__main__":
            worker = multiprocessing.get_context("spawn").Process(target=time.sleep, args=(60,))
            with StopSignals() as stop:
                stop.learning = True
                worker.start()
                print(worker.pid, flush=True)
                os.kill(os.getpid(), signal.SIGINT)  # a request: the run goes on
                time.sleep(0.2)
                assert stop.signum == signal.SIGINT
                os.kill(os.getpid(), signal.SIGINT)  # at once
                time.sleep(30)
            sys.exit(0)
        """
    )
    path = tmp_path / "second.py"
    path.write_text(script)
    started = time.monotonic()
    result = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 130, result.stderr
    assert time.monotonic() - started < 20
    assert "again: stopping at once" in result.stderr
    worker = int(result.stdout.split()[0])
    deadline = time.monotonic() + 5
    while alive({worker}) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive({worker})

"""RLlib runs that outlive faults, each as small as Ray allows (400-step iterations):

- SIGINT / SIGTERM to a run's whole process group (as a terminal's Ctrl-C or a scheduler's
  preemption sends it): the run saves its iterations so far, prints the resume command, exits
  130 / 143 with Ray shut down in seconds, and no process of the run is left; after a SIGKILL
  the last periodic checkpoint (one per iteration here) is complete and at most one iteration
  old (the SIGINT and SIGKILL runs join the test process's cluster, which spares starting a
  Ray of their own);
- a resumed league run continues from its iteration count, with the lifetime env steps, the
  league's snapshots (their weights too) and the optimizer state carried over.

An env runner SIGKILLed in the middle of a run is in ``test_cluster.py``.
"""

from __future__ import annotations

import json
import os
import pickle
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from hot_envs.agents.checkpoint import read_metadata
from hot_envs.training.rllib_runs import latest_checkpoint, read_run_state
from hot_envs.training.rllib_train import parse_args, train
from tests.rllib.conftest import needs_ray

pytestmark = [needs_ray, pytest.mark.rllib, pytest.mark.slow]

TINY = ["--batch-size", "400", "--minibatch-size", "200", "--epochs", "1"]
TINY += ["--envs-per-runner", "2", "--hidden", "64", "64"]
LEAGUE = ["heisse-karten", "--players", "3", "--mode", "league", "--fixed", "heuristic"]
LEAGUE += ["--snapshot-every", "1", "--max-snapshots", "2"]


def progress(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "progress.jsonl").read_text().splitlines()]


def processes_with(marker: str) -> list[int]:
    """Processes whose environment holds ``marker`` (a run's driver passes its environment on
    to every Ray process it starts)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "environ").read_bytes():
                    found.append(int(entry.name))
            except OSError:  # gone meanwhile, or not ours
                pass
    return found


def outside_group(pids: list[int], group: int) -> list[int]:
    """Those of ``pids`` outside process group ``group`` (Ray's workers have groups of their own:
    a signal to the run's group misses them; they end when their raylet does)."""
    found = []
    for pid in pids:
        try:
            if os.getpgid(pid) != group:
                found.append(pid)
        except OSError:  # gone meanwhile
            pass
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize(
    ("signum", "code", "own_ray"),
    # The SIGTERM run starts its own Ray, as a run on one machine does, and samples on an env
    # runner (an actor process, which has to end with the run too): the signal to the whole
    # group reaches Ray's processes as well, and the run has to outlive that. The others join
    # the test process's cluster (as a run with --address does) and sample in the driver.
    [(signal.SIGINT, 130, False), (signal.SIGTERM, 143, True), (signal.SIGKILL, -9, False)],
)
def test_a_signal_saves_the_run_prints_how_to_resume_and_ends_every_process(
    ray_dirs, ray_cluster, tmp_path, signum, code, own_ray
) -> None:
    marker = f"HOT_ENVS_TEST_RUN={uuid.uuid4().hex}"
    env = {**os.environ, "HOT_ENVS_TEST_RUN": marker.split("=")[1]}
    run = tmp_path / "run"
    env_runners = 1 if own_ray else 0
    command = [sys.executable, "-u", "-m", "hot_envs.training.rllib_train", "heisse-luft", *TINY]
    command += ["--env-runners", str(env_runners)]
    command += ["--iterations", "1000", "--checkpoint-every", "1", "--out", str(run)]
    if not own_ray:
        command += ["--address", ray_cluster.address]
    child = subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    lines: list[tuple[float, str]] = []  # the run's output lines, as they came
    errors: list[bytes] = []
    readers = [
        threading.Thread(
            target=lambda: lines.extend((time.monotonic(), line.decode()) for line in child.stdout)
        ),
        threading.Thread(target=lambda: errors.append(child.stderr.read())),
    ]
    for reader in readers:
        reader.start()
    try:
        deadline = time.monotonic() + 240
        while not (run / "progress.jsonl").is_file() or len(progress(run)) < 2:
            assert child.poll() is None and time.monotonic() < deadline, (lines, errors)
            time.sleep(0.1)
        running = processes_with(marker)
        if own_ray:
            assert len(running) > 3  # the driver, raylet, GCS, Ray's workers …
            assert outside_group(running, child.pid), running  # the workers, the env runner too
        sent = time.monotonic()
        os.killpg(child.pid, signum)
        child.wait(timeout=120)
        ended = time.monotonic()
        stopped = ended - sent
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
        for reader in readers:
            reader.join()
    out, err = "".join(line for _, line in lines), b"".join(errors).decode()
    assert child.returncode == code, err[-3000:]
    rows = progress(run)
    assert all(row["env_runners_healthy"] == env_runners for row in rows)
    if signum == signal.SIGKILL:  # no save: the last periodic checkpoint, complete, is left
        state = read_run_state(latest_checkpoint(run))
        assert len(rows) - 1 <= state["iteration"] <= len(rows)
        assert read_metadata(run / "latest", "heisse-luft")["training"]["iteration"] >= 1
    else:
        assert f"go on with:\n  hot-envs train heisse-luft --backend rllib --resume {run}" in out
        state = read_run_state(run / "rllib_checkpoint")
        assert state["iteration"] == len(rows) and state["env_steps"] == rows[-1]["env_steps"]
        assert read_metadata(run / "latest", "heisse-luft")["training"]["iteration"] == len(rows)
        assert stopped < 60, stopped
        # Printed last before Ray's shutdown (and the interpreter's, ~1 s). Ray's own graceful
        # shutdown alone waits 5 s here: a second on each of its five processes, whose SIGTERM
        # the run blocks (rllib_train.shutdown_ray).
        said = next(moment for moment, line in lines if line.startswith("  hot-envs train"))
        assert ended - said < 5, ended - said
    assert processes_with(marker) == []
    print(f"{signal.Signals(signum).name}: exited {code} {stopped:.1f} s after the signal")
    if signum != signal.SIGKILL:
        print(f"Ray shut down in {ended - said:.1f} s")


def module_state(checkpoint: Path, module_id: str) -> dict:
    folder = checkpoint / "learner_group" / "learner" / "rl_module" / module_id
    return pickle.loads((folder / "module_state.pkl").read_bytes())


def adam_steps(checkpoint: Path) -> float:
    learner = pickle.loads((checkpoint / "learner_group" / "learner" / "state.pkl").read_bytes())
    optimizer = learner["optimizer"]["main_default_optimizer"]["state"]["state"]
    return float(next(iter(optimizer.values()))["step"])


def test_a_resumed_league_run_continues_from_its_iteration_count(ray_cluster, tmp_path) -> None:
    run = tmp_path / "league"
    first = [*LEAGUE, *TINY, "--env-runners", "0", "--iterations", "2", "--out", str(run)]
    with ray_cluster.job():  # sampled in the driver …
        train(parse_args(first))
    before = read_run_state(run / "rllib_checkpoint")
    snapshot = module_state(run / "rllib_checkpoint", "snapshot_2")
    steps = adam_steps(run / "rllib_checkpoint")
    assert before["iteration"] == 2 and before["league"] == {
        "snapshots": ["snapshot_1", "snapshot_2"],
        "added": 3,
    }

    resumed = ["heisse-karten", "--resume", str(run), "--iterations", "3", "--env-runners", "1"]
    with ray_cluster.job():  # … and resumed on an env runner (the league's modules sent to it)
        train(parse_args(resumed))
    rows = progress(run)
    assert [row["iteration"] for row in rows] == [1, 2, 3]
    assert [row["env_runners_healthy"] for row in rows] == [0, 0, 1]
    assert all(row["illegal_actions"] == 0 for row in rows)
    # Lifetime steps go on from the checkpoint's (a fresh run would start again at ~400).
    assert rows[2]["env_steps"] >= rows[1]["env_steps"] + 400
    after = read_run_state(run / "rllib_checkpoint")
    assert after["iteration"] == 3 and after["seconds"] > before["seconds"]
    # The league went on: snapshot_3 added after iteration 3, snapshot_1 retired; snapshot_2
    # kept the weights it was frozen with (not those of a freshly built module).
    assert after["league"] == {"snapshots": ["snapshot_2", "snapshot_3"], "added": 4}
    kept = module_state(run / "rllib_checkpoint", "snapshot_2")
    assert kept.keys() == snapshot.keys()
    assert all((kept[name] == snapshot[name]).all() for name in snapshot)
    # Adam counted on: a fresh optimizer would hold only iteration 3's steps.
    assert adam_steps(run / "rllib_checkpoint") > steps
    assert read_metadata(run / "final")["training"]["iteration"] == 3

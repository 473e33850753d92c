"""Two Ray nodes on this machine: a head with 0 CPUs, so the env runners must run on the second
node; hot_envs reaches the workers through ``runtime_env={"py_modules": [hot_envs]}``. One run
there outlives a fault: of its two env runners one is SIGKILLed after the first iteration, the
next iteration still trains (with no illegal action) on the other, and Ray brings the runner
back."""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from hot_envs.training.rllib_train import init_ray, parse_args, shipped_package, train
from tests.rllib.conftest import needs_ray

pytestmark = [needs_ray, pytest.mark.rllib]

TINY = ["--batch-size", "400", "--minibatch-size", "200", "--epochs", "1"]
TINY += ["--envs-per-runner", "2", "--hidden", "64", "64"]


def test_a_run_on_the_second_node_with_the_package_shipped_outlives_a_killed_env_runner(
    ray_cluster, tmp_path
) -> None:
    import ray

    args = parse_args(
        ["heisse-luft", *TINY, "--address", ray_cluster.address, "--iterations", "2"]
        + ["--env-runners", "2", "--out", str(tmp_path)]
    )
    ray.shutdown()
    staging = tmp_path / "staging"
    staging.mkdir()
    assert init_ray(args, temp_dir=str(staging))
    assert not any(staging.iterdir())  # the package's copy went once Ray had uploaded it
    try:
        head = ray.get_runtime_context().get_node_id()
        placed: list[tuple[str, list[str], int]] = []  # each runner's node, sys.path, pid
        killed: list[int] = []
        back: list[int] = []

        def pids(algorithm) -> list[int]:
            return algorithm.env_runner_group.foreach_env_runner(
                lambda _: os.getpid(), local_env_runner=False
            )

        def fault(algorithm, row: dict) -> None:
            if row["iteration"] == 1:  # both runners on the second node; kill one of them
                placed.extend(
                    algorithm.env_runner_group.foreach_env_runner(
                        lambda _: (ray.get_runtime_context().get_node_id(), sys.path, os.getpid()),
                        local_env_runner=False,
                    )
                )
                killed.append(placed[0][2])
                os.kill(killed[0], signal.SIGKILL)
            if row["iteration"] == 2:  # give Ray the time to restart it, as a next iteration would
                # (seconds on free cores; over two minutes once, while other jobs held them)
                deadline = time.monotonic() + 300
                group = algorithm.env_runner_group
                while group.num_healthy_remote_workers() < 2 and time.monotonic() < deadline:
                    algorithm.restore_env_runners(group)
                    time.sleep(0.2)
                back.extend(pids(algorithm))

        started = time.monotonic()
        out = train(args, on_iteration=fault)
        print(f"2 iterations with a runner killed in {time.monotonic() - started:.0f} s")
    finally:
        ray.shutdown()
    assert len(placed) == 2
    for node, path, _ in placed:
        assert node != head  # the head has no CPU to offer
        # The package arrived as a runtime_env module on the runner's path. (On this one machine
        # the runner could also import this checkout; on another machine the shipped copy is all
        # there is.)
        shipped = [Path(p) for p in path if "runtime_resources" in p and "py_modules" in p]
        assert any((p / "hot_envs" / "rllib" / "env.py").is_file() for p in shipped), path
    rows = [json.loads(line) for line in (out / "progress.jsonl").read_text().splitlines()]
    assert [row["iteration"] for row in rows] == [1, 2]
    steps = [row["env_steps"] for row in rows]
    assert all(b - a >= 400 for a, b in zip([0, *steps[:-1]], steps, strict=True)), (
        steps
    )  # every one trained
    assert all(row["episodes"] >= 1 and row["illegal_actions"] == 0 for row in rows)
    assert min(row["env_runners_healthy"] for row in rows[1:]) == 1  # the loss was seen …
    assert len(back) == 2 and killed[0] not in back  # … and a new process took its place
    assert (tmp_path / "final.npz").is_file()


def test_the_shipped_package_holds_the_training_package_and_leaves_no_copy_behind(tmp_path) -> None:
    with shipped_package(str(tmp_path)) as folder:
        package = Path(folder)
        assert (package / "core" / "engine.py").is_file()
        assert (package / "training" / "rllib_train.py").is_file()
    assert not any(tmp_path.iterdir())

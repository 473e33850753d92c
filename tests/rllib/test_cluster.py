"""Two Ray nodes on this machine: a head with 0 CPUs, so the env runner must run on the second
node; hot_envs reaches the workers through ``runtime_env={"py_modules": [hot_envs]}``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("ray.rllib", reason="needs the rllib extra: pip install -e '.[rllib]'")

from hot_envs.training.rllib_train import init_ray, parse_args, train

pytestmark = pytest.mark.rllib


def test_one_iteration_on_the_second_node_with_the_package_shipped(cluster, tmp_path) -> None:
    import ray

    args = parse_args(
        ["heisse-luft", "--address", cluster.address, "--iterations", "1", "--batch-size", "400"]
        + ["--minibatch-size", "200", "--epochs", "1", "--envs-per-runner", "2"]
        + ["--hidden", "64", "64", "--out", str(tmp_path)]
    )
    assert init_ray(args)
    head = ray.get_runtime_context().get_node_id()

    @ray.remote(num_cpus=1)
    def where() -> tuple[str, list[str]]:
        import sys

        return ray.get_runtime_context().get_node_id(), sys.path

    node, path = ray.get(where.remote())
    assert node != head  # the head has no CPU to offer
    # The package arrived as a runtime_env module on the worker's path. (On this one machine the
    # worker could also import this checkout; on another machine the shipped copy is all there is.)
    shipped = [Path(p) for p in path if "runtime_resources" in p and "py_modules" in p]
    assert any((p / "hot_envs" / "rllib" / "env.py").is_file() for p in shipped), path
    (row,) = [
        json.loads(line) for line in (train(args) / "progress.jsonl").read_text().splitlines()
    ]
    assert row["env_steps"] >= 400 and row["episodes"] >= 1 and row["illegal_actions"] == 0
    assert (tmp_path / "final.npz").is_file()

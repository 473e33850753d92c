"""Short training runs on Ray: Heiße Luft with one shared policy, 3-player Heiße Karten as a
league with the heuristic; 0 illegal actions, checkpoints written, and the numpy export playing
every seat. The negative control shows the counter sees illegal moves when a module ignores the
mask.

These runs sample in the driver's own env runner (``--env-runners 0``): a remote env runner is a
process of its own to start, and the runs that sample remotely are in ``test_cluster.py`` (Heiße
Luft on the second node) and ``test_fault_tolerance.py`` (the Heiße Karten league, resumed)."""

from __future__ import annotations

import fcntl
import json
from pathlib import Path

import numpy as np
import pytest
import torch

from hot_envs.agents import make_agent
from hot_envs.agents.checkpoint import read_metadata
from hot_envs.cli import main as cli
from hot_envs.core.games import get_game
from hot_envs.training.rllib_train import build_config, parse_args, progress_row, train
from tests.rllib.conftest import needs_ray

pytestmark = [needs_ray, pytest.mark.rllib]

# Small and quick: one iteration of 400 env steps, a small network, one epoch.
QUICK = ["--iterations", "1", "--batch-size", "400", "--minibatch-size", "200", "--epochs", "1"]
QUICK += ["--env-runners", "0", "--envs-per-runner", "2", "--hidden", "64", "64"]
RUNS = {
    "heisse-luft": ["heisse-luft"],
    "heisse-karten": ["heisse-karten", "--players", "3", "--mode", "league", "--fixed", "heuristic"]
    + ["--snapshot-every", "1", "--max-snapshots", "1"],
}


@pytest.fixture(scope="module")
def runs(ray_cluster, tmp_path_factory, worker_id) -> dict[str, Path]:
    """The two runs, trained once for the whole test session: the first xdist worker here trains
    them while any other waits on a lock, and every worker reads the same folders (a module's
    tests may land on both workers, and a worker may set a module's fixtures up twice)."""
    base = tmp_path_factory.getbasetemp()
    out = (base if worker_id == "master" else base.parent) / "rllib_runs"
    out.mkdir(exist_ok=True)
    with open(out / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        missing = [game for game in RUNS if not (out / game / "final.npz").is_file()]
        if missing:
            with ray_cluster.job():
                for game in missing:
                    argv = [*RUNS[game], *QUICK, "--out", str(out / game), "--seed", "3"]
                    train(parse_args(argv))
    return {game: out / game for game in RUNS}


def progress(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "progress.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("game", RUNS)
def test_one_iteration_takes_no_illegal_action_and_writes_checkpoints(runs, game) -> None:
    (row,) = progress(runs[game])
    assert row["env_steps"] >= 400 and row["episodes"] >= 1
    assert row["illegal_actions"] == row["illegal_actions_lifetime"] == 0
    assert (runs[game] / "rllib_checkpoint" / "rllib_checkpoint.json").is_file()
    meta = read_metadata(runs[game] / "final", game)
    assert meta["network"] == {"hidden": [64, 64], "activation": "tanh"}
    assert meta["training"]["backend"] == "rllib" and meta["training"]["env_steps"] >= 400


def test_the_league_keeps_the_newest_snapshot_and_the_fixed_heuristic(runs) -> None:
    (row,) = progress(runs["heisse-karten"])
    # snapshot_0 at the start, snapshot_1 after iteration 1 (snapshot_0 retired), the heuristic
    assert row["league_size"] == 2
    modules = runs["heisse-karten"] / "rllib_checkpoint" / "learner_group" / "learner"
    assert sorted(p.name for p in (modules / "rl_module").iterdir() if p.is_dir()) == [
        "fixed_0",
        "main",
        "snapshot_1",
    ]
    meta = read_metadata(runs["heisse-karten"] / "final")
    assert meta["options"] == {"num_players": [3]}


@pytest.mark.parametrize("game", RUNS)
def test_the_export_plays_full_games_in_every_seat(runs, game) -> None:
    engine = get_game(game).engine
    agent = make_agent(str(runs[game] / "final"), game, seed=0)
    options = {"num_players": 3} if game == "heisse-karten" else {}
    seats = engine.State.new(seed=0, **options).num_players
    for seat in range(seats):
        state = engine.State.new(seed=seat, **options)
        rng = np.random.default_rng(seat)
        while not state.is_terminal():
            mover = state.current_player
            legal = state.legal_actions()
            if mover == seat:
                observation = {
                    "observation": engine.encode(state, mover),
                    "action_mask": engine.action_mask(state, mover),
                }
                action = agent.act(observation, state.view(mover))
                assert action in legal
            else:
                action = int(rng.choice(legal))
            state.apply(action)


def test_the_export_gives_the_rllib_modules_logits(runs) -> None:
    from ray.rllib.core.columns import Columns

    from hot_envs.training.rllib_export import load_module

    module = load_module(runs["heisse-luft"] / "rllib_checkpoint")
    agent = make_agent(str(runs["heisse-luft"] / "final"), "heisse-luft")
    engine = get_game("heisse-luft").engine
    states = [engine.State.new(seed=s) for s in range(16)]
    observations = np.stack([engine.encode(s, s.current_player) for s in states])
    masks = np.stack([engine.action_mask(s, s.current_player) for s in states])
    batch = {
        Columns.OBS: {
            "observation": torch.as_tensor(observations),
            "action_mask": torch.as_tensor(masks),
        }
    }
    expected = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS].numpy()
    got = agent.policy.logits(observations)
    np.testing.assert_allclose(
        got, module.pi(torch.as_tensor(observations)).detach().numpy(), rtol=1e-5, atol=1e-5
    )
    np.testing.assert_array_equal(
        agent.policy.predict(observations, masks), expected.argmax(axis=1)
    )


def test_hot_envs_evaluate_plays_the_export(runs, capsys) -> None:
    stem = str(runs["heisse-karten"] / "final")
    code = cli(
        ["evaluate", "heisse-karten", "--players", "3", "--agents", stem, "heuristic"]
        + ["--games", "4", "--quiet", "--workers", "1"]
    )
    assert code == 0 and "final" in capsys.readouterr().out


def test_the_sb3_opponent_pool_plays_the_export(runs) -> None:
    from hot_envs.envs.single_agent import SingleAgentEnv

    stem = str(runs["heisse-karten"] / "final")
    env = SingleAgentEnv("heisse-karten", opponents=[stem], players=3, seed=0)
    env.reset()
    rng = np.random.default_rng(0)
    done = False
    while not done:
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        _, _, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    assert info["opponents"].count(stem) == 2 and len(info["returns"]) == 3


def test_negative_control_a_module_ignoring_the_mask_is_caught(ray_cluster, tmp_path) -> None:
    args = parse_args(["heisse-luft", *QUICK, "--out", str(tmp_path)])
    with ray_cluster.job():
        algorithm = build_config(args, mask=False).build_algo()
        try:
            row = progress_row(algorithm.train(), 1.0)
        finally:
            algorithm.stop()
    # Unmasked, nearly every first move in Heiße Luft is illegal, and each ends its game.
    assert row["episodes"] > 0 and row["illegal_actions"] >= row["episodes"] // 2

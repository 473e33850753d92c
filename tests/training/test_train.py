"""The training script end to end on tiny runs, its configuration, and the league's rule."""

from __future__ import annotations

import json
import os
import re

import numpy as np
import pytest

from hot_envs.agents.suite import held_out_pool
from tests.helpers import plays_every_seat

pytest.importorskip("sb3_contrib")

from hot_envs.training import settings, train  # noqa: E402
from hot_envs.training.league import FixedOpponent, League  # noqa: E402
from hot_envs.training.settings import CONFIGS, load_config, parse_args  # noqa: E402
from hot_envs.training.train import main  # noqa: E402

TINY = """
[run]
n_envs = 1
progress_bar = false
[ppo]
rollout_steps = 128
batch_size = 64
n_epochs = 1
net_arch = [32, 32]
[imitation]
bc_decisions = 300
bc_epochs = 1
dagger_rounds = 1
dagger_decisions = 200
[league]
snapshot_every = 256
max_snapshots = 2
curriculum_window = 5
opponents = [{ spec = "random" }, { spec = "heuristic", weight = 2, curriculum = true }]
[eval]
eval_every = 512
eval_games = 4
final_eval_games = 4
held_out_games = 2
"""


@pytest.fixture
def tiny_config(tmp_path):
    path = tmp_path / "tiny.toml"
    path.write_text(TINY)
    return path


@pytest.mark.slow
def test_tiny_heisse_luft_run_writes_checkpoints_that_play_and_resume(
    tiny_config, tmp_path, capsys
):
    out = tmp_path / "run"
    argv = ["heisse-luft", "--config", str(tiny_config), "--out", str(out), "--timesteps", "1024"]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "random" in printed and "heuristic" in printed and "95 % CI" in printed
    for name in ("start", "final", "best", "latest"):
        assert all((out / name).with_suffix(s).is_file() for s in (".zip", ".npz", ".json"))
    assert (out / "tb").is_dir() and (out / "evaluations.json").is_file()
    for name in ("start", "final", "best", "latest"):  # each names its own files
        files = json.loads((out / f"{name}.json").read_text())["files"]
        assert files == {kind: f"{name}.{kind}" for kind in ("zip", "npz", "json")}
    start = json.loads((out / "start.json").read_text())["training"]
    assert start["stage"] == "start" and start["behaviour_cloning"]
    meta = json.loads((out / "final.json").read_text())
    rows = {(row["checkpoint"], row["opponent"]) for row in meta["evaluation"]["final"]}
    held_out = {(c, o) for c in ("start", "final") for o in held_out_pool("heisse-luft")}
    assert rows == {
        ("start", "random"),
        ("final", "random"),
        ("start", "heuristic"),
        ("final", "heuristic"),
        ("final", "start"),
        *held_out,
    }
    assert "held-out min" in printed
    assert meta["training"]["behaviour_cloning"] and meta["training"]["league"]["snapshots"]
    assert meta["training"]["behaviour_cloning"][-1]["round"] == 1  # the DAgger round
    plays_every_seat("heisse-luft", out / "final", [2])

    # Resumed with a DAgger round in which the heuristic plays the learner's opponents and two
    # processes collect the labels.
    resumed = tmp_path / "resumed"
    config = tmp_path / "distil.toml"
    imitation = '[imitation]\ndagger_opponent = "heuristic"\nimitation_workers = 2'
    text = tiny_config.read_text().replace("[imitation]", imitation)
    config.write_text(text.replace("[ppo]", "[ppo]\nlearning_rate = 1e-3\nanneal_lr = true"))
    argv = ["heisse-luft", "--config", str(config), "--out", str(resumed)]
    capsys.readouterr()
    assert main([*argv, "--timesteps", "256", "--resume", str(out / "final.zip")]) == 0
    # The learning rate falls over this run's own 256 steps (two updates), not over the model's
    # lifetime steps (there the first update would have ~0): half the rate at the first update.
    # (SB3 prints an update's figures after the next rollout: the first update's only.)
    rates = re.findall(r"learning_rate\s*\|\s*(\S+)", capsys.readouterr().out)
    assert [float(rate) for rate in rates] == [5e-4]
    training = json.loads((resumed / "final.json").read_text())["training"]
    steps = json.loads((out / "final.json").read_text())["training"]["steps"]
    assert training["steps"] == steps + 256
    assert training["config"]["dagger_opponent"] == "heuristic"
    # resuming skips the cloning but runs the DAgger round
    assert [entry.get("round") for entry in training["behaviour_cloning"]] == [1]
    assert training["behaviour_cloning"][0]["decisions"] >= 300 + 200
    # The resumed run's start is the policy it loaded, before its DAgger round changed it.
    loaded, start, end = (
        np.load(path) for path in (out / "final.npz", resumed / "start.npz", resumed / "final.npz")
    )
    assert all(np.array_equal(loaded[key], start[key]) for key in loaded.files)
    assert not all(np.array_equal(start[key], end[key]) for key in start.files)


@pytest.mark.slow
def test_tiny_heisse_karten_run_with_every_player_count(tiny_config, tmp_path):
    out = tmp_path / "run"
    argv = ["heisse-karten", "--players", "all", "--config", str(tiny_config), "--out", str(out)]
    assert main([*argv, "--timesteps", "1024", "--seed", "3"]) == 0
    meta = json.loads((out / "final.json").read_text())
    assert meta["options"]["num_players"] == [2, 3, 4, 5, 6]
    assert sorted({row["players"] for row in meta["evaluation"]["final"]}) == [2, 3, 4, 5, 6]
    plays_every_seat("heisse-karten", out / "final", [2, 3, 4, 5, 6])


@pytest.mark.slow
def test_tiny_action_scorer_run_with_critic_warmup_anchor_and_pfsp(tiny_config, tmp_path, capsys):
    config = tiny_config.read_text().replace(
        "[ppo]",
        '[ppo]\npolicy = "action_scorer"\nstate_arch = [16, 8]\nscorer_arch = [8]\n'
        "value_arch = [16]\ntarget_kl = 0.02",
    )
    config = config.replace("dagger_rounds = 1", "dagger_rounds = 0")
    config += "[finetune]\ncritic_warmup = 256\nanchor_coef = 1.0\nanchor_decay = 1024\n"
    config = config.replace("[league]", "[league]\npfsp = true\npfsp_fixed = true")
    config = config.replace("n_envs = 1", "batched_envs = 4\nbatched_workers = 2")
    path = tmp_path / "scorer.toml"
    path.write_text(config)
    out = tmp_path / "run"
    argv = ["heisse-karten", "--players", "2", "--config", str(path), "--out", str(out)]
    assert main([*argv, "--timesteps", "1024"]) == 0
    printed = capsys.readouterr().out
    assert "approx_kl" in printed and "explained_variance" in printed  # PPO's health figures
    meta = json.loads((out / "final.json").read_text())
    assert meta["network"]["architecture"] == "action_scorer"
    assert meta["training"]["league"]["pfsp"] is True
    fixed_scores = meta["training"]["league"]["fixed_scores"]  # PFSP's windows over the pool
    assert set(fixed_scores) == {"random", "heuristic"}
    assert all(0 <= score <= 1 for score in fixed_scores.values())
    assert meta["training"]["config"]["batched_workers"] == 2  # the games ran in 2 processes
    assert json.loads((out / "start.json").read_text())["network"]["architecture"] == (
        "action_scorer"
    )
    plays_every_seat("heisse-karten", out / "final", [2, 3])


def test_shipped_configs_parse_and_match_the_arguments():
    for game in ("heisse-luft", "heisse-karten"):
        args = parse_args([game])
        assert args.config.endswith(game.replace("-", "_") + ".toml")
        assert args.timesteps > 0 and args.opponents
    assert parse_args(["heisse-karten"]).players == [2, 3, 4, 5, 6]
    assert parse_args(["heisse-karten", "--players", "3"]).players == [3]
    assert set(load_config(CONFIGS / "heisse_luft.toml")) <= set(vars(parse_args(["heisse-luft"])))


def test_bad_options_exit_with_a_message(tmp_path, capsys):
    assert main(["heisse-luft", "--players", "3"]) == 2
    assert "2-player" in capsys.readouterr().err
    bad = tmp_path / "bad.toml"
    bad.write_text("[ppo]\nlerning_rate = 1e-3\n")
    assert main(["heisse-luft", "--config", str(bad)]) == 2
    assert "lerning_rate" in capsys.readouterr().err
    assert main(["skat"]) == 2
    assert main(["heisse-karten", "--players", "7"]) == 2
    assert "2–6 players, not 7" in capsys.readouterr().err
    assert main(["heisse-luft", "--resume", str(tmp_path / "missing.zip")]) == 2
    assert "missing.zip' not found" in capsys.readouterr().err
    for workers in ("-1", "1.5", "true", "65"):
        bad.write_text(f"[run]\nbatched_envs = 64\nbatched_workers = {workers}\n")
        assert main(["heisse-luft", "--config", str(bad)]) == 2
        assert "batched_workers" in capsys.readouterr().err
    bad.write_text("[run]\nupdate_threads = -2\n")
    assert main(["heisse-luft", "--config", str(bad)]) == 2
    assert "update_threads must be an int ≥ 0" in capsys.readouterr().err
    bad.write_text("[imitation]\nimitation_workers = -1\n")
    assert main(["heisse-luft", "--config", str(bad)]) == 2
    assert "imitation_workers must be an int ≥ 0" in capsys.readouterr().err
    bad.write_text("[imitation]\ndagger_own_labels = [2, 8]\n")
    assert main(["heisse-karten", "--config", str(bad)]) == 2
    assert "2–6 players, not 8" in capsys.readouterr().err
    bad.write_text('[imitation]\nbc_teacher = "heuristic"\ndagger_improve = true\n')
    assert main(["heisse-luft", "--config", str(bad)]) == 2
    assert "dagger_improve needs a search teacher, not 'heuristic'" in capsys.readouterr().err
    for teacher in ("search", "search:200", "search-strong"):  # each spec of the search agent
        bad.write_text(f'[imitation]\nbc_teacher = "{teacher}"\ndagger_improve = true\n')
        settings.check(settings.parse_args(["heisse-luft", "--config", str(bad)]))
    bad.write_text('[imitation]\ndagger_opponent = "grandmaster"\n')
    assert main(["heisse-luft", "--config", str(bad)]) == 2
    assert "grandmaster" in capsys.readouterr().err


def test_league_rule_splits_draws_between_snapshots_and_fixed_agents():
    league = League(
        "heisse-luft",
        [FixedOpponent("random", 1.0), FixedOpponent("heuristic", 3.0, curriculum=True)],
        snapshot_share=0.5,
        max_snapshots=2,
    )
    assert league.weights() == {"random": 0.25, "heuristic": 0.75}
    assert league.add_snapshot("s1") == []
    assert league.weights() == pytest.approx({"random": 0.125, "heuristic": 0.375, "s1": 0.5})
    league.add_snapshot("s2")
    assert league.add_snapshot("s3") == ["s1"]
    assert league.weights() == pytest.approx(
        {"random": 0.125, "heuristic": 0.375, "s2": 0.25, "s3": 0.25}
    )
    assert sum(league.weights().values()) == pytest.approx(1.0)


def test_resume_takes_a_shipped_checkpoint_by_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert parse_args(["heisse-luft", "--resume", "heisse_luft_v0"]).resume == "heisse_luft_v0"


def test_league_settings_are_keywords():
    with pytest.raises(TypeError):
        League("heisse-luft", [FixedOpponent("random")], 0.5)  # which setting would 0.5 be?
    assert League("heisse-luft", [FixedOpponent("random")], max_snapshots=3).max_snapshots == 3


def test_curriculum_moves_epsilon_towards_an_even_fight():
    league = League("heisse-luft", [FixedOpponent("heuristic", curriculum=True)], epsilon_start=0.5)
    assert league.source(league.fixed[0]) == "heuristic:0.50"
    assert league.adapt_epsilon(0.8) and league.epsilon == 0.4  # too easy: less randomness
    assert not league.adapt_epsilon(0.4) and league.epsilon == 0.4
    assert league.adapt_epsilon(0.1) and league.epsilon == 0.5  # too hard: more
    league.epsilon = 0.0
    assert not league.adapt_epsilon(0.9)
    assert np.isclose(league.epsilon, 0.0)


@pytest.mark.slow
def test_time_limit_ends_learning_early_and_the_run_still_finishes(tiny_config, tmp_path):
    out = tmp_path / "run"
    argv = ["heisse-luft", "--config", str(tiny_config), "--out", str(out)]
    assert main([*argv, "--timesteps", "1000000", "--time-limit", "0.001"]) == 0
    steps = json.loads((out / "final.json").read_text())["training"]["steps"]
    assert 0 < steps < 1_000_000  # stopped at the first step after the limit
    history = json.loads((out / "evaluations.json").read_text())
    assert history[-1]["steps"] == steps  # the closing evaluation ran
    assert all((out / "start").with_suffix(s).is_file() for s in (".zip", ".npz", ".json"))


@pytest.mark.slow
def test_update_threads_hold_for_the_ppo_update_only():
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import DummyVecEnv

    from hot_envs.envs.single_agent import SingleAgentEnv
    from hot_envs.training.callbacks import UpdateThreads

    seen: dict[str, set[int]] = {"rollout": set(), "update": set()}

    class RolloutThreads(BaseCallback):
        def _on_step(self) -> bool:
            seen["rollout"].add(torch.get_num_threads())
            return True

    env = DummyVecEnv([lambda: SingleAgentEnv("heisse-karten", opponents=["random"])])
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0)
    train = model.train

    def recording_train() -> None:
        seen["update"].add(torch.get_num_threads())
        train()

    model.train = recording_train
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        model.learn(192, callback=[UpdateThreads(2, 1), RolloutThreads()])
        assert seen == {"rollout": {1}, "update": {2}}
        assert torch.get_num_threads() == 1  # back to the rollout threads at the end
    finally:
        torch.set_num_threads(before)


def blas_threads() -> set[int]:
    from threadpoolctl import threadpool_info

    return {pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"}


def test_training_runs_numpy_blas_on_one_thread_here_and_in_its_workers(monkeypatch):
    from threadpoolctl import threadpool_limits

    from hot_envs.core.blas import BLAS_VARIABLES

    for variable in BLAS_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    seen = {}

    def run(args, stop):
        seen["threads"] = blas_threads()
        seen["variables"] = {variable: os.environ.get(variable) for variable in BLAS_VARIABLES}
        return 0

    monkeypatch.setattr(train, "run", run)
    with threadpool_limits(2, user_api="blas"):  # numpy's default on two cores
        assert train.main(["heisse-luft", "--timesteps", "64"]) == 0
        assert seen["threads"] == {1}
        assert set(seen["variables"].values()) == {"1"}  # for the env workers it starts
        assert blas_threads() == {2}  # as before once the run is over
    assert not any(variable in os.environ for variable in BLAS_VARIABLES)


def test_a_blas_thread_count_the_user_set_is_kept(monkeypatch):
    from threadpoolctl import threadpool_limits

    from hot_envs.core.blas import one_blas_thread

    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "2")
    with threadpool_limits(2, user_api="blas"), one_blas_thread(children=True):
        assert blas_threads() == {2}
        assert os.environ["OPENBLAS_NUM_THREADS"] == "2"

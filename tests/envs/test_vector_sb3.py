"""``hot_envs.envs.vector_sb3.SB3VectorEnv``: the vector env as one stable-baselines3 ``VecEnv``
that sb3-contrib's ``MaskablePPO`` trains on unchanged, league updates included; and the plain-torch
training loop of docs/environments.md runs as written."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import re
from pathlib import Path

import numpy as np
import pytest

from hot_envs.agents.arrays import ActionScorerInput
from hot_envs.agents.checkpoint import CheckpointAgent
from hot_envs.envs.vector import VectorSingleAgentEnv
from tests.helpers import step_and_check_final_infos

# SB3 and torch are imported as the tests run, not as the module is collected: every xdist
# worker collects every module, and importing them cost each 1.5-2 s of CPU.
pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("sb3_contrib") is None, reason="needs SB3: pip install -e '.[train]'"
)


@pytest.fixture(autouse=True)
def one_torch_thread():
    """Small networks: one thread is fastest, and the only sane choice on a busy machine."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.mark.parametrize(("game", "players"), [("heisse-luft", None), ("heisse-karten", [2, 5])])
def test_maskable_ppo_learns_on_it_with_a_snapshot_of_itself_as_opponent(game, players):
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor

    from hot_envs.envs.vector_sb3 import SB3VectorEnv
    from hot_envs.training.export import numpy_policy

    envs = VecMonitor(SB3VectorEnv(game=game, num_envs=8, players=players, opponents=["random"]))
    model = MaskablePPO(
        "MlpPolicy", envs, n_steps=32, batch_size=128, n_epochs=1, seed=0, device="cpu"
    )
    snapshot = CheckpointAgent(numpy_policy(model), {"game": game}, sample=True, seed=0)
    assert envs.env_method("set_opponent", "snapshot", snapshot, 3.0) == [None] * 8
    model.learn(512)
    assert model.num_timesteps == 512
    assert model.ep_info_buffer and len(model.ep_success_buffer) == len(model.ep_info_buffer)
    assert "snapshot" in envs.unwrapped.env.pool.entries


def test_masks_infos_and_seeding_follow_the_vec_env_conventions():
    from hot_envs.envs.vector_sb3 import SB3VectorEnv

    envs = SB3VectorEnv(game="heisse-luft", num_envs=4, game_options={"turn_limit": 8})
    envs.seed(7)
    observations = envs.reset()
    assert observations.shape == (4, 644) and envs.has_attr("action_masks")
    masks = envs.env_method("action_masks")
    assert len(masks) == 4 and all(m.dtype == bool and m.any() for m in masks)
    assert len(envs.env_method("action_masks", indices=[1, 3])) == 2
    again = SB3VectorEnv(game="heisse-luft", num_envs=4, game_options={"turn_limit": 8})
    again.seed(7)
    np.testing.assert_array_equal(again.reset(), observations)
    assert step_and_check_final_infos(envs, np.random.default_rng(0), 40) >= 4
    assert envs.get_attr("num_envs") == [4] * 4
    with pytest.raises(ValueError, match="not both"):
        SB3VectorEnv(VectorSingleAgentEnv(), game="heisse-luft")


def test_the_docs_plain_torch_training_loop_runs():
    doc = Path(__file__).resolve().parents[2] / "docs" / "environments.md"
    blocks = re.findall(r"```python\n(.*?)```", doc.read_text(encoding="utf-8"), re.S)
    (example,) = [block for block in blocks if "ITERATIONS" in block]
    small, count = re.subn(
        r"(?m)^NUM_ENVS, .*$",
        "NUM_ENVS, NUM_STEPS, ITERATIONS, GAMMA, LR = 8, 8, 10, 0.99, 3e-4",
        example,
    )
    assert count == 1
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(small, str(doc), "exec"), {"__name__": "example"})
    assert re.fullmatch(r"10: win share \d\.\d\d, \d+ steps/s\n", out.getvalue())


def test_the_training_league_runs_on_it_unchanged():
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor

    from hot_envs.envs.single_agent import Opponent
    from hot_envs.envs.vector_sb3 import SB3VectorEnv
    from hot_envs.training.league import FixedOpponent, League, LeagueCallback

    league = League(
        "heisse-karten",
        [FixedOpponent("random"), FixedOpponent("heuristic", curriculum=True)],
        max_snapshots=2,
    )
    entries = [Opponent(*entry) for entry in league.initial_entries()]  # as training.train
    envs = VecMonitor(
        SB3VectorEnv(game="heisse-karten", num_envs=8, players=[2, 3], opponents=entries)
    )
    model = MaskablePPO("MlpPolicy", envs, n_steps=16, batch_size=128, n_epochs=1, seed=0)
    callback = LeagueCallback(league, snapshot_every=128, window=10)
    model.learn(640, callback=callback)
    pool = envs.unwrapped.env.pool.entries
    assert len(league.snapshots) == 2 and set(league.snapshots) <= set(pool)
    assert sum(name.startswith("snapshot@") for name in pool) == 2  # dropped ones left the pool
    assert callback.results["random"] and callback.results["heuristic"]


def test_the_action_scoring_policy_trains_on_it_with_packed_observations():
    from dataclasses import replace

    from stable_baselines3.common.vec_env import VecMonitor

    from hot_envs.envs.vector_sb3 import SB3VectorEnv
    from hot_envs.training.export import numpy_policy
    from hot_envs.training.settings import parse_args
    from hot_envs.training.train import build_model

    args = parse_args(["heisse-luft", "--seed", "1"])
    args = replace(args, policy="action_scorer", rollout_steps=128, batch_size=64, n_epochs=1)
    envs = VecMonitor(
        SB3VectorEnv(game="heisse-luft", num_envs=8, policy_input=ActionScorerInput("heisse-luft"))
    )
    model = build_model(args, envs)
    snapshot = CheckpointAgent(numpy_policy(model), {"game": "heisse-luft"}, sample=True)
    envs.env_method("set_opponent", "snapshot", snapshot, 1.0)
    model.learn(256)
    assert model.num_timesteps == 256

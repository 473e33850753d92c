"""A critic that sees the whole table (``[ppo] critic = "state"``): the actor never reads the
state, the critic does; a checkpoint's networks carry over to it unchanged in what they decide
and value; the run exports checkpoints that play from the observation alone."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import torch  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402

from hot_envs.agents.arrays import ActionScorerInput  # noqa: E402
from hot_envs.envs.vector_sb3 import SB3VectorEnv  # noqa: E402
from hot_envs.training.export import SB3Agent, export_checkpoint  # noqa: E402
from hot_envs.training.policies import (  # noqa: E402
    ActionScorerPolicy,
    StateCriticPolicy,
    widen,
)
from hot_envs.training.settings import parse_args  # noqa: E402
from hot_envs.training.train import main  # noqa: E402
from tests.helpers import TINY_LEAGUE_AND_EVAL, plays_every_seat  # noqa: E402


def envs(game: str, critic_state: bool, scorer: bool = False) -> SB3VectorEnv:
    return SB3VectorEnv(
        game=game,
        num_envs=4,
        players=[2, 4] if game == "heisse-karten" else None,
        opponents=["heuristic"],
        seed=1,
        policy_input=ActionScorerInput(game) if scorer else None,
        critic_state=critic_state,
    )


def mlp(env: SB3VectorEnv, critic_state: bool) -> MaskablePPO:
    kwargs: dict = {"net_arch": [32, 32]}
    if critic_state:
        kwargs["actor_size"] = env.env.actor_size
    policy = StateCriticPolicy if critic_state else "MlpPolicy"
    return MaskablePPO(policy, env, policy_kwargs=kwargs, n_steps=16, batch_size=32, seed=0)


def scorer(env: SB3VectorEnv, game: str) -> MaskablePPO:
    size = env.observation_space.shape[0] - env.env.actor_size
    kwargs = {"game": game, "state_arch": [16], "scorer_arch": [16], "value_arch": [16]}
    kwargs["critic_state_size"] = size
    return MaskablePPO(ActionScorerPolicy, env, policy_kwargs=kwargs, n_steps=16, seed=0)


def outputs(model: MaskablePPO, rows: np.ndarray, masks: np.ndarray):
    obs = torch.as_tensor(rows)
    with torch.no_grad():
        dist = model.policy.get_distribution(obs, action_masks=masks)
        return dist.distribution.probs.numpy(), model.policy.predict_values(obs).numpy()


@pytest.mark.parametrize("game", ["heisse-luft", "heisse-karten"])
@pytest.mark.parametrize("kind", ["mlp", "action_scorer"])
def test_the_actor_never_reads_the_state_and_the_critic_does(game, kind):
    env = envs(game, True, scorer=kind == "action_scorer")
    model = mlp(env, True) if kind == "mlp" else scorer(env, game)
    with torch.no_grad():  # the critic's weights on the state, not near 0
        for parameter in model.policy.parameters():
            parameter.add_(torch.randn_like(parameter) * 0.1)
    rows, masks = env.reset(), env.action_masks()
    size = env.env.actor_size
    other = rows.copy()
    other[:, size:] = np.random.default_rng(0).random(other[:, size:].shape)  # another table
    probs, values = outputs(model, rows, masks)
    other_probs, other_values = outputs(model, other, masks)
    assert np.array_equal(probs, other_probs)  # the hidden cards reach no decision
    assert not np.allclose(values, other_values)  # … and every value
    changed = rows.copy()
    changed[:, : min(size, 600)] = 0.0  # the actor does read its own part
    assert not np.allclose(outputs(model, changed, masks)[0], probs)


@pytest.mark.parametrize("game", ["heisse-luft", "heisse-karten"])
def test_a_checkpoints_networks_carry_over_deciding_and_valuing_alike(game):
    plain_env, state_env = envs(game, False), envs(game, True)
    source = mlp(plain_env, False)
    source.learn(64)  # weights of its own, a step count
    with torch.no_grad():
        for parameter in source.policy.parameters():
            parameter.add_(torch.randn_like(parameter) * 0.1)
    model = mlp(state_env, True)
    widen(model, source)
    assert model.num_timesteps == source.num_timesteps > 0
    rows, masks = state_env.reset(), state_env.action_masks()
    size = state_env.env.actor_size
    probs, values = outputs(model, rows, masks)
    source_probs, source_values = outputs(source, rows[:, :size], masks)
    np.testing.assert_allclose(probs, source_probs, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(values, source_values, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="network"):
        widen(mlp(state_env, True), scorer(envs(game, True, True), game))


def test_the_setting_is_checked():
    with pytest.raises(ValueError, match="critic must be one of"):
        check_critic("both")
    with pytest.raises(ValueError, match="demonstrations hold no state"):
        check_critic("state", bc_decisions=100)


def check_critic(critic: str, **settings) -> None:
    from hot_envs.training.settings import check

    args = parse_args(["heisse-luft"])
    args.critic = critic
    for key, value in settings.items():
        setattr(args, key, value)
    check(args)


TINY = """
[run]
batched_envs = 4
batched_workers = 1
players = [2, 3]
progress_bar = false
[ppo]
rollout_steps = 64
batch_size = 32
n_epochs = 1
critic = "state"
"""
TINY += TINY_LEAGUE_AND_EVAL


@pytest.mark.slow
def test_a_run_from_a_checkpoint_learns_with_the_state_and_exports_a_player(tmp_path):
    source = mlp(envs("heisse-karten", False), False)
    source.learn(32)
    stem = export_checkpoint(source, tmp_path / "source", {"game": "heisse-karten"})
    config = tmp_path / "tiny.toml"
    config.write_text(TINY)
    out = tmp_path / "run"
    argv = ["heisse-karten", "--config", str(config), "--out", str(out), "--timesteps", "128"]
    assert main([*argv, "--resume", str(stem.with_suffix(".zip"))]) == 0
    start, before = np.load(out / "start.npz"), np.load(stem.with_suffix(".npz"))
    assert all(np.array_equal(start[k], before[k]) for k in before.files)  # the actor as it was
    meta = json.loads((out / "final.json").read_text())
    assert meta["network"]["architecture"] == "mlp"
    assert meta["training"]["config"]["critic"] == "state"
    assert isinstance(SB3Agent.load(out / "final").model.policy, StateCriticPolicy)
    # The numpy agent plays every seat from observations alone; the SB3 model agrees with it.
    plays_every_seat("heisse-karten", out / "final", [2, 3])

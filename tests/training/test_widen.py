"""A checkpoint grown into a larger network (``--resume CHECKPOINT`` with wider ``[ppo]`` layers):
the grown network decides and values every position as the checkpoint did, its new units learn,
and a network never shrinks or changes shape."""

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
from hot_envs.training.policies import ActionScorerPolicy, widen  # noqa: E402
from hot_envs.training.train import main  # noqa: E402
from tests.helpers import TINY_LEAGUE_AND_EVAL  # noqa: E402

SMALL = {"state_arch": [16, 8], "scorer_arch": [16, 16], "value_arch": [16]}
LARGE = {"state_arch": [24, 12], "scorer_arch": [32, 20], "value_arch": [40]}


def envs(game: str, critic_state: bool = False) -> SB3VectorEnv:
    return SB3VectorEnv(
        game=game,
        num_envs=4,
        players=[2, 5] if game == "heisse-karten" else None,
        opponents=["heuristic"],
        seed=3,
        policy_input=ActionScorerInput(game),
        critic_state=critic_state,
    )


def scorer(env: SB3VectorEnv, game: str, arch: dict, seed: int = 0) -> MaskablePPO:
    kwargs = {"game": game, **arch}
    kwargs["critic_state_size"] = env.observation_space.shape[0] - env.env.actor_size
    return MaskablePPO(
        ActionScorerPolicy, env, policy_kwargs=kwargs, n_steps=16, batch_size=32, seed=seed
    )


def trained(game: str) -> MaskablePPO:
    """A small scorer with weights of its own (a few steps of learning, then noise)."""
    source = scorer(envs(game), game, SMALL)
    source.learn(64)
    with torch.no_grad():
        for parameter in source.policy.parameters():
            parameter.add_(torch.randn_like(parameter) * 0.3)
    return source


def outputs(model: MaskablePPO, rows: np.ndarray, masks: np.ndarray):
    obs = torch.as_tensor(rows)
    with torch.no_grad():
        logits = model.policy.mlp_extractor.forward_actor(obs)
        dist = model.policy.get_distribution(obs, action_masks=masks)
        probs = dist.distribution.probs.numpy()
        return logits.numpy(), probs, model.policy.predict_values(obs).numpy()


def positions(env: SB3VectorEnv, steps: int = 12) -> tuple[np.ndarray, np.ndarray]:
    """Rows and masks of positions along random games."""
    rng = np.random.default_rng(0)
    rows, masks = [env.reset()], [env.action_masks()]
    for _ in range(steps):
        actions = [rng.choice(np.flatnonzero(mask)) for mask in masks[-1]]
        rows.append(env.step(np.array(actions))[0])
        masks.append(env.action_masks())
    return np.concatenate(rows), np.concatenate(masks)


@pytest.mark.parametrize("game", ["heisse-luft", "heisse-karten"])
def test_a_grown_scorer_decides_and_values_as_its_checkpoint(game):
    source = trained(game)
    model = scorer(envs(game), game, LARGE, seed=5)
    widen(model, source)
    assert model.num_timesteps == source.num_timesteps > 0
    rows, masks = positions(envs(game))
    logits, probs, values = outputs(model, rows, masks)
    source_logits, source_probs, source_values = outputs(source, rows, masks)
    legal = masks.astype(bool)
    np.testing.assert_allclose(logits[legal], source_logits[legal], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(probs, source_probs, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(values, source_values, rtol=1e-5, atol=1e-5)
    assert np.ptp(source_probs[legal]) > 0.05  # a test that could tell a wrong layout
    # The new units compute something: without their zero weights out, the logits would move.
    hidden = model.policy.mlp_extractor.scorer_net[0]
    assert hidden.weight[16:].abs().min() > 0 and hidden.weight[:16, 8:12].abs().max() == 0


def test_the_new_units_learn():
    game = "heisse-luft"
    model = scorer(envs(game), game, LARGE, seed=5)
    widen(model, trained(game))
    out = model.policy.mlp_extractor.scorer_net[2]  # 32 units in (16 new), 20 out (16 old)
    assert out.weight[:16, 16:].abs().max() == 0
    model.learn(64)
    assert out.weight[:16, 16:].abs().min() > 0


def test_a_grown_scorer_can_read_the_state_too():
    game = "heisse-karten"
    source = trained(game)
    state_env = envs(game, critic_state=True)
    model = scorer(state_env, game, LARGE, seed=5)
    widen(model, source)
    rows, masks = positions(state_env)
    logits, probs, values = outputs(model, rows, masks)
    size = state_env.env.actor_size
    source_logits, source_probs, source_values = outputs(source, rows[:, :size], masks)
    np.testing.assert_allclose(probs, source_probs, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(values, source_values, rtol=1e-5, atol=1e-5)


def test_a_network_only_grows():
    game = "heisse-luft"
    with pytest.raises(ValueError, match="only grows"):
        widen(scorer(envs(game), game, SMALL), scorer(envs(game), game, LARGE))
    deeper = {**LARGE, "scorer_arch": [32, 20, 8]}
    with pytest.raises(ValueError, match="network is not the run's"):
        widen(scorer(envs(game), game, deeper), scorer(envs(game), game, SMALL))


TINY = """
[run]
batched_envs = 4
batched_workers = 1
progress_bar = false
[ppo]
policy = "action_scorer"
state_arch = [24, 12]
scorer_arch = [32, 20]
value_arch = [40]
rollout_steps = 64
batch_size = 32
n_epochs = 1
[imitation]
bc_decisions = 0
"""
TINY += TINY_LEAGUE_AND_EVAL


@pytest.mark.slow
def test_resuming_a_checkpoint_with_wider_layers_grows_it_and_plays_as_it_did(tmp_path):
    game = "heisse-luft"
    source = trained(game)
    stem = export_checkpoint(source, tmp_path / "source", {"game": game})
    config = tmp_path / "tiny.toml"
    config.write_text(TINY)
    out = tmp_path / "run"
    argv = [game, "--config", str(config), "--timesteps", "64", "--resume", str(stem) + ".zip"]
    assert main([*argv, "--out", str(out)]) == 0
    meta = json.loads((out / "final.json").read_text())
    assert meta["training"]["config"]["scorer_arch"] == [32, 20]
    start = SB3Agent.load(out / "start").model  # the grown network before it learnt
    assert start.policy.mlp_extractor.scorer_net[0].out_features == 32
    rows, masks = positions(envs(game))
    np.testing.assert_allclose(
        outputs(start, rows, masks)[1], outputs(source, rows, masks)[1], rtol=1e-5, atol=1e-6
    )
    shrunk = TINY.replace("[32, 20]", "[8, 8]")
    config.write_text(shrunk)
    with pytest.raises(ValueError, match="only grows"):
        main([*argv, "--out", str(tmp_path / "shrunk")])

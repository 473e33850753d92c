"""The action-scoring policy: torch (hot_envs.training.policies) and numpy
(hot_envs.agents.scorer) agree, its checkpoints export and load, and the fine-tuning callbacks
do what they say."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import torch  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy  # noqa: E402

from hot_envs.agents.arrays import ActionScorerInput
from hot_envs.agents.checkpoint import CheckpointAgent  # noqa: E402
from hot_envs.agents.features import SPECS  # noqa: E402
from hot_envs.envs.single_agent import SingleAgentEnv  # noqa: E402
from hot_envs.training.export import export_checkpoint, numpy_policy  # noqa: E402
from hot_envs.training.finetune import CriticWarmup, actor_parameters  # noqa: E402
from hot_envs.training.league import FixedOpponent, League  # noqa: E402
from hot_envs.training.policies import ActionScorerPolicy  # noqa: E402
from tests.helpers import plays_every_seat  # noqa: E402

CASES = [("heisse-luft", None), ("heisse-karten", [2, 3, 4, 5, 6])]


def _model(game: str, players, seed: int = 0) -> MaskablePPO:
    env = SingleAgentEnv(game, players=players, seed=seed, policy_input=ActionScorerInput(game))
    kwargs = {"game": game, "state_arch": [32, 16], "scorer_arch": [24], "value_arch": [32]}
    model = MaskablePPO(
        ActionScorerPolicy, env, policy_kwargs=kwargs, n_steps=64, batch_size=32, seed=seed
    )
    with torch.no_grad():  # the untrained scorer is near uniform: make its choices distinct
        model.policy.mlp_extractor.scorer_net[-1].weight.mul_(300.0)
    return model


def _inputs(game: str, players, n: int = 300) -> tuple[np.ndarray, np.ndarray]:
    env = SingleAgentEnv(game, players=players, seed=1, policy_input=ActionScorerInput(game))
    rng = np.random.default_rng(0)
    observation, _ = env.reset(seed=1)
    inputs, masks = [], []
    while len(inputs) < n:
        mask = env.action_masks()
        inputs.append(observation)
        masks.append(mask)
        observation, _, terminated, truncated, _ = env.step(rng.choice(np.flatnonzero(mask)))
        if terminated or truncated:
            observation, _ = env.reset()
    return np.asarray(inputs), np.asarray(masks)


@pytest.mark.parametrize(("game", "players"), CASES)
def test_numpy_scorer_chooses_what_the_torch_policy_chooses(game, players):
    model = _model(game, players)
    inputs, masks = _inputs(game, players)
    torch_actions, _ = model.predict(inputs, action_masks=masks, deterministic=True)
    numpy_actions = numpy_policy(model).predict(inputs, masks)
    assert np.array_equal(torch_actions, numpy_actions)
    assert len(set(numpy_actions.tolist())) > 10  # real decisions, not one constant
    assert masks[np.arange(len(masks)), numpy_actions].all()


@pytest.mark.parametrize(("game", "players"), CASES)
def test_the_update_over_slots_gives_what_the_masked_distribution_gives(game, players):
    """``evaluate_actions`` (the PPO update's) works on the input's slots; values,
    log-probabilities, entropies and their gradients are those of sb3-contrib's masked
    distribution over every action."""
    policy = _model(game, players).policy
    inputs, masks = _inputs(game, players, n=200)
    rng = np.random.default_rng(2)
    actions = torch.as_tensor([rng.choice(np.flatnonzero(m)) for m in masks])
    observations = torch.as_tensor(inputs)
    ours = policy.evaluate_actions(observations, actions, action_masks=masks)
    theirs = MaskableActorCriticPolicy.evaluate_actions(
        policy, observations, actions, action_masks=masks
    )
    for mine, reference in zip(ours, theirs, strict=True):
        torch.testing.assert_close(mine, reference, rtol=1e-5, atol=1e-5)
    assert ours[2].min() >= 0.0 and ours[2].max() > 0.1  # real choices, some of them open
    parameters = list(policy.parameters())
    grads = [
        torch.autograd.grad(log_prob.sum() + entropy.sum(), parameters, allow_unused=True)
        for _, log_prob, entropy in (ours, theirs)
    ]
    for mine, reference in zip(*grads, strict=True):
        assert (mine is None) == (reference is None)
        if mine is not None:
            torch.testing.assert_close(mine, reference, rtol=1e-4, atol=1e-4)
    # a mask narrower than the slots (an env that forbids more) counts as well
    narrow = masks.copy()
    first_legal = narrow.argmax(axis=1)
    narrow[:] = False
    narrow[np.arange(len(narrow)), first_legal] = True
    _, log_prob, entropy = policy.evaluate_actions(
        observations, torch.as_tensor(first_legal), action_masks=narrow
    )
    torch.testing.assert_close(log_prob, torch.zeros_like(log_prob))
    torch.testing.assert_close(entropy, torch.zeros_like(entropy))


@pytest.mark.parametrize(("game", "players"), CASES)
def test_scorer_checkpoints_name_their_architecture_and_play_like_sb3(game, players, tmp_path):
    stem = export_checkpoint(_model(game, players), tmp_path / "scorer", {"game": game})
    meta = json.loads(stem.with_suffix(".json").read_text())
    spec = SPECS[game]
    assert meta["network"] == {
        "architecture": "action_scorer",
        "state": [32, 16],
        "scorer": [24],
        "activation": "tanh",
        "action_slots": spec.slots,
        "action_features": spec.size,
    }
    plays_every_seat(game, stem, [2] if players is None else [2, 4, 6])


def test_a_scorer_checkpoint_needs_the_view(tmp_path):
    stem = export_checkpoint(_model("heisse-karten", 2), tmp_path / "s", {"game": "heisse-karten"})
    agent = CheckpointAgent.load(stem)
    env = SingleAgentEnv("heisse-karten", players=2, seed=0)
    observation, _ = env.reset(seed=0)
    mask = env.action_masks().astype(np.int8)
    with pytest.raises(ValueError, match="needs the view"):
        agent.act({"observation": observation, "action_mask": mask}, {})


def test_critic_warmup_keeps_the_actor_still_and_trains_the_critic():
    model = _model("heisse-karten", 2)
    actor = [p.detach().clone() for p in actor_parameters(model.policy)]
    critic = [p.detach().clone() for p in model.policy.mlp_extractor.critic_net.parameters()]
    model.learn(192, callback=CriticWarmup(10_000))
    after = actor_parameters(model.policy)
    assert all(torch.equal(a, p) for a, p in zip(actor, after, strict=True))
    changed = model.policy.mlp_extractor.critic_net.parameters()
    assert any(not torch.equal(a, p) for a, p in zip(critic, changed, strict=True))
    assert all(p.requires_grad for p in actor_parameters(model.policy))  # released at the end
    model.learn(128, callback=CriticWarmup(0))
    after = actor_parameters(model.policy)
    assert any(not torch.equal(a, p) for a, p in zip(actor, after, strict=True))


def test_pfsp_meets_the_snapshots_that_beat_the_learner_most():
    league = League(game="heisse-luft", fixed=[FixedOpponent("heuristic")], pfsp=True)
    league.snapshot_share = 0.5
    for name in ("old", "mid", "new"):
        league.add_snapshot(name)
    even = league.weights()
    assert even["old"] == pytest.approx(even["new"]) and even["heuristic"] == pytest.approx(0.5)
    league.scores.update(old=0.9, mid=0.5, new=0.2)
    weights = league.weights()
    assert weights["new"] > weights["mid"] > weights["old"] > 0
    assert sum(weights[n] for n in ("old", "mid", "new")) == pytest.approx(0.5)
    assert weights["new"] / weights["mid"] == pytest.approx((0.8 / 0.5) ** 2)

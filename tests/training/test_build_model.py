"""``hot_envs.training.train.build_model``: the one place the run's arguments become a
MaskablePPO (the training script and benchmarks/training_throughput.py both build their models
there)."""

from __future__ import annotations

from functools import partial

import pytest

pytest.importorskip("sb3_contrib")

import torch  # noqa: E402
from stable_baselines3.common.env_util import make_vec_env  # noqa: E402
from stable_baselines3.common.vec_env import DummyVecEnv  # noqa: E402

from hot_envs.envs.single_agent import SingleAgentEnv  # noqa: E402
from hot_envs.training.policies import ActionScorerPolicy  # noqa: E402
from hot_envs.training.settings import parse_args  # noqa: E402
from hot_envs.training.train import build_model, policy_input  # noqa: E402


@pytest.mark.parametrize("game", ["heisse-luft", "heisse-karten"])
def test_the_model_has_the_configs_ppo_settings_and_network(game):
    args = parse_args([game, "--seed", "3"])
    scorer = args.policy == "action_scorer"
    envs = make_vec_env(
        partial(SingleAgentEnv, game, players=args.players, policy_input=policy_input(args)),
        n_envs=3,
        vec_env_cls=DummyVecEnv,
    )
    model = build_model(args, envs)
    assert model.n_steps == args.rollout_steps // 3  # the rollout spread over the envs
    assert model.batch_size == args.batch_size and model.n_epochs == args.n_epochs
    assert (model.gamma, model.gae_lambda) == (args.gamma, args.gae_lambda)
    assert model.clip_range(1.0) == args.clip_range
    assert (model.ent_coef, model.vf_coef) == (args.ent_coef, args.vf_coef)
    assert model.learning_rate == args.learning_rate and model.seed == 3
    assert model.device.type == "cpu" and model.tensorboard_log is None
    assert model.target_kl == args.target_kl
    activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[args.activation]
    assert model.policy.activation_fn is activation
    if scorer:
        assert isinstance(model.policy, ActionScorerPolicy)
        net = model.policy.mlp_extractor
        assert [m.out_features for m in net.state_net if isinstance(m, torch.nn.Linear)] == list(
            args.state_arch
        )
        scorer_widths = [m.out_features for m in net.scorer_net if isinstance(m, torch.nn.Linear)]
        assert scorer_widths == [*args.scorer_arch, 1]
        critic = [m.out_features for m in net.critic_net if isinstance(m, torch.nn.Linear)]
        assert critic == list(args.value_arch)
    else:
        assert model.policy.net_arch == list(args.net_arch)


def test_relu_and_a_tensorboard_directory(tmp_path):
    args = parse_args(["heisse-karten", "--players", "4"])
    args.activation, args.net_arch, args.rollout_steps = "relu", [16], 100
    args.policy = "mlp"
    envs = make_vec_env(partial(SingleAgentEnv, "heisse-karten", players=[4]), n_envs=1)
    model = build_model(args, envs, tensorboard_log=str(tmp_path / "tb"))
    assert model.n_steps == 100 and model.tensorboard_log == str(tmp_path / "tb")
    linears = [m for m in model.policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
    assert [m.out_features for m in linears] == [16]
    assert any(isinstance(m, torch.nn.ReLU) for m in model.policy.mlp_extractor.policy_net)

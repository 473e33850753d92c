"""The masked PPO RLModule: illegal logits at the dtype's minimum (so never sampled), the
value head, the inference-only copy, and a mask-ignoring control that does pick illegal ones."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pytest
import torch

from tests.rllib.conftest import needs_ray

if TYPE_CHECKING:
    from hot_envs.rllib.env import TurnBasedEnv

pytestmark = needs_ray


def build(game: str = "heisse-karten", inference_only: bool = False, **model_config):
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from hot_envs.rllib.env import TurnBasedEnv
    from hot_envs.rllib.module import MaskedPPOTorchRLModule

    env = TurnBasedEnv({"game": game, "players": 4 if game == "heisse-karten" else None})
    spec = RLModuleSpec(
        module_class=MaskedPPOTorchRLModule,
        observation_space=env.observation_spaces["player_0"],
        action_space=env.action_spaces["player_0"],
        inference_only=inference_only,
        model_config={"hidden": [32, 16], **model_config},
    )
    return spec.build(), env


def batch(env: TurnBasedEnv, n: int = 64) -> dict:
    """``n`` mover observations from seeded deals, as a torch batch."""
    from ray.rllib.core.columns import Columns

    observations = [next(iter(env.reset(seed=s)[0].values())) for s in range(n)]
    return {
        Columns.OBS: {
            key: torch.as_tensor(np.stack([o[key] for o in observations]))
            for key in ("observation", "action_mask")
        }
    }


def test_illegal_logits_are_the_dtype_minimum_and_never_sampled() -> None:
    from ray.rllib.core.columns import Columns

    module, env = build()
    data = batch(env)
    logits = module.forward_exploration(data)[Columns.ACTION_DIST_INPUTS]
    mask = data[Columns.OBS]["action_mask"].bool()
    assert torch.all(logits[~mask] == torch.finfo(logits.dtype).min)
    assert torch.all(logits[mask] > -1e6)
    dist = module.get_exploration_action_dist_cls().from_logits(logits)
    actions = torch.stack([dist.sample() for _ in range(50)])
    assert mask.gather(1, actions.T).all()


def test_without_the_mask_illegal_actions_are_sampled() -> None:
    from ray.rllib.core.columns import Columns

    module, env = build(mask=False)
    data = batch(env)
    logits = module.forward_exploration(data)[Columns.ACTION_DIST_INPUTS]
    actions = module.get_exploration_action_dist_cls().from_logits(logits).sample()
    mask = data[Columns.OBS]["action_mask"].bool()
    assert not mask.gather(1, actions[:, None]).all()


def test_values_and_the_inference_only_copy() -> None:
    from ray.rllib.core.columns import Columns

    module, env = build("heisse-luft", activation="relu")
    data = batch(env, 8)
    assert module.compute_values(data).shape == (8,)
    inference, _ = build("heisse-luft", inference_only=True, activation="relu")
    assert not hasattr(inference, "vf")
    inference.set_state(module.get_state(inference_only=True))
    torch.testing.assert_close(
        inference.forward_inference(data)[Columns.ACTION_DIST_INPUTS],
        module.forward_inference(data)[Columns.ACTION_DIST_INPUTS],
    )


def test_a_dict_observation_without_our_keys_is_a_clear_error() -> None:
    import gymnasium as gym
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from hot_envs.rllib.module import MaskedPPOTorchRLModule

    spec = RLModuleSpec(
        module_class=MaskedPPOTorchRLModule,
        observation_space=gym.spaces.Box(0, 1, (4,)),
        action_space=gym.spaces.Discrete(2),
    )
    with pytest.raises(ValueError, match='"observation" and "action_mask"'):
        spec.build()


def test_export_of_a_missing_checkpoint_is_a_clear_error(tmp_path) -> None:
    from hot_envs.training.rllib_export import export_checkpoint

    with pytest.raises(FileNotFoundError, match="no RLlib module 'main'"):
        export_checkpoint(tmp_path, tmp_path / "out")
    assert not (tmp_path / "out.npz").exists()


def test_export_writes_what_the_numpy_agent_loads(tmp_path) -> None:
    from ray.rllib.core.columns import Columns

    from hot_envs.agents.checkpoint import CheckpointAgent
    from hot_envs.training.rllib_export import export_checkpoint

    module, env = build("heisse-karten", activation="relu")
    module.save_to_path(tmp_path / "module")
    stem = export_checkpoint(tmp_path / "module", tmp_path / "exported", options={"x": 1})
    agent = CheckpointAgent.load(stem, game="heisse-karten")
    assert agent.metadata["network"] == {"hidden": [32, 16], "activation": "relu"}
    assert agent.metadata["options"] == {"x": 1}
    data = batch(env, 8)
    observations = data[Columns.OBS]["observation"].numpy()
    np.testing.assert_allclose(
        agent.policy.logits(observations),
        module.pi(torch.as_tensor(observations)).detach().numpy(),
        rtol=1e-5,
        atol=1e-5,
    )

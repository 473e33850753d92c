"""The numpy checkpoint agent's lean decision path gives exactly the actions of
``MaskablePPO.predict`` — on thousands of observations of both games, for the shipped policies
(action scorers), for MLPs of the training configs' shape and for networks of other shapes — and
of its own batched forward pass, whatever the dtypes of the observation and the mask. The
trained MLPs are the earlier shipped ones (``checkpoints/earlier/``, numpy files only)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from hot_envs.agents.checkpoint import CheckpointAgent, read_metadata
from hot_envs.agents.shipped import earlier_names, find_checkpoint
from hot_envs.envs.single_agent import SingleAgentEnv, random_observations

# SB3 (and so torch) is imported by the tests that compare with it, not as the module is
# collected: every xdist worker collects every module.
pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("sb3_contrib") is None, reason="needs SB3: pip install -e '.[train]'"
)

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = {
    "heisse-luft": ROOT / "checkpoints" / "heisse_luft_v0",
    "heisse-karten": ROOT / "checkpoints" / "heisse_karten_v0",
}
PLAYERS = {"heisse-luft": None, "heisse-karten": [2, 3, 4, 5, 6]}


def observations(game: str, n: int, seed: int = 0) -> list[dict[str, np.ndarray]]:
    """``n`` learner observation dicts from random play (every player count of the game)."""
    return random_observations(game, PLAYERS[game], n, seed)


SCORER_SHIPPED = sorted(
    game
    for game, stem in SHIPPED.items()
    if read_metadata(stem)["network"].get("architecture") == "action_scorer"
)
TRAINED_MLPS = [
    name
    for name in earlier_names()
    if read_metadata(find_checkpoint(name))["network"].get("architecture", "mlp") == "mlp"
]


@pytest.fixture(scope="module", params=TRAINED_MLPS)
def trained_mlp(request) -> tuple[CheckpointAgent, list[dict[str, np.ndarray]]]:
    """A trained MLP policy and 1,000 observations of its game."""
    agent = CheckpointAgent.load(request.param)
    return agent, observations(agent.game, 1000)


def fresh_mlp(game: str, folder: Path, net_arch: list[int], activation: str = "tanh") -> Path:
    """An untrained MaskablePPO MLP for ``game``, exported as a checkpoint (.zip, .npz, .json)."""
    import torch
    from sb3_contrib import MaskablePPO

    from hot_envs.training.export import export_checkpoint

    env = SingleAgentEnv(game, players=PLAYERS[game], seed=0)
    activation_fn = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[activation]
    policy_kwargs = {"net_arch": net_arch, "activation_fn": activation_fn}
    model = MaskablePPO("MlpPolicy", env, policy_kwargs=policy_kwargs, seed=1, device="cpu")
    return export_checkpoint(model, folder / "net", {"game": game})


def decisions(game: str, n: int, seed: int = 0) -> list[tuple[dict[str, np.ndarray], dict]]:
    """``n`` learner decisions from random play: the observation dict and the seat's view."""
    env = SingleAgentEnv(game, players=PLAYERS[game], seed=seed)
    rng = np.random.default_rng(seed)
    env.reset()
    result = []
    while len(result) < n:
        mask = env.action_masks()
        observation = {
            "observation": env.engine.encode(env.game, env.seat),
            "action_mask": mask.astype(np.int8),
        }
        result.append((observation, env.game.view(env.seat)))
        _, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        if terminated or truncated:
            env.reset()
    return result


@pytest.mark.slow
@pytest.mark.parametrize("game", SCORER_SHIPPED)
def test_shipped_action_scorers_numpy_and_sb3_agree_on_a_thousand_decisions(game):
    from hot_envs.training.export import SB3Agent

    numpy_agent = CheckpointAgent.load(SHIPPED[game], game=game)
    sb3_agent = SB3Agent.load(SHIPPED[game], game=game)
    batch = decisions(game, 1000)
    numpy_actions = [numpy_agent.act(o, view) for o, view in batch]
    assert numpy_actions == [sb3_agent.act(o, view) for o, view in batch]
    assert len(set(numpy_actions)) > 10


def batched_actions(agent: CheckpointAgent, batch: list[dict[str, np.ndarray]]) -> list[int]:
    """The actions of the policy's batched forward pass (no sparse gathers, no folded biases)
    over the whole batch at once."""
    observations = np.stack([o["observation"] for o in batch])
    return agent.policy.predict(observations, np.stack([o["action_mask"] for o in batch])).tolist()


def test_there_are_trained_mlps_to_test():
    assert TRAINED_MLPS and {CheckpointAgent.load(n).game for n in TRAINED_MLPS} == set(SHIPPED)


@pytest.mark.slow  # SB3 decides one observation at a time
@pytest.mark.parametrize("game", sorted(SHIPPED))
def test_mlps_numpy_and_sb3_agree_on_thousands_of_observations(game, tmp_path):
    from hot_envs.training.export import SB3Agent

    stem = fresh_mlp(game, tmp_path, [256, 256])  # the training configs' MLP
    numpy_agent = CheckpointAgent.load(stem, game=game)
    sb3_agent = SB3Agent.load(stem, game=game)
    batch = observations(game, 3000)
    numpy_actions = [numpy_agent.act(o) for o in batch]
    assert numpy_actions == [sb3_agent.act(o) for o in batch]
    assert len(set(numpy_actions)) > 10  # the policy decides things, not one constant move
    assert batched_actions(numpy_agent, batch) == numpy_actions


def test_a_trained_mlps_batched_forward_pass_agrees(trained_mlp):
    agent, batch = trained_mlp
    actions = [agent.act(o) for o in batch]
    assert len(set(actions)) > 10
    assert batched_actions(agent, batch) == actions


def test_observation_and_mask_dtypes_do_not_change_the_action(trained_mlp):
    agent, batch = trained_mlp
    for o in batch[:300]:
        expected = agent.act(o)
        for observation in (o["observation"].astype(np.float64), o["observation"].tolist()):
            for mask in (o["action_mask"].astype(bool), o["action_mask"].astype(np.int64)):
                given = {"observation": np.asarray(observation), "action_mask": mask}
                assert agent.act(given) == expected


def test_the_decision_keeps_no_state_between_calls(trained_mlp):
    """Preallocated buffers are overwritten, never accumulated: the same observation gives the
    same logits whatever came before."""
    agent, batch = trained_mlp
    policy = agent.policy
    legal = np.arange(policy.logits(batch[0]["observation"]).shape[-1])
    first = policy.legal_logits(batch[0]["observation"], legal).copy()
    for o in batch[1:50]:
        policy.legal_logits(o["observation"], legal)
    np.testing.assert_array_equal(policy.legal_logits(batch[0]["observation"], legal), first)
    np.testing.assert_allclose(first, policy.logits(batch[0]["observation"]), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    ("net_arch", "activation"), [([], "tanh"), ([32], "relu"), ([64, 48, 32], "tanh")]
)
def test_other_network_shapes_agree_with_sb3(tmp_path, net_arch, activation):
    from hot_envs.training.export import SB3Agent

    game = "heisse-karten"
    stem = fresh_mlp(game, tmp_path, net_arch, activation)
    numpy_agent = CheckpointAgent.load(stem)
    sb3_agent = SB3Agent.load(stem)
    batch = observations(game, 300, seed=2)
    assert [numpy_agent.act(o) for o in batch] == [sb3_agent.act(o) for o in batch]


def test_a_pickled_agent_decides_alike(trained_mlp):
    """Agents travel to arena workers and env subprocesses by pickle; the policy's buffers are
    views of one another, so unpickling must rebuild them, not copy them apart."""
    import pickle

    agent, batch = trained_mlp
    copy = pickle.loads(pickle.dumps(agent))
    assert [copy.act(o) for o in batch[:500]] == [agent.act(o) for o in batch[:500]]
    for (w, b), (w2, b2) in zip(agent.policy.layers, copy.policy.layers, strict=True):
        np.testing.assert_array_equal(w, w2)
        np.testing.assert_array_equal(b, b2)

"""Checkpoints: export from MaskablePPO, numpy loading (same actions as SB3), clear errors for
bad files, loading by agent spec. (Playing one loads no torch: ``tests/test_layers.py``.)"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from hot_envs.agents.checkpoint import CheckpointAgent, read_metadata
from hot_envs.envs.single_agent import SingleAgentEnv, random_observations

pytest.importorskip("sb3_contrib")

from hot_envs.training.export import SB3Agent  # noqa: E402

CASES = [("heisse-luft", None, "tanh"), ("heisse-karten", [2, 3, 4, 5, 6], "relu")]


def _model(game: str, players, activation: str):
    import torch
    from sb3_contrib import MaskablePPO

    env = SingleAgentEnv(game, players=players, seed=0)
    activation_fn = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[activation]
    policy_kwargs = {"net_arch": [64, 32], "activation_fn": activation_fn}
    return MaskablePPO("MlpPolicy", env, policy_kwargs=policy_kwargs, seed=0, device="cpu")


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory) -> dict[str, Path]:
    """One exported (untrained, randomly initialised) checkpoint per game."""
    from hot_envs.training.export import export_checkpoint

    out = tmp_path_factory.mktemp("checkpoints")
    stems = {}
    for game, players, activation in CASES:
        meta = {"game": game, "options": {"num_players": players}, "training": {"steps": 0}}
        stems[game] = export_checkpoint(_model(game, players, activation), out / game, meta)
    return stems


@pytest.mark.parametrize(("game", "players", "activation"), CASES)
def test_export_writes_three_files_and_documented_metadata(checkpoints, game, players, activation):
    stem = checkpoints[game]
    assert all(stem.with_suffix(s).is_file() for s in (".zip", ".npz", ".json"))
    meta = json.loads(stem.with_suffix(".json").read_text())
    engine = SingleAgentEnv(game, players=players).engine
    assert meta["game"] == game and meta["format"] == "hot_envs-checkpoint"
    assert meta["observation"] == {
        "layout_version": engine.LAYOUT.version,
        "size": engine.LAYOUT.size,
    }
    assert meta["num_actions"] == engine.NUM_ACTIONS
    assert meta["network"] == {"architecture": "mlp", "hidden": [64, 32], "activation": activation}
    assert meta["options"] == {"num_players": players} and meta["training"] == {"steps": 0}
    with np.load(stem.with_suffix(".npz"), allow_pickle=False) as data:
        assert sorted(data.files) == sorted(
            f"layer_{i}.{p}" for i in range(3) for p in ("weight", "bias")
        )


@pytest.mark.parametrize(("game", "players", "activation"), CASES)
def test_numpy_and_sb3_give_the_same_actions(checkpoints, game, players, activation):
    numpy_agent = CheckpointAgent.load(checkpoints[game], game=game)
    sb3_agent = SB3Agent.load(checkpoints[game])
    batch = random_observations(game, players, 200)
    numpy_actions = [numpy_agent.act(o, None) for o in batch]
    assert numpy_actions == [sb3_agent.act(o, None) for o in batch]
    assert all(o["action_mask"][a] for o, a in zip(batch, numpy_actions, strict=True))
    # the batched forward pass agrees with the one-at-a-time one
    stacked = numpy_agent.policy.predict(
        np.stack([o["observation"] for o in batch]), np.stack([o["action_mask"] for o in batch])
    )
    assert stacked.tolist() == numpy_actions


def test_sampling_is_seeded_and_legal(checkpoints):
    batch = random_observations("heisse-karten", [3], 100, seed=1)
    runs = [
        [
            CheckpointAgent.load(checkpoints["heisse-karten"], sample=True, seed=5).act(o, None)
            for o in batch
        ]
        for _ in range(2)
    ]
    assert runs[0] == runs[1]
    assert all(o["action_mask"][a] for o, a in zip(batch, runs[0], strict=True))


def test_any_of_the_three_files_names_the_checkpoint_and_make_agent_loads_it(checkpoints):
    from hot_envs.agents import make_agent

    stem = checkpoints["heisse-luft"]
    batch = random_observations("heisse-luft", None, 20)
    expected = [CheckpointAgent.load(stem).act(o, None) for o in batch]
    for path in (stem.with_suffix(".npz"), stem.with_suffix(".json"), str(stem) + ".zip"):
        assert [CheckpointAgent.load(path).act(o, None) for o in batch] == expected
    agent = make_agent(str(stem.with_suffix(".npz")), "heisse-luft", seed=0)
    assert [agent.act(o, None) for o in batch] == expected


# ------------------------------------------------------------------ bad files


@pytest.fixture
def copy(checkpoints, tmp_path):
    """A fresh copy of the Heiße Luft checkpoint to damage."""
    stem = tmp_path / "copy"
    for suffix in (".zip", ".npz", ".json"):
        shutil.copyfile(checkpoints["heisse-luft"].with_suffix(suffix), stem.with_suffix(suffix))
    return stem


def _edit_json(stem: Path, **changes) -> None:
    meta = json.loads(stem.with_suffix(".json").read_text())
    meta.update(changes)
    stem.with_suffix(".json").write_text(json.dumps(meta))


def test_missing_files(copy):
    with pytest.raises(FileNotFoundError, match=r"nowhere.* not found.*nowhere\.json"):
        CheckpointAgent.load(copy.parent / "nowhere")
    copy.with_suffix(".npz").unlink()
    with pytest.raises(FileNotFoundError, match=r"copy\.npz not found"):
        CheckpointAgent.load(copy)
    copy.with_suffix(".zip").unlink()
    with pytest.raises(FileNotFoundError, match=r"copy\.zip not found"):
        SB3Agent.load(copy)


@pytest.mark.parametrize(
    "content",
    [b"", b"not a zip file at all", b"PK\x03\x04 truncated"],
    ids=["empty", "text", "zip"],
)
def test_corrupt_npz(copy, content):
    copy.with_suffix(".npz").write_bytes(content)
    with pytest.raises(ValueError, match="corrupt"):
        CheckpointAgent.load(copy)


def test_pickled_or_misshapen_arrays_are_refused(copy):
    np.savez(copy.with_suffix(".npz"), **{"layer_0.weight": np.array([{"a": 1}], dtype=object)})
    with pytest.raises(ValueError, match="corrupt"):
        CheckpointAgent.load(copy)
    np.savez(
        copy.with_suffix(".npz"),
        **{"layer_0.weight": np.zeros((4, 3)), "layer_0.bias": np.zeros(4)},
    )
    with pytest.raises(ValueError, match="misshapen"):
        CheckpointAgent.load(copy)


def test_corrupt_zip(copy):
    copy.with_suffix(".zip").write_bytes(b"garbage")
    with pytest.raises(ValueError, match="corrupt"):
        SB3Agent.load(copy)


def test_corrupt_or_foreign_json(copy):
    copy.with_suffix(".json").write_text("{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        CheckpointAgent.load(copy)
    copy.with_suffix(".json").write_text('{"hello": 1}')
    with pytest.raises(ValueError, match="not a hot_envs checkpoint"):
        CheckpointAgent.load(copy)


def test_a_checkpoint_for_the_other_game(copy):
    with pytest.raises(ValueError, match="is for heisse-luft, not heisse-karten"):
        CheckpointAgent.load(copy, game="heisse-karten")
    with pytest.raises(ValueError, match="is for heisse-luft, not heisse-karten"):
        SB3Agent.load(copy, game="heisse_karten_v0")


def test_a_json_of_the_other_game_next_to_these_weights(copy, checkpoints):
    shutil.copyfile(checkpoints["heisse-karten"].with_suffix(".json"), copy.with_suffix(".json"))
    with pytest.raises(ValueError, match="misshapen|do not form"):
        CheckpointAgent.load(copy)


@pytest.mark.parametrize(
    "observation",
    [{"layout_version": 0, "size": 644}, {"layout_version": 1, "size": 600}, "644"],
)
def test_another_observation_layout(copy, observation):
    _edit_json(copy, observation=observation)
    with pytest.raises(ValueError, match="observation layout"):
        CheckpointAgent.load(copy)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"num_actions": 48}, "48 actions"),
        ({"network": {"hidden": [64, 32], "activation": "gelu"}}, "activation"),
        ({"format_version": 99}, "format version"),
        ({"game": "skat"}, "unknown game"),
    ],
)
def test_other_metadata_mismatches(copy, changes, message):
    _edit_json(copy, **changes)
    with pytest.raises(ValueError, match=message):
        read_metadata(copy)

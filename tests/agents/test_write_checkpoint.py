"""hot_envs.agents.checkpoint.write_checkpoint: the one writer of checkpoint files, which both
training backends' exports use; what it writes loads and plays with numpy alone."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from hot_envs.agents.checkpoint import CheckpointAgent, mlp_arrays, read_metadata, write_checkpoint
from hot_envs.core.games import get_game
from hot_envs.evaluation.arena import play_match


def random_mlp(game: str, hidden: list[int], seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    engine = get_game(game).engine
    sizes = [engine.LAYOUT.size, *hidden, engine.NUM_ACTIONS]
    rng = np.random.default_rng(seed)
    return [
        (rng.normal(size=(out, inp)).astype(np.float32), rng.normal(size=out).astype(np.float32))
        for inp, out in itertools.pairwise(sizes)
    ]


@pytest.mark.parametrize("game", ["heisse-luft", "heisse-karten"])
def test_a_written_checkpoint_loads_and_plays_what_its_layers_compute(game, tmp_path):
    layers = random_mlp(game, [16, 8])
    network = {"architecture": "mlp", "hidden": [16, 8], "activation": "tanh"}
    stem = write_checkpoint(
        tmp_path / "mine", game, mlp_arrays(layers), network, {"training": {"steps": 7}}
    )
    meta = read_metadata(stem, game)
    assert meta["network"] == network and meta["training"] == {"steps": 7}
    assert meta["options"] == "any" and meta["files"] == {"npz": "mine.npz", "json": "mine.json"}
    assert not (tmp_path / "mine.zip").exists()
    agent = CheckpointAgent.load(stem, game=game)
    observation = np.random.default_rng(1).random(get_game(game).engine.LAYOUT.size)
    x = observation.astype(np.float32)
    for weight, bias in layers[:-1]:
        x = np.tanh(weight @ x + bias)
    expected = layers[-1][0] @ x + layers[-1][1]
    legal = np.arange(get_game(game).engine.NUM_ACTIONS)
    assert np.allclose(agent.policy.legal_logits(observation, legal), expected, atol=1e-4)
    assert play_match(game, [str(stem) + ".npz", "random"], 2, workers=1, progress=False)


def test_a_model_file_comes_first_and_a_failing_writer_leaves_no_checkpoint(tmp_path):
    layers = random_mlp("heisse-luft", [4])
    network = {"architecture": "mlp", "hidden": [4], "activation": "relu"}
    stem = write_checkpoint(
        tmp_path / "a", "heisse-luft", mlp_arrays(layers), network, model=lambda f: f.write(b"z")
    )
    assert (tmp_path / "a.zip").read_bytes() == b"z"
    assert json.loads(stem.with_suffix(".json").read_text())["files"]["zip"] == "a.zip"

    def broken(_file):
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        write_checkpoint(tmp_path / "b", "heisse-luft", mlp_arrays(layers), network, model=broken)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "a.npz", "a.zip"]


def test_an_unknown_game_writes_nothing(tmp_path):
    with pytest.raises(ValueError):
        write_checkpoint(tmp_path / "x", "chess", {}, {"hidden": [], "activation": "tanh"})
    assert not list(tmp_path.iterdir())

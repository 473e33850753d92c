"""``python -m hot_envs.training.ensemble``: checkpoints of different widths compiled into one —
its .npz and its .zip play the same moves, its logits are the weighted mean of the members',
its critic the mean of theirs; the JSON names the members; bad input is refused and writes
nothing."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import torch  # noqa: E402

from hot_envs.agents.checkpoint import CheckpointAgent, read_metadata  # noqa: E402
from hot_envs.training import anchor  # noqa: E402
from hot_envs.training.ensemble import main  # noqa: E402
from hot_envs.training.export import SB3Agent, load_scorer_model  # noqa: E402
from tests.agents.helpers import decisions  # noqa: E402

GAME = "heisse-karten"


@pytest.fixture(scope="module")
def members(tmp_path_factory):
    """The shipped policy and a wider variant of it (an anchor compiled in at every size)."""
    folder = tmp_path_factory.mktemp("members")
    anchor.main(["heisse_karten_v0", "--weight", "all=3", "--out", str(folder / "wide")])
    return ["heisse_karten_v0", str(folder / "wide")]


def test_the_ensemble_plays_the_weighted_mean_of_its_members(members, tmp_path, capsys):
    out = tmp_path / "e"
    assert main([*members, "--weights", "3,1", "--out", str(out)]) == 0
    assert "wrote" in capsys.readouterr().out
    meta = read_metadata(out)
    assert meta["training"]["ensemble"]["members"] == members
    assert meta["training"]["ensemble"]["weights"] == [0.75, 0.25]
    assert meta["training"]["previous"] == [read_metadata(m)["training"] for m in members]
    widths = [read_metadata(m)["network"]["scorer"] for m in members]
    assert meta["network"]["scorer"] == [sum(w) for w in zip(*widths, strict=True)]

    ensemble = CheckpointAgent.load(out, game=GAME)
    sb3_agent = SB3Agent.load(out, game=GAME)
    alone = [CheckpointAgent.load(m, game=GAME) for m in members]
    for observation, view, legal in decisions(GAME, 300, seed=4):
        want = sum(
            share * agent.legal_logits(observation, view, legal)
            for share, agent in zip((0.75, 0.25), alone, strict=True)
        )
        got = ensemble.legal_logits(observation, view, legal)
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
        assert ensemble.act(observation, view) == sb3_agent.act(observation, view)

    # the critic: the members' values, weighted alike
    model, _ = load_scorer_model(out, "the test")
    parts = [load_scorer_model(m, "the test")[0] for m in members]
    x = torch.from_numpy(
        np.random.default_rng(0).random((5, *model.observation_space.shape), dtype=np.float32)
    )
    with torch.no_grad():
        values = [m.policy.value_net(m.policy.mlp_extractor.forward_critic(x)) for m in parts]
        got = model.policy.value_net(model.policy.mlp_extractor.forward_critic(x))
    torch.testing.assert_close(got, 0.75 * values[0] + 0.25 * values[1], rtol=1e-4, atol=1e-4)


def test_bad_input_is_refused_and_writes_nothing(members, tmp_path):
    out = str(tmp_path / "e")
    with pytest.raises(SystemExit):
        main(["heisse_karten_v0", "--out", out])  # one member
    with pytest.raises(SystemExit):
        main([*members, "--weights", "1,x", "--out", out])
    with pytest.raises(ValueError, match="2 members need 2 weights"):
        main([*members, "--weights", "1,1,1", "--out", out])
    with pytest.raises(ValueError, match="different games"):
        main(["heisse_karten_v0", "heisse_luft_v0", "--out", out])
    with pytest.raises(FileNotFoundError, match="zip"):  # earlier policies ship no .zip
        main(["heisse_karten_v0", "heisse_karten_v0_2026_12_04", "--out", out])
    assert not list(tmp_path.iterdir())

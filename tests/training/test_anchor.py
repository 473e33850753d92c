"""``python -m hot_envs.training.anchor``: a checkpoint with an anchor compiled in — its .npz and
its .zip play the same moves, it plays as its source at the table sizes without a weight and
follows the heuristic more at those with one; the JSON records the weights; bad input is
refused and writes nothing."""

from __future__ import annotations

import pytest

pytest.importorskip("sb3_contrib")

from hot_envs.agents.checkpoint import CheckpointAgent, read_metadata  # noqa: E402
from hot_envs.agents.features import HK_ANCHOR, action_features  # noqa: E402
from hot_envs.training.anchor import main  # noqa: E402
from hot_envs.training.export import SB3Agent  # noqa: E402
from tests.agents.helpers import decisions  # noqa: E402

GAME = "heisse-karten"


def test_the_anchored_checkpoint_plays_as_its_source_except_where_weighted(tmp_path, capsys):
    assert main(["heisse_karten_v0", "--weight", "6=50", "--out", str(tmp_path / "a")]) == 0
    assert "wrote" in capsys.readouterr().out
    meta = read_metadata(tmp_path / "a")
    assert meta["training"]["anchor"]["weights"] == {"6": 50.0}
    assert meta["training"]["previous"] == read_metadata("heisse_karten_v0")["training"]
    first, second = read_metadata("heisse_karten_v0")["network"]["scorer"]
    assert meta["network"]["scorer"] == [first + 2, second + 1]  # the term and its gate, tanh
    source = CheckpointAgent.load("heisse_karten_v0", game=GAME)
    numpy_agent = CheckpointAgent.load(tmp_path / "a", game=GAME)
    sb3_agent = SB3Agent.load(tmp_path / "a", game=GAME)
    changed = {2: 0, 6: 0}
    best = {"anchored": 0, "source": 0}  # six-player moves the heuristic scores best
    batch = [d for d in decisions(GAME, 1200) if d[1]["num_players"] in changed]
    for observation, view, legal in batch:
        action = numpy_agent.act(observation, view)
        assert action == sb3_agent.act(observation, view)
        own = source.act(observation, view)
        changed[view["num_players"]] += action != own
        if view["num_players"] == 6:
            gap = action_features(GAME, view, legal.tolist())[:, HK_ANCHOR.gap]
            best["anchored"] += gap[legal.tolist().index(action)] == 0
            best["source"] += gap[legal.tolist().index(own)] == 0
    sixes = sum(d[1]["num_players"] == 6 for d in batch)
    assert changed[2] == 0 and changed[6] > 10
    assert best["anchored"] >= 0.9 * sixes > best["source"] + 10


def test_bad_input_is_refused_and_writes_nothing(tmp_path):
    with pytest.raises(SystemExit):
        main(["heisse_karten_v0", "--weight", "six=5", "--out", str(tmp_path / "a")])
    with pytest.raises(ValueError, match="no table of 7 players"):
        main(["heisse_karten_v0", "--weight", "7=5", "--out", str(tmp_path / "a")])
    with pytest.raises(FileNotFoundError, match="zip"):  # earlier policies ship no .zip
        main(["heisse_karten_v0_2026_11_30", "--weight", "all=1", "--out", str(tmp_path / "a")])
    assert not list(tmp_path.iterdir())


def test_following_leaves_every_lead_as_it_was(tmp_path):
    out = tmp_path / "f"
    assert main(["heisse_karten_v0", "--weight", "all=50", "--following", "--out", str(out)]) == 0
    assert read_metadata(out)["training"]["anchor"]["where"] == "following a trick"
    source = CheckpointAgent.load("heisse_karten_v0", game=GAME)
    anchored = CheckpointAgent.load(out, game=GAME)
    changed = {"lead": 0, "follow": 0}
    for observation, view, _ in decisions(GAME, 800, seed=3):
        key = "follow" if view["trick"] else "lead"
        changed[key] += anchored.act(observation, view) != source.act(observation, view)
    assert changed["lead"] == 0 and changed["follow"] > 10

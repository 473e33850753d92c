"""examples/learning_curve.py, the tutorial's program (docs/tutorial.md): in its short form the
win rate rises above its start, and a run that cannot learn says so in its log."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from hot_envs.agents.checkpoint import CheckpointAgent
from hot_envs.evaluation.arena import play_match

pytest.importorskip("sb3_contrib")
torch = pytest.importorskip("torch")

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "learning_curve.py"


@pytest.fixture(scope="module")
def learning_curve():
    spec = importlib.util.spec_from_file_location("learning_curve", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    threads = torch.get_num_threads()
    yield module
    torch.set_num_threads(threads)  # main() runs torch on one thread


def point(steps: int, wins: int, games: int = 200) -> dict:
    from hot_envs.evaluation.arena import wilson_interval

    low, high = wilson_interval(wins, games)
    share = wins / games
    return {"steps": steps, "games": games, "wins": wins, "win_share": share, "ci_low": low,
            "ci_high": high}  # fmt: skip


@pytest.mark.slow
def test_the_short_form_wins_more_than_at_its_start(learning_curve, tmp_path, capsys):
    # 4,096 steps: 52.5 % (45.6-59.3) -> 83.8 % (78.0-88.2) on these deals; 2,048 steps reached
    # 63.5 % (56.6-69.9), inside reach of the start's interval
    argv = ["--game", "heisse-karten", "--steps", "4096", "--rollout", "512"]
    argv += ["--eval-every", "4096", "--eval-games", "200", "--out", str(tmp_path)]
    run = learning_curve.main(argv)
    start, end = run["curve"][0], run["curve"][-1]
    assert start["steps"] == 0 and end["steps"] == 4096
    assert end["ci_low"] > start["ci_high"], (start, end)  # above the start, beyond the interval
    assert not run["warnings"] and "WARNING" not in capsys.readouterr().out
    assert json.loads((tmp_path / "curve.json").read_text()) == run["curve"]
    assert (tmp_path / "curve.png").read_bytes().startswith(b"\x89PNG")
    # the policy saved is the one measured last: an agent spec like a shipped policy's
    agent = CheckpointAgent.load(tmp_path / "policy", sample=True, seed=0)
    again = play_match("heisse-karten", [agent, "random"], games=200, seed=0, progress=False)
    assert again.summary()[0]["win_share"] == end["win_share"]


def test_a_policy_that_never_wins_is_told_so(learning_curve, capsys):
    """The MLP against the heuristic wins no game: the log says so, at once."""
    model = learning_curve.make_model("heisse-karten", "heuristic", "mlp", seed=0, rollout=64)
    curve, warnings = learning_curve.learn(
        model, "heisse-karten", "heuristic", steps=0, every=64, games=20, patience=3, seed=0
    )
    out = capsys.readouterr().out
    assert curve[0]["win_share"] == 0 and warnings
    assert "WARNING: won 0 of 20 games against heuristic at 0 steps" in out


def test_a_flat_curve_is_told_so_after_its_patience(learning_curve):
    warning = learning_curve.warning
    flat = [point(0, 96), point(4096, 100), point(8192, 104)]
    assert warning(flat[:2], "random", patience=2) is None  # too early to tell
    message = warning(flat, "random", patience=2)
    assert message.startswith("WARNING: after 2 evaluations (8,192 steps) the win rate 52.0%")
    assert warning([point(0, 96), point(4096, 140)], "random", patience=1) is None  # it rose
    assert warning([point(0, 96), point(4096, 0)], "random", patience=9).startswith(
        "WARNING: won 0 of 200 games against random at 4,096 steps"
    )

"""``benchmarks/strength.py --checkpoint``: a checkpoint alone against N − 1 copies of each
opponent, with the targets next to the win shares, written as md/json/csv/png; an interrupted
run resumes from the deals kept in ``results/partial``, which stay for later runs."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import shutil
import sys
from pathlib import Path

import pytest

from hot_envs.evaluation import arena

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def strength():
    path = ROOT / "benchmarks" / "strength.py"
    spec = importlib.util.spec_from_file_location("benchmarks_strength", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def checkpoint(tmp_path) -> Path:
    """A copy of the shipped Heiße Karten checkpoint under another name."""
    for suffix in (".json", ".npz"):
        source = ROOT / "checkpoints" / f"heisse_karten_v0{suffix}"
        shutil.copy(source, tmp_path / f"mine{suffix}")
    return tmp_path / "mine"


def test_checkpoint_rows_targets_and_files(strength, checkpoint, tmp_path):
    out = tmp_path / "results"
    argv = ["--checkpoint", str(checkpoint), "--opponents", "random", "heuristic"]
    strength.main(
        [*argv, "--games", "6", "--players", "2", "3", "--workers", "1", "--out", str(out)]
    )
    report = json.loads((out / "strength_ckpt_mine.json").read_text())
    rows = [(r["players"], r["against"], r["games"], r["target"]) for r in report["rows"]]
    assert rows == [(2, "random", 6, None), (2, "heuristic", 6, 0.6), (3, "random", 6, None)] + [
        (3, "heuristic", 6, pytest.approx(1.2 / 3))
    ]
    assert all(0 <= r["ci_low"] <= r["win_share"] <= r["ci_high"] <= 1 for r in report["rows"])
    assert all(r["even_share"] == 1 / r["players"] for r in report["rows"])
    assert all((out / f"strength_ckpt_mine.{ext}").is_file() for ext in ("csv", "png"))
    markdown = (out / "strength_ckpt.md").read_text()
    assert "| mine | heisse-karten | 3 | 2 × heuristic | 6 |" in markdown
    assert not (out / "strength.md").exists()  # no round robin without --tables
    # every lineup's deals are kept for later runs, under the code's digest
    kept = sorted(p.name for p in (out / "partial").iterdir())
    assert len(kept) == 4 and all(
        name.endswith(f"_{strength.code_digest()}.jsonl") for name in kept
    )


def test_an_interrupted_run_plays_only_the_deals_it_had_not_finished(
    strength, checkpoint, tmp_path, monkeypatch
):
    out = tmp_path / "results"
    argv = ["--checkpoint", str(checkpoint), "--opponents", "random", "--games", "6"]
    argv += ["--players", "2", "--workers", "1", "--out", str(out)]
    # an "interrupted" run kept deal 0 (the random agent won both games), a cut-off line and
    # half of deal 2
    (out / "partial").mkdir(parents=True)
    digest = hashlib.sha1(checkpoint.with_suffix(".npz").read_bytes()).hexdigest()[:10]
    games = [
        {"matchup": 0, "index": i, "seats": [i % 2, 1 - i % 2],
         "returns": [-1.0, 1.0] if i % 2 == 0 else [1.0, -1.0],
         "length": 10, "seconds": [0.0, 0.0], "decisions": [5, 5]}
        for i in (0, 1, 4)
    ]  # fmt: skip
    lines = [json.dumps(game) for game in games]
    code = strength.code_digest()
    name = strength.slug(f"ckpt-mine-{digest}-2p_{checkpoint}_random_0_{code}.jsonl")
    (out / "partial" / name).write_text("\n".join([*lines[:2], lines[2][:20], lines[2]]) + "\n")
    played = []
    play_batches, play_group = arena.play_batches, arena.play_group

    def record(tasks, *rest):  # the deals played: each task's group
        played.extend(task[3] for task in tasks)
        return play_batches(tasks, *rest)

    monkeypatch.setattr(arena, "play_batches", record)
    strength.main(argv)
    assert sorted(played) == [1, 2]  # deal 0 was kept; deal 2 was incomplete
    row = json.loads((out / "strength_ckpt_mine.json").read_text())["rows"][0]
    # the kept deal counts as kept (two losses), the others as played
    replayed = [
        r
        for deal in (1, 2)
        for r in play_group(
            "heisse-karten", [str(checkpoint), "random"], 0, deal, 0, {"num_players": 2}
        )
    ]
    wins = sum(r.returns[r.seats.index(0)] > r.returns[r.seats.index(1)] for r in replayed)
    assert row["games"] == 6 and row["win_share"] == pytest.approx(wins / 6)
    kept = strength.read_partial(out / "partial" / name, 2)  # now all three deals are kept
    assert sorted(kept) == [0, 1, 2] and sum(map(len, kept.values())) == 6


def test_a_missing_checkpoint_is_a_clear_error(strength, tmp_path, capsys):
    with pytest.raises(SystemExit):
        strength.main(["--checkpoint", str(tmp_path / "nothing"), "--out", str(tmp_path)])
    assert "not found" in capsys.readouterr().err


def test_precision_stops_a_lineup_once_its_interval_is_narrow_enough(
    strength, checkpoint, tmp_path
):
    out = tmp_path / "results"
    argv = ["--checkpoint", str(checkpoint), "--opponents", "random", "--games", "40"]
    argv += ["--players", "2", "--workers", "1", "--out", str(out)]
    strength.main([*argv, "--precision", "0.45"])  # checked every tenth of the 40 games
    report = json.loads((out / "strength_ckpt_mine.json").read_text())
    assert report["rows"][0]["games"] == 4  # ±0.25 at most after 4 games: it stops there
    assert report["command"].endswith("--precision 0.45 --players 2")
    shutil.rmtree(out / "partial")
    strength.main(argv)  # without it: all 40
    assert json.loads((out / "strength_ckpt_mine.json").read_text())["rows"][0]["games"] == 40

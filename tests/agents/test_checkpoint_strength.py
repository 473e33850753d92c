"""``benchmarks/strength.py --checkpoint``: a checkpoint alone against N − 1 copies of each
opponent, with the targets next to the win shares, written as md/json/csv/png; an interrupted
run resumes from ``results/partial`` and a finished one leaves other tables' lineups alone."""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path

import pytest

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
    (out / "partial").mkdir(parents=True)
    (out / "partial" / "hk2_random_heuristic_2000_0.json").write_text("[]")  # another run's
    argv = ["--checkpoint", str(checkpoint), "--opponents", "random", "heuristic"]
    strength.main(
        [*argv, "--games", "6", "--players", "2", "3", "--workers", "1", "--out", str(out)]
    )
    report = json.loads((out / "strength_ckpt_mine.json").read_text())
    rows = [(r["players"], r["against"], r["games"], r["target"]) for r in report["rows"]]
    assert rows == [(2, "random", 6, None), (2, "heuristic", 6, 0.6), (3, "random", 6, None)] + [
        (3, "heuristic", 6, pytest.approx(0.5))
    ]
    assert all(0 <= r["ci_low"] <= r["win_share"] <= r["ci_high"] <= 1 for r in report["rows"])
    assert all(r["even_share"] == 1 / r["players"] for r in report["rows"])
    assert all((out / f"strength_ckpt_mine.{ext}").is_file() for ext in ("csv", "png"))
    markdown = (out / "strength_ckpt.md").read_text()
    assert "| mine | heisse-karten | 3 | 2 × heuristic | 6 |" in markdown
    assert not (out / "strength.md").exists()  # no round robin without --tables
    # the finished checkpoint's lineups are gone, another table's are kept
    assert [p.name for p in (out / "partial").iterdir()] == ["hk2_random_heuristic_2000_0.json"]


def test_an_interrupted_run_resumes_from_its_finished_lineups(strength, checkpoint, tmp_path):
    out = tmp_path / "results"
    argv = ["--checkpoint", str(checkpoint), "--opponents", "random", "--games", "4"]
    argv += ["--players", "2", "--workers", "1", "--out", str(out)]
    strength.main(argv)
    first = json.loads((out / "strength_ckpt_mine.json").read_text())["rows"][0]
    # a lineup kept from an "interrupted" run (the random agent won all) is read, not replayed
    (out / "partial").mkdir()
    digest = json.loads((out / "strength_ckpt_mine.json").read_text())["npz_sha1"]
    games = [
        {"matchup": 0, "index": i, "seats": [i % 2, 1 - i % 2],
         "returns": [-1.0, 1.0] if i % 2 == 0 else [1.0, -1.0],
         "length": 10, "seconds": [0.0, 0.0], "decisions": [5, 5]}
        for i in range(4)
    ]  # fmt: skip
    name = strength.slug(f"ckpt-mine-{digest}-2p_{checkpoint}_random_4_0.json")
    (out / "partial" / name).write_text(json.dumps(games))
    strength.main(argv)
    resumed = json.loads((out / "strength_ckpt_mine.json").read_text())["rows"][0]
    assert first["win_share"] > 0 and resumed["win_share"] == 0
    assert not (out / "partial").exists()


def test_a_missing_checkpoint_is_a_clear_error(strength, tmp_path, capsys):
    with pytest.raises(SystemExit):
        strength.main(["--checkpoint", str(tmp_path / "nothing"), "--out", str(tmp_path)])
    assert "not found" in capsys.readouterr().err

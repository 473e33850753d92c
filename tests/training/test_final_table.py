"""The main job's final table (hot_envs.training.evaluate.compare / format_comparison): start and
final on the same deals, and their lowest share against the held-out pool."""

from __future__ import annotations

import numpy as np

from hot_envs.agents.checkpoint import mlp_arrays, write_checkpoint
from hot_envs.core.games import get_game
from hot_envs.training.evaluate import compare, format_comparison


def random_checkpoint(path, seed):
    engine = get_game("heisse-luft").engine
    rng = np.random.default_rng(seed)
    layers = [
        (rng.normal(size=(8, engine.LAYOUT.size)), rng.normal(size=8)),
        (rng.normal(size=(engine.NUM_ACTIONS, 8)), rng.normal(size=engine.NUM_ACTIONS)),
    ]
    network = {"architecture": "mlp", "hidden": [8], "activation": "tanh"}
    return write_checkpoint(path, "heisse-luft", mlp_arrays(layers), network)


def test_held_out_opponents_get_rows_and_a_minimum_line(tmp_path):
    start, final = (
        random_checkpoint(tmp_path / "start", 0),
        random_checkpoint(tmp_path / "final", 1),
    )
    held_out = {"beginner": 4, "trophy-rusher": 4}
    rows = compare(start, final, "heisse-luft", {"random": 4}, 4, [2], held_out=held_out)
    keys = {(r["checkpoint"], r["opponent"], r["held_out"]) for r in rows}
    assert keys == {
        *((c, "random", False) for c in ("start", "final")),
        *((c, o, True) for c in ("start", "final") for o in held_out),
        ("final", "start", False),
    }
    table = format_comparison(rows)
    line = next(line for line in table.splitlines() if line.startswith("held-out min"))
    for column, name in ((0, "start"), (1, "final")):
        worst = min(
            (r for r in rows if r["held_out"] and r["checkpoint"] == name),
            key=lambda r: r["win_share"],
        )
        assert line.split("%")[column].split()[-1] == f"{100 * worst['win_share']:.1f}"


def test_without_held_out_opponents_there_is_no_minimum_line(tmp_path):
    start, final = (
        random_checkpoint(tmp_path / "start", 0),
        random_checkpoint(tmp_path / "final", 1),
    )
    rows = compare(start, final, "heisse-luft", {"random": 2}, 2, [2])
    assert "held-out" not in format_comparison(rows)
    assert not any(r["held_out"] for r in rows if r["opponent"] != "start")


def test_columns_line_up_whatever_the_opponents_names():
    rows = [
        {
            "checkpoint": checkpoint,
            "opponent": opponent,
            "players": 2,
            "games": 100,
            "win_share": 0.5,
            "ci_low": 0.4,
            "ci_high": 0.6,
            "held_out": opponent != "heuristic",
        }
        for checkpoint in ("start", "final")
        for opponent in ("heuristic", "heisse_luft_v0_2026_11_30", "beginner")
    ]
    lines = format_comparison(rows).splitlines()[1:]
    header, body = lines[0], [line for line in lines[2:]]
    for column in ("players", "games"):
        end = header.index(column) + len(column)  # right-aligned under their headers
        assert all(line[end - 1].isdigit() for line in body if not line.startswith("held-out"))
    start = header.index("start:")
    assert all(line[start:].lstrip()[0].isdigit() for line in body)

"""The opponent suite (hot_envs.agents.suite) and the gauntlet (hot_envs.evaluation.gauntlet,
hot-envs gauntlet): pools, the report's structure and interval math, the same deals for every
opponent, resuming, the CLI's files and clear errors — on a few small games."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

import hot_envs.evaluation.gauntlet as gauntlet_module
from hot_envs.agents import make_agent
from hot_envs.agents.suite import HELD_OUT, POOLS, TRAINING, held_out_pool, suite, training_pool
from hot_envs.cli import main
from hot_envs.evaluation.arena import wilson_interval
from hot_envs.evaluation.gauntlet import gauntlet

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

CONFIGS = sorted((Path(__file__).resolve().parents[2] / "training" / "configs").glob("*.toml"))
OPPONENTS = ["low-dumper", "trick-avoider"]  # one training, one held-out: fast styles


@pytest.mark.parametrize("game", ["heisse-luft", "heisse-karten"])
def test_each_game_has_eight_or_more_opponents_in_two_disjoint_pools(game: str) -> None:
    entries = suite(game)
    assert len(entries) >= 8
    assert {o.pool for o in entries} == set(POOLS)
    assert not set(training_pool(game)) & set(held_out_pool(game))
    assert len({o.spec for o in entries}) == len(entries)
    for opponent in entries:
        assert opponent.style
        make_agent(opponent.spec, game, seed=0)  # every spec builds for its game
    assert "heuristic" in training_pool(game)  # the teacher of every config


def test_the_evaluation_guide_lists_each_suite_opponent_in_its_pool() -> None:
    guide = (Path(__file__).resolve().parents[2] / "docs" / "evaluation.md").read_text()
    listed = {}  # spec -> pools, from the guide's suite tables
    for spec, pool in re.findall(r"^\| `([^`]+)` \| (training|held-out) \|", guide, re.M):
        listed.setdefault(spec, set()).add(pool)
    for game in ("heisse-luft", "heisse-karten"):
        for opponent in suite(game):
            assert opponent.pool in listed.get(opponent.spec, set()), opponent.spec


def _opponents_and_teachers(config: object) -> set[str]:
    """Every spec a training config names as an opponent or a teacher (any key saying so)."""
    found: set[str] = set()
    if isinstance(config, dict):
        for key, value in config.items():
            if isinstance(value, str) and ("opponent" in key or "teacher" in key or key == "spec"):
                found.add(value)
            else:
                found |= _opponents_and_teachers(value)
    elif isinstance(config, list):
        for value in config:
            found |= _opponents_and_teachers(value)
    return found


def test_no_training_config_uses_a_held_out_opponent() -> None:
    assert CONFIGS
    held_out = set(held_out_pool("heisse-luft")) | set(held_out_pool("heisse-karten"))
    named = set()
    for path in CONFIGS:
        named |= _opponents_and_teachers(tomllib.loads(path.read_text()))
    assert "heuristic" in named and "search" in named  # the walk finds them
    assert not named & held_out, f"held-out specs in training configs: {named & held_out}"


def test_a_gauntlet_reports_every_opponent_beside_the_heuristic(tmp_path) -> None:
    result = gauntlet(
        "heisse-karten", "card-counter", players=[2, 3], games=4, out=tmp_path,
        opponents=OPPONENTS, progress=False,
    )  # fmt: skip
    assert result.players == [2, 3]
    assert [(r["players"], r["opponent"]) for r in result.rows] == [
        (n, o) for n in (2, 3) for o in OPPONENTS
    ]
    for row in result.rows:
        n = row["players"]
        assert row["games"] == row["heuristic_games"] == (4 if n == 2 else 6)  # whole rotations
        assert row["even"] == pytest.approx(1 / n)
        assert row["pool"] == (HELD_OUT if row["opponent"] == "trick-avoider" else TRAINING)
        low, high = wilson_interval(row["win_share"] * row["games"], row["games"])
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high))
        assert row["ci_low"] <= row["win_share"] <= row["ci_high"]
        assert row["heuristic_ci_low"] <= row["heuristic_share"] <= row["heuristic_ci_high"]
    for summary in result.summary:
        held = [r for r in result.rows if r["players"] == summary["players"]][1]
        assert summary["held_out_min"] == summary["held_out_mean"] == held["win_share"]
        assert summary["held_out_min_opponent"] == "trick-avoider"
        assert summary["heuristic_held_out_min"] == held["heuristic_share"]
    for n in (2, 3):
        rated = {r["agent"] for r in result.ratings[n]}
        assert rated == {"card-counter", "heuristic", *OPPONENTS}
    data = json.loads((tmp_path / "gauntlet.json").read_text())
    assert data == json.loads(json.dumps(result.to_dict()))
    csv_lines = (tmp_path / "gauntlet.csv").read_text().splitlines()
    assert csv_lines[0].startswith("players,opponent,pool,games,win_share,ci_low,ci_high,even")
    assert len(csv_lines) == 1 + len(result.rows)
    assert (tmp_path / "gauntlet.png").stat().st_size > 0
    assert "held-out min" in result.table()
    text = result.table()
    for n in (2, 3):  # each table size's ratings, under its rows, best ordinal first
        part = text.split(f"{n} players — card-counter")[1].split("players — ")[0]
        heading = next(i for i, line in enumerate(part.splitlines()) if "rating at" in line)
        rows = part.splitlines()[heading + 1 : heading + 1 + len(result.ratings[n])]
        best = sorted(result.ratings[n], key=lambda r: -r["ordinal"])
        assert [line.split()[0] for line in rows] == [r["agent"] for r in best]
        assert [float(line.split()[-1]) for line in rows] == [round(r["ordinal"], 2) for r in best]


def _kept(folder: Path) -> dict[str, list[dict]]:
    return {
        path.name: [json.loads(line) for line in path.read_text().splitlines()]
        for path in sorted((folder / "partial").glob("*.jsonl"))
    }


def test_every_opponent_and_both_lone_agents_meet_the_same_deals(tmp_path) -> None:
    gauntlet("heisse-karten", "low-dumper", games=6, out=tmp_path, opponents=OPPONENTS,
             progress=False)  # fmt: skip
    kept = _kept(tmp_path)
    assert len(kept) == 4  # (agent, heuristic) × two opponents
    deals = {name: [(g["index"], g["deal_seed"]) for g in games] for name, games in kept.items()}
    first = sorted(next(iter(deals.values())))
    assert len({seed for _, seed in first}) == 3  # three deals, each with the seats rotated
    assert all(sorted(d) == first for d in deals.values())


def test_a_second_run_plays_nothing_new_and_a_longer_one_only_the_new_deals(
    tmp_path, monkeypatch
) -> None:
    first = gauntlet("heisse-karten", "low-dumper", games=4, out=tmp_path, opponents=OPPONENTS,
                     progress=False)  # fmt: skip
    played = []
    real = gauntlet_module.play_tasks

    def counting(tasks, workers, on_group, bar=None):
        def seen(position, group):
            played.extend(group)
            on_group(position, group)

        real(tasks, workers, seen, bar)

    monkeypatch.setattr(gauntlet_module, "play_tasks", counting)
    again = gauntlet("heisse-karten", "low-dumper", games=4, out=tmp_path, opponents=OPPONENTS,
                     progress=False)  # fmt: skip
    assert played == []
    assert again.rows == first.rows
    longer = gauntlet("heisse-karten", "low-dumper", games=6, out=tmp_path, opponents=OPPONENTS,
                      progress=False)  # fmt: skip
    assert len(played) == 4 * 2  # one new deal (2 games) per lineup of the four
    assert {r.index for r in played} == {4, 5}
    assert all(row["games"] == 6 for row in longer.rows)


def test_the_heuristic_as_the_agent_is_played_once(tmp_path) -> None:
    result = gauntlet("heisse-karten", "heuristic", games=2, out=tmp_path,
                      opponents=["low-dumper"], progress=False)  # fmt: skip
    row = result.rows[0]
    assert row["win_share"] == row["heuristic_share"]
    assert len(_kept(tmp_path)) == 1
    assert result.summary[0]["held_out_min"] is None  # no held-out opponent was played
    assert "held-out min" not in result.table()


def test_the_command_line_writes_json_csv_and_png(tmp_path, capsys) -> None:
    out = tmp_path / "g"
    argv = ["gauntlet", "heisse-luft", "--agent", "heuristic:0.5", "--opponents", "beginner",
            "high-hoarder", "--games", "2", "--players", "all", "--out", str(out), "--workers",
            "1", "--quiet"]  # fmt: skip
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "beginner" in printed and "held-out min" in printed
    assert {"gauntlet.json", "gauntlet.csv", "gauntlet.png"} <= {p.name for p in out.iterdir()}
    assert json.loads((out / "gauntlet.json").read_text())["players"] == [2]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"game": "skat"}, "unknown game"),
        ({"agent": "nobody"}, "unknown agent spec"),
        ({"agent": "beginner"}, "Heiße Luft style"),
        ({"players": 7}, "2–6 players, not 7"),
        ({"players": "most"}, "table sizes or 'all'"),
        ({"players": []}, "at least one table size"),
        ({"games": 0}, "games must be a positive int"),
        ({"opponents": ["low-dumper", "low-dumper"]}, "distinct"),
        ({"opponents": ["trick-avoider:x"]}, "not a number"),
    ],
)
def test_bad_input_is_a_clear_error_and_writes_nothing(tmp_path, kwargs, message) -> None:
    arguments = {"game": "heisse-karten", "agent": "heuristic", "games": 2,
                 "out": tmp_path / "out", "progress": False, **kwargs}  # fmt: skip
    with pytest.raises(ValueError, match=message):
        gauntlet(**arguments)
    assert not (tmp_path / "out").exists()


def test_the_command_line_says_what_is_wrong(capsys) -> None:
    assert main(["gauntlet", "heisse-karten", "--agent", "heuristic", "--players", "x"]) == 2
    assert "--players" in capsys.readouterr().err

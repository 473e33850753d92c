"""The ``hot-envs`` commands, run in-process: demo, evaluate, play's options (the terminal game
itself: tests/play/test_terminal.py)."""

from __future__ import annotations

import json

import pytest

import hot_envs.cli.commands
from hot_envs.cli import main
from hot_envs.evaluation.report import COLUMNS, RATING, build_report, plot_report, print_report


def test_demo_still_works(capsys):
    assert main(["demo", "heisse-karten", "--players", "3", "--every", "50"]) == 0
    assert "rewards:" in capsys.readouterr().out


def test_evaluate_writes_the_report(tmp_path, capsys):
    argv = ["evaluate", "heisse-karten", "--agents", "random", "heuristic", "search:8"]
    argv += ["--games", "4", "--players", "2", "--workers", "1", "--quiet", "--out", str(tmp_path)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "win share" in out and "heuristic" in out
    report = json.loads((tmp_path / "results.json").read_text())
    assert report["agents"] == ["random", "heuristic", "search:8"]
    assert len(report["games"]) == 3 * 4
    assert (tmp_path / "results.png").stat().st_size > 0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["evaluate", "heisse-luft", "--agents", "random", "nonsense"], "unknown agent spec"),
        (["evaluate", "heisse-luft", "--agents", "random"], "at least two agents"),
        (["evaluate", "heisse-luft", "--agents", "random", "random", "--players", "3"], "2-player"),
        (["play", "heisse-karten", "--opponent", "nonsense"], "unknown agent spec"),
        (["play", "heisse-karten", "--players", "3", "--seat", "3"], "--seat"),
        (["play", "heisse-karten", "--players", "9"], "player"),
        (["play", "heisse-luft", "--players", "3"], "2-player"),
    ],
)
def test_bad_options_are_clear_errors(argv, message, capsys):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


EVALUATE = ["evaluate", "heisse-luft", "--agents", "random", "random"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["demo", "heisse-luft", "--seed", "-1"], "argument --seed: must be 0 or more, not -1"),
        (EVALUATE + ["--seed", "-1"], "argument --seed: must be 0 or more"),
        (EVALUATE + ["--seed", "x"], "argument --seed: must be an int, not 'x'"),
        (EVALUATE + ["--workers", "0"], "argument --workers: must be 1 or more, not 0"),
        (EVALUATE + ["--workers", "-1"], "argument --workers: must be 1 or more"),
        (EVALUATE + ["--games", "0"], "argument --games: must be 1 or more, not 0"),
        (["demo", "heisse-luft", "--every", "0"], "argument --every: must be 1 or more"),
        (["demo", "heisse-karten", "--every", "-1"], "argument --every: must be 1 or more"),
        (["play", "heisse-luft", "--seed", "-3"], "argument --seed: must be 0 or more"),
    ],
)
def test_numbers_out_of_range_name_their_option(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_demo_of_heisse_luft_for_three_is_a_clear_error(capsys):
    assert main(["demo", "heisse-luft", "--players", "3"]) == 2
    assert "Heiße Luft is a 2-player game, not 3" in capsys.readouterr().err


def test_a_missing_checkpoint_path_says_file_not_found(tmp_path, capsys):
    missing = str(tmp_path / "runs" / "final")
    assert main(["evaluate", "heisse-luft", "--agents", missing, "random"]) == 2
    assert f"checkpoint {missing!r} not found: no file" in capsys.readouterr().err


def test_out_is_checked_before_any_game_is_played(monkeypatch, tmp_path, capsys):
    played = []
    monkeypatch.setattr(hot_envs.cli.commands, "round_robin", lambda *a, **k: played.append(a))
    blocked = tmp_path / "a_file"
    blocked.write_text("")
    assert main(EVALUATE + ["--out", str(blocked / "results"), "--quiet"]) == 2
    assert "--out: cannot write results to" in capsys.readouterr().err
    assert played == []


def test_the_table_shows_microseconds_and_the_rating_the_plot_shows(monkeypatch, tmp_path, capsys):
    """time/move in µs for fast agents (not 0.0 ms); the rating column is μ ± σ, the quantity
    and the words of the PNG's bar chart."""
    from hot_envs.evaluation.arena import round_robin

    result = round_robin("heisse-luft", ["random", "random"], 2, workers=1, progress=False)
    report = build_report(result)
    print_report(report)
    out = capsys.readouterr().out
    assert " µs" in out and "time/move" in out
    row = report["summary"][0]
    assert RATING == "rating μ ± σ" and RATING in [header for header, _ in COLUMNS]
    assert f"{row['mu']:.2f} ± {row['sigma']:.2f}" in out
    assert row["ordinal"] == pytest.approx(row["mu"] - 3 * row["sigma"])
    axes = pytest.importorskip("matplotlib.axes")  # a submodule: import it by name
    titles = []
    set_title = axes.Axes.set_title
    monkeypatch.setattr(
        axes.Axes,
        "set_title",
        lambda ax, t, *a, **k: titles.append(t) or set_title(ax, t, *a, **k),
    )
    plot_report(report, tmp_path / "plot.png")
    assert any(title.startswith(RATING) for title in titles)


def test_an_error_of_the_work_keeps_its_traceback(monkeypatch, capsys):
    """A bad request is one line; an error raised while the games run is no request's fault and
    reaches the caller whole (the console script prints its traceback)."""

    def crash(*args, **kwargs):
        raise ValueError("Expected parameter logits to satisfy the constraint (nan)")

    monkeypatch.setattr(hot_envs.cli.commands, "round_robin", crash)
    with pytest.raises(ValueError, match="nan") as error:
        main(EVALUATE + ["--quiet"])
    assert error.type is ValueError  # not turned into a usage error
    assert "hot-envs: error" not in capsys.readouterr().err
    assert main(["evaluate", "heisse-luft", "--agents", "random", "nonsense"]) == 2  # a request


def test_bad_gauntlet_requests_are_one_line_before_any_game(monkeypatch, capsys):
    played = lambda *a, **k: pytest.fail("played")  # noqa: E731
    monkeypatch.setattr("hot_envs.evaluation.gauntlet.gauntlet", played)
    for argv, message in [
        (["--agent", "nonsense"], "unknown agent spec"),
        (["--agent", "random", "--opponents", "nonsense"], "unknown agent spec"),
        (["--agent", "random", "--players", "9"], "9"),
    ]:
        assert main(["gauntlet", "heisse-karten", *argv]) == 2
        assert message in capsys.readouterr().err


def test_another_package_can_add_a_training_backend(tmp_path, monkeypatch, capsys) -> None:
    """A package that names a main(argv) in the hot_envs.trainers entry points is a backend of
    `hot-envs train` (hot_envs.core.arguments.training_entry)."""
    info = tmp_path / "my_backend-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: my-backend\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[hot_envs.trainers]\nmine = my_backend:main\nbroken = my_backend_missing:main\n"
    )
    (tmp_path / "my_backend.py").write_text(
        "def main(argv):\n    print('trained', argv)\n    return 0\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["train", "--backend", "mine", "heisse-luft", "--steps", "5"]) == 0
    assert capsys.readouterr().out == "trained ['heisse-luft', '--steps', '5']\n"
    assert main(["train", "--backend", "broken", "heisse-luft"]) == 2
    assert "the broken backend does not import" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # a name no package adds
        main(["train", "--backend", "nobody", "heisse-luft"])

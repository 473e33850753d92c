"""``hot-envs replay`` and ``hot-envs watch`` (hot_envs.play.viewer), run in-process."""

from __future__ import annotations

import re

import pytest

from hot_envs.cli import main
from hot_envs.evaluation.records import read_records, replay
from hot_envs.play.viewer import replay_game, watch


def quiet(_: str) -> None:
    pass


@pytest.fixture(scope="module")
def games(tmp_path_factory) -> object:
    """A games.jsonl with one 2-player Heiße Karten game (24 tricks, 48 moves)."""
    out = tmp_path_factory.mktemp("watched")
    watch("heisse-karten", ["random", "heuristic"], seed=1, delay=0, out=out, write=quiet)
    return out / "games.jsonl"


def test_watch_shows_every_move_at_its_pace_and_keeps_the_record(tmp_path) -> None:
    shown, pauses = [], []
    record = watch(
        "heisse-luft", ["heuristic", "random"], seed=4, delay=0.25, out=tmp_path,
        write=shown.append, sleep=pauses.append,
    )  # fmt: skip
    moves = len(record["actions"])
    assert pauses == [0.25] * moves
    assert sum(line.startswith("\nP") for line in shown) == moves
    assert record["seats"] == ["heuristic", "random"] and record["deal_seed"] == 4
    assert read_records(tmp_path / "games.jsonl") == [record]
    assert replay(record)[-1].returns() == record["returns"]


def test_replay_prints_every_move_when_not_interactive(games, capsys) -> None:
    assert main(["replay", str(games)]) == 0  # pytest's stdin is not a terminal
    out = capsys.readouterr().out
    moves = re.findall(r"Move (\d+)/48: P[01] \((random|heuristic)\) play \d+", out)
    assert [int(k) for k, _ in moves] == list(range(1, 49))
    assert out.rstrip().splitlines()[-1].startswith("Returns: P0 random")


def test_replay_steps_forward_back_and_to_a_move(games) -> None:
    shown: list[str] = []
    answers = iter(["", "", "b", "47", "", "", "x", "q"])
    replay_game(games, interactive=True, read=lambda _: next(answers), write=shown.append)
    heads = [line.split(":")[0] for text in shown for line in text.splitlines()[1:2]]
    assert heads == [
        "Deal (seed 1), 48 moves to come",
        "Move 1/48",
        "Move 2/48",
        "Move 1/48",
        "Move 47/48",
        "Move 48/48",
        "Move 48/48",
        "Move 48/48",
    ]
    assert any("last move" in text for text in shown)
    assert any(text.startswith("Enter: next move") for text in shown[1:])


def test_replay_from_a_fixed_seat_shows_that_hand(games) -> None:
    shown: list[str] = []
    replay_game(games, seat=1, interactive=False, write=shown.append)
    assert all("Hand of player_1" in text for text in shown[1:-1])


def test_replay_writes_a_gif(games, tmp_path, capsys) -> None:
    pytest.importorskip("PIL", reason="animations need Pillow")
    from PIL import Image

    gif = tmp_path / "game.gif"
    assert main(["replay", str(games), "--gif", str(gif), "--seat", "0", "--fps", "8"]) == 0
    assert "49 frames" in capsys.readouterr().out
    with Image.open(gif) as image:
        assert image.n_frames == 49


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--game", "1"], "--game must be 0–0"),
        (["--seat", "2"], "--seat must be 0–1"),
        (["--gif", "x.png"], ".gif or .mp4"),
    ],
)
def test_bad_replay_options_are_clear_errors(games, argv, message, capsys) -> None:
    assert main(["replay", str(games), *argv]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["replay", "no_such_file.jsonl"], "no game records"),
        (["watch", "heisse-luft", "--agents", "random", "random", "random"], "2-player"),
        (["watch", "heisse-karten", "--agents", "random"], "a game for 2–6 players, not 1"),
        (["watch", "heisse-karten", "--agents", "random", "nonsense"], "unknown agent spec"),
        (["watch", "heisse-karten", "--agents", "random", "random", "--delay", "-1"], "--delay"),
    ],
)
def test_bad_commands_are_clear_errors(argv, message, capsys) -> None:
    assert main(argv) == 2
    assert message in capsys.readouterr().err

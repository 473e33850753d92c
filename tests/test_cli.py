"""The ``hot-envs`` commands, run in-process: demo, evaluate, play (driven by scripted input)."""

from __future__ import annotations

import io
import json

import pytest

from hot_envs.cli import MoveChooser, main, play


def scripted(lines):
    """An ``input`` replacement that answers ``lines`` in turn, then ends (EOF)."""
    answers = iter(lines)

    def read(prompt: str) -> str:
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None

    return read


def always(answer):
    return lambda prompt: answer


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
        (["evaluate", "heisse-luft", "--agents", "random", "random", "--games", "0"], "--games"),
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


@pytest.mark.parametrize(
    ("game", "players", "seat"),
    [("heisse-luft", None, 1), ("heisse-luft", 2, 0), ("heisse-karten", 3, 2)],
)
def test_play_a_whole_game(game, players, seat):
    lines = []
    returns = play(game, "random", players, seat, seed=4, read=always("1"), write=lines.append)
    assert len(returns) == (players or 2)
    text = "\n".join(lines)
    assert "Game over." in text and "Rewards:" in text


def test_play_survives_bad_input_then_quits():
    lines = []
    script = ["", "nonsense", "0", "999", "-1", "?", "help", "play", "q"]
    assert (
        play("heisse-karten", "heuristic", 2, 0, 1, read=scripted(script), write=lines.append)
        is None
    )
    text = "\n".join(lines)
    assert text.count("is not a legal move") == 4  # nonsense, 0, 999, -1
    assert "Type a move's number or name" in text  # the empty line
    assert "fits 8 moves" in text  # "play" names every card
    assert text.endswith("You quit.")


def test_play_by_name_then_end_of_input():
    lines = []
    result = play(
        "heisse-luft", "random", None, 0, 3, read=scripted(["h9 2 opp"]), write=lines.append
    )
    assert result is None
    assert "you: ♥9 → stage 2, opponent's side" in "\n".join(lines)


def test_play_from_stdin(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("what\n2\nquit\n"))
    assert main(["play", "heisse-luft", "--opponent", "heuristic", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "'what' is not a legal move" in out
    assert "P0 hand:" in out and "P1 hand:" not in out  # only the human's hand is shown
    assert out.rstrip().endswith("You quit.")


def test_move_chooser():
    names = {10: "♥7 → stage 3, own side", 11: "♥7 → stage 3, opponent's side", 12: "play 3"}
    names[13] = "play 36"
    chooser = MoveChooser(list(names), names.__getitem__)
    assert chooser.choose("2") == (11, "")
    assert chooser.choose("H7 3 OWN") == (10, "")
    assert chooser.choose("♥7 → stage 3, opponent's side") == (11, "")
    assert chooser.choose("play 3") == (12, "")  # exact beats prefix
    assert chooser.choose("36") == (13, "")  # not a list number: a name
    action, problem = chooser.choose("h7")
    assert action is None and "fits 2 moves" in problem
    action, problem = chooser.choose("5")
    assert action is None and "1–4" in problem

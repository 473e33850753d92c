"""The terminal game (``hot-envs play``), driven by scripted input: whole games, bad input, one
reading per input, a table that fits a 45-line screen, the legend and the move syntax."""

from __future__ import annotations

import io
import re

import pytest

from hot_envs.cli import main
from hot_envs.heisse_karten import State as KartenState
from hot_envs.heisse_luft import State as LuftState
from hot_envs.play.terminal import GUIDES, MoveChooser, play


def scripted(lines):
    """An ``input`` replacement that answers ``lines`` in turn, then ends (EOF)."""
    answers = iter(lines)

    def read(prompt: str) -> str:
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None

    return read


class Human:
    """Answers every prompt with the first move of the list just shown, and keeps each screen:
    what was written since the previous prompt."""

    def __init__(self) -> None:
        self.screens: list[str] = []
        self.current: list[str] = []

    def write(self, text: str) -> None:
        self.current.append(text)

    def read(self, prompt: str) -> str:
        screen = "\n".join(self.current)
        self.screens.append(screen)
        self.current.clear()
        card = re.search(r"^Moves: play (\d+)", screen, re.MULTILINE)  # Heiße Karten: a card
        return card[1] if card else "1"  # Heiße Luft: the first numbered move


@pytest.mark.parametrize(
    ("game", "players", "seat"),
    [("heisse-luft", None, 1), ("heisse-luft", 2, 0), ("heisse-karten", 3, 2)],
)
def test_play_a_whole_game(game, players, seat):
    human = Human()
    returns = play(game, "random", players, seat, seed=4, read=human.read, write=human.write)
    assert len(returns) == (players or 2)
    text = "\n".join(human.current)
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
    assert "Type a move; ? lists the moves" in text  # the empty line
    assert "fits 8 moves" in text  # "play" names every card
    assert text.count(GUIDES["heisse-karten"].syntax) == 2  # at the start and for "help"
    assert text.endswith("You quit.")


def test_play_by_name_then_end_of_input():
    lines = []
    result = play(
        "heisse-luft", "random", None, 0, 3, read=scripted(["h8 2 opp"]), write=lines.append
    )
    assert result is None
    assert "you: ♥8 → stage 2, opponent's side" in "\n".join(lines)


def test_play_from_stdin(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("what\n2\nquit\n"))
    assert main(["play", "heisse-luft", "--opponent", "heuristic", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "'what' is not a legal move" in out
    assert "P0 hand:" in out and "P1 hand:" not in out  # only the human's hand is shown
    assert out.rstrip().endswith("You quit.")


# -- one reading per input -------------------------------------------------------------------

LUFT_NAMES = {10: "♥7 → stage 3, own side", 11: "♥7 → stage 3, opponent's side"}
LUFT_NAMES |= {12: "♥10 → stage 1, own side", 13: "exchange ♦Q", 14: "claim ♠ trophy"}


def luft_chooser():
    return MoveChooser(list(LUFT_NAMES), LUFT_NAMES.__getitem__, numbered=True)


def test_a_numbered_list_reads_a_bare_number_as_its_number_only():
    chooser = luft_chooser()
    assert chooser.choose("2") == (11, "")
    assert chooser.choose("5") == (14, "")
    action, problem = chooser.choose("7")  # no 7th move; never "the move with a 7 in it"
    assert action is None and "1–5" in problem


def test_moves_by_name_and_prefix_never_cut_a_number():
    chooser = luft_chooser()
    assert chooser.choose("H7 3 OWN") == (10, "")
    assert chooser.choose("♥7 → stage 3, opponent's side") == (11, "")
    assert chooser.choose("ex dq") == (13, "")
    assert chooser.choose("claim s") == (14, "")
    assert chooser.choose("h10") == (12, "")
    action, problem = chooser.choose("h1")  # ♥A is not held; h1 is no prefix of h10
    assert action is None and "not a legal move" in problem
    action, problem = chooser.choose("h7")
    assert action is None and "fits 2 moves" in problem


def test_an_unnumbered_list_reads_a_bare_number_as_a_card_only():
    """Heiße Karten: typing 7 plays card 7 and nothing else — not the 7th move, and 3 is not 36."""
    hand = [2, 5, 7, 17, 31, 36, 40, 44]
    chooser = MoveChooser([c - 1 for c in hand], lambda a: f"play {a + 1}", numbered=False)
    assert chooser.choose("7") == (6, "")
    assert chooser.choose("play 36") == (35, "")
    for text in ("3", "8", "play 3", "-7", "0"):
        action, problem = chooser.choose(text)
        assert action is None and "is not a legal move" in problem, text


def test_heisse_karten_lists_its_cards_without_numbers():
    state = KartenState.new(seed=1, num_players=4)
    listing = MoveChooser(state.legal_actions(), state.action_name, numbered=False).listing()
    assert listing.startswith("Moves: play ")
    assert ")" not in listing


def test_typing_a_card_in_play_plays_that_card():
    state = KartenState.new(seed=4, num_players=2)
    card = state.hands[0][-1]  # the highest card: far beyond the 8 entries of a menu
    lines = []
    play("heisse-karten", "random", 2, 0, 4, read=scripted([str(card)]), write=lines.append)
    assert f"you: play {card}" in lines


# -- what the screen shows -------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_heisse_luft_keeps_table_and_moves_on_a_45_line_screen(seed):
    """Everything written between two of the human's moves — the opponent's moves, the table
    and the move list — fits on a 45-line screen with the prompt."""
    human = Human()
    play("heisse-luft", "heuristic", None, seed % 2, seed, read=human.read, write=human.write)
    assert len(human.screens) > 10
    assert max(len(screen.split("\n")) for screen in human.screens[1:]) <= 44


def test_heisse_luft_lists_moves_grouped_by_card():
    state = LuftState.new(seed=3)
    listing = MoveChooser(state.legal_actions(), state.action_name, numbered=True).listing()
    lines = listing.split("\n")
    assert len(state.legal_actions()) == 36 and len(lines) == 10  # a header and 9 cards
    assert lines[1] == "  ♥2 →  1) 2 own   2) 2 opp   3) 3 own   4) 3 opp"
    assert max(map(len, lines)) <= 78


def test_the_legend_explains_the_table(capsys):
    """The symbols of the rendered table are explained at the start and by ``help``."""
    lines = []
    play("heisse-luft", "random", None, 0, 2, read=scripted(["help", "q"]), write=lines.append)
    legend = GUIDES["heisse-luft"].legend
    assert "\n".join(lines).count(legend) == 2
    for symbol in ("lowland", "mountain", "last: Pn", "trophies", "prizes"):
        assert symbol in legend
    for guide in GUIDES.values():
        assert max(len(line) for line in (guide.legend + "\n" + guide.syntax).split("\n")) <= 78
    board = LuftState.new(seed=2).render(0)
    assert "lowland" in board and "prizes" in board


def test_a_finished_trick_stays_in_view_until_the_human_acts():
    """Heiße Karten, 2 players, the human second: the agent leads, the human completes the
    trick; at each later turn of the human the table shows the trick before and who took it."""
    human = Human()
    play("heisse-karten", "random", 2, 1, 7, read=human.read, write=human.write)
    assert len(human.screens) == 24  # a 2-player round has 24 tricks
    last_trick = re.compile(r"Last trick: player_\d \d+[br], player_\d \d+[br] — taken by")
    assert not last_trick.search(human.screens[0])
    assert all(last_trick.search(screen) for screen in human.screens[1:])

"""The terminal game (``hot-envs play``): a human against agents, one table shown per decision.

Moves are typed by name — the name's words in order, each word whole or as a prefix (``h7 3 own``
for ``♥7 → stage 3, own side``) — or, where the game lists them numbered, by their number. One
input is never read two ways: where the list is numbered (Heiße Luft) a bare number is a list
number and nothing else; where it is not (Heiße Karten) a bare number is a card. A number typed
inside a name never stands for a longer number (``h1`` is not ``♥10``, ``3`` is not ``36``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from hot_envs.agents import make_agent
from hot_envs.agents.base import decide
from hot_envs.core.engine import GameState
from hot_envs.core.games import GAMES, get_game
from hot_envs.evaluation.arena import derive_seed, game_options

Read = Callable[[str], str]
Write = Callable[[str], None]
WIDTH = 78  # move lists wrap here


@dataclass(frozen=True)
class TableGuide:
    """What the terminal game tells a player about one game: how moves are typed (``syntax``),
    what the table's symbols mean (``legend``), and whether moves are listed numbered."""

    numbered: bool
    syntax: str
    legend: str


GUIDES = {game.name: TableGuide(**game.guide) for game in GAMES.values()}  # the specs' guides


def play(
    game_name: str,
    opponent: str,
    players: int | None = None,
    seat: int = 0,
    seed: int | None = None,
    read: Read = input,
    write: Write = print,
) -> list[float] | None:
    """A human (``read``/``write``) plays ``seat`` against ``opponent`` agents in every other
    seat. Returns the rewards, or ``None`` when the human quits. The table is shown once before
    each of the human's decisions, with the moves of the agents since then above it."""
    game = get_game(game_name)
    guide = GUIDES[game.name]
    options = game_options(game.name, players)
    seed = int(np.random.SeedSequence(seed).entropy % 2**32) if seed is None else seed
    state = game.engine.State.new(seed=seed, **options)
    n = state.num_players
    if not 0 <= seat < n:
        raise ValueError(f"--seat must be 0–{n - 1} for {n} players, not {seat}")
    agents = {
        s: make_agent(opponent, game.name, derive_seed(seed, s)) for s in range(n) if s != seat
    }
    write(f"{game.name}, seed {seed}: you are player_{seat}; {opponent} plays the other seats.")
    write(guide.legend + "\n" + guide.syntax)
    while not state.is_terminal():
        mover = state.current_player
        if mover == seat:
            write("\n" + state.render(viewer=seat))
            action = _ask(state, guide, read, write)
            if action is None:
                write("You quit.")
                return None
            who = "you"
        else:
            action = decide(agents[mover], game.engine, state, state.current_player)
            who = f"player_{mover} ({opponent})"
        write(f"{who}: {state.action_name(action)}")
        state.apply(action)
    write("\n" + state.render(viewer=seat))
    returns = state.returns()
    rewards = ", ".join(f"player_{s} {r:+.2f}" for s, r in enumerate(returns))
    write(f"\nGame over. {_verdict(returns, seat)} Rewards: {rewards}")
    return returns


def _verdict(returns: list[float], seat: int) -> str:
    best = max(returns)
    if returns[seat] < best:
        return "You lose."
    if returns.count(best) == 1:
        return "You win!"
    return "A draw." if min(returns) == best else "A shared win."


def _ask(state: GameState, guide: TableGuide, read: Read, write: Write) -> int | None:
    """Prompt until the human names a legal move; ``None`` for quit or end of input."""
    chooser = MoveChooser(state.legal_actions(), state.action_name, guide.numbered)
    write(chooser.listing())
    while True:
        try:
            text = read("your move> ")
        except (EOFError, KeyboardInterrupt):
            return None
        command = text.strip().lower()
        if command in ("q", "quit", "exit"):
            return None
        if command == "?":
            write(chooser.listing())
        elif command == "help":
            write(guide.syntax + "\n" + guide.legend)
        else:
            action, problem = chooser.choose(text)
            if action is not None:
                return action
            write(problem)


_SUIT_LETTERS = str.maketrans({"♥": "h", "♦": "d", "♣": "c", "♠": "s"})
_NUMBER = re.compile(r"[+-]?\d+")


def _words(text: str) -> list[str]:
    """Lower-case words of a move name or of typed input: ``♥7 → stage 3`` → h7, stage, 3."""
    return re.findall(r"\w+", text.translate(_SUIT_LETTERS).lower().replace("'", ""))


def _short(target: str) -> str:
    """``stage 3, own side`` → ``3 own``, ``stage 3, opponent's side`` → ``3 opp``."""
    target = re.sub(r"^stage (\d+), own side$", r"\1 own", target)
    return re.sub(r"^stage (\d+), opponent's side$", r"\1 opp", target)


def _wrap(entries: list[str], indent: str, separator: str = "   ") -> str:
    """``entries`` after ``indent``, as many to a line as fit in :data:`WIDTH`; an entry is
    never split."""
    lines, line, empty = [], indent, True
    for entry in entries:
        if not empty and len(line) + len(separator) + len(entry) > WIDTH:
            lines.append(line.rstrip())
            line, empty = " " * len(indent), True
        line += ("" if empty else separator) + entry
        empty = False
    return "\n".join([*lines, line])


class MoveChooser:
    """The legal moves, listed and chosen by name or (``numbered``) by list number (module
    docstring)."""

    def __init__(self, actions: list[int], name: Callable[[int], str], numbered: bool) -> None:
        self.actions = actions
        self.names = [name(a) for a in actions]
        self.numbered = numbered

    def listing(self) -> str:
        """The moves in a few lines: plays grouped by card (``♥7 →  1) 1 own   2) 3 opp``), the
        rest side by side; numbered only where numbers choose them."""
        if not self.numbered:
            return _wrap(self.names, "Moves: ", ", ")
        groups: dict[str, list[str]] = {}  # "♥7 →" → its plays; "" → every other move
        for i, name in enumerate(self.names, 1):
            head, arrow, target = name.partition(" → ")
            key = f"{head} →" if arrow else ""
            groups.setdefault(key, []).append(f"{i}) {_short(target) if arrow else name}")
        header = "Moves — card →  number) stage side (own: your side, opp: the opponent's):"
        lines = [header] if any(groups) else []
        lines += [_wrap(entries, f"  {key:<6}" if key else "  ") for key, entries in groups.items()]
        return "\n".join(lines)

    def choose(self, text: str) -> tuple[int | None, str]:
        """The action ``text`` names, or ``(None, why not)``."""
        typed = _words(text)
        if not typed:
            return None, "Type a move; ? lists the moves, help explains, q quits."
        if _NUMBER.fullmatch(text.strip()):
            number = int(text)
            if self.numbered and 1 <= number <= len(self.actions):
                return self.actions[number - 1], ""
            if self.numbered or number < 0:  # a list number is nothing else; no card is negative
                return None, self._not_legal(text)
            typed = [str(number)]  # a card: the whole number, never a longer one
        for exact in (True, False):
            found = [i for i, n in enumerate(self.names) if _matches(typed, _words(n), exact)]
            if len(found) == 1:
                return self.actions[found[0]], ""
            if len(found) > 1 and not exact:
                options = "; ".join(self.names[i] for i in found[:6]) + (" …" if found[6:] else "")
                return None, f"{text.strip()!r} fits {len(found)} moves ({options}): say more."
        return None, self._not_legal(text)

    def _not_legal(self, text: str) -> str:
        numbers = f"a number 1–{len(self.actions)} or " if self.numbered else ""
        return f"{text.strip()!r} is not a legal move. Type {numbers}a move; ? lists them."


def _fits(typed: str, word: str, exact: bool) -> bool:
    """``typed`` is ``word``, or (not ``exact``) a prefix of it that does not cut a number."""
    if typed == word:
        return True
    cut = word[len(typed) : len(typed) + 1]
    return not exact and word.startswith(typed) and not (typed[-1].isdigit() and cut.isdigit())


def _matches(typed: list[str], words: list[str], exact: bool) -> bool:
    """Whether ``typed`` words appear in ``words`` in order (equal, or as prefixes)."""
    position = 0
    for t in typed:
        while position < len(words) and not _fits(t, words[position], exact):
            position += 1
        if position == len(words):
            return False
        position += 1
    return True

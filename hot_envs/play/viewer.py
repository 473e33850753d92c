"""Look at games in the terminal: step through a recorded game (``hot-envs replay``), write it as
a GIF or MP4, or watch agents play one game at a chosen pace (``hot-envs watch``).

The table is shown the way the environments' ANSI render shows it: from the seat to move (as at a
hot-seat table; nobody's hand once the game is over) unless a fixed ``seat`` is asked for.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from hot_envs.agents import make_agent
from hot_envs.agents.base import decide
from hot_envs.core.engine import GameState
from hot_envs.core.games import get_game
from hot_envs.evaluation.arena import derive_seed, game_options
from hot_envs.evaluation.records import make_record, read_records, replay, write_records

Write = Callable[[str], None]
HELP = "Enter: next move · b: back · a number: go to that move · q: quit"


def table(state: GameState, seat: int | None) -> str:
    """The table as ``seat`` sees it (default: the seat to move)."""
    return state.render(viewer=state.current_player if seat is None else seat)


def _check_seat(seat: int | None, players: int) -> None:
    if seat is not None and not 0 <= seat < players:
        raise ValueError(f"--seat must be 0–{players - 1} for {players} players, not {seat}")


def _returns(returns: Sequence[float], seats: Sequence[str]) -> str:
    pairs = enumerate(zip(seats, returns, strict=True))
    return "Returns: " + ", ".join(f"P{s} {name} {r:+.3g}" for s, (name, r) in pairs)


def replay_game(
    path: str | Path,
    game: int = 0,
    seat: int | None = None,
    gif: str | None = None,
    mp4: str | None = None,
    fps: float = 2.0,
    interactive: bool | None = None,
    read: Callable[[str], str] = input,
    write: Write = print,
) -> list[Path]:
    """``hot-envs replay``: with ``gif``/``mp4``, write the game as animations (returns their
    paths); otherwise show it in the terminal, stepping on key presses when ``interactive``
    (default: when stdin is a terminal), else printing every move."""
    records = read_records(path)
    if not 0 <= game < len(records):
        raise ValueError(f"--game must be 0–{len(records) - 1} for {path}, not {game}")
    record = records[game]
    states = replay(record)
    _check_seat(seat, len(record["seats"]))
    animations = [out for out in (gif, mp4) if out]
    if animations:
        from hot_envs.pictures import animation_path, frame, write_animation

        for out in animations:
            animation_path(out)  # a bad name fails before any drawing
        frames = [frame(state, seat) for state in states]
        written = [write_animation(frames, out, fps) for out in animations]
        for out in written:
            write(f"wrote {out} ({len(frames)} frames)")
        return written
    seats = ", ".join(f"P{s} {name}" for s, name in enumerate(record["seats"]))
    write(f"{record['game']}, game {game} of {path}: {seats}")
    if interactive is None:
        interactive = sys.stdin.isatty()
    if not interactive:
        for k in range(len(states)):
            write(_position(record, states, k, seat))
        return []
    write(HELP)
    k = 0
    while True:
        write(_position(record, states, k, seat))
        try:
            answer = read("> ").strip().lower()
        except (EOFError, KeyboardInterrupt):
            return []
        if answer == "q":
            return []
        if answer == "b":
            k = max(k - 1, 0)
        elif answer.isdigit():
            k = min(int(answer), len(states) - 1)
        elif answer == "":
            if k == len(states) - 1:
                write("That was the last move. b: back, q: quit.")
            k = min(k + 1, len(states) - 1)
        else:
            write(HELP)


def _position(record: dict, states: list[GameState], k: int, seat: int | None) -> str:
    """Move ``k`` (0 = the deal) and the table after it; the result after the last move."""
    last = len(states) - 1
    if k == 0:
        head = f"Deal (seed {record['deal_seed']}), {last} moves to come"
    else:
        mover, action = states[k - 1].current_player, record["actions"][k - 1]
        name = record["seats"][mover]
        head = f"Move {k}/{last}: P{mover} ({name}) {states[k - 1].action_name(action)}"
    lines = [f"\n{head}", table(states[k], seat)]
    if k == last:
        lines.append(_returns(record["returns"], record["seats"]))
    return "\n".join(lines)


def watch(
    game_name: str,
    agents: Sequence[str],
    seed: int | None = None,
    delay: float = 1.0,
    seat: int | None = None,
    out: str | Path | None = None,
    write: Write = print,
    sleep: Callable[[float], None] = time.sleep,
) -> dict[str, Any]:
    """``hot-envs watch``: one game between ``agents`` (a spec per seat), the table shown after
    every move with ``delay`` seconds between moves. Returns the game's record, which ``out``
    (a folder) keeps as ``games.jsonl``."""
    game = get_game(game_name)
    if delay < 0:
        raise ValueError(f"--delay must not be negative, not {delay}")
    options = game_options(game.name, len(agents))
    seed = int(np.random.SeedSequence(seed).entropy % 2**32) if seed is None else seed
    state = game.engine.State.new(seed=seed, **options)
    _check_seat(seat, state.num_players)
    players = [make_agent(spec, game.name, derive_seed(seed, s)) for s, spec in enumerate(agents)]
    write(f"{game.name}, seed {seed}: " + ", ".join(f"P{s} {a}" for s, a in enumerate(agents)))
    write(table(state, seat))
    actions = []
    while not state.is_terminal():
        sleep(delay)
        mover = state.current_player
        try:
            action = decide(players[mover], game.engine, state, state.current_player)
            name = state.action_name(action)
            state.apply(action)
        except (ValueError, TypeError) as error:
            raise ValueError(f"agent {agents[mover]!r} in seat {mover}: {error}") from None
        actions.append(action)
        write(f"\nP{mover} ({agents[mover]}): {name}")
        write(table(state, seat))
    returns = state.returns()
    write(_returns(returns, agents))
    record = make_record(game.name, options, seed, agents, actions, returns)
    if out is not None:
        write(f"wrote {write_records(Path(out) / 'games.jsonl', [record])}")
    return record

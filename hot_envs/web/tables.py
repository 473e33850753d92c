"""Games on the browser table: one :class:`Table` per game (kept by
:class:`hot_envs.web.store.TableStore`).

A table is played (one human seat, agents in the others), watched (agents only) or a replay of a
recorded game. Whatever a table tells a browser comes from :meth:`Table.snapshot`: one seat's
``State.view`` plus public facts (seats, the move log, the last trick or flight) — never the full
state, the deal seed or another seat's hand (docs/rules.md HL-8, HK-5).

A replay keeps the state of every :data:`KEEP_EVERY`-th move and plays forward from the nearest
one, so a seek costs at most that many moves and a record of :data:`MAX_REPLAY_MOVES` moves a few
hundred states.
"""

from __future__ import annotations

import math
import os
import re
import reprlib
import sys
import tempfile
import threading
from array import array
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hot_envs.core.engine import ChanceSource, GameState
from hot_envs.core.games import get_game
from hot_envs.evaluation.arena import derive_seed, game_options
from hot_envs.evaluation.records import play_record
from hot_envs.web.seats import SeatAgent

HUMAN = "human"  # the seat spec of the person at the browser
LOG_LENGTH = 12  # moves the page lists
KEEP_EVERY = 50  # a replay keeps the state after every KEEP_EVERY-th move
MAX_REPLAY_MOVES = 10_000  # longer than any game with the default options (docs/web.md)
# What a table holds besides its kept states, measured with tracemalloc (tests/web/test_limits.py
# keeps these an upper bound): the table, its agents and the last trick or flight.
TABLE_BYTES = 16 * 2**10
SEAT_BYTES = 4 * 2**10  # an agent seat (a checkpoint's weights are shared, counted once)
# A search seat (measured 8-9 KiB): its generators, prior, rollout agent and last decision's
# values; its rollout arrays (up to tens of MiB) go after each decision (SeatAgent.forget).
SEARCH_SEAT_BYTES = 12 * 2**10
MOVE_BYTES = 8  # an action and its mover (a state and its `last`: the game's web_state_bytes)


class RequestError(ValueError):
    """A request the table refuses; ``status`` is the HTTP status (4xx), the message says why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


_short = reprlib.Repr()
_short.maxstring = _short.maxother = 60
_short.maxlist = _short.maxdict = 6
_short.maxlevel = 3


def short(value: object) -> str:
    """``repr(value)`` cut to a line: error messages echo what a request sent, never all of it."""
    return _short.repr(value)


MAX_MESSAGE_CHARS = 500  # an error message a browser gets: what was wrong, not a dump


def _server_folders() -> re.Pattern:
    """The folders of this installation and process (the package's, the interpreter's, the
    working, home and temporary folders), longest first, with the separator after them."""
    folders = {
        Path(__file__).resolve().parents[2],
        Path.cwd(),
        Path.home(),
        Path(sys.prefix),
        Path(sys.base_prefix),
        Path(tempfile.gettempdir()),
    }
    names = sorted({str(f) for f in folders if len(f.parts) > 1}, key=len, reverse=True)
    folder = "|".join(re.escape(name) for name in names)
    return re.compile(rf"(?:{folder})(?:{re.escape(os.sep)}|(?![\w.-]))")  # not /home/xyz


_SERVER_FOLDERS = _server_folders()


def public(message: str) -> str:
    """``message`` as a browser may read it: the server's folders left out (an error of an
    agent or a checkpoint may name files), at most :data:`MAX_MESSAGE_CHARS` characters."""
    message = _SERVER_FOLDERS.sub("", message)
    if len(message) > MAX_MESSAGE_CHARS:
        message = message[: MAX_MESSAGE_CHARS - 1] + "…"
    return message


@dataclass
class Turn:
    """An agent decision under way: the mover's agent and a copy of the state to decide in."""

    seat: int  # whose view the answer shows
    mover: int
    agent: SeatAgent
    state: GameState


class Table:
    """One game: its engine state, who sits in each seat, the moves so far and the last trick or
    stage flight; ``options`` are ``State.new``'s, the player count comes from ``seats``.
    ``seed`` deals the game (an int: its stream; a replay passes the source its record names,
    :func:`hot_envs.evaluation.records.chance_source`).
    ``record`` (a checked game record, :mod:`hot_envs.evaluation.records`) makes it a replay, at
    the deal; the record is played through once and must end with its returns (``ValueError``
    naming the first problem). Every public method takes
    the table's lock, so a table can be read and moved from many request threads."""

    def __init__(
        self,
        game: str,
        seats: list[str],
        seed: int | ChanceSource,
        options: dict | None = None,
        record: dict | None = None,
    ) -> None:
        self.game = get_game(game)
        self.engine = self.game.engine
        # A live table has a seat per player; a replay keeps its record's options as they are.
        self.options = game_options(game, len(seats), options) if record is None else dict(options)
        self.seed = seed
        self.seats = list(seats)
        self.lock = threading.Lock()
        self.thinking = False  # an agent decision of this table is under way
        self.timed_out: set[int] = set()  # moves the stand-in played past the cap
        try:
            self.state = self.engine.State.new(seed=seed, **self.options)
        except (TypeError, ValueError) as error:  # an unknown option, a bad value
            raise ValueError(f"the options {short(self.options)}: {error}") from None
        self.actions = array("H")  # every move's action id and mover, in play order
        self.movers = bytearray()
        self.last: dict[str, dict] = {}  # the last trick / flight, by kind
        self.at = 0  # moves played
        n = self.state.num_players
        if len(self.seats) != n:
            raise ValueError(f"{len(self.seats)} seats for a {n}-player game")
        if self.seats.count(HUMAN) > 1 and record is None:
            raise ValueError("at most one seat can be the human's")
        self.human = self.seats.index(HUMAN) if HUMAN in self.seats and record is None else None
        self.agents: dict[int, SeatAgent] = {}
        self.kept: list[tuple[GameState, dict]] = []
        if record is not None:
            self.mode = "replay"
            self._check_record(record)
            return
        self.mode = "watch" if self.human is None else "play"
        for s, spec in enumerate(self.seats):
            if spec != HUMAN:
                self.agents[s] = SeatAgent(spec, self.game.name, derive_seed(seed, s))

    def _check_record(self, record: dict) -> None:
        """Play ``record`` through once, keeping every KEEP_EVERY-th state; back at the deal."""
        moves = len(record["actions"])
        if moves > MAX_REPLAY_MOVES:
            raise ValueError(
                f"the record has {moves} moves; a replay takes at most {MAX_REPLAY_MOVES}"
            )
        self.kept.append((self.state.clone(), {}))
        for _ in play_record(record, self.state, self._play):
            if self.at % KEEP_EVERY == 0:
                self.kept.append((self.state.clone(), dict(self.last)))
        self._seek(0)

    def _play(self, action: int) -> None:
        """Play ``action`` for the seat to move; note it and the trick or flight it ends."""
        mover = self.state.current_player
        before = self.state.view(mover)
        self.state.apply(action)
        event = self.game.load("web_event")(before, mover, action, self.state.view(mover))
        if event is not None:
            self.last[event["kind"]] = event
        if self.at == len(self.actions):  # a new move (a replay stepping on has it already)
            self.actions.append(action)
            self.movers.append(mover)
        self.at += 1

    def _seek(self, step: int) -> None:
        state, last = self.kept[step // KEEP_EVERY]
        self.state, self.last, self.at = state.clone(), dict(last), step // KEEP_EVERY * KEEP_EVERY
        while self.at < step:
            self._play(self.actions[self.at])

    @property
    def moves(self) -> list[tuple[int, int]]:
        """(seat, action) of each move played so far."""
        return list(zip(self.movers[: self.at], self.actions[: self.at], strict=True))

    @property
    def over(self) -> bool:
        """A live game that has ended (a replay is never over: it can go back)."""
        return self.mode != "replay" and self.state.is_terminal()

    def memory_estimate(self) -> int:
        """Bytes the table holds, an upper bound (the store's memory budget adds these up). The
        seat names count as what they are: a request chose them (their length is checked, but
        a replay's seats are any strings of that length)."""
        return (
            TABLE_BYTES
            + sum(SEARCH_SEAT_BYTES if a.search else SEAT_BYTES for a in self.agents.values())
            + sum(map(sys.getsizeof, self.seats))
            + MOVE_BYTES * len(self.actions)
            + self.game.web_state_bytes * (1 + len(self.kept))
        )

    # -- what a browser may ask ------------------------------------------------------------------

    def check_seat(self, seat: int | None) -> int:
        """The seat whose view a request gets: a played table shows only its human's seat; a
        watched or replayed one shows any seat (seat 0 unless asked)."""
        if seat is None:
            return self.human if self.human is not None else 0
        n = self.state.num_players
        if not 0 <= seat < n:
            raise RequestError(400, f"seat must be 0–{n - 1}, not {seat}")
        if self.human is not None and seat != self.human:
            raise RequestError(403, f"you play seat {self.human}; other seats' views are private")
        return seat

    def snapshot(self, seat: int | None = None) -> dict:
        """What the browser at ``seat`` may see: that seat's view and public facts."""
        with self.lock:
            return self._snapshot(self.check_seat(seat))

    def _snapshot(self, seat: int) -> dict:
        state = self.state
        view = state.view(seat)
        mover = state.current_player
        yours = self.mode == "play" and seat == self.human
        describe = self.game.load("web_move")
        over = state.is_terminal()
        first = max(0, self.at - LOG_LENGTH)
        log = []
        for k in range(first, self.at):
            entry = {"seat": self.movers[k], "name": state.action_name(self.actions[k])}
            log.append(entry | {"timed_out": True} if k in self.timed_out else entry)
        return {
            "game": self.game.name,
            "mode": self.mode,
            "seat": seat,
            "human": self.human,
            "seats": self.seats,
            "num_players": state.num_players,
            "view": view,
            "moves": [describe(a, seat) for a in view["legal_actions"]] if yours else [],
            "to_move": mover,
            "agent_to_move": mover is not None and mover in self.agents,
            "step": self.at,
            "steps": len(self.actions) if self.mode == "replay" else None,
            "log": log,
            "last": self.last,
            "over": over,
            "returns": state.returns() if over else None,
        }

    def move(self, action: object, seat: int | None = None) -> dict:
        """The human (at ``seat``, if the request names one) plays ``action`` (an action id);
        returns the human's snapshot."""
        with self.lock:
            if self.mode != "play":
                raise RequestError(409, f"nobody plays at a {self.mode} table; use step")
            self.check_seat(seat)
            self._check_turn(human=True)
            if isinstance(action, bool) or not isinstance(action, int):
                raise RequestError(
                    400, f"action must be an action id (an int), not {short(action)}"
                )
            try:
                self._play(action)
            except ValueError as error:  # IllegalActionError: the state is unchanged
                raise RequestError(400, str(error)) from None
            return self._snapshot(self.human)

    def begin_step(self, seat: int | None = None) -> Turn | dict:
        """One more move: a replay plays its next recorded move (returns the snapshot); at a
        live table the agent to move is to decide (returns the :class:`Turn`, which
        :meth:`end_step` or :meth:`drop_step` must close)."""
        with self.lock:
            seat = self.check_seat(seat)
            if self.mode == "replay":
                if self.at == len(self.actions):
                    raise RequestError(409, "the replay is at its last move")
                self._play(self.actions[self.at])
                return self._snapshot(seat)
            self._check_turn(human=False)
            mover = self.state.current_player
            if self.thinking:
                raise RequestError(409, f"player_{mover} is still thinking")
            self.thinking = True
            return Turn(seat, mover, self.agents[mover], self.state.clone())

    def end_step(self, turn: Turn, action: int, timed_out: bool = False) -> dict:
        """Play the decided ``action`` (an agent's illegal one leaves the state as it was and
        raises); the snapshot of ``turn.seat``."""
        with self.lock:
            try:
                self._play(action)
            finally:
                self.thinking = False
            if timed_out:
                self.timed_out.add(self.at - 1)
            return self._snapshot(turn.seat)

    def drop_step(self) -> None:
        """The decision failed: the table takes requests again, unchanged."""
        with self.lock:
            self.thinking = False

    def step(self, seat: int | None = None) -> dict:
        """:meth:`begin_step`, the agent's decision here and now (no cap), :meth:`end_step`."""
        turn = self.begin_step(seat)
        if isinstance(turn, dict):
            return turn
        try:
            if turn.agent.claim():
                action, timed_out = turn.agent.think(self.engine, turn.state, turn.mover, math.inf)
            else:  # its decision for another request still runs
                action, timed_out = turn.agent.stand_in(self.engine, turn.state, turn.mover), True
        except BaseException:
            self.drop_step()
            raise
        return self.end_step(turn, action, timed_out)

    def seek(self, step: object, seat: int | None = None) -> dict:
        """A replay at move ``step`` (0 = the deal)."""
        with self.lock:
            seat = self.check_seat(seat)
            if self.mode != "replay":
                raise RequestError(409, f"only a replay can go back; this table is {self.mode}")
            last = len(self.actions)
            if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step <= last:
                raise RequestError(400, f"step must be an int 0–{last}, not {short(step)}")
            self._seek(step)
            return self._snapshot(seat)

    def _check_turn(self, human: bool) -> None:
        mover = self.state.current_player
        if mover is None:
            raise RequestError(409, "the game is over")
        if human and mover != self.human:
            raise RequestError(409, f"it is not your turn: player_{mover} is to move")
        if not human and mover not in self.agents:
            raise RequestError(409, f"it is your turn (player_{mover}): an agent cannot move")


def new_seed() -> int:
    """A fresh deal seed from the operating system's entropy (never sent to a browser)."""
    return int(np.random.SeedSequence().entropy % 2**63)

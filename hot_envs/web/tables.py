"""Games on the browser table: one :class:`Table` per game, kept by a :class:`TableStore`.

A table is played (one human seat, agents in the others), watched (agents only) or a replay of a
recorded game. Whatever a table tells a browser comes from :meth:`Table.snapshot`: one seat's
``State.view`` plus public facts (seats, the move log, the last trick or flight) — never the full
state, the deal seed or another seat's hand (docs/rules.md HL-8, HK-5).
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict

import numpy as np

from hot_envs.agents import make_agent
from hot_envs.agents.base import decide
from hot_envs.arena import derive_seed, game_options
from hot_envs.games import get_game
from hot_envs.web.public import EVENTS, MOVES

HUMAN = "human"  # the seat spec of the person at the browser
LOG_LENGTH = 12  # moves the page lists


class RequestError(ValueError):
    """A request the table refuses; ``status`` is the HTTP status (4xx), the message says why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class Table:
    """One game: its engine state, who sits in each seat, the moves so far and the last trick or
    stage flight; ``options`` are ``State.new``'s, the player count comes from ``seats``.
    ``record`` (the actions of a recorded game, checked by :func:`hot_envs.records.replay`)
    makes it a replay, at the deal. Every public method
    takes the table's lock, so a table can be read and moved from many request threads."""

    def __init__(
        self,
        game: str,
        seats: list[str],
        seed: int,
        options: dict | None = None,
        record: list[int] | None = None,
    ) -> None:
        self.game = get_game(game)
        # A live table has a seat per player; a replay keeps its record's options as they are.
        self.options = game_options(game, len(seats), options) if record is None else dict(options)
        self.seed = seed
        self.seats = list(seats)
        self.record = record
        self.lock = threading.Lock()
        self._restart()
        n = self.state.num_players
        if len(self.seats) != n:
            raise ValueError(f"{len(self.seats)} seats for a {n}-player game")
        if self.seats.count(HUMAN) > 1 and record is None:
            raise ValueError("at most one seat can be the human's")
        self.human = self.seats.index(HUMAN) if HUMAN in self.seats and record is None else None
        if record is not None:
            self.mode = "replay"
            self.agents = {}
        else:
            self.mode = "watch" if self.human is None else "play"
            self.agents = {
                s: make_agent(spec, self.game.name, derive_seed(seed, s))
                for s, spec in enumerate(self.seats)
                if spec != HUMAN
            }
            for agent in self.agents.values():
                if callable(getattr(agent, "reset", None)):
                    agent.reset()

    def _restart(self) -> None:
        self.state = self.game.engine.State.new(seed=self.seed, **self.options)
        self.moves: list[tuple[int, int]] = []  # (seat, action) in play order
        self.last: dict[str, dict] = {}  # the last trick / flight, by kind

    def _apply(self, action: int) -> None:
        """Play ``action`` for the seat to move; remember it and the trick or flight it ends."""
        mover = self.state.current_player
        before = self.state.view(mover)
        self.state.apply(action)
        event = EVENTS[self.game.name](before, mover, action, self.state.view(mover))
        if event is not None:
            self.last[event["kind"]] = event
        self.moves.append((mover, action))

    def _seek(self, step: int) -> None:
        self._restart()
        for action in self.record[:step]:
            self._apply(action)

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
        describe = MOVES[self.game.name]
        over = state.is_terminal()
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
            "step": len(self.moves),
            "steps": len(self.record) if self.record is not None else None,
            "log": [{"seat": s, "name": state.action_name(a)} for s, a in self.moves[-LOG_LENGTH:]],
            "last": self.last,
            "over": over,
            "returns": state.returns() if over else None,
        }

    def move(self, action: object) -> dict:
        """The human plays ``action`` (an action id); returns the human's snapshot."""
        with self.lock:
            if self.mode != "play":
                raise RequestError(409, f"nobody plays at a {self.mode} table; use step")
            self._check_turn(human=True)
            if isinstance(action, bool) or not isinstance(action, int):
                raise RequestError(400, f"action must be an action id (an int), not {action!r}")
            try:
                self._apply(action)
            except ValueError as error:  # IllegalActionError: the state is unchanged
                raise RequestError(400, str(error)) from None
            return self._snapshot(self.human)

    def step(self, seat: int | None = None) -> dict:
        """One more move: the agent to move plays (a replay plays its next recorded move)."""
        with self.lock:
            seat = self.check_seat(seat)
            if self.mode == "replay":
                if len(self.moves) == len(self.record):
                    raise RequestError(409, "the replay is at its last move")
                self._apply(self.record[len(self.moves)])
                return self._snapshot(seat)
            self._check_turn(human=False)
            agent = self.agents[self.state.current_player]
            self._apply(decide(agent, self.game.engine, self.state, self.state.current_player))
            return self._snapshot(seat)

    def seek(self, step: object, seat: int | None = None) -> dict:
        """A replay at move ``step`` (0 = the deal)."""
        with self.lock:
            seat = self.check_seat(seat)
            if self.mode != "replay":
                raise RequestError(409, f"only a replay can go back; this table is {self.mode}")
            last = len(self.record)
            if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step <= last:
                raise RequestError(400, f"step must be an int 0–{last}, not {step!r}")
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


class TableStore:
    """The server's tables by id (random, unguessable). Keeps the ``limit`` most recently used."""

    def __init__(self, limit: int = 5000) -> None:
        self.limit = limit
        self._tables: OrderedDict[str, Table] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, table: Table) -> str:
        table_id = secrets.token_urlsafe(9)
        with self._lock:
            self._tables[table_id] = table
            while len(self._tables) > self.limit:
                self._tables.popitem(last=False)
        return table_id

    def get(self, table_id: str) -> Table:
        with self._lock:
            table = self._tables.get(table_id)
            if table is None:
                raise RequestError(404, f"no game {table_id!r} on this server (it may have ended)")
            self._tables.move_to_end(table_id)
            return table

    def __len__(self) -> int:
        return len(self._tables)


def new_seed() -> int:
    """A fresh deal seed from the operating system's entropy (never sent to a browser)."""
    return int(np.random.SeedSequence().entropy % 2**63)

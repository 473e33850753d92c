"""Recorded games: one JSON object per game, one game per line (``games.jsonl``), and replay.

A record holds what it takes to play the game again, action for action; docs/agents.md
("Recorded games") gives the format key by key. ``chance`` names the source that ``deal_seed``
feeds, which draws the deal and every later chance event (a reshuffle, HL-3.5; a match's next
round, HK-4.4): ``"stream"`` (what the arena writes) is the games' one source,
:mod:`hot_envs.core.chance`, so the record replays on either engine; a record without ``chance``
was written before the stream and is read as ``"numpy"``, numpy's ``default_rng(deal_seed)``,
which replays on the per-game engine only. :func:`replay` rebuilds every state and checks the
record against the rules.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from hot_envs.core.engine import ChanceSource, GameState
from hot_envs.core.games import get_game

FORMAT = 1
KEYS = ("format", "game", "options", "deal_seed", "seats", "actions", "returns", "matchup", "index")
OPTIONAL_KEYS = ("chance",)
STREAM, NUMPY = "stream", "numpy"
CHANCE_SOURCES = (STREAM, NUMPY)
"""What a record's ``chance`` may name (module docstring); a record without one is ``NUMPY``."""


def make_record(
    game: str,
    options: dict[str, Any],
    deal_seed: int,
    seats: Sequence[str],
    actions: Sequence[int],
    returns: Sequence[float],
    matchup: int = 0,
    index: int = 0,
) -> dict[str, Any]:
    """A record of one finished game (module docstring), checked."""
    record = {
        "format": FORMAT,
        "game": get_game(game).name,
        "options": dict(options),
        "deal_seed": int(deal_seed),
        "chance": STREAM,
        "seats": [str(seat) for seat in seats],
        "actions": [int(action) for action in actions],
        "returns": [float(r) for r in returns],
        "matchup": int(matchup),
        "index": int(index),
    }
    return check_record(record)


def check_record(record: Any) -> dict[str, Any]:
    """``record`` if it has the record format's keys and types; else a ``ValueError`` naming the
    first problem. (Whether its actions are legal is :func:`replay`'s to check.)"""
    if not isinstance(record, dict):
        raise ValueError(f"a game record is a JSON object, not {type(record).__name__}")
    missing = [key for key in KEYS if key not in record]
    unknown = sorted(set(record) - set(KEYS) - set(OPTIONAL_KEYS))
    if missing or unknown:
        what = f"lacks {missing[0]!r}" if missing else f"has an unknown key {unknown[0]!r}"
        raise ValueError(f"the game record {what} (keys: {', '.join(KEYS)})")
    if record["format"] != FORMAT:
        raise ValueError(f"record format {record['format']!r} is not {FORMAT}")
    name = get_game(_typed(record, "game", str)).name
    if record["game"] != name:
        raise ValueError(f"the record's game is spelt {name!r}, not {record['game']!r}")
    _typed(record, "options", dict)
    if record.get("chance", NUMPY) not in CHANCE_SOURCES:
        raise ValueError(
            f"the record's 'chance' must be one of {', '.join(map(repr, CHANCE_SOURCES))}, "
            f"not {record['chance']!r}"
        )
    for key in ("deal_seed", "matchup", "index"):
        if _typed(record, key, int) < 0:
            raise ValueError(f"the record's {key!r} must not be negative")
    for key, kind in (("seats", str), ("actions", int), ("returns", float)):
        for item in _typed(record, key, list):
            if not _is(item, kind):
                raise ValueError(f"the record's {key!r} holds {item!r}, not a {kind.__name__}")
    if len(record["returns"]) != len(record["seats"]):
        raise ValueError("the record has a different number of seats and returns")
    return record


def _is(value: Any, kind: type) -> bool:
    if isinstance(value, bool):
        return False
    if kind is float:  # an int too large for a float is no return either
        return isinstance(value, int | float) and -_LARGEST <= value <= _LARGEST
    return isinstance(value, kind)


_LARGEST = sys.float_info.max  # nan fails both comparisons, ±inf the bounds


def _typed(record: dict, key: str, kind: type) -> Any:
    value = record[key]
    if not _is(value, kind):
        raise ValueError(f"the record's {key!r} must be a {kind.__name__}, not {value!r}")
    return value


def write_records(path: str | Path, records: Iterable[dict[str, Any]]) -> Path:
    """Write ``records`` (checked first: a bad one writes nothing) to ``path``, one compact JSON
    object per line; returns the path."""
    lines = [json.dumps(check_record(r), separators=(",", ":")) + "\n" for r in records]
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(lines))
    return path


def read_records(path: str | Path) -> list[dict[str, Any]]:
    """The records of a ``games.jsonl`` file (blank lines skipped); a ``ValueError`` naming the
    line of the first malformed one."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"no game records at {path}")
    records = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            records.append(check_record(json.loads(line)))
        except (ValueError, RecursionError) as error:
            raise ValueError(f"{path}, line {number}: {error}") from None
    return records


def chance_source(record: dict[str, Any]) -> int | ChanceSource:
    """What deals a checked record's game, as ``State.new``'s ``seed``: its ``deal_seed`` for
    the stream, numpy's ``default_rng(deal_seed)`` for a ``"numpy"`` record (or one without
    ``chance``: written before the stream, module docstring)."""
    if record.get("chance", NUMPY) == STREAM:
        return record["deal_seed"]
    return np.random.default_rng(record["deal_seed"])


def replay(record: dict[str, Any]) -> list[GameState]:
    """Every state of a recorded game, from the deal to the end (one more than its actions),
    its chance events drawn from the source the record names (:func:`chance_source`).

    ``ValueError`` if the record is malformed, an action is illegal, the game ends before the
    actions do or not at all, or the returns differ from the record's."""
    record = check_record(record)
    engine = get_game(record["game"]).engine
    try:
        state = engine.State.new(seed=chance_source(record), **record["options"])
    except (TypeError, ValueError) as error:
        raise ValueError(f"the record's options {record['options']!r}: {error}") from None
    if state.num_players != len(record["seats"]):
        raise ValueError(
            f"the record has {len(record['seats'])} seats for a {state.num_players}-player game"
        )
    states = [state.clone()]
    for _ in play_record(record, state, state.apply):
        states.append(state.clone())
    return states


def play_record(
    record: dict[str, Any], state: GameState, play: Callable[[int], None]
) -> Iterator[None]:
    """Play a checked record's actions one at a time with ``play`` (which applies one to
    ``state``, dealt from the record), yielding after each. ``ValueError`` if an action is illegal,
    the game ends before the actions do or not at all, or the returns differ from the record's."""
    actions = record["actions"]
    for number, action in enumerate(actions):
        if state.is_terminal():
            raise ValueError(f"the game is over after {number} actions; the record has more")
        try:
            play(action)
        except ValueError as error:
            raise ValueError(f"the record's action {number}: {error}") from None
        yield
    if not state.is_terminal():
        raise ValueError(f"the game is not over after the record's {len(actions)} actions")
    returns = [float(r) for r in state.returns()]
    if any(abs(a - b) > 1e-9 for a, b in zip(returns, record["returns"], strict=True)):
        raise ValueError(f"the replayed returns {returns} differ from the record's")

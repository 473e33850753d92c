"""Checks on what a browser sends: new games, agent specs, recorded games.

Each check returns clean values or raises :class:`RequestError` (a 4xx with a message saying
what is wrong), before any table is touched.
"""

from __future__ import annotations

from collections.abc import Iterable

from hot_envs.agents.shipped import shipped_names
from hot_envs.games import get_game
from hot_envs.records import check_record, replay
from hot_envs.web.tables import HUMAN, RequestError, Table, new_seed

# A browser may pick these agents and the checkpoints that ship with hot_envs; others (checkpoint
# files, ``module:factory``) only when the person who started the server named them
# (``hot-envs serve --agents …``): a spec can import code or read files on the server's machine.
BUILTIN_AGENTS = ("random", "heuristic", "search")
MAX_SEARCH_ROLLOUTS = 5000
MAX_SEARCH_SECONDS = 5.0


def offered_agents(allowed: Iterable[str] = ()) -> list[str]:
    """The agent specs the lobby offers: built-in, shipped checkpoints, then ``allowed``."""
    return [*BUILTIN_AGENTS, *shipped_names(), *allowed]


def check_spec(spec: object, allowed: Iterable[str] = ()) -> str:
    """``spec`` if a browser may choose it: a built-in agent (search with a bounded budget), a
    shipped checkpoint's name, a spec in ``allowed``, or ``human``."""
    if not isinstance(spec, str) or not spec:
        raise RequestError(400, f"a seat must be an agent spec (a string), not {spec!r}")
    if spec == HUMAN or spec in allowed or spec in shipped_names() or _builtin(spec):
        return spec
    raise RequestError(
        400,
        f"agent {spec!r} is not offered here: choose {', '.join(offered_agents(allowed))} or "
        "start the server with it (hot-envs serve --agents SPEC …)",
    )


def _builtin(spec: str) -> bool:
    name, _, arg = spec.partition(":")
    if name in ("random", "heuristic"):
        return name == "heuristic" or not arg
    if name != "search":
        return False
    budget, _, rollout = arg.partition(":")
    try:
        if budget.endswith("s") and float(budget[:-1]) > MAX_SEARCH_SECONDS:
            return False
        if budget.isdigit() and int(budget) > MAX_SEARCH_ROLLOUTS:
            return False
    except ValueError:
        pass  # make_agent says what is wrong with the budget
    return not rollout or _builtin(rollout)


def new_table(body: dict, allowed: Iterable[str] = ()) -> Table:
    """A played or watched table from ``{"game", "seats": [spec …], "seed"?}``."""
    _check_keys(body, required={"game", "seats"}, optional={"seed"})
    game = _game(body["game"])
    seats = body["seats"]
    if not isinstance(seats, list) or not 2 <= len(seats) <= 6:
        raise RequestError(400, f"seats must be a list of 2–6 agent specs, not {seats!r}")
    seats = [check_spec(spec, allowed) for spec in seats]
    seed = body.get("seed")
    if seed is None:
        seed = new_seed()
    elif isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise RequestError(400, f"seed must be an int 0 ≤ seed < 2**63, not {seed!r}")
    try:
        return Table(game, seats, seed)
    except ValueError as error:  # player counts, agent specs, checkpoint files
        raise RequestError(400, str(error)) from None


def replay_table(body: dict) -> Table:
    """A replay from ``{"record": {…}}``: one game record (:mod:`hot_envs.records`), checked
    move by move and against its returns before any table is made."""
    _check_keys(body, required={"record"})
    try:
        record = check_record(body["record"])
        replay(record)
    except ValueError as error:
        raise RequestError(400, f"cannot replay the record: {error}") from None
    game, seed = record["game"], record["deal_seed"]
    return Table(game, record["seats"], seed, record["options"], record=record["actions"])


def _game(name: object) -> str:
    if not isinstance(name, str):
        raise RequestError(400, f"game must be a name, not {name!r}")
    try:
        return get_game(name).name
    except ValueError as error:
        raise RequestError(400, str(error)) from None


def _check_keys(body: object, required: set[str], optional: set[str] = frozenset()) -> None:
    if not isinstance(body, dict):
        raise RequestError(400, "the request body must be a JSON object")
    missing = sorted(required - body.keys())
    if missing:
        raise RequestError(400, f"the request lacks {', '.join(missing)}")
    unknown = sorted(body.keys() - required - optional)
    if unknown:
        raise RequestError(400, f"unknown field(s) {', '.join(unknown)}")

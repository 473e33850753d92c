"""Checks on what a browser sends: new games, agent specs, recorded games.

Each check returns clean values or raises :class:`RequestError` (a 4xx with a message saying
what is wrong), before any table is touched.
"""

from __future__ import annotations

from collections.abc import Iterable

from hot_envs.agents.shipped import shipped_names
from hot_envs.evaluation.records import chance_source, check_record
from hot_envs.web.tables import HUMAN, RequestError, Table, new_seed, short

# A browser may pick these agents and the checkpoints that ship with hot_envs; others (checkpoint
# files, ``module:factory``) only when the person who started the server named them
# (``hot-envs serve --agents …``): a spec can import code or read files on the server's machine.
BUILTIN_AGENTS = ("random", "heuristic", "search", "search-strong")
# A search's budget, per decision. Its rollout policy plays every ply of every rollout, so it
# must be a leaf agent: a search there would multiply the budgets (and a checkpoint or the
# operator's agents would multiply the cost of a rollout).
MAX_SEARCH_ROLLOUTS = 2000
MAX_SEARCH_SECONDS = 2.0
ROLLOUT_AGENTS = ("random", "heuristic")
# A seat's name is kept with its table and sent with every answer: an agent spec, or in a replay
# whatever the record's seats say. The longest a browser is offered is under 30 characters.
MAX_SPEC_CHARS = 200
# Every number a record holds fits in 64 bits (a deal seed is 63): a larger one is no record the
# arena wrote, and some arithmetic on floats cannot take it.
MAX_RECORD_INT = 2**63


def offered_agents(allowed: Iterable[str] = ()) -> list[str]:
    """The agent specs the lobby offers: built-in, shipped checkpoints, then ``allowed``."""
    return [*BUILTIN_AGENTS, *shipped_names(), *allowed]


def check_spec(spec: object, allowed: Iterable[str] = ()) -> str:
    """``spec`` if a browser may choose it: a built-in agent (search with a bounded budget), a
    shipped checkpoint's name, a spec in ``allowed``, or ``human``."""
    if not isinstance(spec, str) or not spec:
        raise RequestError(400, f"a seat must be an agent spec (a string), not {short(spec)}")
    _check_length("an agent spec", spec)
    if spec == HUMAN or spec in allowed or spec in shipped_names() or _builtin(spec):
        return spec
    raise RequestError(
        400,
        f"agent {short(spec)} is not offered here: choose {', '.join(offered_agents(allowed))}"
        f" ({SEARCH_RULE}) or start the server with it (hot-envs serve --agents SPEC …)",
    )


SEARCH_RULE = (
    f"search[:BUDGET[:ROLLOUT]] with at most {MAX_SEARCH_ROLLOUTS} rollouts or "
    f"{MAX_SEARCH_SECONDS:g}s a decision and a rollout of {' or '.join(ROLLOUT_AGENTS)}"
)


def _builtin(spec: str) -> bool:
    name, _, arg = spec.partition(":")
    if name in ("random", "search-strong"):
        return not arg
    if name == "heuristic":
        return True  # make_agent says what is wrong with an epsilon
    if name != "search":
        return False
    budget, _, rollout = arg.partition(":")
    try:
        if budget.endswith("s") and not float(budget[:-1]) <= MAX_SEARCH_SECONDS:
            return False
        if budget.isdigit() and int(budget) > MAX_SEARCH_ROLLOUTS:
            return False
    except ValueError:
        pass  # make_agent says what is wrong with the budget
    leaf = rollout.partition(":")[0] in ROLLOUT_AGENTS and _builtin(rollout)
    return not rollout or leaf


def new_table(body: dict, allowed: Iterable[str] = ()) -> Table:
    """A played or watched table from ``{"game", "seats": [spec …], "seed"?}``."""
    _check_keys(body, required={"game", "seats"}, optional={"seed"})
    game = body["game"]
    if not isinstance(game, str):
        raise RequestError(400, f"game must be a name, not {short(game)}")
    seats = body["seats"]
    if not isinstance(seats, list) or not 2 <= len(seats) <= 6:
        raise RequestError(400, f"seats must be a list of 2–6 agent specs, not {short(seats)}")
    seats = [check_spec(spec, allowed) for spec in seats]
    seed = body.get("seed")
    if seed is None:
        seed = new_seed()
    elif isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise RequestError(400, f"seed must be an int 0 ≤ seed < 2**63, not {short(seed)}")
    try:
        return Table(game, seats, seed)
    except ValueError as error:  # the game's name, player counts, agent specs, checkpoint files
        raise RequestError(400, str(error)) from None


def replay_table(body: dict) -> Table:
    """A replay from ``{"record": {…}}``: one game record (:mod:`hot_envs.evaluation.records`) of at
    most :data:`~hot_envs.web.tables.MAX_REPLAY_MOVES` moves, checked move by move and against its
    returns (what :func:`hot_envs.evaluation.records.replay` checks, without keeping every
    state)."""
    _check_keys(body, required={"record"})
    _check_sizes(body["record"])
    try:
        record = check_record(body["record"])
        return Table(
            record["game"], record["seats"], chance_source(record), record["options"], record
        )
    except ValueError as error:
        raise RequestError(400, f"cannot replay the record: {error}") from None


def _check_length(what: str, text: str) -> None:
    if len(text) > MAX_SPEC_CHARS:
        raise RequestError(
            400, f"{what} has at most {MAX_SPEC_CHARS} characters, not {len(text)}: {short(text)}"
        )


def _check_sizes(record: object) -> None:
    """A record's seat names within :data:`MAX_SPEC_CHARS` and its numbers within 64 bits, before
    anything looks further (the record's own checks then say what else is wrong)."""
    if not isinstance(record, dict):
        return
    seats = record.get("seats")
    for seat in seats if isinstance(seats, list) else ():
        if isinstance(seat, str):
            _check_length("a record's seat name", seat)
    for key, value in record.items():
        pending = [value]
        while pending:  # JSON as deep as the parser went: no recursion here
            item = pending.pop()
            if isinstance(item, dict):
                pending.extend(item.values())
            elif isinstance(item, list):
                pending.extend(item)
            elif isinstance(item, int) and not -MAX_RECORD_INT < item < MAX_RECORD_INT:
                raise RequestError(
                    400,
                    f"cannot replay the record: its {short(key)} holds an integer of "
                    f"{item.bit_length()} bits; a record's numbers fit in 64 bits",
                )


def _check_keys(body: object, required: set[str], optional: set[str] = frozenset()) -> None:
    if not isinstance(body, dict):
        raise RequestError(400, "the request body must be a JSON object")
    missing = sorted(required - body.keys())
    if missing:
        raise RequestError(400, f"the request lacks {', '.join(missing)}")
    unknown = sorted(body.keys() - required - optional)
    if unknown:
        raise RequestError(400, f"unknown field(s) {', '.join(unknown)}")

"""A replay deals its game from the chance source its record names (docs/evaluation.md, records):
the seed's stream, or numpy's generator for a record written before records named one."""

from __future__ import annotations

import numpy as np
import pytest

from hot_envs.agents import make_agent
from hot_envs.agents.base import decide
from hot_envs.core.games import get_game
from hot_envs.evaluation.records import make_record


def numpy_dealt_record(game: str, options: dict, seats: list[str], seed: int) -> dict:
    """A record as an arena wrote it before the stream: dealt by ``default_rng(seed)``, without
    a ``chance`` field."""
    engine = get_game(game).engine
    state = engine.State.new(seed=np.random.default_rng(seed), **options)
    agents = [make_agent(spec, game, s) for s, spec in enumerate(seats)]
    actions = []
    while not state.is_terminal():
        actions.append(decide(agents[state.current_player], engine, state, state.current_player))
        state.apply(actions[-1])
    record = make_record(game, options, seed, seats, actions, state.returns())
    del record["chance"]
    return record


@pytest.mark.parametrize(
    ("game", "options"), [("heisse-luft", {}), ("heisse-karten", {"num_players": 3})]
)
def test_a_record_without_a_chance_source_replays_with_numpys_generator(client, game, options):
    n = options.get("num_players", 2)
    record = numpy_dealt_record(game, options, ["heuristic", "random", "random"][:n], seed=5)
    created = client.ok("POST", "/api/replays", {"record": record})
    state = get_game(game).engine.State.new(seed=np.random.default_rng(5), **options)
    assert client.ok("GET", f"/api/games/{created['id']}?seat=0")["view"] == state.view(0)
    client.ok("POST", f"/api/games/{created['id']}/seek", {"step": len(record["actions"])})
    assert client.ok("GET", f"/api/games/{created['id']}")["returns"] == record["returns"]

"""Golden decisions: fixed positions of each game with what every rule-based agent and shipped
policy decides there, stored once, so that any change to how an agent decides shows.

For each game ``tests/agents/golden/<game>.json.gz`` holds a few thousand positions (Heiße
Karten spread over 2–6 players), each a per-game engine's state dict and its seat to move (so
they stay the same whatever the engines' chance source does), reached by mixed heuristic and
uniformly random play from explicit numpy Generators. For each position:

* ``legal``: the legal actions, ascending;
* ``heuristic``: the heuristic's best-scored actions (``top`` of ``candidates``, its ties
  within its tolerance), and ``styles``: each suite style's, by spec;
* ``policy``: the greedy action of the game's shipped checkpoint (``heisse_luft_v0``,
  ``heisse_karten_v0``);
* ``features``: the sha256 of the exact float32 bytes of ``features.policy_input``.

Regenerate (only after an intended change of behaviour; review what moved) with
``python -m tests.agents.golden_decisions`` from the repository root.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

from hot_envs import batched
from hot_envs.agents import STYLES, make_agent
from hot_envs.agents.base import observe
from hot_envs.agents.features import policy_input
from hot_envs.core.games import get_game

FOLDER = Path(__file__).parent / "golden"
POLICIES = {"heisse-luft": "heisse_luft_v0", "heisse-karten": "heisse_karten_v0"}
# Positions per game and seat count, and the seed of each generator.
PLAN = {
    "heisse-luft": [(2, 2000, 101)],
    "heisse-karten": [(n, 500, 200 + n) for n in range(2, 7)],
}


def path(game: str) -> Path:
    return FOLDER / f"{get_game(game).name.replace('-', '_')}.json.gz"


def style_specs(game: str) -> list[str]:
    """The game's suite styles, by spec."""
    return [spec for spec, (owner, _, _) in STYLES.items() if owner == get_game(game).name]


def digest(packed: np.ndarray) -> str:
    """The sha256 of a packed policy input's exact float32 bytes."""
    return hashlib.sha256(np.ascontiguousarray(packed, dtype=np.float32).tobytes()).hexdigest()


def positions(game: str, players: int, count: int, seed: int) -> list[dict[str, Any]]:
    """``count`` positions of ``players``-seat games: every mover plays the heuristic with
    chance 0.6, else a uniformly random legal move; a play position is kept with chance 0.15,
    Heiße Luft's rarer exchange (HL-3.4) and trophy (HL-6) decisions always."""
    description = get_game(game)
    rng = np.random.default_rng(seed)
    heuristic = make_agent("heuristic", game, rng)
    found: list[dict[str, Any]] = []
    while len(found) < count:
        state = description.engine.State.new(seed=rng, **description.options(players))
        while not state.is_terminal() and len(found) < count:
            seat = state.current_player
            view = state.view(seat)
            legal = view["legal_actions"]
            rare = game == "heisse-luft" and view["phase"] != "play"
            if rare or rng.random() < 0.15:
                found.append({"state": state.to_dict(), "seat": seat})
            if rng.random() < 0.6:
                action = heuristic.act(observe(description.engine, state, seat), view)
            else:
                action = int(legal[rng.integers(len(legal))])
            state.apply(action)
    return found


def load_games(game: str, states: list[dict[str, Any]]) -> batched.ArrayGames:
    """An array engine holding ``states`` (state dicts), game ``i`` the ``i``-th."""
    description = get_game(game)
    options = {} if description.max_players == 2 else {"num_players": description.max_players}
    games = batched.make(game, len(states), **options)
    for i, state in enumerate(states):
        games.load_state(i, description.engine.State.from_dict(state))
    return games


def decide(game: str, found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What each agent decides at each position (module docstring), from the array path."""
    from hot_envs.agents.arrays import as_array_agent

    description = get_game(game)
    games = load_games(game, [p["state"] for p in found])
    which = np.arange(len(found))
    tops = {}
    for spec in ["heuristic", *style_specs(game)]:
        legal, top, counts = as_array_agent(game, make_agent(spec, game, 0)).candidates(
            games, which
        )
        tops[spec] = [top[j, : counts[j, 1]].tolist() for j in which]
    policy = make_agent(POLICIES[game], game, 0)
    chosen = policy.act_arrays(games, which)
    out = []
    for j, position in enumerate(found):
        state = description.engine.State.from_dict(position["state"])
        seat = position["seat"]
        view = state.view(seat)
        packed = policy_input(game, description.engine.encode(state, seat), view)
        out.append(
            {
                **position,
                "legal": list(view["legal_actions"]),
                "heuristic": tops["heuristic"][j],
                "styles": {spec: tops[spec][j] for spec in style_specs(game)},
                "policy": int(chosen[j]),
                "features": digest(packed),
            }
        )
    return out


def generate(game: str) -> list[dict[str, Any]]:
    found = []
    for players, count, seed in PLAN[game]:
        found += positions(game, players, count, seed)
    return decide(game, found)


def load(game: str) -> list[dict[str, Any]]:
    """The stored golden decisions of ``game``."""
    with gzip.open(path(game), "rt", encoding="utf-8") as file:
        return json.load(file)


def save(game: str, records: list[dict[str, Any]]) -> None:
    FOLDER.mkdir(exist_ok=True)
    text = json.dumps(records, separators=(",", ":"))
    with gzip.GzipFile(path(game), "wb", compresslevel=9, mtime=0) as file:
        file.write(text.encode("utf-8"))


if __name__ == "__main__":
    for name in PLAN:
        save(name, generate(name))
        print(f"{path(name)}: {path(name).stat().st_size:,} bytes")

"""Write the documentation's frames: ``python -m hot_envs.pictures [FOLDER]`` (default
``docs/images``) saves one picture of each game, taken from a seeded game between heuristics."""

from __future__ import annotations

import sys
from pathlib import Path

from hot_envs.agents import make_agent
from hot_envs.agents.base import decide
from hot_envs.core.games import GAMES, get_game
from hot_envs.pictures import picture

# (game, options, deal seed, moves played before the picture): positions with a full table,
# each game's ``picture_shot``.
SHOTS = {f"{game.key}_frame.png": (game.name, *game.picture_shot) for game in GAMES.values()}


def write_docs_frames(folder: str | Path) -> list[Path]:
    """Save :data:`SHOTS` as PNGs in ``folder``; returns their paths."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, (game_name, options, seed, moves) in SHOTS.items():
        game = get_game(game_name)
        state = game.engine.State.new(seed=seed, **options)
        agents = [
            make_agent("heuristic", game.name, seed * 10 + s) for s in range(state.num_players)
        ]
        for _ in range(moves):
            if state.is_terminal():  # the heuristics changed: show the end
                break
            mover = state.current_player
            state.apply(decide(agents[mover], game.engine, state, mover))
        picture(state).save(folder / name, optimize=True)
        paths.append(folder / name)
    return paths


if __name__ == "__main__":
    for path in write_docs_frames(sys.argv[1] if len(sys.argv) > 1 else "docs/images"):
        print(f"wrote {path}")

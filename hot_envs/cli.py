"""The ``hot-envs`` command line. Subcommands:

* ``hot-envs demo GAME [--seed N] [--players N] [--every K]`` — play one seeded game with random
  legal actions through the PettingZoo environment and render the table as it goes.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import numpy as np

from hot_envs.games import GAMES, get_game


def demo(game_name: str, seed: int, players: int | None, every: int) -> dict[str, float]:
    """Play and render one seeded game with uniformly random legal actions; return rewards."""
    game = get_game(game_name)
    kwargs = {"num_players": players} if players is not None else {}
    env = game.env.env(render_mode="ansi", **kwargs)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for step, agent in enumerate(env.agent_iter()):
        observation, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        action = int(rng.choice(legal))
        if step % every == 0:
            print(env.render(), end="\n\n")
        print(f"{agent}: {env.unwrapped.game.action_name(action)}")
        env.step(action)
    print()
    print(env.unwrapped.game.render())
    print("rewards:", ", ".join(f"{a} {r:+g}" for a, r in totals.items()))
    env.close()
    return totals


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hot-envs", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("demo", help="play and render one seeded game with random legal actions")
    p.add_argument("game", choices=sorted(GAMES))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--players", type=int, default=None, help="Heiße Karten: 2–6 players")
    p.add_argument("--every", type=int, default=10, help="render the table every K actions")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "demo":
            demo(args.game, args.seed, args.players, max(args.every, 1))
    except ValueError as error:  # bad options: a clear message, no traceback
        print(f"hot-envs: error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

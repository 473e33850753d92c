"""The ``hot-envs`` command line. Subcommands:

* ``hot-envs demo GAME [--seed N] [--players N] [--every K]`` — play one seeded game with random
  legal actions through the PettingZoo environment and render the table as it goes.
* ``hot-envs evaluate GAME --agents SPEC SPEC … [--games N] [--players N] [--out DIR]
  [--seed S] [--workers W]`` — a round robin between agents (:mod:`hot_envs.arena`): a table
  with win shares, 95 % intervals and ratings, and with ``--out`` JSON, CSV, a PNG and every game
  as a replayable record (``games.jsonl``, :mod:`hot_envs.records`).
* ``hot-envs train GAME [--players N] [--timesteps T] [--out DIR] …`` — train a MaskablePPO
  agent with :mod:`hot_envs.training.train`; with no options the README's main job (about 10
  minutes on 2 cores), ending with an evaluation table. ``--backend rllib`` trains on Ray RLlib
  instead
  (:mod:`hot_envs.training.rllib_train`: self-play or a league, one machine or a cluster).
* ``hot-envs play GAME --opponent SPEC [--players N] [--seat S] [--seed S]`` — play against
  agents in the terminal.
* ``hot-envs replay RECORDS [--game K] [--seat S] [--gif FILE] [--mp4 FILE]`` — step through a
  recorded game (``games.jsonl``) in the terminal, or write it as an animation
  (:mod:`hot_envs.viewer`).
* ``hot-envs watch GAME --agents SPEC SPEC … [--seed S] [--delay SECONDS] [--out DIR]`` — agents
  play one game at a chosen pace, shown move by move; with ``--browser`` on the browser table.
* ``hot-envs serve [--host H] [--port N] [--agents SPEC …] [--open]`` — the browser table
  (:mod:`hot_envs.web`, the web extra): play, watch agents, step through recorded games.

Agent specs: ``random``, ``heuristic``, ``search[:BUDGET]``, a checkpoint file, or
``package.module:factory`` (:func:`hot_envs.agents.make_agent`).
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from hot_envs.agents import SPEC_HELP, make_agent
from hot_envs.agents.play import agent_action
from hot_envs.arena import derive_seed, game_options, round_robin
from hot_envs.games import GAMES, get_game
from hot_envs.records import write_records
from hot_envs.report import build_report, print_report, save_report
from hot_envs.viewer import replay_game, watch


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


def evaluate(args: argparse.Namespace) -> dict:
    """Round robin of ``args.agents``; print the tables, save files to ``args.out``."""
    if len(args.agents) < 2:
        raise ValueError("evaluate needs at least two agents, e.g. --agents search heuristic")
    result = round_robin(
        args.game,
        args.agents,
        args.games,
        seed=args.seed,
        players=args.players,
        workers=args.workers,
        progress=not args.quiet,
    )
    report = build_report(result)
    print_report(report, title=f"{get_game(args.game).name}: {len(result.records)} games")
    if args.out:
        games = write_records(Path(args.out) / "games.jsonl", result.game_records())
        for path in [*save_report(report, args.out), games]:
            print(f"wrote {path}")
    return report


def play(
    game_name: str,
    opponent: str,
    players: int | None = None,
    seat: int = 0,
    seed: int | None = None,
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
) -> list[float] | None:
    """A human (``read``/``write``) plays ``seat`` against ``opponent`` agents in every other
    seat. Returns the rewards, or ``None`` when the human quits."""
    game = get_game(game_name)
    options = game_options(game.name, players)
    seed = int(np.random.SeedSequence(seed).entropy % 2**32) if seed is None else seed
    state = game.engine.State.new(seed=seed, **options)
    n = state.num_players
    if not 0 <= seat < n:
        raise ValueError(f"--seat must be 0–{n - 1} for {n} players, not {seat}")
    agents = {
        s: make_agent(opponent, game.name, derive_seed(seed, s)) for s in range(n) if s != seat
    }
    write(f"{game.name}, seed {seed}: you are player_{seat}; {opponent} plays the other seats.")
    write("Type a move's number or name (a unique prefix will do); q quits.\n")
    write(state.render(viewer=seat))
    while not state.is_terminal():
        mover = state.current_player
        if mover == seat:
            action = _ask(state, read, write)
            if action is None:
                write("You quit.")
                return None
            who = "you"
        else:
            action = agent_action(agents[mover], game.engine, state)
            who = f"player_{mover} ({opponent})"
        state.apply(action)
        write(f"\n{who}: {state.action_name(action)}\n")
        write(state.render(viewer=seat))
    returns = state.returns()
    write(f"\nGame over. {_verdict(returns, seat)} Rewards: " + _rewards(returns))
    return returns


def _verdict(returns: list[float], seat: int) -> str:
    best = max(returns)
    if returns[seat] < best:
        return "You lose."
    if returns.count(best) == 1:
        return "You win!"
    return "A draw." if min(returns) == best else "A shared win."


def _rewards(returns: list[float]) -> str:
    return ", ".join(f"player_{s} {r:+.2f}" for s, r in enumerate(returns))


def _ask(state: object, read: Callable[[str], str], write: Callable[[str], None]) -> int | None:
    """Prompt until the human names a legal move; ``None`` for quit or end of input."""
    chooser = MoveChooser(state.legal_actions(), state.action_name)
    write(chooser.listing())
    while True:
        try:
            text = read("your move> ")
        except (EOFError, KeyboardInterrupt):
            return None
        if text.strip().lower() in ("q", "quit", "exit"):
            return None
        if text.strip() in ("?", "help"):
            write(chooser.listing())
            continue
        action, problem = chooser.choose(text)
        if action is not None:
            return action
        write(problem)


_SUIT_LETTERS = str.maketrans({"♥": "h", "♦": "d", "♣": "c", "♠": "s"})


def _words(text: str) -> list[str]:
    """Lower-case words of a move name or of typed input: ``♥7 → stage 3`` → h7, stage, 3."""
    return re.findall(r"[\w]+", text.translate(_SUIT_LETTERS).lower().replace("'", ""))


class MoveChooser:
    """Legal moves by number (1, 2, …) or by name: the typed words must match the name's words
    in order, each word exactly or as a prefix (``h7 3 own`` for ``♥7 → stage 3, own side``)."""

    def __init__(self, actions: list[int], name: Callable[[int], str]) -> None:
        self.actions = actions
        self.names = [name(a) for a in actions]

    def listing(self) -> str:
        width = len(str(len(self.actions)))
        return "\n".join(f"  {i:>{width}}  {n}" for i, n in enumerate(self.names, 1))

    def choose(self, text: str) -> tuple[int | None, str]:
        """The action ``text`` names, or ``(None, why not)``."""
        typed = _words(text)
        if not typed:
            return None, "Type a move's number or name; ? lists the moves, q quits."
        if re.fullmatch(r"[+-]?\d+", text.strip()):  # a number never matches as a prefix
            number = int(text)
            if 1 <= number <= len(self.actions):
                return self.actions[number - 1], ""
            found = [i for i, n in enumerate(self.names) if _matches(typed, _words(n), True)]
            if number > 0 and len(found) == 1:  # a card's number, as in "play 36"
                return self.actions[found[0]], ""
            return None, self._not_legal(text)
        for exact in (True, False):
            found = [i for i, n in enumerate(self.names) if _matches(typed, _words(n), exact)]
            if len(found) == 1:
                return self.actions[found[0]], ""
            if len(found) > 1 and exact is False:
                options = "; ".join(self.names[i] for i in found[:6])
                more = " …" if len(found) > 6 else ""
                return (
                    None,
                    f"{text.strip()!r} fits {len(found)} moves ({options}{more}): say more.",
                )
        return None, self._not_legal(text)

    def _not_legal(self, text: str) -> str:
        return (
            f"{text.strip()!r} is not a legal move. Type 1–{len(self.actions)} or a name; "
            "? lists the moves, q quits."
        )


def _matches(typed: list[str], words: list[str], exact: bool) -> bool:
    """Whether ``typed`` words appear in ``words`` in order (equal, or as prefixes)."""
    position = 0
    for t in typed:
        while position < len(words) and not (
            words[position] == t or (not exact and words[position].startswith(t))
        ):
            position += 1
        if position == len(words):
            return False
        position += 1
    return True


BACKENDS = {
    "sb3": ("hot_envs.training.train", "train"),
    "rllib": ("hot_envs.training.rllib_train", "rllib"),
}


def train(argv: list[str]) -> int:
    """``hot-envs train [--backend sb3|rllib] …`` runs :func:`hot_envs.training.train.main` (sb3,
    the default: torch and sb3-contrib needed) or :func:`hot_envs.training.rllib_train.main` (Ray
    RLlib)."""
    backend, rest = _backend(argv)
    module, extra = BACKENDS[backend]
    try:
        train_main = importlib.import_module(module).main
    except ImportError as error:
        raise ValueError(
            f"the {backend} backend needs the {extra} extra: pip install -e '.[{extra}]' "
            f"({error.msg})"
        ) from None
    return train_main(rest)


def _backend(argv: list[str]) -> tuple[str, list[str]]:
    """``--backend NAME`` taken out of the training arguments (the rest is the script's)."""
    parser = argparse.ArgumentParser(prog="hot-envs train", add_help=False, allow_abbrev=False)
    parser.add_argument("--backend", choices=sorted(BACKENDS), default="sb3")
    known, rest = parser.parse_known_args(argv)
    return known.backend, rest


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hot-envs", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("demo", help="play and render one seeded game with random legal actions")
    p.add_argument("game", choices=sorted(GAMES))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--players", type=int, default=None, help="Heiße Karten: 2–6 players")
    p.add_argument("--every", type=int, default=10, help="render the table every K actions")

    p = sub.add_parser("evaluate", help="round robin between agents, with tables and plots")
    p.add_argument("game", choices=sorted(GAMES))
    p.add_argument("--agents", nargs="+", required=True, metavar="SPEC", help=SPEC_HELP)
    p.add_argument("--games", type=int, default=100, help="games per pair of agents")
    p.add_argument("--players", type=int, default=None, help="Heiße Karten: 2–6 players")
    p.add_argument(
        "--out", default=None, help="write JSON, CSV, PNG and games.jsonl to this folder"
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")

    p = sub.add_parser(
        "train",
        help="train a MaskablePPO agent (needs the train extra; --backend rllib: Ray RLlib, "
        "the rllib extra); `train [--backend rllib] -h` lists the options",
        add_help=False,
    )

    p = sub.add_parser("play", help="play against agents in the terminal")
    p.add_argument("game", choices=sorted(GAMES))
    p.add_argument("--opponent", default="heuristic", metavar="SPEC", help=SPEC_HELP)
    p.add_argument("--players", type=int, default=None, help="Heiße Karten: 2–6 players")
    p.add_argument("--seat", type=int, default=0, help="your seat (0 moves first)")
    p.add_argument("--seed", type=int, default=None)

    p = sub.add_parser("replay", help="step through a recorded game, or write it as GIF/MP4")
    p.add_argument("records", metavar="RECORDS", help="a games.jsonl file (evaluate/watch --out)")
    p.add_argument("--game", type=int, default=0, metavar="K", help="the K-th game, from 0")
    p.add_argument("--seat", type=int, default=None, help="show this seat (default: to move)")
    p.add_argument("--gif", default=None, metavar="FILE", help="write an animated GIF")
    p.add_argument("--mp4", default=None, metavar="FILE", help="write an MP4 (video extra)")
    p.add_argument("--fps", type=float, default=2.0, help="animation frames (moves) per second")

    p = sub.add_parser(
        "watch", help="watch agents play one game in the terminal (or with --browser)"
    )
    p.add_argument("game", choices=sorted(GAMES))
    p.add_argument("--agents", nargs="+", required=True, metavar="SPEC", help=SPEC_HELP)
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--delay", type=float, default=1.0, help="seconds between moves")
    p.add_argument("--seat", type=int, default=None, help="show this seat (default: to move)")
    p.add_argument("--out", default=None, help="keep the game in DIR/games.jsonl")
    p.add_argument("--browser", action="store_true", help="on the browser table (web extra)")
    _web_arguments(p)

    p = sub.add_parser("serve", help="the browser table: play, watch agents, replay records")
    _web_arguments(p)
    p.add_argument(
        "--agents",
        nargs="*",
        default=[],
        metavar="SPEC",
        help="agents browsers may choose besides random, heuristic and search (checkpoints, "
        "package.module:factory)",
    )
    p.add_argument("--open", action="store_true", help="open the page in a web browser")
    return parser


def _web_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--host", default="127.0.0.1", help="listen here (default: this machine only)")
    p.add_argument("--port", type=int, default=8765, help="0 picks a free port")


def web(args: argparse.Namespace) -> None:
    """``serve``, and ``watch --browser``: the browser table until Ctrl-C."""
    try:
        from hot_envs import web as table
    except ImportError as error:
        raise ValueError(
            f"the browser table needs the web extra: pip install -e '.[web]' ({error.msg})"
        ) from None
    if args.command == "serve":
        table.serve(args.host, args.port, args.agents, open_browser=args.open)
    elif args.out is not None:
        raise ValueError("--out keeps a game watched in the terminal; the browser table has none")
    else:
        table.watch_in_browser(
            args.game, args.agents, None, args.seed, args.delay, args.host, args.port, args.seat
        )


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv[:1] if argv[:1] == ["train"] else argv)
    try:
        if args.command == "train":  # everything after `train` is the training script's own
            return train(argv[1:])
        if args.command == "demo":
            demo(args.game, args.seed, args.players, max(args.every, 1))
        elif args.command == "evaluate":
            if args.games < 1:
                raise ValueError(f"--games must be positive, not {args.games}")
            evaluate(args)
        elif args.command == "play":
            play(args.game, args.opponent, args.players, args.seat, args.seed)
        elif args.command == "replay":
            replay_game(args.records, args.game, args.seat, args.gif, args.mp4, args.fps)
        elif args.command == "serve" or (args.command == "watch" and args.browser):
            web(args)
        elif args.command == "watch":
            watch(args.game, args.agents, args.seed, args.delay, args.seat, args.out)
    except ValueError as error:  # bad options: a clear message, no traceback
        print(f"hot-envs: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("hot-envs: interrupted", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The ``hot-envs`` command line; ``hot-envs COMMAND -h`` lists a command's options.

* ``demo``: one seeded game of random legal actions, rendered as it goes;
* ``evaluate``: a round robin between agents (:mod:`hot_envs.evaluation.arena`), with ``--out``
  also JSON, CSV, a PNG and every game as a record (:mod:`hot_envs.evaluation.records`);
* ``gauntlet``: one agent against every opponent of the suite, resumable with ``--out``
  (:mod:`hot_envs.evaluation.gauntlet`, docs/evaluation.md);
* ``train``: MaskablePPO (:mod:`hot_envs.training.train`, docs/training.md), Ray RLlib or OpenSpiel
  (``--backend``);
* ``exploit``: approximate exploitability, a best response trained against a frozen agent
  (:mod:`hot_envs.training.exploit`);
* ``play``: against agents in the terminal (:mod:`hot_envs.play.terminal`);
* ``replay``, ``watch``: a recorded game, or agents playing one, in the terminal or as an
  animation (:mod:`hot_envs.play.viewer`); ``watch --browser`` on the browser table;
* ``serve``: the browser table (:mod:`hot_envs.web`, the web extra).

Agent specs: ``random``, ``heuristic``, ``search[:BUDGET]``, a checkpoint file, or
``package.module:factory`` (:func:`hot_envs.agents.make_agent`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from hot_envs.agents import SPEC_HELP, make_agent
from hot_envs.core.arguments import (
    BACKENDS,
    non_negative_int,
    positive_float,
    positive_int,
    split_backend,
    training_entry,
)
from hot_envs.core.errors import UsageError, usage_errors
from hot_envs.core.games import GAMES, get_game
from hot_envs.evaluation.arena import game_options, round_robin
from hot_envs.evaluation.records import write_records
from hot_envs.evaluation.report import build_report, check_out_dir, print_report, save_report
from hot_envs.play.terminal import play
from hot_envs.play.viewer import replay_game, watch


def demo(game_name: str, seed: int, players: int | None, every: int) -> None:
    """Play and render one seeded game with uniformly random legal actions."""
    game = get_game(game_name)
    env = game.env.env(render_mode="ansi", **game_options(game.name, players))
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


def evaluate(args: argparse.Namespace) -> None:
    """Round robin of ``args.agents``; print the tables, save files to ``args.out``."""
    from hot_envs.evaluation.batch import load_once

    with usage_errors():  # the request, before any game is played
        if len(args.agents) < 2:
            raise ValueError("evaluate needs at least two agents, e.g. --agents search heuristic")
        out = None
        if args.out:
            try:
                out = check_out_dir(args.out)
            except ValueError as error:
                raise ValueError(f"--out: {error}") from None
        game_options(args.game, args.players)
        for spec in args.agents:
            load_once(spec, args.game)  # a checkpoint loaded here is the one the games use
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
    if out is not None:
        games = write_records(out / "games.jsonl", result.game_records())
        for path in [*save_report(report, out), games]:
            print(f"wrote {path}")


def run_gauntlet(args: argparse.Namespace) -> None:
    """``hot-envs gauntlet``: :func:`hot_envs.evaluation.gauntlet.gauntlet`, its table and its
    files."""
    from hot_envs.evaluation.batch import load_once
    from hot_envs.evaluation.gauntlet import gauntlet

    players = args.players
    with usage_errors():  # the request, before any game is played
        if players == ["all"]:
            players = "all"
        elif players is not None:
            try:
                players = [int(n) for n in players]
            except ValueError:
                raise ValueError(
                    f"--players: table sizes or 'all', not {' '.join(players)}"
                ) from None
            for n in players:
                game_options(args.game, n)
        for spec in [args.agent, *(args.opponents or [])]:
            load_once(spec, args.game)  # a checkpoint loaded here is the one the games use
    result = gauntlet(
        args.game,
        args.agent,
        players=players,
        games=args.games,
        out=args.out,
        opponents=args.opponents,
        costly_games=args.costly_games,
        seed=args.seed,
        workers=args.workers,
        progress=not args.quiet,
    )
    print(result.table())
    for name in ("gauntlet.json", "gauntlet.csv", "gauntlet.png") if args.out else ():
        if (Path(args.out) / name).is_file():  # no PNG without matplotlib
            print(f"wrote {Path(args.out) / name}")


def train(argv: list[str]) -> int:
    """``hot-envs train [--backend NAME] …`` runs the backend's ``main``: sb3 (the default,
    :mod:`hot_envs.training.train`), rllib, openspiel or another installed package's
    ``hot_envs.trainers`` entry point (:func:`hot_envs.core.arguments.training_entry`)."""
    backend, rest = split_backend(argv)
    try:
        train_main = training_entry(backend)
    except ImportError as error:
        if backend not in BACKENDS:  # another package's
            raise UsageError(f"the {backend} backend does not import ({error.msg})") from None
        extra = BACKENDS[backend]
        raise UsageError(
            f"the {backend} backend needs the {extra} extra: pip install -e '.[{extra}]' "
            f"({error.msg})"
        ) from None
    return train_main(rest)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hot-envs", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("demo", help="play and render one seeded game with random legal actions")
    p.add_argument("game", choices=sorted(GAMES))
    p.add_argument("--seed", type=non_negative_int, default=0, help="seed of the deal and moves")
    p.add_argument("--players", type=int, help="Heiße Karten: 2–6 players")
    p.add_argument(
        "--every", type=positive_int, default=10, help="render the table every K actions"
    )

    p = sub.add_parser("evaluate", help="round robin between agents, with tables and plots")
    p.add_argument("game", choices=sorted(GAMES))
    p.add_argument("--agents", nargs="+", required=True, metavar="SPEC", help=SPEC_HELP)
    p.add_argument("--games", type=positive_int, default=100, help="games per pair of agents")
    p.add_argument("--players", type=int, help="Heiße Karten: 2–6 players")
    _job_arguments(
        p, "write JSON, CSV, PNG and games.jsonl to this folder", "seed of deals and agents"
    )

    p = sub.add_parser(
        "gauntlet", help="one agent against every opponent of the suite (docs/evaluation.md)"
    )
    p.add_argument("game", choices=sorted(GAMES))
    p.add_argument("--agent", required=True, metavar="SPEC", help=SPEC_HELP)
    p.add_argument(
        "--players", nargs="+", metavar="N",
        help="table sizes, or 'all' (default 2; Heiße Karten: 2–6)",
    )  # fmt: skip
    p.add_argument("--games", type=positive_int, default=200, help="games per opponent and size")
    p.add_argument(
        "--costly-games", type=positive_int, metavar="N",
        help="games against the costly opponents (the search agent), if fewer",
    )  # fmt: skip
    p.add_argument("--opponents", nargs="+", metavar="SPEC", help="default: the whole suite")
    _job_arguments(p, "keep the games (resumable), JSON, CSV and PNG", "seed of deals and agents")

    p = sub.add_parser(
        "train",
        help="train a MaskablePPO agent (needs the train extra; --backend rllib: Ray RLlib, "
        "the rllib extra); `train [--backend rllib] -h` lists the options",
        add_help=False,
    )

    p = sub.add_parser(
        "exploit",
        help="approximate exploitability: train a best response to a frozen agent for M "
        "minutes and measure it (needs the train extra)",
    )
    p.add_argument("game", choices=sorted(GAMES))
    p.add_argument("--agent", required=True, metavar="SPEC", help=f"the frozen agent: {SPEC_HELP}")
    budget = p.add_mutually_exclusive_group()
    budget.add_argument("--minutes", type=positive_float, help="minutes of PPO (default 5)")
    budget.add_argument(
        "--steps",
        type=positive_int,
        help="PPO steps instead of minutes: the same budget for agents of different cost",
    )
    p.add_argument("--players", type=int, default=2, help="table size (Heiße Karten: 2–6)")
    p.add_argument(
        "--games", type=positive_int, default=1000, help="games of the final measurement"
    )
    _job_arguments(p, "folder (default runs/exploit-GAME-TIME/)", "seed of training and deals")
    p.add_argument("--config", help="training config (default the game's)")
    p.add_argument(
        "--curve-games", type=positive_int, default=200, help="games per learning-curve point"
    )
    p.add_argument(
        "--curve-every",
        type=positive_int,
        metavar="STEPS",
        help="PPO steps between learning-curve points (default: about 5 points)",
    )

    p = sub.add_parser("play", help="play against agents in the terminal")
    p.add_argument("game", choices=sorted(GAMES))
    p.add_argument("--opponent", default="heuristic", metavar="SPEC", help=SPEC_HELP)
    p.add_argument("--players", type=int, help="Heiße Karten: 2–6 players")
    p.add_argument("--seat", type=int, default=0, help="your seat (0 moves first)")
    p.add_argument("--seed", type=non_negative_int, help="seed (default: random)")

    p = sub.add_parser("replay", help="step through a recorded game, or write it as GIF/MP4")
    p.add_argument("records", metavar="RECORDS", help="a games.jsonl file (evaluate/watch --out)")
    p.add_argument(
        "--game", type=non_negative_int, default=0, metavar="K", help="the K-th game, from 0"
    )
    p.add_argument("--seat", type=int, help="show this seat (default: to move)")
    p.add_argument("--gif", metavar="FILE", help="write an animated GIF")
    p.add_argument("--mp4", metavar="FILE", help="write an MP4 (video extra)")
    p.add_argument("--fps", type=float, default=2.0, help="animation frames (moves) per second")

    p = sub.add_parser(
        "watch", help="watch agents play one game in the terminal (or with --browser)"
    )
    p.add_argument("game", choices=sorted(GAMES))
    p.add_argument("--agents", nargs="+", required=True, metavar="SPEC", help=SPEC_HELP)
    p.add_argument("--seed", type=non_negative_int, help="seed (default: random)")
    p.add_argument("--delay", type=float, default=1.0, help="seconds between moves")
    p.add_argument("--seat", type=int, help="show this seat (default: to move)")
    p.add_argument("--out", help="keep the game in DIR/games.jsonl")
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
    p.add_argument(
        "--tables-per-client",
        type=positive_int,
        metavar="N",
        help="games one client (an address) may keep at once, past it 429 (default: 100)",
    )
    p.add_argument(
        "--connections-per-client",
        type=positive_int,
        metavar="N",
        help="connections one client (an address) may hold at once, past it a new one is "
        "dropped (default: 100)",
    )
    return parser


def exploit(args: argparse.Namespace) -> None:
    """``hot-envs exploit``: :func:`hot_envs.training.exploit.exploit`, then its table."""
    try:
        best_response = training_entry("exploit")
    except ImportError as error:
        raise UsageError(
            f"exploit trains with MaskablePPO and needs the train extra: pip install -e "
            f"'.[train]' ({error.msg})"
        ) from None
    with usage_errors():  # the request, before the best response trains
        make_agent(args.agent, args.game)
        game_options(args.game, args.players)
    result = best_response.exploit(
        args.game,
        args.agent,
        minutes=args.minutes,
        steps=args.steps,
        players=args.players,
        games=args.games,
        out=args.out,
        seed=args.seed,
        config=args.config,
        curve_games=args.curve_games,
        overrides={"eval_every": args.curve_every} if args.curve_every else None,
        workers=args.workers,
        progress=not args.quiet,
    )
    print(best_response.format_result(result))
    print(f"wrote {Path(result.run).parent}/exploit.json, learning_curve.csv, learning_curve.png")


def _job_arguments(p: argparse.ArgumentParser, out: str, seed: str) -> None:
    """The long jobs' (evaluate, gauntlet, exploit) --out, --seed, --workers and --quiet."""
    p.add_argument("--out", help=out)
    p.add_argument("--seed", type=non_negative_int, default=0, help=seed)
    # The arena's default: every core, but where games play in batches on the array engines one
    # process per full batch (hot_envs.evaluation.arena.play_tasks).
    workers = "processes (default: all cores, but in batches as many as have a full batch each)"
    p.add_argument("--workers", type=positive_int, help=workers)
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def _web_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--host", default="127.0.0.1", help="listen here (default: this machine only)")
    p.add_argument("--port", type=int, default=8765, help="0 picks a free port")
    p.add_argument(
        "--allow-origin",
        nargs="+",
        default=[],
        metavar="ORIGIN",
        help="pages of these origins (https://host[:port], say a proxy's) may play too",
    )


def web(args: argparse.Namespace) -> None:
    """``serve``, and ``watch --browser``: the browser table until Ctrl-C."""
    try:
        from hot_envs import web as table
    except ImportError as error:
        raise ValueError(
            f"the browser table needs the web extra: pip install -e '.[web]' ({error.msg})"
        ) from None
    where = {"host": args.host, "port": args.port, "allow_origins": args.allow_origin}
    if args.command == "serve":
        limits = {
            name: value
            for name in ("tables_per_client", "connections_per_client")
            if (value := getattr(args, name)) is not None
        }
        table.serve(agents=args.agents, open_browser=args.open, **where, **limits)
    elif args.out is not None:
        raise ValueError("--out keeps a game watched in the terminal; the browser table has none")
    else:
        table.watch_in_browser(
            args.game, args.agents, seed=args.seed, pace=args.delay, seat=args.seat, **where
        )


def main(argv: Sequence[str] | None = None) -> int:
    """The command. A request that fails its checks (:class:`~hot_envs.core.errors.UsageError`) is
    one line and exit status 2; an error of the work itself — training, games — keeps its
    traceback. The long jobs check their requests before they start (``evaluate``, ``gauntlet``,
    ``exploit``, and the training scripts' own); the short interactive ones (``demo``, ``play``,
    ``replay``, ``watch``, ``serve``) count any ``ValueError`` as the request's."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv[:1] if argv[:1] == ["train"] else argv)
    try:
        if args.command == "train":  # everything after `train` is the training script's own
            return train(argv[1:])
        long_jobs = {"evaluate": evaluate, "gauntlet": run_gauntlet, "exploit": exploit}
        if args.command in long_jobs:
            long_jobs[args.command](args)
        else:
            with usage_errors():
                interactive(args)
    except UsageError as error:  # a bad request: a clear message, no traceback
        print(f"hot-envs: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("hot-envs: interrupted", file=sys.stderr)
        return 130
    return 0


def interactive(args: argparse.Namespace) -> None:
    """The short commands, watched as they run: demo, play, replay, watch and serve."""
    if args.command == "demo":
        demo(args.game, args.seed, args.players, args.every)
    elif args.command == "play":
        play(args.game, args.opponent, args.players, args.seat, args.seed)
    elif args.command == "replay":
        replay_game(args.records, args.game, args.seat, args.gif, args.mp4, args.fps)
    elif args.command == "serve" or (args.command == "watch" and args.browser):
        web(args)
    elif args.command == "watch":
        watch(args.game, args.agents, args.seed, args.delay, args.seat, args.out)


if __name__ == "__main__":
    sys.exit(main())

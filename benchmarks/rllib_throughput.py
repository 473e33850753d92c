"""Training throughput on Ray RLlib against the SB3 path, same game, same machine, same run; and
how RLlib's throughput grows with env runners.

* **SB3** — ``MaskablePPO.learn`` as ``training/train.py`` runs it: the game's config (network,
  PPO settings), ``--sb3-envs`` ``SubprocVecEnv`` workers, the learner in one seat and
  random + heuristic opponents in the others, moved inside the env.
* **RLlib** — ``training/rllib_train.py`` in shared self-play (every seat is a learning sample)
  with the same network and a comparable PPO setup, for each ``--runners`` count, ``--envs``
  games per runner, the learner in the driver; one warm-up iteration (Ray start, actors, the
  first weights) is left out of the timing. RLlib's own timers split an iteration into
  sampling (the env runners, in parallel with nothing else) and the learner's update.

Both count **samples**: the moves that feed PPO (SB3: the learner's own moves; RLlib: every
move, one policy plays all seats). The **moves/s** column counts every move played, the
opponents' too (SB3: samples × the moves per learner move of that game, counted in the run).

    python benchmarks/rllib_throughput.py [--games heisse-luft heisse-karten] [--players 3]
        [--runners 1 2] [--iterations 3] [--sb3-timesteps 16384] [--repeats 3]

Prints a table and writes ``rllib_throughput.{json,md,png}`` to ``--out``
(default ``benchmarks/results``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # hot_envs from a source checkout
from hot_envs.core.games import get_game  # noqa: E402


def sb3(game: str, players: int, n_envs: int, timesteps: int, seed: int) -> dict[str, Any]:
    """``MaskablePPO.learn`` for ``timesteps`` learner steps with the game's training config."""
    from functools import partial

    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import SubprocVecEnv

    from hot_envs.envs.single_agent import SingleAgentEnv
    from hot_envs.training.settings import parse_args

    torch.set_num_threads(1)
    choice = len(get_game(game).players) > 1
    args = parse_args([game] + (["--players", str(players)] if choice else []))
    make_env = partial(
        SingleAgentEnv, game, opponents=["random", "heuristic"], players=args.players
    )
    envs = make_vec_env(make_env, n_envs=n_envs, seed=seed, vec_env_cls=SubprocVecEnv)
    model = MaskablePPO(
        "MlpPolicy",
        envs,
        learning_rate=args.learning_rate,
        n_steps=max(1, args.rollout_steps // n_envs),
        batch_size=args.batch_size,
        n_epochs=args.n_epochs,
        gamma=args.gamma,
        policy_kwargs={"net_arch": list(args.net_arch)},
        seed=seed,
        device="cpu",
    )
    start = time.perf_counter()
    model.learn(timesteps)
    seconds = time.perf_counter() - start
    envs.close()
    return {
        "backend": "sb3",
        "workers": f"{n_envs} SubprocVecEnv",
        "samples": model.num_timesteps,
        "seconds": seconds,
        "samples_per_second": model.num_timesteps / seconds,
        "moves_per_sample": moves_per_learner_move(game, args.players, seed),
    }


def moves_per_learner_move(game: str, players: list[int] | None, seed: int) -> float:
    """All moves / the learner's moves over 40 games of the SB3 setup: a random learner (as an
    untrained one is) in a rotating seat, random or heuristic opponents."""
    import numpy as np

    from hot_envs.agents import make_agent
    from hot_envs.agents.base import decide

    engine = get_game(game).engine
    rng = np.random.default_rng(seed)
    opponents = [make_agent(spec, game, seed) for spec in ("random", "heuristic")]
    learner = total = 0
    for g in range(40):
        options = {"num_players": players[g % len(players)]} if players else {}
        state = engine.State.new(seed=rng, **options)
        seat, opponent = g % state.num_players, opponents[g % 2]
        while not state.is_terminal():
            mover, legal = state.current_player, state.legal_actions()
            if mover == seat:
                action = int(rng.choice(legal))
                learner += 1
            else:
                action = decide(opponent, engine, state, mover)
            total += 1
            state.apply(action)
    return total / learner


def rllib(
    game: str, players: int, runners: int, envs: int, iterations: int, seed: int
) -> dict[str, Any]:
    """``iterations`` timed iterations of shared self-play after one warm-up iteration."""
    from hot_envs.training.rllib_train import build_config, parse_args

    argv = [game, "--players", str(players), "--env-runners", str(runners)]
    argv += ["--envs-per-runner", str(envs), "--seed", str(seed)]
    algorithm = build_config(parse_args(argv)).build_algo()
    try:
        first = algorithm.train()["env_runners"]["num_env_steps_sampled_lifetime"]
        start = time.perf_counter()
        sampling = updating = 0.0
        for _ in range(iterations):
            result = algorithm.train()
            sampling += result["timers"]["env_runner_sampling_timer"]
            updating += result["timers"]["learner_update_timer"]
        seconds = time.perf_counter() - start
    finally:
        algorithm.stop()
    samples = int(result["env_runners"]["num_env_steps_sampled_lifetime"] - first)
    return {
        "backend": "rllib",
        "workers": f"{runners} env runner{'s' * (runners > 1)} × {envs} envs",
        "runners": runners,
        "iterations": iterations,
        "samples": samples,
        "seconds": seconds,
        "samples_per_second": samples / seconds,
        "moves_per_sample": 1.0,
        "sampling_seconds": sampling,
        "update_seconds": updating,
        "illegal_actions": int(result["env_runners"].get("illegal_actions_lifetime", 0)),
    }


def median_run(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The run with the median samples/s (all its columns), with every run's figure beside it."""
    ordered = sorted(runs, key=lambda r: r["samples_per_second"])
    return {
        **ordered[(len(ordered) - 1) // 2],
        "all_samples_per_second": [round(r["samples_per_second"], 1) for r in runs],
    }


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| game | backend | workers | samples/s (median) | all runs | moves/s | vs SB3 "
        "| sampling only, samples/s | update s/iteration |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        base = next(
            b["samples_per_second"]
            for b in rows
            if b["game"] == r["game"] and b["backend"] == "sb3"
        )
        lines.append(
            f"| {r['game']} | {r['backend']} | {r['workers']} | {r['samples_per_second']:,.0f} | "
            f"{', '.join(f'{x:,.0f}' for x in r['all_samples_per_second'])} | "
            f"{r['samples_per_second'] * r['moves_per_sample']:,.0f} | "
            f"{r['samples_per_second'] / base:.2f}× | "
            + (
                f"{r['samples'] / r['sampling_seconds']:,.0f} | "
                f"{r['update_seconds'] / r['iterations']:.2f} |"
                if "sampling_seconds" in r
                else "– | – |"
            )
        )
    return "\n".join(lines)


def plot(rows: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [f"{r['game']}\n{r['backend']}: {r['workers']}" for r in rows]
    fig, ax = plt.subplots(figsize=(9, 0.5 * len(rows) + 1.5))
    ax.barh(labels, [r["samples_per_second"] for r in rows], color="tab:blue")
    ax.invert_yaxis()
    ax.set_xlabel("PPO samples per second during training")
    ax.set_title(f"RLlib vs SB3 training throughput ({os.cpu_count()} cores)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=["heisse-luft", "heisse-karten"])
    parser.add_argument("--players", type=int, default=3, help="Heiße Karten seats")
    parser.add_argument("--runners", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--envs", type=int, default=8, help="games per RLlib env runner")
    parser.add_argument("--iterations", type=int, default=3, help="timed RLlib iterations")
    parser.add_argument("--sb3-envs", type=int, default=8)
    parser.add_argument("--sb3-timesteps", type=int, default=16384)
    parser.add_argument("--repeats", type=int, default=3, help="runs per setup; the median shows")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args(argv)

    import ray

    from hot_envs.training.rllib_train import redirect_ray_results

    ray_dir = Path(tempfile.mkdtemp(prefix="ray", dir="/tmp"))
    redirect_ray_results(ray_dir / "ray_results")
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    ray.init(num_cpus=max(args.runners), include_dashboard=False, _temp_dir=str(ray_dir))
    runs: dict[tuple[str, str], list[dict[str, Any]]] = {}
    try:
        for repeat in range(args.repeats):  # interleaved: load from other jobs hits all alike
            for game in args.games:
                choice = len(get_game(game).players) > 1
                players = args.players if choice else get_game(game).min_players
                print(f"[{repeat + 1}/{args.repeats}] {game}: SB3 …", flush=True)
                row = sb3(game, players, args.sb3_envs, args.sb3_timesteps, args.seed)
                runs.setdefault((game, row["workers"]), []).append({"game": game, **row})
                for runners in args.runners:
                    print(f"[{repeat + 1}/{args.repeats}] {game}: RLlib, {runners} runners …")
                    row = rllib(game, players, runners, args.envs, args.iterations, args.seed)
                    runs.setdefault((game, row["workers"]), []).append({"game": game, **row})
    finally:
        ray.shutdown()
        shutil.rmtree(ray_dir, ignore_errors=True)
    rows = [median_run(group) for group in runs.values()]
    text = table(rows)
    note = (
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, torch 1 thread, "
        f"{time.strftime('%Y-%m-%d')}; Heiße Karten with {args.players} players; median of "
        f"{args.repeats} interleaved runs"
    )
    print(f"\n{text}\n\n{note}")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "rllib_throughput.md").write_text(f"{text}\n\n{note}\n")
    (args.out / "rllib_throughput.json").write_text(
        json.dumps({"note": note, "rows": rows}, indent=2) + "\n"
    )
    plot(rows, args.out / "rllib_throughput.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

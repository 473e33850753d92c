"""Training throughput: environment steps per second during ``MaskablePPO.learn``, and where the
time goes.

Both parts build the model exactly as training does
(``hot_envs.training.train.build_model`` with the game's config: PPO settings, network,
``rollout_steps`` over the envs) against the league's opponent mix (random, heuristic, and a
sampling numpy snapshot of the learner itself).

1. **Throughput** — ``learn`` for ``--timesteps`` steps on ``--n-envs`` ``SubprocVecEnv``
   workers (default: the training default, 4 per core up to 16; give several to compare them in
   the same run). Counts every env step, PPO updates included. Each setting runs ``--repeats``
   times, the settings taking turns, and the median counts — on a shared machine a busy minute
   then slows every setting alike instead of one.
2. **Breakdown** — the same in one process (``DummyVecEnv``, one env), with wall-clock timers
   around the parts: the PPO update (``train``), the policy's forward passes while collecting
   rollouts, the learner's side of the env (engine, encoding, masks, resets), the opponents'
   moves (their agents' ``act``; the engine, encoding and views around it), and the rest
   (rollout buffer, GAE, tensor conversion, callbacks). Timers cost well under a microsecond a
   call, so — unlike a profiler — they leave the proportions as they are. With worker processes
   the env and opponent parts run on the other cores, in parallel with the main process's
   forward passes.

    python benchmarks/training_throughput.py [--games heisse-luft] [--timesteps 16384]
                                             [--n-envs 1 2 8] [--repeats 3] [--out DIR]

Prints both tables and writes ``training_throughput.{md,json,png}`` into ``--out`` (default
``benchmarks/results``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from collections import defaultdict
from datetime import datetime, timezone
from functools import partial, wraps
from pathlib import Path
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

from hot_envs.agents.checkpoint import CheckpointAgent, numpy_policy
from hot_envs.single_agent import SingleAgentEnv

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # hot_envs from a source checkout
from hot_envs.training.train import Args, build_model, default_n_envs, parse_args  # noqa: E402

RESULTS = Path(__file__).parent / "results"
OPPONENTS = ["random", ("heuristic", 2.0)]  # + the learner's snapshot, weight 3 (build)
PARTS = (
    "PPO update (train)",
    "policy forward in rollouts",
    "learner's env: steps, resets, masks",
    "opponents: their agents' act",
    "opponents: engine, encoding, views",
    "rest: buffer, GAE, tensors, callbacks",
)


def build(args: Args, n_envs: int) -> MaskablePPO:
    """The training model of ``args.game`` on ``n_envs`` envs against random, heuristic and
    itself."""
    game, seed = args.game, args.seed
    make_env = partial(
        SingleAgentEnv,
        game,
        opponents=OPPONENTS,
        players=args.players,
        game_options=args.game_options,
        shaping=args.shaping,
    )
    vec_env_cls = SubprocVecEnv if n_envs > 1 else DummyVecEnv
    envs = make_vec_env(make_env, n_envs=n_envs, seed=seed, vec_env_cls=vec_env_cls)
    model = build_model(args, envs)
    snapshot = CheckpointAgent(numpy_policy(model), {"game": game}, sample=True, seed=seed)
    envs.env_method("set_opponent", "snapshot", snapshot, 3.0)
    return model


def learn_once(args: Args, n_envs: int, timesteps: int) -> tuple[float, int, int]:
    """Seconds of one ``learn``, the steps it took and its ``n_steps`` per worker."""
    model = build(args, n_envs)
    start = time.perf_counter()
    model.learn(timesteps)
    seconds = time.perf_counter() - start
    model.env.close()
    return seconds, model.num_timesteps, model.n_steps


def throughput(
    configs: list[Args], counts: list[int], timesteps: int, repeats: int
) -> list[dict[str, Any]]:
    """Steps/s per game and worker count: the median of ``repeats`` interleaved runs."""
    runs: dict[tuple[str, int], list[tuple[float, int, int]]] = defaultdict(list)
    for _ in range(repeats):
        for args in configs:
            for n in counts:
                runs[args.game, n].append(learn_once(args, n, timesteps))
    rows = []
    for (game, n), results in runs.items():
        rates = sorted(steps / seconds for seconds, steps, _ in results)
        rows.append(
            {
                "game": game,
                "n_envs": n,
                "n_steps": results[0][2],
                "steps": results[0][1],
                "repeats": len(results),
                "seconds": [seconds for seconds, _, _ in results],
                "steps_per_second": float(np.median(rates)),
                "steps_per_second_range": [rates[0], rates[-1]],
            }
        )
    return rows


class Timers:
    """Inclusive wall-clock seconds and call counts of wrapped methods, by label."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)

    def wrap(self, obj: Any, method: str, label: str) -> None:
        """Time ``obj.method`` (an instance attribute shadows the class's method)."""
        inner = getattr(obj, method)

        @wraps(inner)
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                self.seconds[label] += time.perf_counter() - start
                self.calls[label] += 1

        setattr(obj, method, timed)


def breakdown(args: Args, timesteps: int) -> dict[str, Any]:
    """``learn`` in one process with timers around the parts (module docstring)."""
    model = build(args, 1)
    env: SingleAgentEnv = model.env.envs[0].unwrapped
    timers = Timers()
    timers.wrap(model, "train", "train")
    timers.wrap(model.policy, "forward", "forward")
    for method in ("step", "reset", "action_masks"):
        timers.wrap(env, method, "env")
    timers.wrap(env, "_play_opponents", "opponents")
    built = env.pool.agent
    timed_agents: set[int] = set()

    def agent(name: str, game: str, rng: np.random.Generator) -> Any:
        built_agent = built(name, game, rng)
        if id(built_agent) not in timed_agents:
            timed_agents.add(id(built_agent))
            timers.wrap(built_agent, "act", "act")
        return built_agent

    env.pool.agent = agent
    start = time.perf_counter()
    model.learn(timesteps)
    total = time.perf_counter() - start
    s = timers.seconds
    train, forward, act = s["train"], s["forward"], s["act"]
    measured = (train, forward, s["env"] - s["opponents"], act, s["opponents"] - act)
    seconds = dict(zip(PARTS, measured, strict=False))  # the rest: what no timer saw
    seconds[PARTS[-1]] = total - sum(seconds.values())
    return {
        "game": args.game,
        "steps": model.num_timesteps,
        "seconds": total,
        "steps_per_second": model.num_timesteps / total,
        "updates": timers.calls["train"],
        "opponent_moves": timers.calls["act"],
        "parts": seconds,
    }


def markdown(rows: list[dict], profiles: list[dict], info: dict) -> str:
    lines = [
        "# Training throughput",
        "",
        "`python benchmarks/training_throughput.py` — `MaskablePPO.learn` with the game's "
        "training config (`hot_envs.training.train.build_model`) against random, heuristic and a "
        f"numpy snapshot of the learner; {info['cores']} cores, torch 1 thread.",
        "",
        f"Steps/s: median of {rows[0]['repeats']} runs of {rows[0]['steps']:,} steps per "
        "setting, the settings taking turns; ratio to the one-process run.",
        "",
        "| game | env workers | n_steps per worker | steps/s (median) | range | ratio to 1 |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    base = {r["game"]: r["steps_per_second"] for r in rows if r["n_envs"] == 1}
    for r in rows:
        low, high = r["steps_per_second_range"]
        ratio = f"{r['steps_per_second'] / base[r['game']]:.2f}×" if r["game"] in base else ""
        lines.append(
            f"| {r['game']} | {r['n_envs']} | {r['n_steps']} | {r['steps_per_second']:,.0f} "
            f"| {low:,.0f}–{high:,.0f} | {ratio} |"
        )
    games = [p["game"] for p in profiles]
    lines += [
        "",
        "Where the time goes: one process (`DummyVecEnv`, one env), wall-clock timers around "
        "the parts; share of `learn`'s time and milliseconds per 1,000 env steps.",
        "",
        "| part | " + " | ".join(games) + " |",
        "|---|" + "---:|" * len(games),
    ]
    for part in PARTS:
        cells = [
            f"{p['parts'][part] / p['seconds']:.0%} ({1e6 * p['parts'][part] / p['steps']:.0f} ms)"
            for p in profiles
        ]
        lines.append(f"| {part} | " + " | ".join(cells) + " |")
    lines.append(
        "| **total** (steps/s) | "
        + " | ".join(
            f"100 % ({1e6 * p['seconds'] / p['steps']:.0f} ms; {p['steps_per_second']:,.0f}/s)"
            for p in profiles
        )
        + " |"
    )
    lines += [
        "",
        "| profile | steps | PPO updates | opponent moves |",
        "|---|---:|---:|---:|",
    ]
    lines += [
        f"| {p['game']} | {p['steps']:,} | {p['updates']} | {p['opponent_moves']:,} |"
        for p in profiles
    ]
    lines += [
        "",
        f"{info['machine']}, {info['processor'] or 'cpu'}, torch {info['torch']}, commit "
        f"{info['commit']}, {info['date']}; 1-minute load average "
        f"{info['load_average'][0]:.1f} at the start, {info['load_average'][1]:.1f} at the end "
        "(above the core count: other jobs shared the machine).",
    ]
    return "\n".join(lines) + "\n"


def plot(rows: list[dict], profiles: list[dict], path: Path) -> None:
    """Left: steps/s per worker count (median, range); right: the one-process breakdown."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(
        1, 2, figsize=(12, 1.8 + 0.8 * len(profiles)), gridspec_kw={"width_ratios": [1, 2]}
    )
    games = list(dict.fromkeys(r["game"] for r in rows))
    counts = sorted({r["n_envs"] for r in rows})
    width = 0.8 / len(counts)
    for k, n in enumerate(counts):
        mine = [r for r in rows if r["n_envs"] == n]
        x = [games.index(r["game"]) + (k - (len(counts) - 1) / 2) * width for r in mine]
        rate = np.array([r["steps_per_second"] for r in mine])
        low, high = np.array([r["steps_per_second_range"] for r in mine]).T
        errors = np.clip([rate - low, high - rate], 0.0, None)
        label = f"{n} env worker{'s' if n > 1 else ''}" + (" (DummyVecEnv)" if n == 1 else "")
        left.bar(x, rate, width * 0.9, yerr=errors, capsize=3, label=label)
    left.set_xticks(range(len(games)), games)
    left.set_ylabel("env steps/s during learn (median, range)")
    left.set_title("Throughput by env workers", fontsize=10)
    left.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=2)

    colors = ["tab:purple", "tab:blue", "tab:green", "tab:orange", "tab:red", "tab:gray"]
    for i, p in enumerate(profiles):  # shares: a busier machine slows every part alike
        start = 0.0
        for part, color in zip(PARTS, colors, strict=True):
            share = 100 * p["parts"][part] / p["seconds"]
            right.barh(i, share, left=start, color=color, label=part if i == 0 else None)
            if share > 5:
                right.text(start + share / 2, i, f"{share:.0f} %", ha="center", va="center")
            start += share
    right.set_yticks(range(len(profiles)), [p["game"] for p in profiles])
    right.invert_yaxis()
    right.set_xlabel("share of learn's wall-clock time, % (one process, one env)")
    right.set_title("Where the time goes", fontsize=10)
    right.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.3), ncol=3)
    fig.tight_layout()
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=["heisse-luft", "heisse-karten"])
    parser.add_argument("--timesteps", type=int, default=16384)
    parser.add_argument("--profile-timesteps", type=int, default=8192)
    parser.add_argument("--n-envs", type=int, nargs="+", default=[1, default_n_envs()])
    parser.add_argument("--repeats", type=int, default=3, help="runs per setting (median)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    load_before = os.getloadavg()[0]

    # the configs are read once, here: a config edited during the run changes nothing
    configs = [parse_args([game, "--seed", str(args.seed)]) for game in args.games]
    rows = throughput(configs, args.n_envs, args.timesteps, args.repeats)
    profiles = [breakdown(config, args.profile_timesteps) for config in configs]
    info = {
        "machine": platform.platform(),
        "processor": platform.processor(),
        "cores": os.cpu_count(),
        "torch": torch.__version__,
        "commit": subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
        ).stdout.strip(),
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "load_average": [load_before, os.getloadavg()[0]],  # other jobs on the machine
    }
    text = markdown(rows, profiles, info)
    print(text)
    args.out.mkdir(parents=True, exist_ok=True)
    result = {**info, "throughput": rows, "profiles": profiles}
    (args.out / "training_throughput.json").write_text(json.dumps(result, indent=2) + "\n")
    (args.out / "training_throughput.md").write_text(text)
    plot(rows, profiles, args.out / "training_throughput.png")
    print(f"wrote {args.out / 'training_throughput.md'}, .json and .png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

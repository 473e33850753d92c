"""Training throughput: environment steps per second during ``MaskablePPO.learn``, and where the
time goes.

1. **Throughput** — ``learn`` for ``--timesteps`` steps on ``--n-envs`` ``SubprocVecEnv`` workers
   (default: the training default, 4 per core up to 16), with the PPO settings and network of
   the game's training config and the league's opponent mix (random, heuristic, and a numpy
   snapshot of the learner itself).
2. **Breakdown** — the same in one process (``DummyVecEnv``, one env) under ``cProfile``: the PPO
   update (``train``), the policy's forward passes while collecting rollouts, the learner's side
   of the env (engine, encoding, masks, resets), the opponents' moves (their agents' ``act``, and
   the engine, encoding and views around it), and the rest (rollout buffer, GAE, callbacks).
   Shares are of the profiled wall time; cProfile slows Python code down, so read them as
   proportions.

    python benchmarks/training_throughput.py [--games heisse-luft] [--timesteps 16384]

Prints both tables; ``--out DIR`` writes ``training_throughput.json``.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import platform
import pstats
import sys
import time
from functools import partial
from pathlib import Path
from typing import Any

import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

from hot_envs.agents.checkpoint import CheckpointAgent, numpy_policy
from hot_envs.single_agent import SingleAgentEnv

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # training/ from a source checkout
from training.train import default_n_envs, parse_args  # noqa: E402

PLAYERS = {"heisse-luft": None, "heisse-karten": [2, 3, 4, 5, 6]}


def build(game: str, n_envs: int, seed: int) -> MaskablePPO:
    """A model on ``n_envs`` envs with the game's config, opponents random + heuristic + itself."""
    args = parse_args([game])
    make_env = partial(
        SingleAgentEnv, game, opponents=["random", ("heuristic", 2.0)], players=PLAYERS[game]
    )
    vec_env_cls = SubprocVecEnv if n_envs > 1 else DummyVecEnv
    envs = make_vec_env(make_env, n_envs=n_envs, seed=seed, vec_env_cls=vec_env_cls)
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
    snapshot = CheckpointAgent(numpy_policy(model), {"game": game}, sample=True, seed=seed)
    envs.env_method("set_opponent", "snapshot", snapshot, 3.0)
    return model


def throughput(game: str, n_envs: int, timesteps: int, seed: int) -> dict[str, Any]:
    model = build(game, n_envs, seed)
    start = time.perf_counter()
    model.learn(timesteps)
    seconds = time.perf_counter() - start
    model.env.close()
    return {
        "game": game,
        "n_envs": n_envs,
        "steps": model.num_timesteps,
        "seconds": seconds,
        "steps_per_second": model.num_timesteps / seconds,
    }


def _cumulative(stats: pstats.Stats, name: str, file_part: str) -> float:
    """Cumulative seconds of the functions called ``name`` in files containing ``file_part``."""
    return sum(
        row[3]
        for (file, _, function), row in stats.stats.items()  # type: ignore[attr-defined]
        if function == name and file_part in file
    )


def breakdown(game: str, timesteps: int, seed: int) -> dict[str, Any]:
    model = build(game, 1, seed)
    profiler = cProfile.Profile()
    start = time.perf_counter()
    profiler.enable()
    model.learn(timesteps)
    profiler.disable()
    total = time.perf_counter() - start
    stats = pstats.Stats(profiler)
    opponents = _cumulative(stats, "_play_opponents", "single_agent")
    agents = _cumulative(stats, "act", "hot_envs/agents")
    env = sum(_cumulative(stats, f, "single_agent") for f in ("step", "reset", "action_masks"))
    parts = {
        "PPO update (train)": _cumulative(stats, "train", "ppo_mask"),
        "policy forward in rollouts": _cumulative(stats, "forward", "maskable/policies"),
        "learner's env steps, resets, masks": env - opponents,
        "opponents: their agents' act": agents,
        "opponents: engine, encoding, views": opponents - agents,
    }
    parts["rest (buffer, GAE, callbacks)"] = total - sum(parts.values())
    return {"game": game, "steps": model.num_timesteps, "seconds": total, "parts": parts}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=["heisse-luft", "heisse-karten"])
    parser.add_argument("--timesteps", type=int, default=16384)
    parser.add_argument("--profile-timesteps", type=int, default=4096)
    parser.add_argument("--n-envs", type=int, default=default_n_envs())
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)

    rows = [throughput(g, args.n_envs, args.timesteps, args.seed) for g in args.games]
    print(f"\nMaskablePPO.learn throughput ({os.cpu_count()} cores, torch 1 thread)")
    print("| game | env workers | steps | seconds | steps/s |\n|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['game']} | {r['n_envs']} | {r['steps']} | {r['seconds']:.1f} | "
            f"{r['steps_per_second']:.0f} |"
        )
    profiles = [breakdown(g, args.profile_timesteps, args.seed) for g in args.games]
    for p in profiles:
        print(f"\nwhere the time goes: {p['game']}, one process, {p['steps']} steps under cProfile")
        print("| part | seconds | share |\n|---|---|---|")
        for part, seconds in p["parts"].items():
            print(f"| {part} | {seconds:.1f} | {seconds / p['seconds']:.0%} |")
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        result = {"machine": platform.platform(), "throughput": rows, "profiles": profiles}
        (args.out / "training_throughput.json").write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

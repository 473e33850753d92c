"""Inference speed: the numpy checkpoint agent against ``MaskablePPO.predict``, per decision.

Both play the same observations (collected from random play through the single-agent env) in
the same run, one decision at a time, as an opponent in the env or the arena would: the numpy
agent's ``act({"observation", "action_mask"}, view)`` against
``model.predict(observation, action_masks=mask, deterministic=True)``. They must pick the same
actions (checked). The policy is a checkpoint (``--checkpoint``) or, by default, a fresh
MaskablePPO per ``--net`` (default: the training configs' 2 × 256, and 2 × 128 and 2 × 64, tanh),
exported on the spot; timing does not depend on the weights. torch runs with one thread
(``--threads``), as in training.

    python benchmarks/inference.py [--game heisse-karten] [--decisions 2000] [--out DIR]

Prints a table (µs per decision, decisions/s, speed-up; target ≥ 20×) and writes
``inference.json`` into ``--out`` when given.
"""

from __future__ import annotations

import argparse
import json
import platform
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO

from hot_envs.agents.checkpoint import CheckpointAgent, export_checkpoint
from hot_envs.single_agent import SingleAgentEnv


def collect(game: str, n: int, seed: int) -> list[dict[str, np.ndarray]]:
    """``n`` learner observation dicts from random play (player count drawn per episode)."""
    players = [2, 3, 4, 5, 6] if game == "heisse-karten" else None
    env = SingleAgentEnv(game, players=players, seed=seed)
    rng = np.random.default_rng(seed)
    observation, _ = env.reset()
    out = []
    while len(out) < n:
        mask = env.action_masks()
        out.append({"observation": observation, "action_mask": mask.astype(np.int8)})
        observation, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        if terminated or truncated:
            observation, _ = env.reset()
    return out


def timed(
    agents: dict[str, Any], batch: list[dict[str, np.ndarray]], repeats: int
) -> dict[str, tuple[float, list[int]]]:
    """Per agent: best-of-``repeats`` seconds per decision and its actions. The agents take
    turns pass by pass, so a busy machine slows both alike."""
    best = dict.fromkeys(agents, float("inf"))
    actions: dict[str, list[int]] = {}
    for _ in range(repeats):
        for name, agent in agents.items():
            start = time.perf_counter()
            actions[name] = [agent.act(o, None) for o in batch]
            best[name] = min(best[name], (time.perf_counter() - start) / len(batch))
    return {name: (best[name], actions[name]) for name in agents}


def run(
    game: str, decisions: int, repeats: int, checkpoint: str | None, seed: int, net: list[int]
) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        if checkpoint is None:
            env = SingleAgentEnv(game, seed=seed)
            policy_kwargs = {"net_arch": net, "activation_fn": torch.nn.Tanh}
            model = MaskablePPO("MlpPolicy", env, policy_kwargs=policy_kwargs, seed=seed)
            checkpoint = str(export_checkpoint(model, Path(tmp) / "bench", {"game": game}))
        numpy_agent = CheckpointAgent.load(checkpoint, game=game)
        sb3_agent = CheckpointAgent.load(checkpoint, game=game, backend="sb3")
        batch = collect(game, decisions, seed)
        timed({"numpy": numpy_agent, "sb3": sb3_agent}, batch[:50], 1)  # warm-up
        result = timed({"numpy": numpy_agent, "sb3": sb3_agent}, batch, repeats)
        (numpy_seconds, numpy_actions), (sb3_seconds, sb3_actions) = result.values()
        same = sum(a == b for a, b in zip(numpy_actions, sb3_actions, strict=True))
        return {
            "game": game,
            "network": numpy_agent.metadata["network"],
            "decisions": len(batch),
            "same_actions": same,
            "sb3_us": sb3_seconds * 1e6,
            "numpy_us": numpy_seconds * 1e6,
            "speedup": sb3_seconds / numpy_seconds,
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", nargs="+", default=["heisse-luft", "heisse-karten"])
    parser.add_argument("--decisions", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--checkpoint", help="a checkpoint (default: a fresh 2×256 policy)")
    parser.add_argument(
        "--net",
        nargs="+",
        default=["256x256", "128x128", "64x64"],
        help="fresh policies' hidden sizes",
    )
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    nets = [[int(n) for n in net.split("x")] for net in args.net]
    if args.checkpoint:
        nets = nets[:1]  # the checkpoint's own network
    rows = [
        run(game, args.decisions, args.repeats, args.checkpoint, args.seed, net)
        for game in args.game
        for net in nets
    ]
    print("| game | network | MaskablePPO.predict | numpy agent | speed-up | same actions |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        net = "×".join(map(str, r["network"]["hidden"])) + " " + r["network"]["activation"]
        print(
            f"| {r['game']} | {net} | {r['sb3_us']:.0f} µs | {r['numpy_us']:.1f} µs | "
            f"{r['speedup']:.0f}× | {r['same_actions']}/{r['decisions']} |"
        )
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        info = {"machine": platform.platform(), "torch_threads": args.threads, "rows": rows}
        (args.out / "inference.json").write_text(json.dumps(info, indent=2) + "\n")
    return 0 if all(r["same_actions"] == r["decisions"] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())

"""Inference speed: the numpy checkpoint agent against ``MaskablePPO.predict``, per decision.

Both play the same observations (collected from random play through the single-agent env) in
the same run, one decision at a time, as an opponent in the env or the arena would: the numpy
agent's ``act({"observation", "action_mask"}, view)`` against
``model.predict(observation, action_masks=mask, deterministic=True)``. They must pick the same
actions (checked). The policy is a checkpoint (``--checkpoint``) or, by default, a fresh
MaskablePPO per ``--net`` (default: the training configs' 2 × 256, and 2 × 128 and 2 × 64, tanh),
exported on the spot; timing does not depend on the weights. torch runs with one thread
(``--threads``), as in training.

An action-scoring checkpoint (metadata ``network.architecture == "action_scorer"``,
:mod:`hot_envs.agents.scorer`) needs the player's view to act: its decisions come with the
learner's view of each (:func:`hot_envs.envs.single_agent.random_decisions`, the same play), and
both agents get the same ``(observation, view)`` pairs — the action features are computed inside
each agent's ``act``, so inside its time. An MLP agent gets ``None`` for the view, as before.

A third column is the floor of the numpy path: the weight reads alone (the first layer's rows of
the non-zero inputs gathered, the matrix products, the legal actions' output rows), with every
index array computed beforehand — what is left when the numpy calls around them cost nothing.
It is measured for MLP policies only: an action-scorer row shows "–" (``None`` in the JSON).

    python benchmarks/inference.py [--game heisse-karten] [--decisions 2000] [--out DIR]
    python benchmarks/inference.py --game heisse-luft --checkpoint checkpoints/heisse_luft_v0

Prints a table (µs per decision, speed-up; target ≥ 20×) and writes ``inference.{md,json,png}``
into ``--out`` (default ``benchmarks/results``).
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO

from hot_envs.agents.checkpoint import CheckpointAgent, scores_actions
from hot_envs.envs.single_agent import SingleAgentEnv, random_decisions, random_observations
from hot_envs.training.export import SB3Agent, export_checkpoint

RESULTS = Path(__file__).parent / "results"
TARGET = 20.0
# the player count is drawn per episode
PLAYERS = {"heisse-karten": [2, 3, 4, 5, 6]}

Decision = tuple[dict[str, np.ndarray], dict[str, Any] | None]  # (observation dict, view)


def timed(
    agents: dict[str, Any], batch: list[Decision], repeats: int
) -> dict[str, tuple[float, list[int]]]:
    """Per agent: best-of-``repeats`` seconds per decision and its actions. The agents take
    turns pass by pass, so a busy machine slows both alike."""
    best = dict.fromkeys(agents, float("inf"))
    actions: dict[str, list[int]] = {}
    for _ in range(repeats):
        for name, agent in agents.items():
            start = time.perf_counter()
            actions[name] = [agent.act(o, view) for o, view in batch]
            best[name] = min(best[name], (time.perf_counter() - start) / len(batch))
    return {name: (best[name], actions[name]) for name in agents}


class WeightReads:
    """Not an agent: per observation, only the numpy path's reads of the weights — the gathers
    and the matrix products — from the checkpoint's ``.npz``, laid out as the agent lays it out,
    with the non-zero inputs and legal actions looked up instead of computed. MLP checkpoints
    only (``layer_I`` arrays)."""

    def __init__(self, checkpoint: str, batch: list[dict[str, np.ndarray]]) -> None:
        with np.load(Path(checkpoint).with_suffix(".npz"), allow_pickle=False) as data:
            n = len(data.files) // 2
            layers = [(data[f"layer_{i}.weight"], data[f"layer_{i}.bias"]) for i in range(n)]
        self.first = np.ascontiguousarray(layers[0][0].T, dtype=np.float32)
        self.hidden = [
            np.ascontiguousarray(np.vstack([w.T, b[None]]), dtype=np.float32)
            for w, b in layers[1:-1]
        ]
        w, b = layers[-1]
        self.output = np.ascontiguousarray(np.hstack([w, b[:, None]]), dtype=np.float32)
        self.inputs = [np.ones(w.shape[0] + 1, np.float32) for w, _ in layers[:-1]]
        self.indices = {
            id(o): (o["observation"].nonzero()[0], o["action_mask"].nonzero()[0]) for o in batch
        }

    def act(self, observation: dict[str, np.ndarray], view: None) -> int:
        nonzero, legal = self.indices[id(observation)]
        x, inputs = observation["observation"], self.inputs
        np.dot(x[nonzero], self.first.take(nonzero, axis=0), out=inputs[0][:-1])
        for k, w in enumerate(self.hidden):
            np.dot(inputs[k], w, out=inputs[k + 1][:-1])
        np.dot(self.output.take(legal, axis=0), inputs[-1])
        return 0


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
        sb3_agent = SB3Agent.load(checkpoint, game=game)
        agents = {"numpy": numpy_agent, "sb3": sb3_agent}
        batch: list[Decision]
        if scores_actions(numpy_agent.metadata["network"]):  # acts on the view; no MLP floor
            batch = random_decisions(game, PLAYERS.get(game), decisions, seed)
        else:
            observations = random_observations(game, PLAYERS.get(game), decisions, seed)
            batch = [(o, None) for o in observations]
            agents["weights"] = WeightReads(checkpoint, observations)
        timed(agents, batch[:50], 1)  # warm-up
        result = timed(agents, batch, repeats)
        (numpy_seconds, numpy_actions), (sb3_seconds, sb3_actions) = result["numpy"], result["sb3"]
        floor = result["weights"][0] if "weights" in result else None
        same = sum(a == b for a, b in zip(numpy_actions, sb3_actions, strict=True))
        return {
            "game": game,
            "network": numpy_agent.metadata["network"],
            "decisions": len(batch),
            "same_actions": same,
            "sb3_us": sb3_seconds * 1e6,
            "numpy_us": numpy_seconds * 1e6,
            "weights_us": None if floor is None else floor * 1e6,
            "speedup": sb3_seconds / numpy_seconds,
            "speedup_floor": None if floor is None else sb3_seconds / floor,
        }


def net_name(row: dict) -> str:
    """The network from its metadata: "256×256 tanh", "action scorer state 256×64, scorer
    128×128 tanh"."""
    network = row["network"]
    if scores_actions(network):
        widths = ", ".join(
            f"{part} " + "×".join(map(str, network[part])) for part in ("state", "scorer")
        )
        return f"action scorer {widths} {network['activation']}"
    return "×".join(map(str, network["hidden"])) + " " + network["activation"]


def optional(value: float | None, spec: str, unit: str) -> str:
    """``value`` formatted with its unit, or "–" where there is none."""
    return "–" if value is None else format(value, spec) + unit


def table(rows: list[dict]) -> list[str]:
    lines = [
        "| game | network | MaskablePPO.predict | numpy agent | speed-up | weight reads alone "
        "| speed-up if only those | same actions |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['game']} | {net_name(r)} | {r['sb3_us']:.0f} µs | {r['numpy_us']:.1f} µs "
            f"| {r['speedup']:.1f}× | {optional(r['weights_us'], '.1f', ' µs')} "
            f"| {optional(r['speedup_floor'], '.0f', '×')} "
            f"| {r['same_actions']}/{r['decisions']} |"
        )
    return lines


def plot(rows: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    text = {"textcoords": "offset points", "ha": "center", "fontsize": 8}
    labels = [f"{r['game']}\n{net_name(r)}" for r in rows]
    x = np.arange(len(rows))
    fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(rows)), 4.2))
    bars = [
        ("MaskablePPO.predict", "sb3_us", "tab:gray"),
        ("numpy agent", "numpy_us", "tab:blue"),
        ("weight reads alone", "weights_us", "tab:cyan"),
    ]
    for k, (label, key, color) in enumerate(bars):
        shown = [i for i, r in enumerate(rows) if r[key] is not None]
        if shown:
            heights = [rows[i][key] for i in shown]
            ax.bar(x[shown] + (k - 1) * 0.27, heights, 0.27, label=label, color=color)
        for i in sorted(set(range(len(rows))) - set(shown)):  # no floor (an action scorer)
            ax.annotate("–", (x[i] + (k - 1) * 0.27, 1), xytext=(0, 3), **text)
            ax.set_xlim(-0.5, len(rows) - 0.5)  # keep the empty slot
    target = [r["sb3_us"] / TARGET for r in rows]
    ax.hlines(target, x - 0.135, x + 0.135, color="tab:red", label=f"{TARGET:.0f}× target")
    for i, r in enumerate(rows):
        ax.annotate(
            f"{r['speedup']:.1f}×", (x[i], max(r["numpy_us"], target[i])), xytext=(0, 3), **text
        )
    ax.set_yscale("log")
    ax.set_ylabel("µs per decision (log)")
    ax.set_xticks(x, labels, fontsize=8)
    ax.set_title("Checkpoint agent: µs per decision, same observations, same run")
    ax.legend(fontsize=8, loc="upper right", framealpha=0.9)
    slowest = max(r["sb3_us"] for r in rows)
    ax.set_ylim(1, 1000 if slowest <= 500 else 20 * slowest)  # a slow row: room for the legend
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", nargs="+", default=["heisse-luft", "heisse-karten"])
    parser.add_argument("--decisions", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--checkpoint", help="a checkpoint, MLP or action scorer (default: fresh MLPs per --net)"
    )
    parser.add_argument(
        "--net",
        nargs="+",
        default=["256x256", "128x128", "64x64"],
        help="fresh policies' hidden sizes",
    )
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=RESULTS)
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
    lines = table(rows)
    print("\n".join(lines))
    args.out.mkdir(parents=True, exist_ok=True)
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    stamp = datetime.now(timezone.utc).isoformat(timespec="seconds")
    info = {
        "machine": platform.platform(),
        "processor": platform.processor(),
        "torch_threads": args.threads,
        "numpy": np.__version__,
        "torch": torch.__version__,
        "commit": commit,
        "date": stamp,
        "rows": rows,
    }
    (args.out / "inference.json").write_text(json.dumps(info, indent=2) + "\n")
    note = [
        "",
        f"`python benchmarks/inference.py` — {args.decisions} "
        "decisions per row from random play, best of "
        f"{args.repeats} passes, the agents taking turns pass by pass; torch {args.threads} "
        f"thread(s); target ≥ {TARGET:.0f}×. *Weight reads alone*: the gathers and matrix "
        "products of the numpy path with the index arrays given, the floor of the numpy path.",
        f"{platform.platform()}, numpy {np.__version__}, torch {torch.__version__}, commit "
        f"{commit}, {stamp}.",
    ]
    if any(r["weights_us"] is None for r in rows):
        note[1] += " Action-scorer rows: no weight-reads floor (–), it is measured for MLPs only."
    (args.out / "inference.md").write_text("\n".join(lines + note) + "\n")
    plot(rows, args.out / "inference.png")
    print(f"wrote {args.out / 'inference.md'}, .json and .png")
    return 0 if all(r["same_actions"] == r["decisions"] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())

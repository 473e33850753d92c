"""Action-scorer decisions with their features: one game at a time against batches of 64.

The same decisions (from random play, :func:`hot_envs.envs.single_agent.random_decisions`, each with
the learner's view), decided by the numpy action-scoring checkpoint agent four ways in the same
run, the four taking turns pass by pass so that a busy machine slows all alike:

* **one at a time** — ``CheckpointAgent.act(observation, view)`` per decision, as an opponent in
  a single env plays: the features per game (:func:`hot_envs.agents.features.action_features`),
  then the network;
* **batch of 64, features per game** — the batched agent as it was: each row's features computed
  per game in Python, then one forward pass for the batch;
* **batch of 64, features as arrays** — ``CheckpointAgent.act_batch`` now: the features of all
  legal actions of the batch at once (:mod:`hot_envs.agents.features_batch`), then one forward
  pass over the legal actions only, block-diagonal layers (an ensemble's) block by block;
* **the same, layers dense** — the reference for the blocks: the same batched path with every
  layer one dense product, as the scorer ran ensembles before it split their layers.

numpy's BLAS runs one thread (``OPENBLAS_NUM_THREADS=1`` unless set), as in
``benchmarks/training_throughput.py``: on a busy 2-core machine a second BLAS thread made the
batched forward passes several times slower, not faster.

Times are µs per decision (per game of the batch), best of ``--repeats`` passes; the views are
made beforehand for all four (they are the engine's, not the features'). The features alone —
``policy_input`` per decision against ``policy_input_batch`` — are timed beside them. All paths
must choose the same actions (checked; exit status 1 otherwise). Each game plays its shipped
policy (``heisse_luft_v0``, ``heisse_karten_v0``).

    python benchmarks/features.py [--decisions 1280] [--repeats 5] [--out DIR]

Prints a table and writes ``features.{md,json,png}`` into ``--out`` (default
``benchmarks/results``).
"""

from __future__ import annotations

import argparse
import copy
import json
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy (module docstring)
import platform
import subprocess
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from hot_envs.agents.checkpoint import CheckpointAgent
from hot_envs.agents.features import action_features, policy_input
from hot_envs.agents.features_batch import policy_input_batch
from hot_envs.agents.scorer import NumpyScorer
from hot_envs.core.games import get_game
from hot_envs.envs.single_agent import random_decisions

RESULTS = Path(__file__).parent / "results"
BATCH = 64
TARGET_US = 250.0  # Heiße Luft, features and decision, per game in a batch of 64
PLAYERS = {"heisse-karten": [2, 3, 4, 5, 6]}


class _Seen:
    """A state stand-in for ``act_batch`` that hands out a view made beforehand."""

    def __init__(self, view: dict[str, Any]) -> None:
        self._view = view

    def view(self, seat: int) -> dict[str, Any]:
        return self._view


def agent_for(game: str) -> CheckpointAgent:
    """The game's shipped policy, an action scorer."""
    return CheckpointAgent.load(get_game(game).checkpoint, game=game)


def per_game_batch(agent: CheckpointAgent, observations, masks, views) -> np.ndarray:
    """The batched decision as it was: each row's features per game, one forward pass."""
    policy = agent.policy
    legal = [row.nonzero()[0] for row in masks.astype(bool)]
    features = np.zeros((len(legal), max(map(len, legal)), policy.spec.size), np.float32)
    for row, view, actions in zip(features, views, legal, strict=True):
        row[: len(actions)] = action_features(policy.game, view, actions.tolist())
    scores = policy._score(policy._embed(observations), features)
    scores[np.arange(scores.shape[1]) >= np.array([len(a) for a in legal])[:, None]] = -np.inf
    return np.array([a[c] for a, c in zip(legal, scores.argmax(axis=1).tolist(), strict=True)])


def run(game: str, decisions: int, repeats: int, seed: int) -> dict[str, Any]:
    agent = agent_for(game)
    pairs = random_decisions(game, PLAYERS.get(game), decisions, seed)
    observations = np.stack([o["observation"] for o, _ in pairs])
    masks = np.stack([o["action_mask"] for o, _ in pairs])
    views = [v for _, v in pairs]
    batches = [slice(i, i + BATCH) for i in range(0, len(pairs), BATCH)]
    seats = np.zeros(BATCH, np.int64)

    dense = copy.copy(agent)
    policy = agent.policy
    dense.policy = NumpyScorer(game, policy.arrays(), policy.activation, blocks=False)

    def act_batch(part: slice, agent: CheckpointAgent = agent) -> list[int]:
        states = [_Seen(v) for v in views[part]]
        return agent.act_batch(states, seats[: len(states)], observations[part], masks[part])

    paths: dict[str, Callable[[], list]] = {
        "one": lambda: [agent.act(o, v) for o, v in pairs],
        "batch_per_game": lambda: [
            a for p in batches for a in per_game_batch(agent, observations[p], masks[p], views[p])
        ],
        "batch_arrays": lambda: [a for p in batches for a in act_batch(p)],
        "batch_dense": lambda: [a for p in batches for a in act_batch(p, dense)],
        "features_one": lambda: [policy_input(game, o["observation"], v) for o, v in pairs],
        "features_batch": lambda: [
            policy_input_batch(game, observations[p], views[p]) for p in batches
        ],
    }
    best = dict.fromkeys(paths, float("inf"))
    out: dict[str, list] = {}
    for _ in tqdm(range(repeats + 1), desc=game, leave=False):  # the first pass: warm-up
        for name, path in paths.items():
            start = time.perf_counter()
            out[name] = path()
            best[name] = min(best[name], time.perf_counter() - start)
    us = {name: best[name] / len(pairs) * 1e6 for name in paths}
    one = [int(a) for a in out["one"]]
    packed = np.concatenate(out["features_batch"])
    return {
        "game": game,
        "decisions": len(pairs),
        "batch": BATCH,
        "us": us,
        "same_actions_batch_arrays": sum(
            a == b for a, b in zip(one, map(int, out["batch_arrays"]), strict=True)
        ),
        "same_actions_batch_dense": sum(
            a == b for a, b in zip(one, map(int, out["batch_dense"]), strict=True)
        ),
        "same_actions_batch_per_game": sum(
            a == b for a, b in zip(one, map(int, out["batch_per_game"]), strict=True)
        ),
        "same_features": bool(np.array_equal(packed, np.stack(out["features_one"]))),
    }


COLUMNS = (
    "game",
    "one at a time",
    "batch of 64, features per game",
    "batch of 64, features as arrays",
    "the same, layers dense",
    "speed-up vs one at a time",
    "vs layers dense",
    "vs features per game",
    "features alone: per game → batched",
    "same actions",
)


def cells(r: dict) -> list[str]:
    """One table row of a game's result."""
    us = r["us"]
    return [
        r["game"],
        f"{us['one']:.0f} µs",
        f"{us['batch_per_game']:.0f} µs",
        f"**{us['batch_arrays']:.0f} µs**",
        f"{us['batch_dense']:.0f} µs",
        f"{us['one'] / us['batch_arrays']:.1f}×",
        f"{us['batch_dense'] / us['batch_arrays']:.1f}×",
        f"{us['batch_per_game'] / us['batch_arrays']:.1f}×",
        f"{us['features_one']:.0f} → {us['features_batch']:.0f} µs "
        f"({us['features_one'] / us['features_batch']:.1f}×)",
        f"{r['same_actions_batch_arrays']}/{r['decisions']}",
    ]


def table(rows: list[dict]) -> list[str]:
    header = "| " + " | ".join(COLUMNS) + " |"
    rule = "|---" + "|---:" * (len(COLUMNS) - 1) + "|"
    return [header, rule, *("| " + " | ".join(cells(r)) + " |" for r in rows)]


BARS = {
    "one": "tab:gray",
    "batch_per_game": "tab:cyan",
    "batch_arrays": "tab:blue",
    "batch_dense": "tab:purple",
}


def plot(rows: list[dict], path: Path) -> None:
    """Grouped bars of the four decision paths per game (matplotlib's Figure, no pyplot)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 4), layout="tight")
    ax = fig.subplots()
    x = np.arange(len(rows))
    for k, ((key, color), label) in enumerate(zip(BARS.items(), COLUMNS[1:5], strict=True)):
        bars = ax.bar(x + (k - 1.5) * 0.2, [r["us"][key] for r in rows], 0.2, color=color)
        bars.set_label(label)
        ax.bar_label(bars, fmt="%.0f", fontsize=8)
    ax.axhline(TARGET_US, color="tab:red", lw=1, ls="--", label="Heiße Luft target (250 µs)")
    ax.set_xticks(x, [r["game"] for r in rows])
    ax.set_ylabel("µs per decision, features + network")
    ax.set_title("Action-scorer decisions: same decisions, same run")
    ax.legend(fontsize=8)
    fig.savefig(path, dpi=120)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", nargs="+", default=["heisse-luft", "heisse-karten"])
    parser.add_argument("--decisions", type=int, default=20 * BATCH)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    rows = [run(game, args.decisions, args.repeats, args.seed) for game in args.game]
    lines = table(rows)
    print("\n".join(lines))
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    stamp = datetime.now(timezone.utc).isoformat(timespec="seconds")
    try:
        load = f", load average {os.getloadavg()[0]:.1f}"
    except OSError:
        load = ""
    note = (
        f"\n`python benchmarks/features.py` — {args.decisions} decisions per game from random "
        f"play, µs per decision, best of {args.repeats} passes, the paths taking turns. "
        f"{platform.platform()}, numpy {np.__version__}, commit {commit}, {stamp}{load}."
    )
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "features.md").write_text("\n".join(lines) + "\n" + note + "\n")
    info = {"commit": commit, "date": stamp, "machine": platform.platform(), "rows": rows}
    (args.out / "features.json").write_text(json.dumps(info, indent=2) + "\n")
    plot(rows, args.out / "features.png")
    print(f"wrote {args.out / 'features.md'}, .json and .png")
    ok = all(
        r["same_features"]
        and r["same_actions_batch_arrays"]
        == r["same_actions_batch_per_game"]
        == r["same_actions_batch_dense"]
        == r["decisions"]
        for r in rows
    )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())

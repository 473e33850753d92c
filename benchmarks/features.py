"""Action-scorer decisions with their features: one game at a time against batches of 64.

The same decisions — positions of random play in an array engine of 64 games
(:func:`hot_envs.batched.make`), a snapshot of all 64 every few steps, each snapshot loaded into
an engine of its own (``games.load(i, state_dict)``) — decided by the numpy action-scoring
checkpoint agent three ways in the same run, the three taking turns pass by pass so that a busy
machine slows all alike:

* **one at a time** — ``CheckpointAgent.act(observation, view)`` per decision, on the per-game
  engine's state of each position (``State.from_dict``), as an agent at an arena's table plays:
  the features from the view (:func:`hot_envs.agents.features.action_features`: the game's
  array kernels on a one-game record written from the view), then the network;
* **batch of 64 in arrays** — ``CheckpointAgent.act_arrays(games, which)`` on the snapshot's
  engine, as the training driver's opponents decide: the observations, masks and features of
  all 64 games from the engine's arrays (the game's array kernels,
  :func:`hot_envs.agents.arrays.fill_policy_input`), then one forward pass over the legal
  actions only, block-diagonal layers (an ensemble's) block by block;
* **the same, layers dense** — the reference for the blocks: the same path with every layer one
  dense product (``NumpyScorer(..., blocks=False)``).

numpy's BLAS runs one thread (``OPENBLAS_NUM_THREADS=1`` unless set), as in
``benchmarks/training_throughput.py``: on a busy 2-core machine a second BLAS thread made the
batched forward passes several times slower, not faster.

Times are CPU µs per decision (per game of the batch): the process's CPU time, so what other
jobs on a busy machine take is not counted; best of ``--repeats`` passes. The per-game
observations and views are made beforehand (they are the engine's, not the features'); the
array path makes its observations and masks inside ``act_arrays``, as the driver calls it. The
features alone — ``policy_input`` per decision against ``fill_policy_input`` for the batch, each
from observations made beforehand — are timed beside them. All paths must choose the same
actions and the features must agree bit for bit (checked; exit status 1 otherwise). Each game
plays its shipped policy (``heisse_luft_v0``, ``heisse_karten_v0``); Heiße Karten's 64 games
have 2–6 players.

    python benchmarks/features.py [--decisions 1280] [--repeats 5] [--out DIR]

Prints a table and writes ``features.{md,json,png}`` into ``--out`` (default
``benchmarks/results``).
"""

from __future__ import annotations

import argparse
import copy
import importlib
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

from hot_envs import batched
from hot_envs.agents.arrays import fill_policy_input
from hot_envs.agents.base import observe
from hot_envs.agents.checkpoint import CheckpointAgent
from hot_envs.agents.features import SPECS, policy_input
from hot_envs.agents.scorer import NumpyScorer
from hot_envs.batched import ArrayGames
from hot_envs.core.games import get_game

RESULTS = Path(__file__).parent / "results"
BATCH = 64
STRIDE = 7  # random-play steps between snapshots
TARGET_US = 250.0  # Heiße Luft, features and decision, per game in a batch of 64
OPTIONS = {"heisse-karten": {"num_players": np.arange(BATCH) % 5 + 2}}  # 2–6 players


def agent_for(game: str) -> CheckpointAgent:
    """The game's shipped policy, an action scorer."""
    return CheckpointAgent.load(get_game(game).checkpoint, game=game)


def positions(game: str, batches: int, seed: int) -> list[ArrayGames]:
    """``batches`` engines of ``BATCH`` games each, every game at a decision: snapshots of
    random play in one engine, every ``STRIDE`` steps, each loaded into an engine of its own."""
    games = batched.make(game, BATCH, **OPTIONS.get(game, {}))
    games.reset(seed)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(batches):
        for _ in range(STRIDE):
            games.step(games.sample_legal(rng))
            games.reset_done()
        snapshot = batched.make(game, BATCH, **OPTIONS.get(game, {}))
        for i in range(BATCH):
            snapshot.load(i, games.state_dict(i))
        out.append(snapshot)
    return out


def per_game(games: ArrayGames) -> list[tuple[dict[str, np.ndarray], dict[str, Any]]]:
    """Each game's observation and view of its seat to move, from the per-game engine."""
    engine = importlib.import_module(games.engine.__module__.rpartition(".")[0])
    pairs = []
    for i in range(games.num_games):
        state = games.engine.from_dict(games.state_dict(i))
        seat = state.current_player
        pairs.append((observe(engine, state, seat), state.view(seat)))
    return pairs


def run(game: str, decisions: int, repeats: int, seed: int) -> dict[str, Any]:
    agent = agent_for(game)
    engines = positions(game, max(1, decisions // BATCH), seed)
    pairs = [pair for games in engines for pair in per_game(games)]
    which = np.arange(BATCH, dtype=np.int64)
    seats = [games.current_player.copy() for games in engines]
    observations = [games.observe() for games in engines]
    size = SPECS[game].input_size

    dense = copy.copy(agent)
    policy = agent.policy
    dense.policy = NumpyScorer(game, policy.arrays(), policy.activation, blocks=False)

    def features_arrays() -> list[np.ndarray]:
        out = []
        for games, seat, observation in zip(engines, seats, observations, strict=True):
            packed = np.zeros((BATCH, size), dtype=np.float32)
            fill_policy_input(games, which, seat, observation, packed)
            out.append(packed)
        return out

    paths: dict[str, Callable[[], list]] = {
        "one": lambda: [agent.act(o, v) for o, v in pairs],
        "batch_arrays": lambda: [a for g in engines for a in agent.act_arrays(g, which)],
        "batch_dense": lambda: [a for g in engines for a in dense.act_arrays(g, which)],
        "features_one": lambda: [policy_input(game, o["observation"], v) for o, v in pairs],
        "features_arrays": features_arrays,
    }
    best = dict.fromkeys(paths, float("inf"))
    out: dict[str, list] = {}
    for _ in tqdm(range(repeats + 1), desc=game, leave=False):  # the first pass: warm-up
        for name, path in paths.items():
            start = time.process_time()
            out[name] = path()
            best[name] = min(best[name], time.process_time() - start)
    us = {name: best[name] / len(pairs) * 1e6 for name in paths}
    one = [int(a) for a in out["one"]]
    packed = np.concatenate(out["features_arrays"])
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
        "same_features": bool(np.array_equal(packed, np.stack(out["features_one"]))),
    }


COLUMNS = (
    "game",
    "one at a time (`act`)",
    "batch of 64 in arrays (`act_arrays`)",
    "the same, layers dense",
    "speed-up vs one at a time",
    "vs layers dense",
    "features alone: `policy_input` → `fill_policy_input`",
    "same actions",
)


def cells(r: dict) -> list[str]:
    """One table row of a game's result."""
    us = r["us"]
    return [
        r["game"],
        f"{us['one']:.0f} µs",
        f"**{us['batch_arrays']:.1f} µs**",
        f"{us['batch_dense']:.1f} µs",
        f"{us['one'] / us['batch_arrays']:.1f}×",
        f"{us['batch_dense'] / us['batch_arrays']:.1f}×",
        f"{us['features_one']:.0f} → {us['features_arrays']:.1f} µs "
        f"({us['features_one'] / us['features_arrays']:.0f}×)",
        f"{r['same_actions_batch_arrays']}/{r['decisions']}",
    ]


def table(rows: list[dict]) -> list[str]:
    header = "| " + " | ".join(COLUMNS) + " |"
    rule = "|---" + "|---:" * (len(COLUMNS) - 1) + "|"
    return [header, rule, *("| " + " | ".join(cells(r)) + " |" for r in rows)]


BARS = {"one": "tab:gray", "batch_arrays": "tab:blue", "batch_dense": "tab:purple"}


def plot(rows: list[dict], path: Path) -> None:
    """Grouped bars of the three decision paths per game (matplotlib's Figure, no pyplot)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 4), layout="tight")
    ax = fig.subplots()
    x = np.arange(len(rows))
    for k, ((key, color), label) in enumerate(zip(BARS.items(), COLUMNS[1:4], strict=True)):
        bars = ax.bar(x + (k - 1) * 0.27, [r["us"][key] for r in rows], 0.27, color=color)
        bars.set_label(label.replace("`", ""))
        ax.bar_label(bars, fmt="%.0f", fontsize=8)
    ax.axhline(TARGET_US, color="tab:red", lw=1, ls="--", label="Heiße Luft target (250 µs)")
    ax.set_xticks(x, [r["game"] for r in rows])
    ax.set_ylabel("CPU µs per decision, features + network")
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
        f"\n`python benchmarks/features.py` — {rows[0]['decisions']} decisions per game from "
        f"random play in arrays, batches of {BATCH}, CPU µs per decision, best of {args.repeats} "
        "passes, the paths taking turns. "
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
        and r["same_actions_batch_arrays"] == r["same_actions_batch_dense"] == r["decisions"]
        for r in rows
    )
    if not ok:
        print("the paths disagree: see same_actions_* and same_features in the JSON")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())

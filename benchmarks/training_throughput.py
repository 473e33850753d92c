"""Training throughput: environment steps per second during ``MaskablePPO.learn``, and where the
time goes.

Both parts build the model exactly as training does
(``hot_envs.training.train.build_model`` with the game's config: PPO settings, network,
``rollout_steps`` over the envs) against the league's opponent mix (random, heuristic, and a
sampling numpy snapshot of the learner itself).

1. **Throughput** — ``learn`` for ``--timesteps`` steps on ``--n-envs`` ``SubprocVecEnv``
   workers (default: the training default, 4 per core up to 16; give several to compare them in
   the same run), and on the batched set-up: all games in the main process in one
   :class:`hot_envs.envs.vector.VectorSingleAgentEnv` (``--batched-envs`` games, every opponent seat
   of one agent decided by one call: one numpy forward pass for the snapshot) behind
   :class:`hot_envs.envs.vector_sb3.SB3VectorEnv`, with a larger rollout and minibatch
   (``--batched-n-steps`` per game, ``--batched-batch-size``) and ``--batched-threads`` torch
   threads; with ``--batched-workers`` K > 1 the same games split over the main process and
   K − 1 worker processes (:class:`hot_envs.envs.vector_workers.SubprocVectorSingleAgentEnv`).
   ``--batched-update-threads`` gives torch more threads during the PPO update alone (the
   workers wait then; ``hot_envs.training.train.UpdateThreads``, the config key
   ``update_threads``). Several thread and worker counts give one set-up each. Counts every
   env step, PPO updates included.
   Each setting runs ``--repeats`` times, the settings taking turns, and the median counts — on a
   shared machine a busy minute then slows every setting alike instead of one. A second table
   splits the fastest set-up's time per step into the PPO update and collecting rollouts: the
   update costs the same per step in every set-up, so it caps the ratio to the training default
   even if collecting cost nothing, and the table says how much faster collecting would have to
   be for ``TARGET``× (5×).
2. **Env steps** — the environments alone, learner actions uniformly random, every opponent a
   sampling numpy snapshot: ``SingleAgentEnv`` stepped in a loop against the batched env.
3. **Breakdown** — ``learn`` in one process (``DummyVecEnv`` with one env, and the batched env),
   with wall-clock timers around the parts: the PPO update (``train``), the policy's forward
   passes while collecting rollouts, the learner's side of the env (engine, encoding, masks,
   resets), the opponents' moves (their array agents' ``act_arrays``, or an agent's ``act``
   where it plays game by game through ``PerGameAgent``; the engine, encoding and per-game
   states around it), and the rest (rollout buffer, GAE, tensor conversion, callbacks).
   Timers cost well under a microsecond a call, so — unlike a profiler — they leave the
   proportions as they are. With worker processes the env and opponent parts run on the other
   cores, in parallel with the main process's forward passes.

numpy's BLAS runs one thread (``OPENBLAS_NUM_THREADS=1`` unless set): on a busy 2-core machine
a second BLAS thread made the batched env 7× slower (its forward passes up to 30×), not faster.

    python benchmarks/training_throughput.py [--games heisse-luft] [--timesteps 16384]
                                             [--n-envs 1 2 8] [--batched-envs 64]
                                             [--batched-workers 1 2] [--batched-threads 1 2]
                                             [--repeats 3] [--out DIR]

Prints both tables and writes ``training_throughput.{md,json,png}`` into ``--out`` (default
``benchmarks/results``).
"""

from __future__ import annotations

import argparse
import json
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy (module docstring)
import platform
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from functools import partial, wraps
from pathlib import Path
from typing import Any

import numpy as np  # noqa: E402
import torch  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402
from stable_baselines3.common.env_util import make_vec_env  # noqa: E402
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor  # noqa: E402

from hot_envs.agents.arrays import PerGameAgent  # noqa: E402
from hot_envs.agents.checkpoint import CheckpointAgent  # noqa: E402
from hot_envs.envs.single_agent import SingleAgentEnv  # noqa: E402
from hot_envs.envs.vector import VectorSingleAgentEnv  # noqa: E402
from hot_envs.envs.vector_sb3 import SB3VectorEnv  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # hot_envs from a source checkout
from hot_envs.training.callbacks import UpdateThreads  # noqa: E402
from hot_envs.training.export import numpy_policy  # noqa: E402
from hot_envs.training.settings import Args, parse_args  # noqa: E402
from hot_envs.training.train import build_model, default_n_envs, policy_input  # noqa: E402

RESULTS = Path(__file__).parent / "results"
TARGET = 5.0  # the batched set-up's goal: this many times the training default's steps/s
OPPONENTS = ["random", ("heuristic", 2.0)]  # + the learner's snapshot, weight 3 (build)
PARTS = (
    "PPO update (train)",
    "policy forward in rollouts",
    "learner's env: steps, resets, masks",
    "opponents: their agents' act_arrays / act",
    "opponents: engine, encoding, views",
    "rest: buffer, GAE, tensors, callbacks",
)


@dataclass(frozen=True)
class Batched:
    """The batched set-up (module docstring): games, rollout steps per game, minibatch size,
    torch threads and the processes the games run in."""

    num_envs: int = 64
    n_steps: int = 128
    batch_size: int = 1024
    threads: int = 1
    workers: int = 1
    update_threads: int = 0  # torch threads during the PPO update (UpdateThreads); 0: threads

    def __str__(self) -> str:
        processes = f" in {self.workers} processes" if self.workers > 1 else ""
        update = f", update on {self.update_threads} threads" if self.update_threads else ""
        return f"batched {self.num_envs}{processes}{update}"


Setup = int | Batched  # an int: that many SubprocVecEnv workers (1: DummyVecEnv)


def snapshot_of(model: MaskablePPO, game: str, seed: int) -> CheckpointAgent:
    """The sampling numpy snapshot of ``model`` that the league would add."""
    return CheckpointAgent(numpy_policy(model), {"game": game}, sample=True, seed=seed)


def build(args: Args, setup: Setup) -> MaskablePPO:
    """The training model of ``args.game`` on ``setup`` against random, heuristic and itself."""
    game, seed = args.game, args.seed
    env_options = {
        "opponents": OPPONENTS,
        "players": args.players,
        "game_options": args.game_options,
        "shaping": args.shaping,
        "policy_input": policy_input(args),
    }
    if isinstance(setup, Batched):
        envs = VecMonitor(
            SB3VectorEnv(game=game, num_envs=setup.num_envs, workers=setup.workers, **env_options)
        )
        rollout = setup.num_envs * setup.n_steps
        args = replace(args, rollout_steps=rollout, batch_size=setup.batch_size)
    else:
        make_env = partial(SingleAgentEnv, game, **env_options)
        vec_env_cls = SubprocVecEnv if setup > 1 else DummyVecEnv
        envs = make_vec_env(make_env, n_envs=setup, seed=seed, vec_env_cls=vec_env_cls)
    model = build_model(args, envs)
    envs.env_method("set_opponent", "snapshot", snapshot_of(model, game, seed), 3.0)
    return model


def threads(setup: Setup) -> int:
    return setup.threads if isinstance(setup, Batched) else 1


def learn_once(args: Args, setup: Setup, timesteps: int) -> tuple[float, int, int, float]:
    """Seconds of one ``learn``, the steps it took, its ``n_steps`` per env and the seconds of
    its PPO updates."""
    model = build(args, setup)
    timers = Timers()
    timers.wrap(model, "train", "train")
    torch.set_num_threads(threads(setup))
    update = setup.update_threads if isinstance(setup, Batched) else 0
    callback = UpdateThreads(update, threads(setup)) if update else None
    start = time.perf_counter()
    model.learn(timesteps, callback=callback)
    seconds = time.perf_counter() - start
    torch.set_num_threads(1)
    model.env.close()
    return seconds, model.num_timesteps, model.n_steps, timers.seconds["train"]


def throughput(
    configs: list[Args], setups: list[Setup], timesteps: int, repeats: int
) -> list[dict[str, Any]]:
    """Steps/s per game and set-up: the median of ``repeats`` interleaved runs; also without
    the PPO updates (collecting rollouts: env and policy forward passes)."""
    runs: dict[tuple[str, Setup], list[tuple[float, int, int, float]]] = defaultdict(list)
    for _ in range(repeats):
        for args in configs:
            for setup in setups:
                runs[args.game, setup].append(learn_once(args, setup, timesteps))
    rows = []
    for (game, setup), results in runs.items():
        rates = sorted(steps / seconds for seconds, steps, _, _ in results)
        collecting = [steps / (seconds - train) for seconds, steps, _, train in results]
        batch = setup.batch_size if isinstance(setup, Batched) else None
        rows.append(
            {
                "game": game,
                "setup": str(setup)
                if isinstance(setup, Batched)
                else f"{setup} worker{'s' * (setup > 1)}",
                "n_envs": setup.num_envs if isinstance(setup, Batched) else setup,
                "n_steps": results[0][2],
                "batch_size": batch or next(a.batch_size for a in configs if a.game == game),
                "torch_threads": threads(setup),
                "steps": results[0][1],
                "repeats": len(results),
                "seconds": [seconds for seconds, _, _, _ in results],
                "train_seconds": [train for _, _, _, train in results],
                "steps_per_second": float(np.median(rates)),
                "steps_per_second_range": [rates[0], rates[-1]],
                "collect_steps_per_second": float(np.median(collecting)),
            }
        )
    return rows


def env_steps(args: Args, setup: Batched, seconds: float, repeats: int) -> dict[str, Any]:
    """Env steps/s without learning (module docstring), ``SingleAgentEnv`` against the batched
    env, each run ``seconds`` long, ``repeats`` times in turn; the medians."""
    model = build(args, 1)
    snapshot = snapshot_of(model, args.game, args.seed)
    model.env.close()
    options = {
        "opponents": [snapshot],
        "players": args.players,
        "seed": args.seed,
        "policy_input": policy_input(args),
    }
    single = SingleAgentEnv(args.game, game_options=args.game_options, **options)
    batched = VectorSingleAgentEnv(
        args.game, setup.num_envs, game_options=args.game_options, **options
    )
    rng = np.random.default_rng(args.seed)

    def single_run() -> float:
        single.reset()
        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            mask = single.action_masks()
            _, _, terminated, truncated, _ = single.step((rng.random(mask.shape) * mask).argmax())
            steps += 1
            if terminated or truncated:
                single.reset()
        return steps / (time.perf_counter() - start)

    def batched_run() -> float:
        batched.reset()
        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            masks = batched.action_masks()
            batched.step((rng.random(masks.shape) * masks).argmax(axis=1))
            steps += setup.num_envs
        return steps / (time.perf_counter() - start)

    rates = [(single_run(), batched_run()) for _ in range(repeats)]
    single_rate, batched_rate = np.median(rates, axis=0)
    return {
        "game": args.game,
        "num_envs": setup.num_envs,
        "single_steps_per_second": float(single_rate),
        "batched_steps_per_second": float(batched_rate),
    }


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


def breakdown(args: Args, setup: Setup, timesteps: int) -> dict[str, Any]:
    """``learn`` in one process with timers around the parts (module docstring)."""
    model = build(args, setup)
    timers = Timers()
    timers.wrap(model, "train", "train")
    timers.wrap(model.policy, "forward", "forward")
    timed_agents: set[int] = set()

    def timed(array_entry: Any) -> Any:
        """The driver's ``_array_entry`` (what builds the array agents ``play_opponents``
        calls; ``array_agent`` reads it too) with every array agent it returns timed as "act":
        its ``act_arrays``, or for a ``PerGameAgent`` its agent's ``act``, so that the per-game
        states and views around it count to the opponents' engine part."""

        @wraps(array_entry)
        def entry(*args: Any) -> Any:
            built = array_entry(*args)
            array_agent = built[1]
            per_game = isinstance(array_agent, PerGameAgent)
            inner = array_agent.agent if per_game else array_agent
            if id(inner) not in timed_agents:
                timed_agents.add(id(inner))
                timers.wrap(inner, "act" if per_game else "act_arrays", "act")
            return built

        return entry

    if isinstance(setup, Batched):
        env: Any = model.env.unwrapped.env
        timers.wrap(env, "step", "env")
    else:
        env = model.env.envs[0].unwrapped
        for method in ("step", "reset", "action_masks"):
            timers.wrap(env, method, "env")
    timers.wrap(env.driver, "play_opponents", "opponents")
    env.driver._array_entry = timed(env.driver._array_entry)
    torch.set_num_threads(threads(setup))
    start = time.perf_counter()
    model.learn(timesteps)
    total = time.perf_counter() - start
    torch.set_num_threads(1)
    s = timers.seconds
    train, forward, act = s["train"], s["forward"], s["act"]
    measured = (train, forward, s["env"] - s["opponents"], act, s["opponents"] - act)
    seconds = dict(zip(PARTS, measured, strict=False))  # the rest: what no timer saw
    seconds[PARTS[-1]] = total - sum(seconds.values())
    return {
        "game": args.game,
        "setup": str(setup) if isinstance(setup, Batched) else "1 env (DummyVecEnv)",
        "steps": model.num_timesteps,
        "seconds": total,
        "steps_per_second": model.num_timesteps / total,
        "updates": timers.calls["train"],
        "opponent_calls": timers.calls["act"],
        "parts": seconds,
    }


def per_step(row: dict) -> tuple[float, float]:
    """Microseconds per env step of a throughput row's median run: the PPO update's, and
    collecting rollouts' (env steps and forward passes: the rest of ``learn``)."""
    steps = row["steps"]
    total = float(np.median(row["seconds"])) * 1e6 / steps
    update = float(np.median(row["train_seconds"])) * 1e6 / steps
    return update, total - update


def target_lines(rows: list[dict], base: dict[str, float], default: int) -> list[str]:
    """What ``TARGET``× the training default would take, per game, from the fastest set-up's
    measured parts: the update costs the same per step in every set-up (the same PPO settings
    and network), so even rollouts that cost nothing leave at most ``default / update``."""
    lines = [
        "",
        f"What {TARGET:g}× the training default would take: microseconds per env step of the "
        "fastest set-up, split into its PPO update and collecting rollouts; *ceiling*: the "
        "ratio if collecting cost nothing; *needed*: how much faster collecting would have to "
        f"be for {TARGET:g}×.",
        "",
        f"| game | fastest set-up | {default} workers: µs/step | update: µs/step "
        "| collecting: µs/step | ceiling | needed |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for game, rate in base.items():
        fastest = max((r for r in rows if r["game"] == game), key=lambda r: r["steps_per_second"])
        update, collect = per_step(fastest)
        budget = 1e6 / rate / TARGET - update  # µs per step left for collecting at TARGET×
        needed = f"{collect / budget:.1f}× faster" if budget > 0 else "impossible"
        lines.append(
            f"| {game} | {fastest['setup']} | {1e6 / rate:,.0f} | {update:,.0f} "
            f"| {collect:,.0f} | {1e6 / rate / update:.1f}× | {needed} |"
        )
    return lines


def markdown(
    rows: list[dict], envs: list[dict], profiles: list[dict], info: dict, default: int
) -> str:
    lines = [
        "# Training throughput",
        "",
        "`python benchmarks/training_throughput.py` — `MaskablePPO.learn` with the game's "
        "training config (`hot_envs.training.train.build_model`) against random, heuristic and a "
        f"numpy snapshot of the learner; {info['cores']} cores; network: "
        + ", ".join(f"{game} {policy}" for game, policy in info["policies"].items())
        + ". The batched set-up runs every "
        "game in the main process (`hot_envs.envs.vector.VectorSingleAgentEnv` behind "
        "`hot_envs.envs.vector_sb3.SB3VectorEnv`) with a larger rollout and minibatch — or, "
        "*in K processes*, in the main process and K − 1 workers "
        "(`hot_envs.envs.vector_workers`); the "
        "`SubprocVecEnv` set-ups use the config's (`rollout_steps` over the workers).",
        "",
        f"Steps/s: median of {rows[0]['repeats']} runs of {rows[0]['steps']:,} steps per "
        f"setting, the settings taking turns; ratio to the training default ({default} "
        "workers); the last column leaves the PPO updates' time out (env steps and policy "
        "forward passes while collecting rollouts).",
        "",
        "| game | set-up | n_steps per env | minibatch | torch threads | steps/s (median) "
        "| range | ratio | collecting rollouts only |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    base = {r["game"]: r["steps_per_second"] for r in rows if r["setup"] == f"{default} workers"}
    for r in rows:
        low, high = r["steps_per_second_range"]
        ratio = f"{r['steps_per_second'] / base[r['game']]:.2f}×" if r["game"] in base else ""
        lines.append(
            f"| {r['game']} | {r['setup']} | {r['n_steps']} | {r['batch_size']} "
            f"| {r['torch_threads']} | {r['steps_per_second']:,.0f} | {low:,.0f}–{high:,.0f} "
            f"| {ratio} | {r['collect_steps_per_second']:,.0f} |"
        )
    lines += target_lines(rows, base, default)
    lines += [
        "",
        "The environments alone: learner actions uniformly random, every opponent seat a "
        "sampling numpy snapshot; env steps/s (learner decisions), median of the runs.",
        "",
        "| game | `SingleAgentEnv` in a loop | batched | ratio |",
        "|---|---:|---:|---:|",
    ]
    lines += [
        f"| {e['game']} | {e['single_steps_per_second']:,.0f} | "
        f"{e['batched_steps_per_second']:,.0f} ({e['num_envs']} games) | "
        f"{e['batched_steps_per_second'] / e['single_steps_per_second']:.1f}× |"
        for e in envs
    ]
    names = [f"{p['game']}, {p['setup']}" for p in profiles]
    lines += [
        "",
        "Where the time goes: `learn` in one process, wall-clock timers around the parts; "
        "share of `learn`'s time and milliseconds per 1,000 env steps.",
        "",
        "| part | " + " | ".join(names) + " |",
        "|---|" + "---:|" * len(names),
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
        "| profile | steps | PPO updates | opponent calls (`act_arrays` / `act`) |",
        "|---|---:|---:|---:|",
    ]
    lines += [
        f"| {name} | {p['steps']:,} | {p['updates']} | {p['opponent_calls']:,} |"
        for name, p in zip(names, profiles, strict=True)
    ]
    lines += [
        "",
        f"{info['machine']}, {info['processor'] or 'cpu'}, torch {info['torch']}, commit "
        f"{info['commit']}, {info['date']}; 1-minute load average "
        f"{info['load_average'][0]:.1f} at the start, {info['load_average'][1]:.1f} at the end"
        + (
            " (above the core count: other jobs shared the machine)."
            if max(info["load_average"]) > (os.cpu_count() or 1)
            else "."
        ),
    ]
    return "\n".join(lines) + "\n"


def plot(rows: list[dict], profiles: list[dict], path: Path) -> None:
    """Left: steps/s per set-up (median, range); right: the one-process breakdowns."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(
        1, 2, figsize=(12, 1.8 + 0.6 * len(profiles)), gridspec_kw={"width_ratios": [1, 2]}
    )
    games = list(dict.fromkeys(r["game"] for r in rows))

    def label(row: dict) -> str:
        threads = row["torch_threads"]
        return row["setup"] + (f", {threads} torch threads" if threads > 1 else "")

    setups = list(dict.fromkeys(label(r) for r in rows))
    width = 0.8 / len(setups)
    for k, setup in enumerate(setups):
        mine = [r for r in rows if label(r) == setup]
        x = [games.index(r["game"]) + (k - (len(setups) - 1) / 2) * width for r in mine]
        rate = np.array([r["steps_per_second"] for r in mine])
        low, high = np.array([r["steps_per_second_range"] for r in mine]).T
        errors = np.clip([rate - low, high - rate], 0.0, None)
        left.bar(x, rate, width * 0.9, yerr=errors, capsize=3, label=setup)
    left.set_xticks(range(len(games)), games)
    left.set_ylabel("env steps/s during learn (median, range)")
    left.set_title("Throughput by set-up", fontsize=10)
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
    right.set_yticks(range(len(profiles)), [f"{p['game']}\n{p['setup']}" for p in profiles])
    right.invert_yaxis()
    right.set_xlabel("share of learn's wall-clock time, % (one process)")
    right.set_title("Where the time goes", fontsize=10)
    right.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=3)
    fig.tight_layout()
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=["heisse-luft", "heisse-karten"])
    parser.add_argument("--timesteps", type=int, default=16384)
    parser.add_argument("--profile-timesteps", type=int, default=8192)
    parser.add_argument("--n-envs", type=int, nargs="*", default=[1, default_n_envs()])
    parser.add_argument("--batched-envs", type=int, default=Batched.num_envs)
    parser.add_argument("--batched-n-steps", type=int, default=Batched.n_steps)
    parser.add_argument("--batched-batch-size", type=int, default=Batched.batch_size)
    parser.add_argument("--batched-threads", type=int, nargs="+", default=[Batched.threads])
    parser.add_argument("--batched-workers", type=int, nargs="+", default=[Batched.workers])
    parser.add_argument(
        "--batched-update-threads",
        type=int,
        nargs="+",
        default=[Batched.update_threads],
        help="torch threads during the PPO update only (0: --batched-threads)",
    )
    parser.add_argument("--env-seconds", type=float, default=5.0, help="per env-steps run")
    parser.add_argument(
        "--policy",
        choices=["config", "mlp", "action_scorer"],
        default="config",
        help="the network: the game config's, or the one named",
    )
    parser.add_argument("--repeats", type=int, default=3, help="runs per setting (median)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    load_before = os.getloadavg()[0]
    batched = [
        Batched(
            args.batched_envs, args.batched_n_steps, args.batched_batch_size, threads, workers, up
        )
        for workers in args.batched_workers
        for threads in args.batched_threads
        for up in args.batched_update_threads
    ]

    # the configs are read once, here: a config edited during the run changes nothing
    configs = [parse_args([game, "--seed", str(args.seed)]) for game in args.games]
    if args.policy != "config":
        configs = [replace(config, policy=args.policy) for config in configs]
    rows = throughput(configs, [*args.n_envs, *batched], args.timesteps, args.repeats)
    in_process = replace(batched[0], workers=1, update_threads=0)  # env steps, breakdown: 1 process
    envs = [env_steps(config, in_process, args.env_seconds, args.repeats) for config in configs]
    profiles = [
        breakdown(config, setup, args.profile_timesteps)
        for config in configs
        for setup in (1, in_process)
    ]
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
        "policies": {config.game: config.policy for config in configs},
    }
    default = default_n_envs()
    text = markdown(rows, envs, profiles, info, default)
    print(text)
    args.out.mkdir(parents=True, exist_ok=True)
    result = {**info, "throughput": rows, "env_steps": envs, "profiles": profiles}
    (args.out / "training_throughput.json").write_text(json.dumps(result, indent=2) + "\n")
    (args.out / "training_throughput.md").write_text(text)
    plot(rows, profiles, args.out / "training_throughput.png")
    print(f"wrote {args.out / 'training_throughput.md'}, .json and .png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

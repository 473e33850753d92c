"""The single-agent driver's speed against its earlier code, side by side in one run.

Three measurements, each as a ratio of two paths timed in the same process, taking turns chunk
by chunk (the median of the per-chunk ratios is reported: a busy machine slows both alike).
The env loops are timed in CPU time of the running thread (``time.thread_time``), so the time
another process holds the core is not counted; the steps/s are therefore per busy core:

* **Batched env** — :class:`hot_envs.envs.driver.Driver` as ``VectorSingleAgentEnv`` steps it (deal
  a finished game anew, observe): Heiße Luft, the action scorers' input, heuristic opponents, 64
  games, uniformly random legal learner actions, no learning. The reference is the driver as it
  was before the learners' features and the heuristic opponents were batched: its source at
  commit ``BEFORE`` (``git show BEFORE:hot_envs/driver.py``), loaded as a module beside today's
  package — the old code itself, not a re-creation, so nothing about it can drift. A middle row,
  today's driver with each learner's features computed per game (``policy_input`` in a loop),
  shows what the batched features alone give. Both drivers get the same generators and the same
  learner actions; the benchmark checks that they play the same games (the same observations
  at every step) and exits with status 1 otherwise.
* **Batched Heiße Karten heuristic** — today's driver as above on Heiße Karten (4 players,
  the action scorers' input, heuristic opponents, 64 games) against the same driver with the
  heuristic opponents deciding seat by seat through ``act`` (the batched heuristic,
  :func:`~hot_envs.agents.features_batch.batched_heuristic`, turned off): what deciding a round
  of games with the batched arithmetic, without encoding the observations it never reads, gives.
  Both must play the same games.
* **One-game env** — ``SingleAgentEnv`` (random opponents, no features) against the env as it
  was before the driver existed (``hot_envs/single_agent.py`` at commit ``BEFORE_DRIVER``,
  self-contained, loaded the same way), Heiße Luft and Heiße Karten with 4 players; the same
  seed must give the same observations.
* **Action-scorer decision** — the shipped ``heisse_luft_v0`` numpy checkpoint deciding batches
  of 64 random-play decisions with ``CheckpointAgent.act_batch`` (features of all legal actions
  as arrays, then one forward pass over the legal rows), in ms per game, against ``act`` one
  decision at a time (best of 5 passes, CPU time); the views are made beforehand, as in
  ``benchmarks/features.py``.

numpy's BLAS runs one thread (``OPENBLAS_NUM_THREADS=1`` unless set). Needs the repository's
git history for the two references.

    python benchmarks/driver_speed.py [--rounds 12] [--steps 20] [--out benchmarks/results]

Prints a table and writes ``driver_speed.{md,json}`` into ``--out``.
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import json
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy (module docstring)
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
from tqdm import tqdm

from hot_envs.agents.batched import BatchedAgent, as_batched
from hot_envs.agents.checkpoint import CheckpointAgent
from hot_envs.agents.features import policy_input
from hot_envs.agents.features_batch import ActionScorerInput
from hot_envs.envs.driver import Driver
from hot_envs.envs.single_agent import SingleAgentEnv, random_decisions

REPOSITORY = Path(__file__).resolve().parents[1]
RESULTS = REPOSITORY / "benchmarks" / "results"
BEFORE = "3985038"  # the driver with per-game learner features and per-seat heuristic opponents
BEFORE_DRIVER = "dda4290~1"  # SingleAgentEnv before the driver existed
GAMES = 64
SCORER_TARGET_MS = 0.25


def load_old(commit: str, path: str, name: str) -> ModuleType:
    """``path`` as it was at ``commit``, imported as module ``name``."""
    source = subprocess.run(
        ["git", "show", f"{commit}:{path}"],
        cwd=REPOSITORY,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    folder = Path(tempfile.mkdtemp(prefix="driver_speed_"))
    file = folder / f"{name}.py"
    file.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, file)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


class FeaturesPerGame(Driver):
    """Today's driver with the learners' features computed per game, as before."""

    def observe(self) -> None:
        seats = self.seats.tolist()
        self._fill(self.games, seats, self.observations, self.masks)
        d = self._layout_size
        for i, (game, seat) in enumerate(zip(self.games, seats, strict=True)):
            self.observations[i] = policy_input(
                self.game_name, self.observations[i, :d], game.view(seat)
            )


class HeuristicPerSeat(Driver):
    """Today's driver with every opponent deciding seat by seat through ``act`` (no batched
    heuristic)."""

    def batched_agent(self, name: str, rng: np.random.Generator) -> BatchedAgent:
        agent = self.pool.agent(name, self.game_name, rng)
        cached = self._batched.get(name)
        if cached is None or cached[0] is not agent:
            cached = self._batched[name] = (agent, as_batched(agent))
        return cached[1]


class DriverLoop:
    """A driver stepped as ``VectorSingleAgentEnv`` steps it, with seeded random actions."""

    def __init__(
        self, driver_class: type, seed: int, game: str = "heisse-luft", players: int | None = None
    ) -> None:
        # The learners' action features: a policy_input now, a flag in the earlier code.
        if "policy_input" in inspect.signature(driver_class).parameters:
            features: dict = {"policy_input": ActionScorerInput(game)}
        else:
            features = {"action_features": True}
        self.driver = driver_class(
            game, num_envs=GAMES, opponents=["heuristic"], players=players, **features
        )
        self.rngs = [np.random.default_rng([seed, i]) for i in range(GAMES)]
        self.pick = np.random.default_rng(seed)
        self.driver.reset(self.rngs)
        self.seconds, self.steps, self.digests = 0.0, 0, []

    def run(self, steps: int) -> float:
        driver = self.driver
        start = time.thread_time()
        for _ in range(steps):
            actions = (self.pick.random(driver.masks.shape) * driver.masks).argmax(axis=1)
            _, _, _, finals = driver.step(actions.tolist())
            driver.new_games(finals, self.rngs)
            driver.observe()
        seconds = time.thread_time() - start
        self.seconds += seconds
        self.steps += steps * GAMES
        self.digests.append(hash(driver.observations.tobytes()))
        return seconds


class EnvLoop:
    """A one-game env stepped with seeded random legal actions, reset when a game ends."""

    def __init__(self, env: Any, seed: int) -> None:
        self.env, self.pick = env, np.random.default_rng(seed)
        self.env.reset()
        self.seconds, self.steps, self.digests = 0.0, 0, []

    def run(self, steps: int) -> float:
        env, pick = self.env, self.pick
        start = time.thread_time()
        for _ in range(steps):
            mask = env.action_masks()
            observation, _, terminated, truncated, _ = env.step(
                int((pick.random(mask.shape) * mask).argmax())
            )
            if terminated or truncated:
                observation, _ = env.reset()
        seconds = time.thread_time() - start
        self.seconds += seconds
        self.steps += steps
        self.digests.append(hash(observation.tobytes()))
        return seconds


def side_by_side(loops: dict[str, Any], rounds: int, steps: int, bar: tqdm) -> dict[str, Any]:
    """Run the loops in turn, ``steps`` each per round; per loop its steps/s and its speed
    against the first loop (the median of the rounds' ratios)."""
    times: dict[str, list[float]] = {name: [] for name in loops}
    for loop in loops.values():  # warm-up: caches, first agents
        loop.run(max(1, steps // 4))
        loop.seconds = loop.steps = 0
    for _ in range(rounds):
        for name, loop in loops.items():
            times[name].append(loop.run(steps))
        bar.update()
    reference = next(iter(loops))
    return {
        name: {
            "steps_per_second": loop.steps / loop.seconds,
            "ratio": statistics.median(
                r / t for r, t in zip(times[reference], times[name], strict=True)
            ),
            "same_games": loop.digests == loops[reference].digests,
        }
        for name, loop in loops.items()
    }


def scorer(decisions: int, repeats: int, bar: tqdm) -> dict[str, float]:
    """ms per decision of the shipped Heiße Luft action scorer: batches of 64, one at a time."""

    class Seen:  # a state stand-in that hands out a view made beforehand
        def __init__(self, view: dict[str, Any]) -> None:
            self._view = view

        def view(self, seat: int) -> dict[str, Any]:
            return self._view

    agent = CheckpointAgent.load("heisse_luft_v0", game="heisse-luft")
    pairs = random_decisions("heisse-luft", None, decisions, seed=0)
    observations = np.stack([o["observation"] for o, _ in pairs])
    masks = np.stack([o["action_mask"] for o, _ in pairs])
    states = [Seen(v) for _, v in pairs]
    seats = np.zeros(GAMES, np.int64)
    parts = [slice(i, i + GAMES) for i in range(0, len(pairs), GAMES)]

    def batched() -> list[int]:
        return [
            a
            for p in parts
            for a in agent.act_batch(
                states[p], seats[: len(states[p])], observations[p], masks[p]
            ).tolist()
        ]

    def one() -> list[int]:
        return [agent.act(o, v) for o, v in pairs]

    best = {"batch": float("inf"), "one": float("inf")}
    chosen: dict[str, list[int]] = {}
    paths: dict[str, Callable[[], list[int]]] = {"batch": batched, "one": one}
    for _ in range(repeats + 1):  # the first pass: warm-up
        for name, path in paths.items():
            start = time.thread_time()
            chosen[name] = path()
            best[name] = min(best[name], time.thread_time() - start)
        bar.update()
    same = sum(int(a) == int(b) for a, b in zip(chosen["batch"], chosen["one"], strict=True))
    return {
        "batch_ms": best["batch"] / len(pairs) * 1e3,
        "one_ms": best["one"] / len(pairs) * 1e3,
        "same_actions": same,
        "decisions": len(pairs),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=12, help="turns of each path (default 12)")
    parser.add_argument("--steps", type=int, default=20, help="batched steps a turn (default 20)")
    parser.add_argument("--out", type=Path, default=RESULTS, help="folder for .md and .json")
    args = parser.parse_args(argv)
    old_driver = load_old(BEFORE, "hot_envs/driver.py", "driver_before")
    old_env = load_old(BEFORE_DRIVER, "hot_envs/single_agent.py", "single_agent_before")

    bar = tqdm(total=4 * args.rounds + 6, desc="driver speed", unit="turn")
    batched = side_by_side(
        {
            "before": DriverLoop(old_driver.Driver, seed=0),
            "features per game": DriverLoop(FeaturesPerGame, seed=0),
            "now": DriverLoop(Driver, seed=0),
        },
        args.rounds,
        args.steps,
        bar,
    )
    karten = side_by_side(
        {
            "heuristic seat by seat": DriverLoop(
                HeuristicPerSeat, seed=0, game="heisse-karten", players=4
            ),
            "batched heuristic": DriverLoop(Driver, seed=0, game="heisse-karten", players=4),
        },
        args.rounds,
        args.steps,
        bar,
    )
    one_game = {}
    for game, players in (("heisse-luft", None), ("heisse-karten", 4)):
        one_game[game] = side_by_side(
            {
                "before the driver": EnvLoop(
                    old_env.SingleAgentEnv(game, players=players, seed=1), seed=1
                ),
                "now": EnvLoop(SingleAgentEnv(game, players=players, seed=1), seed=1),
            },
            args.rounds,
            args.steps * 10,
            bar,
        )
    decision = scorer(decisions=1280, repeats=5, bar=bar)
    bar.close()

    lines = [
        f"Batched env (Heiße Luft, action features, heuristic opponents, {GAMES} games, random "
        "learner actions):",
        "",
        "| driver | steps/s | speed vs before | same games |",
        "|---|---:|---:|---:|",
    ]
    for name, row in batched.items():
        lines.append(
            f"| {name} | {row['steps_per_second']:,.0f} | {row['ratio']:.2f}× | "
            f"{'yes' if row['same_games'] else 'NO'} |"
        )
    lines += [
        "",
        f"Batched env, Heiße Karten (4 players, action features, heuristic opponents, {GAMES} "
        "games, random learner actions):",
        "",
        "| heuristic opponents | steps/s | speed vs seat by seat | same games |",
        "|---|---:|---:|---:|",
    ]
    for name, row in karten.items():
        lines.append(
            f"| {name} | {row['steps_per_second']:,.0f} | {row['ratio']:.2f}× | "
            f"{'yes' if row['same_games'] else 'NO'} |"
        )
    lines += [
        "",
        "One-game `SingleAgentEnv` (random opponents, no features) against the env before the "
        "driver:",
        "",
        "| game | before the driver, steps/s | now, steps/s | speed vs before | same games |",
        "|---|---:|---:|---:|---:|",
    ]
    for game, rows in one_game.items():
        old, new = rows["before the driver"], rows["now"]
        lines.append(
            f"| {game}{' (4 players)' if game == 'heisse-karten' else ''} | "
            f"{old['steps_per_second']:,.0f} | {new['steps_per_second']:,.0f} | "
            f"{new['ratio']:.2f}× | {'yes' if new['same_games'] else 'NO'} |"
        )
    lines += [
        "",
        f"Action-scorer decision (`heisse_luft_v0`, {decision['decisions']} decisions): "
        f"{decision['batch_ms']:.3f} ms per game in batches of {GAMES} "
        f"(target ≤ {SCORER_TARGET_MS} ms), {decision['one_ms']:.3f} ms one at a time; "
        f"same actions {decision['same_actions']}/{decision['decisions']}.",
    ]
    table = "\n".join(lines)
    print(table)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "driver_speed.md").write_text(table + "\n", encoding="utf-8")
    (args.out / "driver_speed.json").write_text(
        json.dumps(
            {
                "batched": batched,
                "karten_heuristic": karten,
                "one_game": one_game,
                "scorer": decision,
                "rounds": args.rounds,
                "steps": args.steps,
                "python": platform.python_version(),
                "cpus": os.cpu_count(),
                "load": os.getloadavg() if hasattr(os, "getloadavg") else None,
            },
            indent=2,
        )
        + "\n",
        encoding="utf-8",
    )
    same = all(row["same_games"] for row in [*batched.values(), *karten.values()]) and all(
        row["same_games"] for rows in one_game.values() for row in rows.values()
    )
    return 0 if same and decision["same_actions"] == decision["decisions"] else 1


if __name__ == "__main__":
    raise SystemExit(main())

"""Throughput of random legal play: bare engines and full PettingZoo loops, against connect_four_v3.

Every measurement plays whole games with uniformly random legal actions for ``--seconds`` and
counts the actions taken (steps with ``action=None`` for finished agents are not counted):

- **engine**: ``legal = state.legal_actions(); state.apply(legal[choice])``, a new
  ``State.new(seed=...)`` whenever ``state.is_terminal()``;
- **env loop**: the standard AEC loop through ``env()`` (all wrappers on) --
  ``env.last()`` observes at every step, the action is drawn from ``obs["action_mask"]``,
  ``env.reset(seed=...)`` with a new seed after each game.

PettingZoo's ``connect_four_v3`` is played the same way in the same run; every ratio is taken
against it, so figures from different machines can be compared. Benchmarks are interleaved repeat
by repeat and the median is reported. Games whose modules are not importable yet are skipped with
a note. The process is pinned to one CPU where the OS allows it.

    pip install -e ".[bench]"
    python benchmarks/throughput.py --seconds 5 --repeats 3 --out benchmarks/results
    python benchmarks/throughput.py --hk-players 2 4 6 --raw-env   # more rows

``--raw-env`` adds each ``raw_env`` played the same way without PettingZoo's wrappers, to show
what the wrappers cost.

Writes ``throughput.json``, ``throughput.md`` (the table for docs/benchmarks.md) and
``throughput.png`` into ``--out``.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

REFERENCE = "connect_four_v3 env loop"
HK_TARGET_PLAYERS = 4  # the Heiße Karten throughput targets are for 4 players
WARMUP_SECONDS = 0.5


# --- arguments -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Args:
    seconds: float
    repeats: int
    out: Path
    hk_players: tuple[int, ...]
    seed: int
    cpu: int | None
    raw_env: bool


def parse_args(argv: list[str] | None = None) -> Args:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="per measurement (default 5)")
    parser.add_argument("--repeats", type=int, default=3, help="median of this many (default 3)")
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("benchmarks/results"),
        help="folder for JSON, Markdown and PNG (default benchmarks/results)",
    )
    parser.add_argument(
        "--hk-players",
        type=int,
        nargs="+",
        default=[HK_TARGET_PLAYERS],
        help="Heiße Karten player counts to measure (default 4)",
    )
    parser.add_argument("--seed", type=int, default=0, help="first game seed (default 0)")
    parser.add_argument(
        "--cpu",
        type=int,
        default=None,
        help="CPU to pin to (default: the last one this process may use)",
    )
    parser.add_argument(
        "--raw-env",
        action="store_true",
        help="also measure each raw_env (no wrappers) to see what the wrappers cost",
    )
    ns = parser.parse_args(argv)
    if ns.seconds <= 0 or ns.repeats < 1:
        parser.error("--seconds must be > 0 and --repeats >= 1")
    return Args(ns.seconds, ns.repeats, ns.out, tuple(ns.hk_players), ns.seed, ns.cpu, ns.raw_env)


# --- targets -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    """Either an absolute rate (actions/s) or a multiple of the connect_four_v3 env loop."""

    value: float
    relative: bool

    def describe(self) -> str:
        return f">= {self.value:g}x c4" if self.relative else f">= {self.value:,.0f}/s"

    def met(self, rate: float, ratio: float | None) -> bool | None:
        if not self.relative:
            return rate >= self.value
        return None if ratio is None else ratio >= self.value


# --- the two loops -------------------------------------------------------------------------------

Runner = Callable[[float, int], tuple[int, float]]
"""(seconds, seed) -> (actions taken, seconds taken); plays whole games until the time is up."""


def engine_loop(state_class: Any, **options: Any) -> Runner:
    def run(seconds: float, seed: int) -> tuple[int, float]:
        choose = random.Random(seed).randrange  # ~0.1 us; numpy's scalar integers() is ~0.8 us
        game_seed, actions = seed, 0
        start = time.perf_counter()
        deadline = start + seconds
        state = state_class.new(seed=game_seed, **options)
        while True:
            if state.is_terminal():
                now = time.perf_counter()
                if now >= deadline:
                    return actions, now - start
                game_seed += 1
                state = state_class.new(seed=game_seed, **options)
            legal = state.legal_actions()
            state.apply(legal[choose(len(legal))])
            actions += 1

    return run


def env_loop(make_env: Callable[[], Any]) -> Runner:
    def run(seconds: float, seed: int) -> tuple[int, float]:
        choose = random.Random(seed).randrange
        env = make_env()
        game_seed, actions = seed, 0
        start = time.perf_counter()
        deadline = start + seconds
        while True:
            env.reset(seed=game_seed)
            for _agent in env.agent_iter():
                obs, _reward, termination, truncation, _info = env.last()
                if termination or truncation:
                    action = None
                else:
                    legal = np.flatnonzero(obs["action_mask"])
                    action = int(legal[choose(len(legal))])
                    actions += 1
                env.step(action)
            now = time.perf_counter()
            if now >= deadline:
                env.close()
                return actions, now - start
            game_seed += 1

    return run


# --- the ceiling: PettingZoo's loop and wrappers around an env that does nothing ----------------


def idle_env(num_actions: int = 366, observation_size: int = 644, length: int = 70) -> Any:
    """A 2-player AEC env whose observations are one constant dict and whose games last
    ``length`` steps, wrapped like ours: what the AEC loop and the standard wrappers cost alone."""
    from gymnasium import spaces
    from pettingzoo import AECEnv

    from hot_envs.envs.env_base import wrap

    class IdleEnv(AECEnv):
        metadata = {"name": "idle_v0", "render_modes": [], "is_parallelizable": False}

        def __init__(self) -> None:
            super().__init__()
            self.possible_agents = ["player_0", "player_1"]
            mask = np.ones(num_actions, dtype=np.int8)
            self._obs = {"observation": np.zeros(observation_size, np.float32), "action_mask": mask}
            self.observation_space = lambda agent: spaces.Dict({})
            self.action_space = lambda agent: spaces.Discrete(num_actions)

        def reset(self, seed: int | None = None, options: dict | None = None) -> None:
            self.agents = self.possible_agents[:]
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
            self.terminations = dict.fromkeys(self.agents, False)
            self.truncations = dict.fromkeys(self.agents, False)
            self.infos = {a: {} for a in self.agents}
            self.agent_selection, self._steps = "player_0", 0

        def observe(self, agent: str) -> dict:
            return self._obs

        def step(self, action: int | None) -> None:
            agent = self.agent_selection
            if self.terminations[agent]:
                self._was_dead_step(action)
                return
            self._cumulative_rewards[agent] = 0.0
            self._steps += 1
            if self._steps >= length:
                self.terminations = dict.fromkeys(self.agents, True)
            else:
                self.agent_selection = "player_1" if agent == "player_0" else "player_0"
            self._accumulate_rewards()

    return wrap(IdleEnv())


# --- what to measure -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Benchmark:
    name: str
    run: Runner
    target: Target | None


def load(module_name: str, attribute: str, notes: list[str]) -> Any | None:
    """``module.attribute``, or None with a note when the module or attribute is not there yet."""
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        missing = error.name or ""
        if missing.startswith("hot_envs."):
            note = f"skipped {module_name}: {missing} is not written yet"
        else:
            note = f'skipped {module_name}: {error} -- pip install -e ".[bench]"'
    else:
        if hasattr(module, attribute):
            return getattr(module, attribute)
        note = f"skipped {module_name}: it has no `{attribute}` yet"
    if note not in notes:
        notes.append(note)
    return None


def collect_benchmarks(args: Args, notes: list[str]) -> list[Benchmark]:
    benchmarks = []

    def add_env(module: str, name: str, target: Target | None, **kwargs: Any) -> None:
        """The env() loop of ``module``; with --raw-env also its raw_env loop (no target)."""
        make_env = load(module, "env", notes)
        if make_env:
            run = env_loop(functools.partial(make_env, **kwargs))
            benchmarks.append(Benchmark(name.format("env loop"), run, target))
        make_raw = load(module, "raw_env", notes) if args.raw_env else None
        if make_raw:
            run = env_loop(functools.partial(make_raw, **kwargs))
            benchmarks.append(Benchmark(name.format("raw_env loop"), run, None))

    add_env("pettingzoo.classic.connect_four_v3", "connect_four_v3 {}", None)
    benchmarks.append(Benchmark("idle env, our wrappers (ceiling)", env_loop(idle_env), None))

    hl_state = load("hot_envs.heisse_luft", "State", notes)
    if hl_state:
        benchmarks.append(
            Benchmark("heisse_luft engine", engine_loop(hl_state), Target(100_000, False))
        )
    add_env("hot_envs.heisse_luft_v0", "heisse_luft_v0 {}", Target(4, True))

    hk_state = load("hot_envs.heisse_karten", "State", notes)
    for n in args.hk_players:
        at_target = n == HK_TARGET_PLAYERS
        if hk_state:
            benchmarks.append(
                Benchmark(
                    f"heisse_karten engine, {n} players",
                    engine_loop(hk_state, num_players=n),
                    Target(300_000, False) if at_target else None,
                )
            )
        add_env(
            "hot_envs.heisse_karten_v0",
            f"heisse_karten_v0 {{}}, {n} players",
            Target(5, True) if at_target else None,
            num_players=n,
        )
    return benchmarks


# --- measuring -----------------------------------------------------------------------------------


def pin_to_one_cpu(cpu: int | None) -> int | None:
    """Pin this process to one CPU (Linux); returns it, or None where pinning is unsupported."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    chosen = max(os.sched_getaffinity(0)) if cpu is None else cpu
    os.sched_setaffinity(0, {chosen})
    return chosen


def measure(benchmarks: list[Benchmark], args: Args, console: Console) -> dict[str, list[float]]:
    """Actions/s per benchmark, one sample per repeat; benchmarks interleaved within each repeat."""
    samples: dict[str, list[float]] = {b.name: [] for b in benchmarks}
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console) as progress:
        task = progress.add_task("warm-up", total=len(benchmarks) * (args.repeats + 1))
        for b in benchmarks:
            progress.update(task, description=f"warm-up {b.name}")
            b.run(min(WARMUP_SECONDS, args.seconds), args.seed)
            progress.advance(task)
        for repeat in range(args.repeats):
            for b in benchmarks:
                progress.update(task, description=f"{repeat + 1}/{args.repeats} {b.name}")
                actions, elapsed = b.run(args.seconds, args.seed + 1_000_000 * repeat)
                samples[b.name].append(actions / elapsed)
                progress.advance(task)
    return samples


@dataclass(frozen=True)
class Result:
    benchmark: str
    steps_per_s: float
    samples: list[float]
    ratio: float | None
    target: Target | None
    met: bool | None


def summarise(benchmarks: list[Benchmark], samples: dict[str, list[float]]) -> list[Result]:
    medians = {name: statistics.median(values) for name, values in samples.items()}
    reference = medians.get(REFERENCE)
    results = []
    for b in benchmarks:
        rate = medians[b.name]
        ratio = None if reference is None else rate / reference
        results.append(
            Result(
                benchmark=b.name,
                steps_per_s=rate,
                samples=samples[b.name],
                ratio=ratio,
                target=b.target,
                met=b.target.met(rate, ratio) if b.target else None,
            )
        )
    return results


# --- reporting -----------------------------------------------------------------------------------

HEADERS = ("benchmark", "steps/s (median)", "ratio to c4", "target", "met?")
CAPTION = "c4 = connect_four_v3 env loop, the reference measured in the same run"


def table_rows(results: list[Result]) -> list[tuple[str, ...]]:
    def met_text(met: bool | None) -> str:
        return "" if met is None else ("yes" if met else "NO")

    return [
        (
            r.benchmark,
            f"{r.steps_per_s:,.0f}",
            "" if r.ratio is None else f"{r.ratio:.2f}x",
            r.target.describe() if r.target else "",
            met_text(r.met),
        )
        for r in results
    ]


def print_table(results: list[Result], console: Console) -> None:
    table = Table(title="Random legal play, one core", caption=CAPTION)
    for i, header in enumerate(HEADERS):
        table.add_column(header, justify="left" if i == 0 else "right", no_wrap=i == 0)
    for row in table_rows(results):
        style = "red" if row[-1] == "NO" else None
        table.add_row(*row, style=style)
    console.print(table)


def machine_info(args: Args, cpu: int | None) -> dict[str, Any]:
    import pettingzoo

    cpu_model = platform.processor()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        models = [
            line.split(":", 1)[1].strip()
            for line in cpuinfo.read_text().splitlines()
            if line.startswith("model name")
        ]
        cpu_model = models[0] if models else cpu_model
    try:
        commit = subprocess.run(
            ["git", "-C", str(Path(__file__).parent), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = None
    return {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "commit": commit,
        "cpu_model": cpu_model,
        "pinned_cpu": cpu,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "numpy": np.__version__,
        "pettingzoo": pettingzoo.__version__,
        "seconds": args.seconds,
        "repeats": args.repeats,
        "seed": args.seed,
    }


def write_json(path: Path, info: dict[str, Any], results: list[Result], notes: list[str]) -> None:
    data = {"machine": info, "notes": notes, "results": [asdict(r) for r in results]}
    path.write_text(json.dumps(data, indent=2) + "\n")


def write_markdown(
    path: Path, info: dict[str, Any], results: list[Result], notes: list[str]
) -> None:
    lines = [
        "| " + " | ".join(HEADERS) + " |",
        "|---|" + "---:|" * (len(HEADERS) - 1),
        *("| " + " | ".join(row) + " |" for row in table_rows(results)),
        "",
        f"{CAPTION}.",
        f"{info['cpu_model']}, Python {info['python']}, pettingzoo {info['pettingzoo']}, "
        f"commit {info['commit']}, {info['date']}; median of {info['repeats']} x "
        f"{info['seconds']:g} s, one core.",
        *(f"Note: {note}" for note in notes),
    ]
    path.write_text("\n".join(lines) + "\n")


def write_chart(path: Path, results: list[Result]) -> None:
    """Two bar charts side by side: actions/s (log scale) and ratio to connect_four_v3.

    A black tick marks each benchmark's target on the panel the target is stated in.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shown = results[::-1]  # barh draws bottom-up; keep the table's order top-down
    names = [r.benchmark for r in shown]
    fig, (rates, ratios) = plt.subplots(1, 2, figsize=(12, 1.2 + 0.5 * len(shown)), sharey=True)
    bars = rates.barh(names, [r.steps_per_s for r in shown], color="tab:blue")
    rates.bar_label(bars, labels=[f"{r.steps_per_s:,.0f}" for r in shown], padding=3, fontsize=8)
    rates.set_xscale("log")
    rates.margins(x=0.12)
    rates.set_xlabel("actions per second (log scale)")
    bars = ratios.barh(names, [r.ratio or 0.0 for r in shown], color="tab:orange")
    ratios.bar_label(
        bars, labels=[f"{r.ratio:.2f}x" if r.ratio else "" for r in shown], padding=3, fontsize=8
    )
    ratios.set_xscale("log")
    ratios.margins(x=0.12)
    ratios.axvline(1.0, color="grey", linewidth=0.8)
    ratios.set_xlabel("ratio to connect_four_v3 env loop (log scale)")
    for y, r in enumerate(shown):
        if r.target:
            panel = ratios if r.target.relative else rates
            panel.plot(
                r.target.value, y, marker="|", markersize=18, markeredgewidth=2, color="black"
            )
    fig.suptitle("Random legal play, one core (median); black tick = target")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


# --- main ----------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    console = Console(width=None if sys.stdout.isatty() else 120)  # no wrapping in logs
    cpu = pin_to_one_cpu(args.cpu)
    notes: list[str] = []
    benchmarks = collect_benchmarks(args, notes)
    for note in notes:
        console.print(note, style="yellow", markup=False)
    if not benchmarks:
        console.print("[red]nothing to measure[/red]")
        raise SystemExit(1)
    if not any(b.name == REFERENCE for b in benchmarks):
        notes.append("no connect_four_v3 reference: ratios and relative targets are left empty")

    samples = measure(benchmarks, args, console)
    results = summarise(benchmarks, samples)
    print_table(results, console)

    info = machine_info(args, cpu)
    args.out.mkdir(parents=True, exist_ok=True)
    write_json(args.out / "throughput.json", info, results, notes)
    write_markdown(args.out / "throughput.md", info, results, notes)
    write_chart(args.out / "throughput.png", results)
    console.print(f"wrote {args.out}/throughput.json, throughput.md, throughput.png")


if __name__ == "__main__":
    main()

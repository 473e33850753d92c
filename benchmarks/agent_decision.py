"""Rule-based agents deciding one game at a time through the array kernels, against earlier code.

The heuristic and every suite style decide through their game's array kernels
(:mod:`hot_envs.agents.array_luft`, :mod:`hot_envs.agents.array_karten`), in an AEC loop on a
one-game record written from the view. Three measurements, each in fresh interpreters:

* **warm** — CPU µs per ``act(observation, view)`` of each agent on the golden positions
  (``tests/agents/golden``, 1,000 per game), best of ``--repeats`` passes, the numba cache
  warm (a first decision, compiling or loading the kernels, is left out); and the heuristic's
  CPU µs per decision in whole games of the AEC environment (``env()``, heuristic against
  itself, only ``act`` timed);
* **first decision** — wall seconds of the heuristic's first decision with two legal moves or
  more in an AEC game, with ``NUMBA_CACHE_DIR`` an empty temporary folder (**cold**: the
  kernels compile) and again with that folder filled (**cached**: the kernels load);
* **evaluate** — wall seconds of ``hot-envs evaluate heisse-luft --agents heisse_luft_v0
  heuristic --games N --workers 1`` (the arena's batches), cold cache and cached, and the CPU
  seconds of the command with the processes it waited for (a cold cache compiles on two cores:
  :func:`hot_envs.batched.jit.compile_groups`).

``--before PATH`` runs every measurement also on a checkout of earlier code (e.g. ``git worktree
add /tmp/before COMMIT``), by ``PYTHONPATH=PATH``, the two taking turns so that a busy machine
slows both alike; ratios are after / before.

    python benchmarks/agent_decision.py [--before PATH] [--repeats 3] [--games 200] [--out DIR]

Prints a table and writes ``agent_decision.{md,json}`` into ``--out`` (default
``benchmarks/results``).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPOSITORY = Path(__file__).resolve().parents[1]
GAMES = ("heisse-luft", "heisse-karten")

WARM = """if True:
    import json, sys, time
    from hot_envs.agents import STYLES, make_agent
    from hot_envs.core.games import get_game
    from tests.agents import golden_decisions as golden

    game, repeats = sys.argv[1], int(sys.argv[2])
    engine = get_game(game).engine
    stored = golden.load(game)[:1000]
    views = [engine.State.from_dict(r["state"]).view(r["seat"]) for r in stored]
    observation = {"action_mask": None}
    found = {}
    specs = ["heuristic"] + [s for s, (g, _, _) in STYLES.items() if g == get_game(game).name]
    for spec in specs:
        agent = make_agent(spec, game, 0)
        agent.act(observation, views[0])  # compile or load the kernels
        best = float("inf")
        for _ in range(repeats):
            start = time.process_time()
            for view in views:
                agent.act(observation, view)
            best = min(best, (time.process_time() - start) / len(views))
        found[spec] = best * 1e6
    env = get_game(game).env.env()
    agent = make_agent("heuristic", game, 0)
    spent, decisions = 0.0, 0
    for seed in range(20):
        env.reset(seed=seed)
        for name in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            view = env.unwrapped.view(name)
            start = time.process_time()
            action = agent.act(obs, view)
            spent += time.process_time() - start
            decisions += 1
            env.step(action)
    found["heuristic in env()"] = spent / decisions * 1e6
    print(json.dumps(found))
"""

FIRST = """if True:
    import json, sys, time
    from hot_envs.agents import make_agent
    from hot_envs.core.games import get_game

    game = sys.argv[1]
    env = get_game(game).env.env()
    env.reset(seed=0)
    agent = make_agent("heuristic", game, 0)
    for name in env.agent_iter():
        obs, _, _, _, _ = env.last()
        view = env.unwrapped.view(name)
        if len(view["legal_actions"]) > 1:
            start = time.perf_counter()
            agent.act(obs, view)
            print(json.dumps(time.perf_counter() - start))
            break
        env.step(view["legal_actions"][0])
"""


def run(code: str, path: Path, args: list[str], cache: str | None = None) -> Any:
    """What ``code`` prints (JSON), run with ``PYTHONPATH=path`` (and ``NUMBA_CACHE_DIR``)."""
    env = {**os.environ, "PYTHONPATH": str(path)}
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = cache
    result = subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=tempfile.gettempdir(),  # so that PYTHONPATH, not the working folder, holds the code
        env=env,
        capture_output=True,
        text=True,
    )
    if result.returncode:
        raise RuntimeError(f"the measurement failed on {path}:\n{result.stderr[-3000:]}")
    return json.loads(result.stdout)


def evaluate(path: Path, games: int, cache: str) -> tuple[float, float]:
    """Wall and CPU seconds of ``hot-envs evaluate`` (module docstring) on the code at
    ``path``, the CPU's of the command and the processes it waited for."""
    command = [sys.executable, "-m", "hot_envs.cli", "evaluate", "heisse-luft"]
    command += ["--agents", "heisse_luft_v0", "heuristic", "--games", str(games)]
    command += ["--workers", "1", "--quiet"]
    env = {**os.environ, "PYTHONPATH": str(path), "NUMBA_CACHE_DIR": cache}
    before = _children_cpu()
    start = time.perf_counter()
    subprocess.run(command, cwd=tempfile.gettempdir(), env=env, capture_output=True, check=True)
    return time.perf_counter() - start, _children_cpu() - before


def _children_cpu() -> float:
    """CPU seconds of this process's finished children so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(codes: dict[str, Path], repeats: int, games: int) -> dict[str, dict[str, Any]]:
    """Every measurement of the module docstring on each code, the codes taking turns."""
    runs: dict[str, dict[str, Any]] = {name: {} for name in codes}
    for game in GAMES:
        for name, path in codes.items():
            runs[name][f"warm {game}"] = run(WARM, path, [game, str(repeats)])
        for name, path in codes.items():
            with tempfile.TemporaryDirectory() as cache:
                cold = run(FIRST, path, [game], cache)
                cached = run(FIRST, path, [game], cache)
            runs[name][f"first decision {game}"] = {"cold": cold, "cached": cached}
    for name, path in codes.items():
        with tempfile.TemporaryDirectory() as cache:
            cold = evaluate(path, games, cache)
            cached = evaluate(path, games, cache)
        runs[name]["evaluate heisse-luft"] = {"cold": cold[0], "cached": cached[0]}
        runs[name]["evaluate heisse-luft CPU"] = {"cold": cold[1], "cached": cached[1]}
    return runs


def table(runs: dict[str, dict[str, Any]]) -> str:
    """The results as a markdown table: one row per measurement, a column per code."""
    names = list(runs)
    lines = [
        "| measurement | " + " | ".join(names) + (" | after / before |" if len(names) > 1 else " |")
    ]
    lines.append("|---" * (len(names) + 1 + (len(names) > 1)) + "|")
    first = runs[names[0]]
    for key, value in first.items():
        parts = value.items() if isinstance(value, dict) else [("", value)]
        for part, _ in parts:
            numbers = [runs[n][key][part] if part else runs[n][key] for n in names]
            unit = "µs" if key.startswith("warm") else "s"
            cells = [f"{x:.1f} {unit}" if unit == "µs" else f"{x:.2f} {unit}" for x in numbers]
            ratio = f" | {numbers[0] / numbers[1]:.2f}" if len(names) > 1 and numbers[1] else ""
            lines.append(f"| {key} {part} | " + " | ".join(cells) + ratio + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", type=Path, help="a checkout of the earlier code")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--games", type=int, default=200, help="games of the evaluate command")
    parser.add_argument("--out", type=Path, default=REPOSITORY / "benchmarks" / "results")
    args = parser.parse_args()
    codes = {"this code": REPOSITORY}
    if args.before:
        codes["before"] = args.before.resolve()
    runs = measure(codes, args.repeats, args.games)
    text = table(runs)
    print(text)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "agent_decision.md").write_text(text + "\n", encoding="utf-8")
    (args.out / "agent_decision.json").write_text(json.dumps(runs, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()

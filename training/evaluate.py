"""Evaluate a checkpoint against fixed agents with the arena, and print the results as a table.

Each evaluation is a :func:`hot_envs.evaluation.arena.play_match` of the checkpoint (its numpy
agent, argmax play) in one seat against ``N − 1`` copies of an opponent spec, seats rotated over
duplicate deals; the checkpoint's *win share* (a win 1, a win shared by W 1/W, so a 2-player draw ½)
comes with its 95 % Wilson interval. The *strength* of a row is the win share times N — 1.0 means an
even share, 2.0 winning every game with two players; with several player counts the best-model rule
uses their mean strength against the evaluation opponent.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from stable_baselines3.common.callbacks import BaseCallback

from hot_envs.agents.checkpoint import update_metadata
from hot_envs.agents.suite import held_out_pool
from hot_envs.evaluation.arena import play_match
from hot_envs.training.export import export_checkpoint


def evaluate(
    checkpoint: str | Path,
    game: str,
    opponent: str,
    games: int,
    player_counts: Sequence[int],
    seed: int = 0,
    workers: int = 1,
) -> list[dict[str, Any]]:
    """One row per player count: the checkpoint against ``opponent`` in every other seat."""
    rows = []
    spec = str(Path(checkpoint).with_suffix(".npz"))
    workers = workers or os.cpu_count() or 1
    for n in player_counts:
        lineup = [spec] + [opponent] * (n - 1)
        result = play_match(
            game,
            lineup,
            games,
            seed=seed,
            players=n,
            workers=workers,
            progress=False,
        )
        stats = result.stats()[0].summary()
        rows.append(
            {
                "opponent": opponent,
                "players": n,
                "games": stats["games"],
                "win_share": stats["win_share"],
                "ci_low": stats["ci_low"],
                "ci_high": stats["ci_high"],
                "strength": stats["win_share"] * n,
                "mean_length": stats["mean_length"],
            }
        )
    return rows


def mean_strength(rows: Sequence[dict[str, Any]]) -> float:
    """Mean of the rows' strengths (the best-model score)."""
    return sum(row["strength"] for row in rows) / max(len(rows), 1)


def format_table(rows: Sequence[dict[str, Any]], title: str = "evaluation") -> str:
    """The rows as a plain-text table: opponent, players, games, win share, 95 % interval."""
    header = f"{'opponent':<16} {'players':>7} {'games':>6} {'win share':>10}  {'95 % CI':<15}"
    lines = [title, header, "-" * len(header)]
    for row in rows:
        interval = f"{100 * row['ci_low']:.1f}–{100 * row['ci_high']:.1f} %"
        lines.append(
            f"{row['opponent']:<16} {row['players']:>7} {row['games']:>6} "
            f"{100 * row['win_share']:>9.1f}%  {interval:<15}"
        )
    return "\n".join(lines)


def compare(
    start: str | Path,
    final: str | Path,
    game: str,
    opponents: dict[str, int],
    games: int,
    player_counts: Sequence[int],
    seed: int = 0,
    workers: int = 1,
    held_out: dict[str, int] | int | None = None,
) -> list[dict[str, Any]]:
    """Rows for :func:`format_comparison`: ``start`` and ``final`` against each opponent (spec →
    games; the same deals for both) and each ``held_out`` opponent (tagged ``"held_out": True``:
    the suite's held-out pool, :func:`hot_envs.agents.suite.held_out_pool`, opponents training never
    meets; spec → games, or one count of games for each of the pool), then ``final`` against
    ``start`` over ``games`` games (opponent ``"start"``), each row tagged with ``checkpoint``."""
    if isinstance(held_out, int):
        held_out = {spec: held_out for spec in held_out_pool(game)}
    rows = []
    tagged = [(o, c, False) for o, c in opponents.items()]
    tagged += [(o, c, True) for o, c in (held_out or {}).items()]
    for opponent, count, is_held_out in tagged:
        for name, path in (("start", start), ("final", final)):
            for row in evaluate(path, game, opponent, count, player_counts, seed, workers):
                rows.append({"checkpoint": name, **row, "held_out": is_held_out})
    start_spec = str(Path(start).with_suffix(".npz"))
    for row in evaluate(final, game, start_spec, games, player_counts, seed, workers):
        rows.append({"checkpoint": "final", **row, "opponent": "start", "held_out": False})
    return rows


def format_comparison(rows: Sequence[dict[str, Any]], title: str = "evaluation") -> str:
    """The :func:`compare` rows as a table: per opponent and player count, the win share of
    start and final with their 95 % intervals; under them, per player count, each one's lowest
    share against a held-out opponent (``held-out min``)."""

    def cell(row: dict[str, Any] | None) -> str:
        if row is None:
            return "–"
        return (
            f"{100 * row['win_share']:5.1f} % [{100 * row['ci_low']:.1f}, "
            f"{100 * row['ci_high']:.1f}]"
        )

    keyed = {(r["checkpoint"], r["opponent"], r["players"]): r for r in rows}
    width = max([len("held-out min"), *(len(r["opponent"]) for r in rows)])

    def line(name: str, players: Any, games: Any, start: str, final: str) -> str:
        return f"{name:<{width}} {players:>7} {games:>6}  {start:<26} {final:<26}".rstrip()

    header = line(
        "opponent", "players", "games", *(f"{c}: win share, 95 % CI" for c in ("start", "final"))
    )
    lines = [title, header, "-" * len(header)]
    for opponent, players in dict.fromkeys((r["opponent"], r["players"]) for r in rows):
        final = keyed.get(("final", opponent, players))
        start = keyed.get(("start", opponent, players))
        games = (final or start)["games"]
        lines.append(line(opponent, players, games, cell(start), cell(final)))
    for players in dict.fromkeys(r["players"] for r in rows if r.get("held_out")):
        held = [r for r in rows if r.get("held_out") and r["players"] == players]
        worst = [
            min((r for r in held if r["checkpoint"] == name), key=lambda r: r["win_share"])
            for name in ("start", "final")
        ]
        lines.append(line("held-out min", players, "", cell(worst[0]), cell(worst[1])))
    return "\n".join(lines)


class EvaluationCallback(BaseCallback):
    """At the start, every ``every`` steps and at the end: export ``latest``, evaluate it against
    ``opponent``, log ``eval/*`` to TensorBoard, and copy it to ``best`` when its mean strength
    beats every earlier evaluation. ``history`` keeps one entry per evaluation."""

    def __init__(
        self,
        out: Path,
        every: int,
        opponent: str,
        games: int,
        player_counts: Sequence[int],
        metadata: Callable[[], dict[str, Any]],
        seed: int = 0,
        workers: int = 1,
        stopped: Callable[[], bool] = lambda: False,
    ) -> None:
        super().__init__()
        self.stopped = stopped  # a run stopped by a signal skips its closing evaluation
        self.out, self.every, self.opponent = out, every, opponent
        self.games, self.player_counts, self.metadata = games, player_counts, metadata
        self.seed, self.workers = seed, workers
        self.next_eval = every
        self.best = -1.0
        self.history: list[dict[str, Any]] = []
        self.started = time.perf_counter()
        self.start_steps = 0
        self.restored = False

    def state(self) -> dict[str, Any]:
        """The evaluation log and where the next evaluation falls, for :meth:`restore`."""
        return {"history": list(self.history), "best": self.best, "next_eval": self.next_eval}

    def restore(self, state: dict[str, Any]) -> None:
        """Go on from :meth:`state` (a resumed run): no evaluation at the start, the next one
        where it was due."""
        self.history, self.best = list(state["history"]), state["best"]
        self.next_eval, self.restored = state["next_eval"], True

    def _on_training_start(self) -> None:
        self.started, self.start_steps = time.perf_counter(), self.num_timesteps
        if self.restored:
            return
        self.next_eval = self.num_timesteps + self.every
        self.evaluate_now()  # the starting point (fresh, cloned or resumed) is a candidate too

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.next_eval:
            self.evaluate_now()
            self.next_eval += self.every
        return True

    def _on_training_end(self) -> None:
        if self.stopped():
            return
        if not self.history or self.history[-1]["steps"] != self.num_timesteps:
            self.evaluate_now()

    def evaluate_now(self) -> dict[str, Any]:
        """Export, evaluate, log and maybe keep as ``best``; returns the history entry."""
        latest = export_checkpoint(self.model, self.out / "latest", self.metadata())
        rows = evaluate(
            latest,
            self.metadata()["game"],
            self.opponent,
            self.games,
            self.player_counts,
            self.seed,
            self.workers,
        )
        seconds = time.perf_counter() - self.started
        entry = {
            "steps": self.num_timesteps,
            "seconds": round(seconds, 1),
            "steps_per_second": round(
                (self.num_timesteps - self.start_steps) / max(seconds, 1e-9), 1
            ),
            "strength": mean_strength(rows),
            "rows": rows,
        }
        self.history.append(entry)
        history = json.dumps(self.history, indent=2) + "\n"
        (self.out / "evaluations.json").write_text(history)  # kept if the run is cut off
        for row in rows:
            self.logger.record(f"eval/win_share_{row['players']}p", row["win_share"])
        self.logger.record("eval/strength", entry["strength"])
        if entry["strength"] > self.best:
            self.best = entry["strength"]
            for suffix in (".zip", ".npz", ".json"):
                shutil.copyfile(latest.with_suffix(suffix), (self.out / "best").with_suffix(suffix))
            best_files = {kind: f"best.{kind}" for kind in ("zip", "npz", "json")}
            update_metadata(self.out / "best", files=best_files, evaluation={"periodic": entry})
        shares = ", ".join(
            f"{r['players']}p {100 * r['win_share']:.1f}% "
            f"[{100 * r['ci_low']:.1f}, {100 * r['ci_high']:.1f}]"
            for r in rows
        )
        print(
            f"step {self.num_timesteps}: {entry['steps_per_second']:.0f} steps/s; "
            f"vs {self.opponent}: {shares}",
            flush=True,
        )
        return entry


def plot_learning_curve(history: Sequence[dict[str, Any]], path: Path, title: str) -> bool:
    """Win share (with its 95 % interval) over training steps, per player count, as a PNG.
    Returns False (and draws nothing) without matplotlib or data."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    if not history:
        return False
    fig, ax = plt.subplots(figsize=(6, 4))
    for n in sorted({row["players"] for entry in history for row in entry["rows"]}):
        points = [(e["steps"], r) for e in history for r in e["rows"] if r["players"] == n]
        steps = [s for s, _ in points]
        ax.plot(steps, [r["win_share"] for _, r in points], marker="o", label=f"{n} players")
        ax.fill_between(
            steps, [r["ci_low"] for _, r in points], [r["ci_high"] for _, r in points], alpha=0.2
        )
    ax.set(xlabel="training steps", ylabel="win share (95 % CI)", title=title, ylim=(0, 1))
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True

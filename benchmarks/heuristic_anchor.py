"""A trained policy anchored to the heuristic: where its strength against the field comes from.

The anchored agent (:mod:`hot_envs.agents.anchored`) scores each legal move by the policy's logit
plus ``weight`` on the move the heuristic would play, and plays the best. Weight 0 is the policy
itself; ``inf`` is the heuristic; in between the policy leaves the heuristic's move only where
its own logit for another move is more than ``weight`` higher — where it is most sure. Each
weight plays alone against N − 1 copies of each opponent, seats rotated, the same deals for
every weight and opponent (``--seed``); the table gives each win share with its 95 % interval
and the worst margin over the held-out pool: the least by which a held-out opponent is beaten
more often than the heuristic beats it, minus 2 points (the robustness target; at least 0 meets
it against every one). The heuristic (weight ``inf``) is always played, as that reference. The
plot: the share against the heuristic beside the worst margin, one point per weight.

No training: a probe of which of the policy's departures from the heuristic win and which cost,
against opponents it trained against and against ones it never met. Usage::

    python benchmarks/heuristic_anchor.py                          # heisse_karten_v0, 2 players
    python benchmarks/heuristic_anchor.py --players 2 4 6 --games 1000 --weights 0 4 6 8 inf

Writes ``heuristic_anchor_<policy>.{json,md,png}`` to ``--out`` (default benchmarks/results).
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from hot_envs.agents import make_agent
from hot_envs.agents.anchored import AnchoredAgent
from hot_envs.agents.checkpoint import read_metadata
from hot_envs.agents.shipped import find_checkpoint
from hot_envs.agents.suite import held_out_pool
from hot_envs.evaluation.arena import play_matchups, wilson_interval

RESULTS = Path(__file__).parent / "results"


def shares(
    game: str, agent: Any, opponent: str, players: int, games: int, seed: int, workers: int
) -> dict[str, float]:
    """``agent`` alone against ``players`` − 1 copies of ``opponent``: win share, interval."""
    specs = [agent, opponent]
    result = play_matchups(
        game,
        specs,
        [(0,) + (1,) * (players - 1)],
        games,
        seed=seed,
        players=players,
        workers=workers,
        progress=False,
    )
    mine = next(s for s in result.stats() if s.name == result.agents[0])
    low, high = wilson_interval(mine.share, mine.games)
    return {"share": mine.share / mine.games, "low": low, "high": high, "games": mine.games}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--policy", default="heisse_karten_v0", help="a checkpoint")
    parser.add_argument("--prior", default="heuristic", help="the agent anchored to")
    parser.add_argument("--weights", nargs="+", type=float, default=[0, 2, 4, 6, 8, math.inf])
    parser.add_argument("--players", nargs="+", type=int, default=[2])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument(
        "--opponents", nargs="+", default=None, help="default: the heuristic and the held-out pool"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=None, help="default: all cores")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)

    game = read_metadata(find_checkpoint(args.policy))["game"]
    args.weights = sorted(set(args.weights) | {math.inf})  # the reference: the prior itself
    opponents = args.opponents or ["heuristic", *held_out_pool(game)]
    from tqdm import tqdm

    rows = []
    total = len(args.players) * len(args.weights) * len(opponents)
    bar = tqdm(total=total, unit="matchup", disable=args.quiet)
    for n in args.players:
        for weight in args.weights:
            agent = AnchoredAgent(
                make_agent(args.policy, game, args.seed),
                make_agent(args.prior, game, args.seed),
                weight,
            )
            for opponent in opponents:
                found = shares(game, agent, opponent, n, args.games, args.seed, args.workers)
                rows.append({"players": n, "weight": weight, "opponent": opponent, **found})
                bar.update()
    bar.close()
    args.out.mkdir(parents=True, exist_ok=True)
    stem = args.out / f"heuristic_anchor_{Path(args.policy).stem}"
    settings = {k: v for k, v in vars(args).items() if k not in ("out", "quiet")}
    settings["weights"] = [finite(w) for w in args.weights]
    saved = [{**r, "weight": finite(r["weight"])} for r in rows]
    stem.with_suffix(".json").write_text(
        json.dumps({"settings": settings, "game": game, "rows": saved}, indent=1)
    )
    text = table(rows, opponents, game, args)
    stem.with_suffix(".md").write_text(text)
    print(text)
    plot(rows, game, stem.with_suffix(".png"), args)
    return 0


def finite(weight: float) -> float | str:
    """A weight as standard JSON has it: a number, or the string "inf"."""
    return weight if math.isfinite(weight) else "inf"


TOLERANCE = 0.02  # a held-out opponent may be beaten this much less often than the prior does


def worst_margin(rows: list[dict], players: int, weight: float, held: set[str]) -> float:
    """The least, over the held-out opponents played, of the weight's share minus the prior's
    (weight inf) minus :data:`TOLERANCE`; nan without a held-out opponent."""
    share = {(r["weight"], r["opponent"]): r["share"] for r in rows if r["players"] == players}
    margins = [
        share[weight, o] - share[math.inf, o] + TOLERANCE
        for (w, o) in share
        if w == weight and o in held
    ]
    return min(margins, default=float("nan"))


def key(row: dict) -> tuple[int, float, str]:
    return row["players"], row["weight"], row["opponent"]


def table(rows: list[dict], opponents: list[str], game: str, args: argparse.Namespace) -> str:
    held = set(held_out_pool(game))
    lines = [
        f"`{args.policy}` anchored to `{args.prior}`: win share alone against N − 1 copies "
        f"(95 % interval), {args.games:,} games per cell, seed {args.seed}. Weight 0: the policy; "
        f"inf: `{args.prior}`. Worst margin: the least, over the held-out opponents, of the "
        f"share minus `{args.prior}`'s own minus {100 * TOLERANCE:g} points (≥ 0: no held-out "
        "opponent does better against it than the robustness target allows).",
        "",
    ]
    for n in args.players:
        lines += [
            f"**{n} players** (even share {100 / n:.1f} %)",
            "",
            "| weight | " + " | ".join(opponents) + " | worst margin, points |",
            "|---:|" + "---:|" * (len(opponents) + 1),
        ]
        for weight in args.weights:
            by = {r["opponent"]: r for r in rows if r["players"] == n and r["weight"] == weight}
            text = [
                f"{100 * by[o]['share']:.1f} ({100 * by[o]['low']:.1f}–{100 * by[o]['high']:.1f})"
                for o in opponents
            ]
            margin = 100 * worst_margin(rows, n, weight, held)
            lines.append(f"| {weight:g} | " + " | ".join(text) + f" | {margin:+.1f} |")
        lines.append("")
    return "\n".join(lines)


def plot(rows: list[dict], game: str, path: Path, args: argparse.Namespace) -> None:
    """Share against the prior (x) and the worst held-out margin (y), one point per weight."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    held = set(held_out_pool(game))
    fig, axes = plt.subplots(1, len(args.players), figsize=(5 * len(args.players), 4.2))
    for ax, n in zip(np.atleast_1d(axes), args.players, strict=True):
        xs, ys = [], []
        for weight in args.weights:
            cell = (n, weight, args.prior)  # nan where the prior is not among the opponents
            x = next((r["share"] for r in rows if key(r) == cell), float("nan"))
            y = worst_margin(rows, n, weight, held)
            xs.append(100 * x)
            ys.append(100 * y)
            ax.annotate(
                f"{weight:g}", (100 * x, 100 * y), textcoords="offset points", xytext=(4, 4)
            )
        ax.plot(xs, ys, "o-")
        ax.axhline(0, color="grey", linewidth=0.8)
        ax.set_xlabel(f"win share against {args.prior}, %")
        ax.set_ylabel("worst held-out margin, points")
        ax.set_title(f"{n} players")
        ax.grid(alpha=0.3)
    fig.suptitle(f"{args.policy} anchored to {args.prior} (labels: weight; ≥ 0: robust)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)


if __name__ == "__main__":
    raise SystemExit(main())

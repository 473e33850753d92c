"""The gauntlet: one agent against every opponent of the suite (:mod:`hot_envs.agents.suite`).

At each table size the agent sits alone against N − 1 copies of each opponent, on the same deals
for every opponent (deal ``d`` is seeded from ``(seed, d)``,
:func:`hot_envs.evaluation.arena.derive_seed`) with the seats rotated over each deal
(:func:`hot_envs.evaluation.arena.play_matchups`). The heuristic plays every opponent on the same
deals too, so each row sets the agent's win share beside the heuristic's own against that opponent
and beside the even share 1/N. Per table size it reports the minimum and the mean over the held-out
pool and one openskill rating scale for the agent, the heuristic and every opponent
(:func:`hot_envs.evaluation.arena.ratings` over all those games).

With ``out`` every finished deal is kept at once in ``OUT/partial/``, under a digest of the
``hot_envs`` sources (and of a checkpoint's weights), so a gauntlet resumes and reuses the
heuristic's games (docs/evaluation.md). tqdm, openskill and matplotlib (the eval extra) are
optional: without them there is no bar, no ratings or no plot.
"""

from __future__ import annotations

import csv
import functools
import hashlib
import json
import math
import re
import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from hot_envs.agents.suite import HELD_OUT, suite
from hot_envs.core.games import get_game
from hot_envs.evaluation.arena import (
    AgentStats,
    GameRecord,
    MatchResult,
    display_name,
    game_options,
    play_tasks,
    progress_bar,
    ratings,
    unique_names,
    wilson_interval,
)
from hot_envs.evaluation.report import check_out_dir, pyplot

BASELINE = "heuristic"  # every opponent is also played by this agent, on the same deals
OTHER = "other"  # the pool of an opponent given that is not in the suite


@dataclass
class GauntletResult:
    """A gauntlet's outcome: ``rows`` (one per table size and opponent), ``summary`` (per table
    size: the held-out minimum and mean of the agent and of the heuristic) and ``ratings`` (per
    table size, openskill over every game there)."""

    game: str
    agent: str
    players: list[int]
    seed: int
    rows: list[dict[str, Any]]
    summary: list[dict[str, Any]]
    ratings: dict[int, list[dict[str, float]] | None] = field(default_factory=dict)
    name: str = ""  # how the tables name the agent (display_name); "" is its spec

    def to_dict(self) -> dict[str, Any]:
        """Everything, JSON-ready (ratings keyed by the table size as a string)."""
        data = asdict(self)
        data["ratings"] = {str(n): r for n, r in self.ratings.items()}
        return data

    def table(self) -> str:
        """The rows as a plain-text table, with the held-out summary and the table size's
        openskill ratings (mu, sigma and mu − 3 sigma, best first) under each table size."""
        lines = []
        head = f"{'opponent':<30} {'pool':<9} {'games':>6} {'agent':>7} {'95 % CI':>13}"
        head += f" {'even':>5} {'heuristic':>9}"
        for n in self.players:
            lines += [f"{get_game(self.game).title}, {n} players — {self.name or self.agent}", head]
            for row in (r for r in self.rows if r["players"] == n):
                ci = f"{100 * row['ci_low']:.1f}–{100 * row['ci_high']:.1f}"
                lines.append(
                    f"{row['opponent']:<30} {row['pool']:<9} {row['games']:>6} "
                    f"{row['win_share']:>7.1%} {ci:>13} {row['even']:>5.0%} "
                    f"{row['heuristic_share']:>9.1%}"
                )
            for s in self.summary:
                if s["players"] == n and s["held_out_min"] is not None:
                    lines.append(
                        f"held-out min {s['held_out_min']:.1%} ({s['held_out_min_opponent']}), "
                        f"mean {s['held_out_mean']:.1%}; the heuristic's: "
                        f"{s['heuristic_held_out_min']:.1%}, {s['heuristic_held_out_mean']:.1%}"
                    )
            scale = self.ratings.get(n) or []  # none without openskill
            if scale:
                heading = f"rating at {n} players (openskill)"
                lines.append(f"{heading:<40} {'mu':>6} {'sigma':>6} {'mu-3sigma':>9}")
            for r in sorted(scale, key=lambda r: -r["ordinal"]):
                lines.append(
                    f"{r['agent']:<40} {r['mu']:>6.2f} {r['sigma']:>6.2f} {r['ordinal']:>9.2f}"
                )
            lines.append("")
        return "\n".join(lines)

    def save(self, out: str | Path) -> list[Path]:
        """``gauntlet.json``, ``gauntlet.csv`` and (with matplotlib) ``gauntlet.png`` in ``out``."""
        out = Path(out)
        paths = [out / "gauntlet.json", out / "gauntlet.csv"]
        paths[0].write_text(json.dumps(self.to_dict(), indent=1) + "\n")
        with paths[1].open("w", newline="") as file:
            writer = csv.DictWriter(file, fieldnames=list(self.rows[0]))
            writer.writeheader()
            writer.writerows(self.rows)
        png = plot(self, out / "gauntlet.png")
        return paths + ([png] if png else [])


def gauntlet(
    game: str,
    agent: str,
    players: int | Sequence[int] | str | None = None,
    games: int = 200,
    out: str | Path | None = None,
    opponents: Sequence[str] | None = None,
    costly_games: int | None = None,
    seed: int = 0,
    workers: int | None = 1,
    progress: bool = True,
) -> GauntletResult:
    """``agent`` (a spec) alone against N − 1 copies of each opponent at each table size in
    ``players`` (an int, a list, ``"all"``, or ``None``: 2), ``games`` games per opponent and
    table size (rounded up to whole seat rotations; ``costly_games`` for the suite's costly
    opponents, the search agent, if given). ``opponents`` defaults to the game's suite; any
    agent spec may be given. With ``out`` the games are kept and resumed (module docstring) and
    the result saved there. ``workers`` processes play each opponent's deals (``None``: all
    cores); ``progress`` shows a tqdm bar over all games. ``ValueError`` for a bad game, spec,
    table size or count, before any game is played."""
    title = get_game(game).title
    game = get_game(game).name
    sizes = _table_sizes(game, players)
    for name, count in (("games", games), ("costly_games", costly_games)):
        if count is not None and (
            isinstance(count, bool) or not isinstance(count, int) or count < 1
        ):
            raise ValueError(f"{name} must be a positive int, not {count!r}")
    entries = {o.spec: o for o in suite(game)}
    opponents = list(opponents) if opponents is not None else list(entries)
    if not opponents or len(set(opponents)) != len(opponents):
        raise ValueError(f"opponents must be distinct agent specs, not {opponents!r}")
    from hot_envs.evaluation.batch import load_once

    built = {}  # spec → its agent, which names your own agent in the tables
    for spec in [agent, BASELINE, *opponents]:
        if not isinstance(spec, str):
            raise ValueError(f"agent specs are strings, not {spec!r}")
        built[spec] = load_once(spec, game)  # ValueError for a spec nobody understands
    folder = None if out is None else check_out_dir(out)
    lone = [agent] if agent == BASELINE else [agent, BASELINE]
    rows, summary, scales = [], [], {}
    plan = []  # (table size, lone spec, opponent, games)
    for n in sizes:
        for spec in opponents:
            costly = entries[spec].costly if spec in entries else False
            count = costly_games if costly and costly_games else games
            plan += [(n, who, spec, math.ceil(count / n) * n) for who in lone]
    bar = progress_bar(sum(p[3] for p in plan), desc=f"gauntlet {title}") if progress else None
    played = _play(game, plan, seed, folder, workers, bar)
    if bar is not None:
        bar.close()
    for n in sizes:
        for spec in opponents:
            count, share, low, high = _share(played[n, agent, spec])
            base_count, base_share, base_low, base_high = _share(played[n, BASELINE, spec])
            rows.append(
                {
                    "players": n,
                    "opponent": spec,
                    "pool": entries[spec].pool if spec in entries else OTHER,
                    "games": count,
                    "win_share": share,
                    "ci_low": low,
                    "ci_high": high,
                    "even": 1 / n,
                    "heuristic_games": base_count,
                    "heuristic_share": base_share,
                    "heuristic_ci_low": base_low,
                    "heuristic_ci_high": base_high,
                }
            )
        summary.append(_summary(n, [r for r in rows if r["players"] == n]))
        scales[n] = _ratings(game, built, lone, opponents, n, played, seed)
    name = display_name(agent, built[agent])
    result = GauntletResult(game, agent, sizes, seed, rows, summary, scales, name)
    if folder is not None:
        result.save(folder)
    return result


def _table_sizes(game: str, players: int | Sequence[int] | str | None) -> list[int]:
    """The table sizes asked for: ``"all"`` is every size the game takes; ``None`` is 2."""
    spec = get_game(game)
    if players is None:
        return [spec.min_players]
    if isinstance(players, str):
        if players != "all":
            raise ValueError(f"players must be table sizes or 'all', not {players!r}")
        return list(spec.players)
    sizes = [players] if not isinstance(players, Sequence) else list(players)
    if not sizes:
        raise ValueError("players: give at least one table size")
    return sorted({spec.check_players(n) for n in sizes})


def _play(
    game: str,
    plan: list[tuple[int, str, str, int]],
    seed: int,
    folder: Path | None,
    workers: int | None,
    bar: Any,
) -> dict[tuple[int, str, str], list[GameRecord]]:
    """Each ``(n, lone, opponent, games)`` of ``plan``: ``lone`` alone against ``n − 1`` copies
    of ``opponent``, ``games`` games, the deals kept in ``folder`` played no more. Each is its
    own matchup 0 (:func:`~hot_envs.evaluation.arena.play_matchups`), so its deals and the
    agents' seeds are the same whichever opponents are played with it; all of them are played
    in one call (:func:`~hot_envs.evaluation.arena.play_tasks`: in batches, the matchups side by
    side)."""
    kept, tasks, owner, paths = {}, [], [], {}
    for n, lone, opponent, games in plan:
        key = (n, lone, opponent)
        groups = games // n
        partial = _partial_name(game, n, lone, opponent, seed)
        path = None if folder is None else folder / "partial" / partial
        kept[key] = {g: group for g, group in _read_partial(path, n).items() if g < groups}
        if bar is not None:
            bar.update(sum(map(len, kept[key].values())))
        if len(kept[key]) == groups:
            continue
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            paths[key] = path
        options = game_options(game, n)
        lineup = [lone] + [opponent] * (n - 1)
        for g in range(groups):
            if g not in kept[key]:
                tasks.append((game, lineup, 0, g, seed, options))
                owner.append(key)
    files = {key: path.open("a") for key, path in paths.items()}

    def keep(position: int, group: list[GameRecord]) -> None:
        key = owner[position]
        if key in files:
            files[key].writelines(json.dumps(asdict(r)) + "\n" for r in group)
            files[key].flush()
        kept[key][group[0].index // key[0]] = group

    try:
        play_tasks(tasks, workers, keep, bar)
    finally:
        for file in files.values():
            file.close()
    return {
        key: sorted((r for group in groups.values() for r in group), key=lambda r: r.index)
        for key, groups in kept.items()
    }


def _share(records: list[GameRecord]) -> tuple[int, float, float, float]:
    """The lone agent's (lineup slot 0) games, win share and the share's 95 % Wilson interval,
    widened by the rounding that can leave a share of 1 a hair above its upper bound."""
    stats = AgentStats("lone")
    for record in records:
        stats.add(record.returns, record.seats.index(0), record.length)
    low, high = wilson_interval(stats.share, stats.games)
    share = stats.share / stats.games
    return stats.games, share, min(low, share), max(high, share)


def _summary(n: int, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The held-out pool's minimum and mean, for the agent and for the heuristic."""
    held = [r for r in rows if r["pool"] == HELD_OUT]
    if not held:  # only opponents from outside the suite's held-out pool
        keys = ("held_out_min", "held_out_min_opponent", "held_out_mean")
        return {"players": n, **dict.fromkeys(keys + tuple(f"heuristic_{k}" for k in keys[::2]))}
    worst = min(held, key=lambda r: r["win_share"])
    return {
        "players": n,
        "held_out_min": worst["win_share"],
        "held_out_min_opponent": worst["opponent"],
        "held_out_mean": statistics.fmean(r["win_share"] for r in held),
        "heuristic_held_out_min": min(r["heuristic_share"] for r in held),
        "heuristic_held_out_mean": statistics.fmean(r["heuristic_share"] for r in held),
    }


def _ratings(
    game: str,
    built: dict[str, Any],
    lone: list[str],
    opponents: list[str],
    n: int,
    played: dict[tuple[int, str, str], list[GameRecord]],
    seed: int,
) -> list[dict[str, float]] | None:
    """One openskill scale for the agent, the heuristic and every opponent at table size n,
    each named by its spec or, your own agent, by the agent in ``built``."""
    specs = list(dict.fromkeys([*lone, *opponents]))
    lineups, records = [], []
    for who in lone:
        for spec in opponents:
            m = len(lineups)
            lineups.append((specs.index(who),) + (specs.index(spec),) * (n - 1))
            records += [replace(r, matchup=m) for r in played[n, who, spec]]
    names = unique_names(specs, [built.get(spec) for spec in specs])
    result = MatchResult(game, names, lineups, records, seed, specs)
    try:
        return ratings(result)
    except ImportError:  # openskill is optional (the eval extra)
        return None


# ---------------------------------------------------------------------- kept games


@functools.cache
def code_digest() -> str:
    """A digest of the hot_envs sources (the RLlib part aside): kept games are reused only by
    the code that played them."""
    root = Path(__file__).parents[1]  # the hot_envs package
    digest = hashlib.sha1()
    for path in sorted(root.rglob("*.py")):
        if "rllib" not in path.relative_to(root).parts:
            digest.update(path.relative_to(root).as_posix().encode() + path.read_bytes())
    return digest.hexdigest()[:10]


def _weights_digest(spec: str) -> str:
    """For a checkpoint spec, a digest of its weights (a retrained one never resumes)."""
    from hot_envs.agents.shipped import find_checkpoint, is_checkpoint

    if ":" in spec or not is_checkpoint(spec):
        return ""
    npz = find_checkpoint(spec).with_suffix(".npz")
    return hashlib.sha1(npz.read_bytes()).hexdigest()[:10] if npz.is_file() else ""


def _partial_name(game: str, n: int, lone: str, opponent: str, seed: int) -> str:
    parts = [game, f"{n}p", lone, _weights_digest(lone), opponent, _weights_digest(opponent)]
    text = "_".join([*parts, str(seed), code_digest()]) + ".jsonl"
    return re.sub(r"[^\w.-]", "-", text)


def _read_partial(path: Path | None, n: int) -> dict[int, list[GameRecord]]:
    """The whole deals (all n rotations) kept in ``path``, by deal; a line cut off by an
    interruption or a deal with games missing is dropped and played again."""
    groups: dict[int, dict[int, GameRecord]] = {}
    if path is not None and path.is_file():
        for line in path.read_text().splitlines():
            try:
                data = json.loads(line)
                record = GameRecord(
                    **{k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
                )
            except (json.JSONDecodeError, TypeError):
                continue
            groups.setdefault(record.index // n, {})[record.index] = record
    return {g: list(group.values()) for g, group in groups.items() if len(group) == n}


# ---------------------------------------------------------------------- plot


def plot(result: GauntletResult, path: str | Path) -> Path | None:
    """Who beats whom at a glance: per table size, the agent's and the heuristic's win share
    against each opponent (bars with 95 % intervals, the even share 1/N as a line, held-out
    opponents marked ``*``) and the ratings. ``None`` without matplotlib."""
    plt = pyplot()
    if plt is None:
        return None
    sizes = result.players
    fig, axes = plt.subplots(
        len(sizes), 2, figsize=(14, 4.2 * len(sizes)), squeeze=False,
        gridspec_kw={"width_ratios": [3, 1]}, layout="constrained",  # room for the title too
    )  # fmt: skip
    for (left, right), n in zip(axes, sizes, strict=True):
        rows = [r for r in result.rows if r["players"] == n]
        labels = [r["opponent"] + (" *" if r["pool"] == HELD_OUT else "") for r in rows]
        x = range(len(rows))
        for offset, key, name, colour in (
            (-0.2, "", result.name or result.agent, "tab:blue"),
            (0.2, "heuristic_", BASELINE, "tab:grey"),
        ):
            share = [r[f"{key}share" if key else "win_share"] for r in rows]
            low = [s - r[f"{key}ci_low"] for s, r in zip(share, rows, strict=True)]
            high = [r[f"{key}ci_high"] - s for s, r in zip(share, rows, strict=True)]
            left.bar([i + offset for i in x], share, 0.4, yerr=[low, high], capsize=3,
                     color=colour, label=name)  # fmt: skip
        left.axhline(1 / n, color="black", linestyle="--", linewidth=1, label=f"even {1 / n:.0%}")
        left.set_xticks(list(x), labels, rotation=30, ha="right")
        left.set_ylim(0, 1.15)  # room above the bars for the legend, in one row
        left.set_yticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
        left.set_ylabel("win share,\nalone against N − 1 copies")  # no taller than the axes
        left.set_title(f"{n} players (* held out)")
        left.legend(loc="upper center", ncol=3, fontsize=8, frameon=False)
        scale = result.ratings.get(n)
        if scale:
            order = sorted(scale, key=lambda r: r["mu"])
            right.barh([r["agent"] for r in order], [r["mu"] for r in order],
                       xerr=[r["sigma"] for r in order], color="tab:green")  # fmt: skip
            right.set_title("rating μ ± σ (openskill)")
            right.tick_params(axis="y", labelsize=8)
        else:
            right.axis("off")
    fig.suptitle(f"{get_game(result.game).title}: gauntlet of {result.name or result.agent}")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return Path(path)

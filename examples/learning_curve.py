"""A learning curve in minutes: MaskablePPO on a Gymnasium id of hot_envs, its win rate measured
in the arena while it learns, and the curve as a PNG (docs/tutorial.md walks through it).

    python examples/learning_curve.py --game heisse-karten --steps 30000 --out runs/curve

What makes it learn within minutes, and what the defaults are:

* the opponent: random play (``--opponent``), which a learner beats often enough to learn from;
  the reward comes only at the end of a game (+1 a win, −1 a loss), so a learner that never
  wins, as a fresh one against the heuristic, gets no signal;
* the policy: the project's action-scoring policy (``--policy scorer``) scores every legal
  action from its features, the heuristic's own arithmetic among them; the plain MLP
  (``--policy mlp``) over the one-hot observation learns far more slowly;
* a small network (64-unit layers) and a learning rate of 10⁻³: a fast start;
* two players in Heiße Karten (the env's default is four).

Every ``--eval-every`` steps the policy as it plays in training (its moves drawn from its
distribution) plays ``--eval-games`` games against the opponent in the arena, seats rotated, and
the win share is printed with its 95 % interval. The log warns, plainly, when the win rate has
not risen above its start after ``--patience`` evaluations, or when the policy wins no game.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import gymnasium
import torch
from sb3_contrib import MaskablePPO

import hot_envs  # noqa: F401  (registers the Gymnasium ids)
from hot_envs.agents.arrays import ActionScorerInput
from hot_envs.agents.checkpoint import CheckpointAgent
from hot_envs.core.blas import one_blas_thread
from hot_envs.evaluation.arena import play_match
from hot_envs.training.export import export_checkpoint, numpy_policy
from hot_envs.training.policies import ActionScorerPolicy

IDS = {"heisse-luft": "hot_envs/HeisseLuft-v0", "heisse-karten": "hot_envs/HeisseKarten-v0"}


def make_model(
    game: str, opponent: str, policy: str, seed: int, rollout: int = 2048
) -> MaskablePPO:
    """MaskablePPO on ``gymnasium.make(IDS[game], …)``: one learner against ``opponent``."""
    players = {"players": 2} if game == "heisse-karten" else {}
    if policy == "mlp":  # the observation as it is, into SB3's default MLP
        env = gymnasium.make(IDS[game], opponents=[opponent], seed=seed, **players)
        return MaskablePPO(
            "MlpPolicy", env, n_steps=rollout, batch_size=min(256, rollout), seed=seed
        )
    # the action scorers' input: the observation, a feature row per legal action, their ids
    env = gymnasium.make(
        IDS[game],
        opponents=[opponent],
        policy_input=ActionScorerInput(game),
        seed=seed,
        **players,
    )
    network = dict(game=game, state_arch=[64, 32], scorer_arch=[64, 64], value_arch=[64, 64])
    return MaskablePPO(
        ActionScorerPolicy,
        env,
        policy_kwargs=network,
        learning_rate=1e-3,
        n_steps=rollout,
        batch_size=min(256, rollout),
        seed=seed,
    )


def win_rate(model: MaskablePPO, game: str, opponent: str, games: int, seed: int) -> dict:
    """The policy as it plays in training (``sample=True``), ``games`` games against
    ``opponent`` in the arena, seats rotated: win share, 95 % interval, wins."""
    agent = CheckpointAgent(numpy_policy(model), {"game": game}, sample=True, seed=seed)
    result = play_match(game, [agent, opponent], games=games, seed=seed, progress=False)
    mine = result.summary()[0]
    keys = ("games", "wins", "win_share", "ci_low", "ci_high")
    return {"steps": model.num_timesteps, **{key: mine[key] for key in keys}}


def warning(curve: list[dict], opponent: str, patience: int) -> str | None:
    """Why ``curve`` (one point per evaluation, the start first) shows no learning, or None:
    no game won at the last point, or ``patience`` evaluations after the start the win rate
    still not above the start's interval."""
    last = curve[-1]
    if last["win_share"] == 0:
        return (
            f"WARNING: won 0 of {last['games']} games against {opponent} at "
            f"{last['steps']:,} steps. The reward comes only at the end of a game, so a policy "
            "that never wins learns nothing: train against a weaker opponent first (random, "
            "heuristic:0.5) or with the action-scoring policy (--policy scorer)."
        )
    start = curve[0]
    if len(curve) > patience and last["ci_low"] <= start["ci_high"]:
        return (
            f"WARNING: after {len(curve) - 1} evaluations ({last['steps']:,} steps) the win rate "
            f"{last['win_share']:.1%} ({last['ci_low']:.1%}–{last['ci_high']:.1%}) is not above "
            f"its start {start['win_share']:.1%} ({start['ci_low']:.1%}–{start['ci_high']:.1%}): "
            "this policy is not learning here. Try the action-scoring policy "
            "(--policy scorer), a weaker opponent or more steps."
        )
    return None


def learn(
    model: MaskablePPO,
    game: str,
    opponent: str,
    steps: int,
    every: int,
    games: int,
    patience: int,
    seed: int,
) -> tuple[list[dict], list[str]]:
    """Learn ``steps`` steps, the win rate measured before the first and every ``every``
    steps; each point and any :func:`warning` printed. Returns the points and the warnings."""
    curve, warnings = [], []
    cpu, wall = time.process_time(), time.perf_counter()  # this process: games and updates
    while True:
        point = win_rate(model, game, opponent, games, seed)
        point["seconds"] = time.perf_counter() - wall
        point["cpu_seconds"] = time.process_time() - cpu
        curve.append(point)
        print(
            f"{point['steps']:>8,} steps  win rate {point['win_share']:6.1%} "
            f"({point['ci_low']:.1%}–{point['ci_high']:.1%}) against {opponent}, "
            f"{point['seconds']:.0f} s ({point['cpu_seconds']:.0f} s CPU)",
            flush=True,
        )
        message = warning(curve, opponent, patience)
        if message:
            print(message, flush=True)
            warnings.append(message)
        if model.num_timesteps >= steps:
            return curve, warnings
        model.learn(min(every, steps - model.num_timesteps), reset_num_timesteps=False)


def plot(curve: list[dict], title: str, path: Path) -> None:
    """Win rate against steps, with its 95 % interval as a band."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [p["steps"] for p in curve]
    fig, ax = plt.subplots(figsize=(6, 3.6), layout="constrained")
    ax.fill_between(steps, [p["ci_low"] for p in curve], [p["ci_high"] for p in curve], alpha=0.3)
    ax.plot(steps, [p["win_share"] for p in curve], marker="o")
    ax.set(xlabel="PPO steps", ylabel="win rate (95 % interval)", ylim=(0, 1), title=title)
    ax.grid(alpha=0.3)
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=sorted(IDS), default="heisse-karten")
    parser.add_argument("--steps", type=int, default=30_000, help="PPO steps (default 30,000)")
    parser.add_argument("--eval-games", type=int, default=200, help="games per evaluation")
    parser.add_argument("--eval-every", type=int, default=4096, help="steps between evaluations")
    parser.add_argument("--opponent", default="random", help="agent spec (default random)")
    parser.add_argument("--policy", choices=["scorer", "mlp"], default="scorer")
    parser.add_argument("--rollout", type=int, default=2048, help="steps between PPO updates")
    parser.add_argument("--patience", type=int, default=3, help="evaluations before a warning")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("runs/curve"))
    args = parser.parse_args(argv)

    # Small networks on a few cores: one torch thread, one BLAS thread (more only wait).
    torch.set_num_threads(1)
    model = make_model(args.game, args.opponent, args.policy, args.seed, args.rollout)
    with one_blas_thread():
        curve, warnings = learn(
            model,
            args.game,
            args.opponent,
            args.steps,
            args.eval_every,
            args.eval_games,
            args.patience,
            args.seed,
        )
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "curve.json").write_text(json.dumps(curve, indent=1) + "\n")
    plot(curve, f"{args.game}: {args.policy} against {args.opponent}", args.out / "curve.png")
    # a checkpoint, an agent spec like any other: hot-envs evaluate GAME --agents OUT/policy …
    export_checkpoint(model, args.out / "policy", {"game": args.game})
    print(f"wrote {args.out}/curve.json, curve.png and policy (.zip, .npz, .json)")
    return {"curve": curve, "warnings": warnings}


if __name__ == "__main__":
    main()

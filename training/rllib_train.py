"""Train masked PPO on Ray RLlib (new API stack): self-play on one machine or a cluster.

    python -m hot_envs.training.rllib_train GAME [--players N] [--mode shared|league]
        [--fixed SPEC …]
        [--iterations I] [--env-runners R] [--envs-per-runner E] [--learners L]
        [--address HOST:PORT] [--out DIR] [--seed S] …      (hot-envs train GAME --backend rllib)

Read top to bottom: arguments (one dataclass; ``--help`` lists them all), Ray (``ray.init()`` on
this machine, or ``--address`` of a running cluster with this package shipped to its workers by
``runtime_env={"py_modules": [hot_envs]}``), the PPO config (:mod:`hot_envs.rllib`: the
turn-based env, the masked RLModule, shared self-play or the league of snapshots and fixed
agents), then one line of progress per iteration, and at the end an RLlib checkpoint plus its
numpy export (``final.npz`` + ``final.json``: loads with numpy only, ``hot-envs evaluate
--agents OUT/final heuristic``).

The run directory (``--out``, default ``runs/rllib-<game>-<timestamp>/``) holds ``args.json``,
``progress.jsonl`` (one line per iteration), ``rllib_checkpoint/`` and ``final.{npz,json}``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import asdict, dataclass, field, fields
from functools import partial
from pathlib import Path
from typing import Any

from hot_envs.games import get_game


@dataclass
class Args:
    """Every knob of a run (``--name`` on the command line, ``_`` written as ``-``)."""

    game: str = "heisse-luft"
    players: int | None = None  # Heiße Karten: 2–6, default 2 (one count per run)
    mode: str = "shared"  # shared: one policy in every seat; league: main vs snapshots (+ fixed)
    fixed: list[str] = field(default_factory=list)  # league: fixed opponents (agent specs)
    fixed_share: float = 0.2  # league: chance an opponent seat draws a fixed agent
    snapshot_every: int = 5  # league: iterations between frozen snapshots of main
    max_snapshots: int = 5
    iterations: int = 20
    out: str | None = None
    seed: int = 0
    # Ray: local by default; --address HOST:PORT joins a cluster (ray start --head …)
    address: str | None = None
    env_runners: int = 1  # sampling processes (what scales across cores and nodes)
    envs_per_runner: int = 8  # games stepped together per runner (one batched forward pass)
    learners: int = 0  # 0: learn in this process; N: N remote learner processes
    torch_threads: int = 1
    # PPO
    batch_size: int = 4000  # env steps per iteration (per learner)
    minibatch_size: int = 256
    epochs: int = 5
    lr: float = 3e-4
    gamma: float = 0.995
    gae_lambda: float = 0.95
    clip: float = 0.2
    entropy: float = 0.01
    vf_coeff: float = 0.5
    hidden: list[int] = field(default_factory=lambda: [256, 256])
    activation: str = "tanh"
    game_options: dict[str, Any] = field(default_factory=dict)


def parse_args(argv: list[str] | None) -> Args:
    parser = argparse.ArgumentParser(
        prog="hot-envs train --backend rllib", description=__doc__.splitlines()[0]
    )
    parser.add_argument("game", help="heisse-luft or heisse-karten")
    defaults = Args()
    for f in fields(Args):
        if f.name in ("game", "game_options"):
            continue
        default = getattr(defaults, f.name)
        flag = "--" + f.name.replace("_", "-")
        if isinstance(default, list):
            kind = int if f.name == "hidden" else str
            parser.add_argument(flag, nargs="*", type=kind, default=None)
        else:
            kind = int if f.name == "players" else type(default) if default is not None else str
            parser.add_argument(flag, type=kind, default=None, help=f"default {default}")
    cli = {k: v for k, v in vars(parser.parse_args(argv)).items() if v is not None}
    args = Args(**{**cli, "game": get_game(cli["game"]).name})
    if args.mode not in ("shared", "league"):
        raise ValueError(f"--mode must be 'shared' or 'league', not {args.mode!r}")
    if args.fixed and args.mode != "league":
        raise ValueError("--fixed opponents need --mode league")
    for name in ("iterations", "env_runners", "envs_per_runner", "batch_size", "snapshot_every"):
        minimum = 0 if name == "env_runners" else 1
        if getattr(args, name) < minimum:
            raise ValueError(f"--{name.replace('_', '-')} must be ≥ {minimum}")
    # Bad player counts, options or specs fail here, before Ray starts.
    from hot_envs.rllib.env import TurnBasedEnv

    TurnBasedEnv(env_config(args))
    return args


def env_config(args: Args) -> dict[str, Any]:
    return {
        "game": args.game,
        "players": args.players,
        "game_options": args.game_options,
        "fixed_agents": args.fixed,
    }


def build_config(args: Args, **model_config: Any):
    """The ``PPOConfig`` of a run (``model_config`` overrides reach ``main``'s module; the
    tests' negative control passes ``mask=False``)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from hot_envs.rllib.env import TurnBasedEnv
    from hot_envs.rllib.league import (
        MAIN,
        LeagueCallback,
        LeagueMapping,
        fixed_module_id,
        shared_mapping,
    )
    from hot_envs.rllib.module import FixedAgentRLModule, MaskedPPOTorchRLModule

    model_config = {
        "hidden": args.hidden,
        "activation": args.activation,
        "torch_threads": args.torch_threads,
        **model_config,
    }
    env = TurnBasedEnv(env_config(args))
    main_spec = RLModuleSpec(
        module_class=MaskedPPOTorchRLModule,
        observation_space=env.observation_spaces["player_0"],
        action_space=env.action_spaces["player_0"],
        model_config=model_config,
    )
    specs = {MAIN: main_spec}
    for i in range(len(args.fixed)):
        specs[fixed_module_id(i)] = RLModuleSpec(
            module_class=FixedAgentRLModule, model_config={"index": i}
        )
    mapping = None
    if args.mode == "league":
        mapping = LeagueMapping(
            num_players=env.state.num_players,
            fixed=tuple(specs)[1:],
            fixed_share=args.fixed_share,
        )
    callback = partial(
        LeagueCallback,
        spec=main_spec,
        mapping=mapping,
        snapshot_every=args.snapshot_every,
        max_snapshots=args.max_snapshots,
    )
    config = (
        PPOConfig()
        # Our env ends a game on an illegal action and counts it; RLlib's checker would step
        # one unmasked random action, so it is off (tests/rllib check the env instead).
        .environment(TurnBasedEnv, env_config=env_config(args), disable_env_checking=True)
        .env_runners(
            num_env_runners=args.env_runners,
            num_envs_per_env_runner=args.envs_per_runner,
        )
        .learners(num_learners=args.learners)
        .training(
            train_batch_size_per_learner=args.batch_size,
            minibatch_size=args.minibatch_size,
            num_epochs=args.epochs,
            lr=args.lr,
            gamma=args.gamma,
            lambda_=args.gae_lambda,
            clip_param=args.clip,
            entropy_coeff=args.entropy,
            vf_loss_coeff=args.vf_coeff,
        )
        .multi_agent(
            policies=set(specs),
            policy_mapping_fn=mapping or shared_mapping,
            policies_to_train=[MAIN],
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .callbacks(callback)
        .debugging(seed=args.seed)
    )
    return config


def init_ray(args: Args, temp_dir: str | None = None) -> bool:
    """This machine (``ray.init()``), or the cluster at ``--address`` with hot_envs shipped to
    its workers. Returns whether Ray was started here (an already running one is used as is)."""
    import ray

    import hot_envs

    if ray.is_initialized():
        return False
    if args.address:
        ray.init(address=args.address, runtime_env={"py_modules": [hot_envs]})
        return True
    # A private single-machine Ray: no token needed between its own processes, and a CPU for
    # every runner and learner even on a small machine (else Ray would wait for free CPUs).
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    cpus = max(os.cpu_count() or 1, args.env_runners + args.learners)
    ray.init(num_cpus=cpus, include_dashboard=False, _temp_dir=temp_dir)
    return True


def redirect_ray_results(path: Path) -> None:
    """Ray's ``Trainable`` makes a log folder under ``~/ray_results`` on every build; make it
    under the run directory instead (Ray reads the module constant at that moment)."""
    import ray.tune.trainable.trainable as trainable

    trainable.DEFAULT_STORAGE_PATH = str(path)


def progress_row(result: dict[str, Any], seconds: float) -> dict[str, Any]:
    """One iteration's figures, for the progress line and ``progress.jsonl``."""
    runners = result.get("env_runners", {})
    steps = int(runners.get("num_env_steps_sampled_lifetime", 0))
    main_return = runners.get("main_return")
    return {
        "iteration": int(result["training_iteration"]),
        "seconds": round(seconds, 2),
        "env_steps": steps,
        "env_steps_per_second": round(steps / max(seconds, 1e-9), 1),
        "episodes": int(runners.get("num_episodes", 0)),
        "main_return": None if main_return is None else float(main_return),
        "illegal_actions": int(runners.get("illegal_actions", 0)),
        "illegal_actions_lifetime": int(runners.get("illegal_actions_lifetime", 0)),
        "league_size": result.get("league_size"),
    }


def progress_line(row: dict[str, Any]) -> str:
    main_return = float("nan") if row["main_return"] is None else row["main_return"]
    league = f"  league {row['league_size']}" if row["league_size"] is not None else ""
    return (
        f"iter {row['iteration']:>4}  {row['seconds']:>7.1f} s  steps {row['env_steps']:>9,}  "
        f"{row['env_steps_per_second']:>7,.0f}/s  episodes {row['episodes']:>5}  "
        f"main return {main_return:+.3f}  illegal {row['illegal_actions']}{league}"
    )


def train(args: Args) -> Path:
    """One run on the Ray this process is connected to; returns the run directory."""
    import torch

    from hot_envs.rllib.env import TurnBasedEnv
    from hot_envs.rllib.export import export_checkpoint

    out = Path(args.out or f"runs/rllib-{args.game}-{time.strftime('%Y%m%d-%H%M%S')}").resolve()
    out.mkdir(parents=True, exist_ok=True)
    (out / "args.json").write_text(json.dumps(asdict(args), indent=2) + "\n")
    where = args.address or "this machine"
    print(f"training {args.game} ({args.mode}) for {args.iterations} iterations on {where} → {out}")
    torch.set_num_threads(args.torch_threads)
    redirect_ray_results(out / "ray_results")
    algorithm = build_config(args).build_algo()
    try:
        started = time.perf_counter()
        with open(out / "progress.jsonl", "w") as log:
            for _ in range(args.iterations):
                row = progress_row(algorithm.train(), time.perf_counter() - started)
                print(progress_line(row), flush=True)
                log.write(json.dumps(row) + "\n")
        checkpoint = algorithm.save_to_path(out / "rllib_checkpoint")
    finally:
        algorithm.stop()
    options = {"num_players": [TurnBasedEnv(env_config(args)).state.num_players]}
    options.update(args.game_options)
    training = {**row, "backend": "rllib", "config": asdict(args)}
    stem = export_checkpoint(checkpoint, out / "final", options=options, training=training)
    print(f"RLlib checkpoint {checkpoint}\nnumpy checkpoint {stem} (.npz + .json)")
    return out


def main(argv: list[str] | None = None) -> int:
    try:
        args = parse_args(argv)
    except (ValueError, ImportError) as error:
        print(f"rllib_train: error: {error}", file=sys.stderr)
        return 2
    import ray

    started_ray = init_ray(args)
    try:
        train(args)
    finally:
        if started_ray:
            ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())

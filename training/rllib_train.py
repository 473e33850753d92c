"""Train masked PPO on Ray RLlib (new API stack): self-play on one machine or a cluster.

    python -m hot_envs.training.rllib_train GAME [--players N] [--mode shared|league]
        [--fixed SPEC …]
        [--iterations I] [--env-runners R] [--envs-per-runner E] [--learners L]
        [--address HOST:PORT] [--out DIR] [--seed S] [--checkpoint-every K] …
    python -m hot_envs.training.rllib_train GAME --resume RUN_DIR [--iterations I] …
                                                       (hot-envs train GAME --backend rllib)

Read top to bottom: arguments (one dataclass; ``--help`` lists them all), Ray (``ray.init()`` on
this machine, or ``--address`` of a running cluster with this package shipped to its workers by
``runtime_env={"py_modules": [hot_envs]}``), the PPO config (:mod:`hot_envs.rllib`: the
turn-based env, the masked RLModule, shared self-play or the league of snapshots and fixed
agents; a failed env runner is restarted and the run goes on), then one line of progress per
iteration, a checkpoint every ``--checkpoint-every`` iterations, and at the end the last one plus
its numpy export (``final.npz`` + ``final.json``: loads with numpy only, ``hot-envs evaluate
--agents OUT/final heuristic``).

The run directory (``--out``, default ``runs/rllib-<game>-<timestamp>/``) holds ``args.json``,
``progress.jsonl`` (one line per iteration), ``rllib_checkpoint/`` (the newest checkpoint,
swapped in atomically: :mod:`hot_envs.training.rllib_runs`), ``latest.{npz,json}`` (its numpy
export) and ``final.{npz,json}``. Ctrl-C or SIGTERM saves both, prints the command that resumes the
run and exits 130 / 143; ``--resume RUN_DIR`` continues from the checkpoint's iteration to the run's
``--iterations`` (docs/rllib.md, "Stopping, resuming and lost nodes").
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shlex
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, fields
from functools import partial
from pathlib import Path
from typing import Any

from hot_envs.core.games import DEFAULT_GAME, GAMES, get_game
from hot_envs.training import processes


@dataclass
class Args:
    """Every knob of a run (``--name`` on the command line, ``_`` written as ``-``)."""

    game: str = DEFAULT_GAME
    players: int | None = None  # Heiße Karten: 2–6, default 2 (one count per run)
    mode: str = "shared"  # shared: one policy in every seat; league: main vs snapshots (+ fixed)
    fixed: list[str] = field(default_factory=list)  # league: fixed opponents (agent specs)
    fixed_share: float = 0.2  # league: chance an opponent seat draws a fixed agent
    snapshot_every: int = 5  # league: iterations between frozen snapshots of main
    max_snapshots: int = 5
    iterations: int = 20  # the run's total; a resumed run goes on to it
    out: str | None = None
    seed: int = 0
    # Every K iterations (and on Ctrl-C / SIGTERM, and at the end) a checkpoint; 0: only then.
    # 20 iterations of the default 4,000-step batch take 1-2 minutes on 2 cores; a checkpoint
    # with its numpy export 0.05 s (docs/rllib.md).
    checkpoint_every: int = 20
    resume: str | None = None  # a run directory (or its rllib_checkpoint/) to continue
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
    parser.add_argument("game", help=" or ".join(GAMES))
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
    cli["game"] = get_game(cli["game"]).name
    args = resumed_args(cli) if "resume" in cli else Args(**cli)
    if args.mode not in ("shared", "league"):
        raise ValueError(f"--mode must be 'shared' or 'league', not {args.mode!r}")
    if args.fixed and args.mode != "league":
        raise ValueError("--fixed opponents need --mode league")
    for name in (
        "iterations",
        "env_runners",
        "envs_per_runner",
        "batch_size",
        "snapshot_every",
        "max_snapshots",
        "checkpoint_every",
    ):
        minimum = 0 if name in ("env_runners", "checkpoint_every") else 1
        if getattr(args, name) < minimum:
            raise ValueError(f"--{name.replace('_', '-')} must be ≥ {minimum}")
    if not 0 <= args.fixed_share <= 1:
        raise ValueError(f"--fixed-share must be within [0, 1], not {args.fixed_share}")
    # Bad player counts, options or specs fail here, before Ray starts.
    from hot_envs.rllib.env import TurnBasedEnv

    TurnBasedEnv(env_config(args))
    return args


def resumed_args(cli: dict[str, Any]) -> Args:
    """The ``Args`` of ``--resume RUN_DIR``: the run's ``args.json`` with the few options a
    resume may set anew (:func:`hot_envs.training.rllib_runs.resume_settings`)."""
    from hot_envs.training.rllib_runs import resume_settings

    return Args(**resume_settings(cli, {f.name for f in fields(Args)}))


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
    from hot_envs.rllib.module import FixedAgentRLModule, MaskedPPOTorchRLModule
    from hot_envs.training.rllib_league import (
        MAIN,
        LeagueCallback,
        LeagueMapping,
        fixed_module_id,
        make_league,
        shared_mapping,
    )

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
    league = mapping = None
    if args.mode == "league":
        league = make_league(args.game, len(args.fixed), args.fixed_share, args.max_snapshots)
        mapping = LeagueMapping.of(env.state.num_players, league)
    callback = partial(
        LeagueCallback,
        spec=main_spec,
        league=league,
        num_players=env.state.num_players,
        snapshot_every=args.snapshot_every,
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
        # A lost env runner (a killed process, a lost node) is restarted by Ray and synced with
        # the learner's weights; the iteration it failed in goes on with the others. RLlib's
        # 60 s pause after an error inside a runner is cut to 10 s.
        .fault_tolerance(
            restart_failed_env_runners=True,
            max_num_env_runner_restarts=1000,
            delay_between_env_runner_restarts_s=10.0,
        )
        .debugging(seed=args.seed)
    )
    return config


@contextmanager
def shipped_package(temp_dir: str | None = None) -> Iterator[str]:
    """The folder of the hot_envs package as the workers of a cluster import it: with the training
    package inside, whose RLlib league runs on the env runners. An installed wheel has it there;
    a source checkout keeps it beside the package (pyproject.toml's package-dir), so the two are
    copied together into a folder of ``temp_dir`` (default the system's), removed on leaving the
    ``with`` block (``ray.init`` has uploaded it by then)."""
    from hot_envs import core

    package, inside = Path(core.__file__).parents[1], Path(__file__).parent  # hot_envs.training
    if inside.parent == package:
        yield str(package)
        return
    folder = Path(tempfile.mkdtemp(prefix="hot_envs-shipped-", dir=temp_dir))
    try:
        staged = folder / "hot_envs"
        ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
        shutil.copytree(package, staged, ignore=ignore)
        shutil.copytree(inside, staged / "training", ignore=ignore)
        yield str(staged)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def init_ray(args: Args, temp_dir: str | None = None) -> bool:
    """This machine (``ray.init()``), or the cluster at ``--address`` with hot_envs shipped to
    its workers. Returns whether Ray was started here (an already running one is used as is)."""
    import ray

    if ray.is_initialized():
        return False
    if args.address:
        # ray.init uploads the package to the cluster before it returns
        with shipped_package(temp_dir) as package:
            ray.init(address=args.address, runtime_env={"py_modules": [package]})
        return True
    # A private single-machine Ray: no token needed between its own processes, and a CPU for
    # every runner and learner even on a small machine (else Ray would wait for free CPUs).
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    cpus = max(os.cpu_count() or 1, args.env_runners + args.learners)
    # Ray's processes inherit the signal mask: with SIGTERM blocked (as Ray blocks SIGINT) a
    # SIGTERM to the whole process group (a scheduler's preemption) reaches only this driver,
    # which saves and then shuts Ray down, instead of killing Ray under the running driver.
    blocked = hasattr(signal, "pthread_sigmask")
    if blocked:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    try:
        ray.init(num_cpus=cpus, include_dashboard=False, _temp_dir=temp_dir)
    finally:
        if blocked:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
    return True


def shutdown_ray() -> None:
    """``ray.shutdown()``, without the second it gives each Ray process of this machine to end
    on a SIGTERM: those :func:`init_ray` started have SIGTERM blocked, so each of those waits
    ended in the SIGKILL that follows it (five seconds at the end of every run). They get the
    SIGKILL at once, the raylet first; the processes it started (Ray's workers and agents), which
    end when it does, are waited for before the rest go (where ``/proc`` tells which they are;
    elsewhere Ray's own shutdown runs). It reaches into Ray's ``Node`` as the pinned Ray 2.60
    has it."""
    import ray

    node = ray._private.worker._global_node  # the Ray processes this one started, if any
    if node is None or not processes.PROC.is_dir():
        ray.shutdown()
        return
    kill = node._kill_process_type

    def kill_at_once(process_type: str, **options: Any) -> None:
        raylets = node.all_processes.get(process_type, []) if process_type == "raylet" else []
        started = {pid for raylet in raylets for pid in processes.descendants(raylet.process.pid)}
        kill(process_type, **{**options, "allow_graceful": False})
        deadline = time.monotonic() + 10
        while processes.alive(started) and time.monotonic() < deadline:
            time.sleep(0.02)

    node._kill_process_type = kill_at_once
    ray.shutdown()


def redirect_ray_results(path: Path) -> None:
    """Ray's ``Trainable`` makes a log folder under ``~/ray_results`` on every build; make it
    under the run directory instead (Ray reads the module constant at that moment)."""
    import ray.tune.trainable.trainable as trainable

    trainable.DEFAULT_STORAGE_PATH = str(path)


def progress_row(
    result: dict[str, Any], seconds: float, healthy_runners: int | None = None
) -> dict[str, Any]:
    """One iteration's figures, for the progress line and ``progress.jsonl``
    (``healthy_runners``: env runners that answered, when known)."""
    runners = result.get("env_runners", {})

    def value(key: str) -> float | None:
        """The metric, or None where RLlib has none this iteration (missing, or NaN: so in the
        first iteration after a resume)."""
        number = runners.get(key)
        return None if number is None or math.isnan(number) else float(number)

    def count(key: str) -> int:
        return int(value(key) or 0)

    steps = count("num_env_steps_sampled_lifetime")
    return {
        "iteration": int(result["training_iteration"]),
        "seconds": round(seconds, 2),
        "env_steps": steps,
        "env_steps_per_second": round(steps / max(seconds, 1e-9), 1),
        "episodes": count("num_episodes"),
        "main_return": value("main_return"),
        "illegal_actions": count("illegal_actions"),
        "illegal_actions_lifetime": count("illegal_actions_lifetime"),
        "league_size": result.get("league_size"),
        "env_runners_healthy": healthy_runners,
    }


def progress_line(row: dict[str, Any], env_runners: int = 0) -> str:
    """The printed line; ``runners h/n`` only while some of the ``env_runners`` are down."""
    main_return = float("nan") if row["main_return"] is None else row["main_return"]
    league = f"  league {row['league_size']}" if row["league_size"] is not None else ""
    healthy = row.get("env_runners_healthy")
    if healthy is not None and healthy < env_runners:
        league += f"  runners {healthy}/{env_runners}"
    return (
        f"iter {row['iteration']:>4}  {row['seconds']:>7.1f} s  steps {row['env_steps']:>9,}  "
        f"{row['env_steps_per_second']:>7,.0f}/s  episodes {row['episodes']:>5}  "
        f"main return {main_return:+.3f}  illegal {row['illegal_actions']}{league}"
    )


def resume_command(args: Args, run: Path) -> str:
    """The command that continues ``run`` (printed when a run is stopped)."""
    command = ["hot-envs", "train", args.game, "--backend", "rllib", "--resume", str(run)]
    return shlex.join(command)


def train(args: Args, on_iteration: Callable[[Any, dict[str, Any]], None] | None = None) -> Path:
    """One run on the Ray this process is connected to; returns the run directory.

    ``on_iteration(algorithm, row)`` is called after each iteration's progress line. SIGINT and
    SIGTERM (while this runs) save a checkpoint and ``latest``, print the resume command and
    raise :class:`hot_envs.training.rllib_runs.Interrupted`."""
    import torch

    from hot_envs.rllib.env import TurnBasedEnv
    from hot_envs.training.rllib_export import export_checkpoint
    from hot_envs.training.rllib_league import LeagueCallback
    from hot_envs.training.rllib_runs import (
        StopOnSignal,
        latest_checkpoint,
        read_run_state,
        save_checkpoint,
        trim_progress,
        wait_for_env_runners,
        write_atomically,
    )

    out = Path(args.out or f"runs/rllib-{args.game}-{time.strftime('%Y%m%d-%H%M%S')}").resolve()
    out.mkdir(parents=True, exist_ok=True)
    resume_from = latest_checkpoint(out) if args.resume else None
    if args.resume and resume_from is None:  # never start afresh over a run's files
        raise ValueError(f"--resume {args.resume}: no complete checkpoint in {out}")
    write_atomically(out / "args.json", json.dumps(asdict(args), indent=2) + "\n")
    where = args.address or "this machine"
    print(f"training {args.game} ({args.mode}) for {args.iterations} iterations on {where} → {out}")
    torch.set_num_threads(args.torch_threads)
    redirect_ray_results(out / "ray_results")
    options = {"num_players": [TurnBasedEnv(env_config(args)).state.num_players]}
    options.update(args.game_options)
    row: dict[str, Any] | None = None

    def checkpoint(stem: str = "latest") -> Path:
        state = {
            "iteration": algorithm.iteration,
            "env_steps": row["env_steps"] if row else 0,
            "seconds": round(time.perf_counter() - started, 2),
            "league": LeagueCallback.of(algorithm).league_state(),
        }
        path = save_checkpoint(algorithm.save_to_path, out, state)
        training = {**(row or {}), "backend": "rllib", "config": asdict(args)}
        export_checkpoint(path, out / stem, options=options, training=training)
        return path

    with StopOnSignal() as signals:
        algorithm = build_config(args).build_algo()
        started = time.perf_counter()
        restored = resume_from is None  # until then a signal must not overwrite the checkpoint
        try:
            if resume_from is not None:
                state = read_run_state(resume_from)
                if state["league"] is not None:
                    LeagueCallback.of(algorithm).restore_league(algorithm, state["league"])
                algorithm.restore_from_path(resume_from)
                row = trim_progress(out / "progress.jsonl", algorithm.iteration)
                started -= state["seconds"]  # the run's clock goes on from the checkpoint
                restored = True
                print(f"resumed {resume_from} at iteration {algorithm.iteration}", flush=True)
            with open(out / "progress.jsonl", "a" if resume_from else "w") as log:
                while algorithm.iteration < args.iterations:
                    if not algorithm.env_runner_group.num_healthy_remote_workers():
                        wait_for_env_runners(algorithm)  # (a no-op without remote runners)
                    result = algorithm.train()
                    healthy = algorithm.env_runner_group.num_healthy_remote_workers()
                    row = progress_row(result, time.perf_counter() - started, healthy)
                    print(progress_line(row, args.env_runners), flush=True)
                    log.write(json.dumps(row) + "\n")
                    log.flush()
                    if on_iteration is not None:
                        on_iteration(algorithm, row)
                    every, done = args.checkpoint_every, row["iteration"]
                    if every and done % every == 0 and done < args.iterations:  # (last: below)
                        checkpoint()
            path = checkpoint()
            stem = export_checkpoint(
                path,
                out / "final",
                options=options,
                training={**(row or {}), "backend": "rllib", "config": asdict(args)},
            )
        except KeyboardInterrupt as error:
            # The iteration under way is dropped: the checkpoint holds the ones completed. A
            # second signal raises out of this save; the last complete checkpoint stays.
            stop = signals.interrupted(error)
            name = str(stop)
            if not restored:
                print(f"hot-envs: {name} while resuming; {resume_from} is kept", file=sys.stderr)
                raise stop from None
            print(f"hot-envs: {name} at iteration {algorithm.iteration}: saving …", file=sys.stderr)
            path = checkpoint()
            stop.saved = True
            # As the SB3 backend says it: where it stopped and the command that goes on.
            print(
                f"saved {path} and {out / 'latest'} (.npz + .json)\n"
                f"stopped at iteration {algorithm.iteration}; go on with:\n"
                f"  {resume_command(args, out)}",
                flush=True,
            )
            raise stop from None
        finally:
            algorithm.stop()
    print(f"RLlib checkpoint {path}\nnumpy checkpoint {stem} (.npz + .json)")
    return out


def main(argv: list[str] | None = None) -> int:
    """The script: 0 when the run ends, 2 on bad options, 130 / 143 after SIGINT / SIGTERM
    (with the run saved), and Ray shut down in every case."""
    try:
        args = parse_args(argv)
    except (ValueError, ImportError) as error:
        print(f"rllib_train: error: {error}", file=sys.stderr)
        return 2
    import ray

    from hot_envs.training.rllib_runs import StopOnSignal

    code = 0
    ours = not ray.is_initialized()  # a Ray this process did not start is left running
    signals = StopOnSignal()
    with signals:
        try:
            init_ray(args)
            train(args)
        except KeyboardInterrupt as error:
            stop = signals.interrupted(error)
            code = stop.exit_code
            if not stop.saved:
                print(f"hot-envs: {stop}: stopped before the first checkpoint", file=sys.stderr)
        finally:
            # Ray's processes end here whatever happened (no orphaned raylet or env runner);
            # a signal now would cut that short, so signals wait until Ray is down.
            signals.hold()
            if ours:
                shutdown_ray()
    if code == 0 and signals.received is not None:  # a signal while Ray shut down
        code = 128 + signals.received
    return code


if __name__ == "__main__":
    sys.exit(main())

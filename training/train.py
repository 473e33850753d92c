"""Train sb3-contrib MaskablePPO on Heiße Luft or Heiße Karten, CleanRL style.

    hot-envs train GAME [--config FILE] [--out DIR] [--timesteps T] [--time-limit SECONDS]
        [--players N|all] [--seed S] [--resume PATH|RUN_DIR] [--n-envs N]
        [--checkpoint-minutes M] [--no-progress] [--backend sb3|rllib]

The settings come from ``training/configs/GAME.toml`` (or ``--config``), the command line over it
(:mod:`hot_envs.training.settings`). Read :func:`run` top to bottom: the run folder, seeding, the
self-play league and the vectorised single-agent envs, the model (new, from a checkpoint, or a
stopped run continued), then the three steps:

1. :func:`imitate` — behaviour cloning of the teacher (the heuristic) for a new model, then
   DAgger rounds if configured; the policy before RL is saved as ``start``;
2. :func:`learn` — PPO, with league updates, periodic evaluation (``best`` kept), run
   checkpoints, TensorBoard logs and a progress bar, until ``timesteps`` steps or ``time_limit``
   seconds;
3. :func:`final_table` — the ``final`` checkpoint and a table of ``start`` and ``final`` against
   random and heuristic play, and ``final`` against ``start``, with 95 % intervals.

The main job's length (``hot-envs train heisse-luft``) is in docs/training.md.

The run folder (``--out``, default ``runs/<game>-<timestamp>/``) holds ``start``, ``final``,
``best`` and ``latest`` checkpoints (``.zip`` + ``.npz`` + ``.json``,
:mod:`hot_envs.agents.checkpoint`), ``evaluations.json``, ``learning_curve.png``, ``args.json``
and ``tb/`` (TensorBoard), and what resuming needs (:mod:`hot_envs.training.run_state`):
``run_state.json`` and ``resume/``, written every ``checkpoint_minutes`` and when Ctrl-C or
SIGTERM stops the run (exit code 130 / 143). ``--resume RUN_DIR`` continues such a run where it
stopped; ``--resume CHECKPOINT`` starts a new run from a checkpoint's network.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import sys
import time
from dataclasses import asdict, dataclass, field, fields
from functools import partial
from pathlib import Path
from typing import Any

import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.utils import set_random_seed
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv, VecMonitor

from hot_envs.agents.arrays import ActionScorerInput
from hot_envs.agents.checkpoint import read_metadata, update_metadata
from hot_envs.agents.features import SPECS
from hot_envs.agents.opponents import FixedOpponent, League, LeagueRules
from hot_envs.agents.shipped import find_checkpoint
from hot_envs.agents.suite import held_out_pool
from hot_envs.core.arguments import split_backend
from hot_envs.core.blas import one_blas_thread
from hot_envs.core.games import get_game
from hot_envs.envs.single_agent import Opponent, SingleAgentEnv
from hot_envs.envs.vector_sb3 import SB3VectorEnv
from hot_envs.training.callbacks import AnnealedLearningRate, UpdateThreads, progress_callbacks
from hot_envs.training.callbacks import TimeLimit as TimeLimit  # re-exported, as UpdateThreads
from hot_envs.training.evaluate import (
    EvaluationCallback,
    compare,
    format_comparison,
    plot_learning_curve,
)
from hot_envs.training.exploiters import ExploiterCallback, ExploiterRules
from hot_envs.training.export import export_checkpoint, sb3_custom_objects
from hot_envs.training.finetune import CriticWarmup, TeacherAnchor
from hot_envs.training.imitation import Demonstrations, behaviour_cloning, collect, dagger
from hot_envs.training.league import LeagueCallback
from hot_envs.training.policies import ActionScorerPolicy, StateCriticPolicy, widen
from hot_envs.training.run_state import (
    Checkpointer,
    Interrupted,
    Resume,
    StopSignals,
    is_run_dir,
    report_stop,
)

# The settings; exploit.py, the benchmarks and the tests import them from here too.
from hot_envs.training.settings import CONFIGS as CONFIGS
from hot_envs.training.settings import Args, parse_args
from hot_envs.training.settings import load_config as load_config


def main(argv: list[str] | None = None) -> int:
    """The script: ``--backend rllib`` hands the other arguments to
    :func:`hot_envs.training.rllib_train.main`; 2 on bad options; 130 / 143 after Ctrl-C /
    SIGTERM."""
    argv = list(sys.argv[1:] if argv is None else argv)
    backend, rest = split_backend(argv)
    if backend == "rllib":
        from hot_envs.training import rllib_train

        return rllib_train.main(rest)
    try:
        args = parse_args(argv)
    except (ValueError, FileNotFoundError) as error:
        print(f"train: error: {error}", file=sys.stderr)
        return 2
    args.out = args.out or f"runs/{args.game}-{time.strftime('%Y%m%d-%H%M%S')}"
    # numpy's BLAS on one thread, here and in the env workers (hot_envs.core.blas)
    with StopSignals() as stop, one_blas_thread(children=True):
        try:
            return run(args, stop)
        except Interrupted as interrupt:  # before or after learning: nothing new to save
            return report_stop(args.game, args.out, 128 + interrupt.signum)


def run(args: Args, stop: StopSignals) -> int:
    """:func:`main` after the settings; ``stop`` holds the signal handlers and closes the envs.
    A signal during learning ends the run after ``latest`` is saved (exit code 130 / 143)."""
    resume = Resume(args.resume) if is_run_dir(args.resume) else None  # --resume RUN_DIR
    out = open_run_folder(args, resume)
    # Seeding: Python, numpy and torch here; every env worker from seed + rank.
    set_random_seed(args.seed)
    torch.set_num_threads(args.torch_threads)  # numpy's BLAS: one thread (main)
    league = make_league(args, resume)
    envs = stop.closing(make_envs(args, league.league, resume, stop))
    learner = make_learner(args, envs, league, out, resume)
    learner.exploiters = make_exploiters(args, envs.num_envs, resume, stop)
    # 1. Behaviour cloning of the teacher, then DAgger rounds; the start checkpoint.
    demos = imitate(learner, resume, out)
    # 2. PPO.
    evaluation = learn(learner, demos, resume, out, stop)
    if stop.signum is not None:  # a signal stopped learning; latest is saved
        return report_stop(args.game, out, stop.exit_code)
    # 3. The final checkpoint and the table.
    final_table(learner, evaluation, out)
    return 0


def open_run_folder(args: Args, resume: Resume | None) -> Path:
    """The run folder, with ``args.json`` for a new run."""
    out = Path(args.out or ".")
    out.mkdir(parents=True, exist_ok=True)
    if resume is None:
        (out / "args.json").write_text(json.dumps(asdict(args), indent=2) + "\n")
        players = args.players or [2]
        print(f"training {args.game} (players {players}) for {args.timesteps} steps → {out}")
    else:
        print(f"continuing {out} at step {resume.steps} of {resume.state['target_steps']}")
    return out


# --- The set-up: league, envs, model -------------------------------------------------------------


def make_league(args: Args, resume: Resume | None) -> LeagueCallback:
    """The self-play league, which decides who sits in the other seats, in the callback that
    updates it during learning (snapshots of the learner, the curriculum); a continued run's
    as it stood."""
    rules = {f.name: getattr(args, f.name) for f in fields(LeagueRules)}
    league = League(args.game, [FixedOpponent(**o) for o in args.opponents], **rules)
    callback = LeagueCallback(league, args.snapshot_every, args.curriculum_window, seed=args.seed)
    if resume is not None:  # before the envs: they start with its fixed opponents
        callback.restore(resume.part("league"))
    return callback


def make_exploiters(
    args: Args, num_envs: int, resume: Resume | None, stop: StopSignals
) -> ExploiterCallback | None:
    """The league's exploiter (``exploiter_every`` > 0): it learns on envs like the learner's,
    with the learner's PPO settings; a continued run's as it stood."""
    if args.exploiter_every <= 0:
        return None
    rules = ExploiterRules(args.exploiter_every, args.exploiter_steps, args.exploiter_share)
    exploiters = ExploiterCallback(
        args.game,
        rules,
        lambda learner, seed: game_envs(args, [Opponent("learner", learner)], seed, stop),
        ppo_settings(args, num_envs),
        stopped=lambda: stop.signum is not None,
        seed=args.seed,
    )
    if resume is not None:
        exploiters.restore(resume.part("exploiters"))
    return exploiters


def make_envs(args: Args, league: League, resume: Resume | None, stop: StopSignals) -> VecEnv:
    """The learner's envs, starting with the league's fixed opponents. A continued run plays
    new games."""
    opponents = [Opponent(*entry) for entry in league.initial_entries()]
    return game_envs(args, opponents, resume.env_seed(args.seed) if resume else args.seed, stop)


def game_envs(args: Args, opponents: list[Opponent], seed: int, stop: StopSignals) -> VecEnv:
    """Envs of the run's game and settings with ``opponents`` in the other seats:
    ``batched_envs`` games in ``batched_workers`` processes, or else ``n_envs`` env worker
    processes of one game each."""
    options = {
        "opponents": opponents,
        "players": args.players,
        "game_options": args.game_options,
        "shaping": args.shaping,
        "policy_input": policy_input(args),
        "critic_state": args.critic == "state",
    }
    with stop.children_ignore_sigint():  # a Ctrl-C reaches them too; this process decides
        if args.batched_envs > 0:  # many games per process, opponents' moves batched
            workers = args.batched_workers or min(os.cpu_count() or 1, args.batched_envs)
            batched = SB3VectorEnv(
                game=args.game, num_envs=args.batched_envs, seed=seed, workers=workers, **options
            )
            return VecMonitor(batched)
        n_envs = args.n_envs or default_n_envs()
        vec_env_cls = SubprocVecEnv if n_envs > 1 else DummyVecEnv
        if vec_env_cls is SubprocVecEnv and "forkserver" in mp.get_all_start_methods():
            # SB3's env workers, forked from a server that has SB3 (and torch) loaded already,
            # instead of each loading them again: seconds of CPU per worker at the start.
            mp.set_forkserver_preload(["__main__", SubprocVecEnv.__module__])
        make_env = partial(SingleAgentEnv, args.game, **options)
        return make_vec_env(make_env, n_envs=n_envs, seed=seed, vec_env_cls=vec_env_cls)


def policy_input(args: Args) -> ActionScorerInput | None:
    """What the run's policy reads in place of the observation: the action scorer's packed
    input (the envs and the teacher's demonstrations emit it), or the observation (None)."""
    return ActionScorerInput(args.game) if args.policy == "action_scorer" else None


def default_n_envs() -> int:
    """4 env workers per core, at least one per core, at most 16 unless there are more cores.

    The policy's forward pass in the main process costs about the same for 1 or 16
    observations, so more workers share it; on 2 busy cores 8 workers learned 1.1–1.8× as fast
    as 2 (benchmarks/training_throughput.py: the gain depends on the machine's load)."""
    cores = os.cpu_count() or 1
    return min(4 * cores, max(cores, 16))


@dataclass
class Learner:
    """The model being trained, and what the checkpoints' metadata say of it (:meth:`metadata`):
    its origin (``resumed_from``, that checkpoint's ``previous`` training block), its
    imitation, the league, and learning's start."""

    args: Args
    model: MaskablePPO
    league: LeagueCallback
    resumed_from: str | None = None  # the checkpoint or the run folder the model came from
    previous: dict[str, Any] = field(default_factory=dict)
    bc_history: list[dict[str, float]] = field(default_factory=list)  # per epoch / DAgger round
    learn_started: float = 0.0  # time.perf_counter() when learning started
    start_steps: int = 0  # the model's steps then
    target_steps: int = 0  # the steps learning ends at (unless the time limit ends it first)
    exploiters: ExploiterCallback | None = None  # the league's exploiter, if the run has one

    def metadata(self, evaluation: dict[str, Any] | None = None) -> dict[str, Any]:
        """A checkpoint's metadata during and after learning."""
        seconds = time.perf_counter() - self.learn_started
        steps = self.model.num_timesteps - self.start_steps
        return {
            "game": self.args.game,
            "options": {"num_players": self.args.players or [2], **self.args.game_options},
            "training": {
                "steps": self.model.num_timesteps,
                "seconds": round(seconds, 1),
                "steps_per_second": round(steps / max(seconds, 1e-9), 1),
                "n_envs": self.model.get_env().num_envs,
                "seed": self.args.seed,
                "resumed_from": self.resumed_from,
                "previous": self.previous or None,
                "behaviour_cloning": self.bc_history or None,
                "league": self.league.summary(),
                **({"exploiters": self.exploiters.summary()} if self.exploiters else {}),
                "config": asdict(self.args),
            },
            "evaluation": evaluation or {},
        }

    def start_metadata(self) -> dict[str, Any]:
        """The ``start`` checkpoint's metadata: the policy before learning."""
        return {
            "game": self.args.game,
            "options": {"num_players": self.args.players or [2], **self.args.game_options},
            "training": {
                "stage": "start",
                "steps": self.model.num_timesteps,
                "resumed_from": self.args.resume,
                "behaviour_cloning": self.bc_history or None,
            },
        }

    def origin(self) -> tuple[list[dict[str, float]], dict[str, Any], str | None]:
        """What a continued run takes over (the run checkpoints' part "run")."""
        return self.bc_history, self.previous, self.resumed_from

    def summary(self) -> dict[str, Any]:
        """Where learning stands, for ``run_state.json``."""
        exploiters = {"exploiters": self.exploiters.summary()} if self.exploiters else {}
        return {"target_steps": self.target_steps, **self.league.summary(), **exploiters}


def make_learner(
    args: Args, envs: VecEnv, league: LeagueCallback, out: Path, resume: Resume | None
) -> Learner:
    """The model on ``envs`` and its origin: a stopped run's (``--resume RUN_DIR``), a
    checkpoint's network with this run's PPO settings (``--resume CHECKPOINT``), or new."""
    tensorboard_log = str(out / "tb")
    if resume is not None:
        model = resume.load_model(
            envs, args.seed, tensorboard_log=tensorboard_log, verbose=args.verbose
        )
        bc_history, previous, resumed_from = resume.part("run")
        return Learner(args, model, league, resumed_from, previous, bc_history)
    if args.resume:
        metadata = read_metadata(args.resume, args.game)
        zip_path = find_checkpoint(args.resume).with_suffix(".zip")
        objects = sb3_custom_objects(metadata)
        trained_with = metadata.get("training", {}).get("config", {}).get("critic", "observation")
        source = MaskablePPO.load(zip_path, device="cpu", custom_objects=objects)
        network = {k: v for k, v in source.policy_kwargs.items() if k != "critic_state_size"}
        scorers = args.policy == "action_scorer" and "state_arch" in network  # both of them
        grown = scorers and network != network_keywords(args)
        if grown or (args.critic == "state" and trained_with != "state"):
            # the run's larger layers, or a critic that reads the state too: grown from its own
            model = build_model(args, envs, tensorboard_log, None if grown else network)
            widen(model, source)
            print(f"grown from {zip_path}'s network to the run's ([ppo])")
        else:
            model = MaskablePPO.load(
                zip_path,
                env=envs,
                device="cpu",
                tensorboard_log=tensorboard_log,
                verbose=args.verbose,
                custom_objects=objects,
                **ppo_settings(args, envs.num_envs),
            )
        print(f"resumed from {zip_path} at step {model.num_timesteps}")
        return Learner(args, model, league, args.resume, metadata.get("training", {}))
    return Learner(args, build_model(args, envs, tensorboard_log), league)


def ppo_settings(args: Args, num_envs: int) -> dict[str, Any]:
    """The run's PPO hyperparameters as ``MaskablePPO`` keywords (``rollout_steps`` spread
    over the envs), for a new model and a resumed one alike."""
    return {
        "learning_rate": args.learning_rate,
        "n_steps": max(1, args.rollout_steps // num_envs),
        "batch_size": args.batch_size,
        "n_epochs": args.n_epochs,
        "gamma": args.gamma,
        "gae_lambda": args.gae_lambda,
        "clip_range": args.clip_range,
        "ent_coef": args.ent_coef,
        "vf_coef": args.vf_coef,
        "target_kl": args.target_kl,
    }


def build_model(
    args: Args,
    envs: VecEnv,
    tensorboard_log: str | None = None,
    network: dict[str, Any] | None = None,
) -> MaskablePPO:
    """A new MaskablePPO on ``envs`` with the run's PPO settings and network (or ``network``: a
    checkpoint's policy keywords, its widths and activation): ``rollout_steps`` spread over the
    envs, CPU, seeded. The one place these settings meet the constructor
    (``benchmarks/training_throughput.py`` builds its models here too). With ``critic =
    "state"`` the critic reads the state the envs append to the actor's input."""
    policy_kwargs: dict[str, Any] = dict(network or network_keywords(args))
    state_size = envs.observation_space.shape[0] - actor_size(args)  # 0 unless critic = "state"
    if args.policy == "action_scorer":
        policy: Any = ActionScorerPolicy
        policy_kwargs["critic_state_size"] = state_size
    elif args.policy == "mlp":
        policy = StateCriticPolicy if state_size else "MlpPolicy"
        if state_size:
            policy_kwargs["actor_size"] = actor_size(args)
    else:
        raise ValueError(f"policy must be 'mlp' or 'action_scorer', not {args.policy!r}")
    return MaskablePPO(
        policy,
        envs,
        policy_kwargs=policy_kwargs,
        **ppo_settings(args, envs.num_envs),
        tensorboard_log=tensorboard_log,
        verbose=args.verbose,
        seed=args.seed,
        device="cpu",
    )


def network_keywords(args: Args) -> dict[str, Any]:
    """The policy keywords of the run's network (``[ppo]``)."""
    activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[args.activation]
    if args.policy == "action_scorer":
        return {
            "activation_fn": activation,
            "game": args.game,
            "state_arch": list(args.state_arch),
            "scorer_arch": list(args.scorer_arch),
            "value_arch": list(args.value_arch),
        }
    return {"activation_fn": activation, "net_arch": list(args.net_arch)}


def actor_size(args: Args) -> int:
    """The entries of a learner's row the run's actor reads: its policy input."""
    return (
        SPECS[args.game].input_size
        if args.policy == "action_scorer"
        else get_game(args.game).engine.LAYOUT.size
    )


# --- Step 1: behaviour cloning and DAgger ---------------------------------------------------------


def imitate(learner: Learner, resume: Resume | None, out: Path) -> Demonstrations | None:
    """Cloning the teacher warm-starts a new model; DAgger rounds follow, on a model from a
    checkpoint too (they correct a trained policy in the positions it reaches itself). A
    continued run had them before it learnt. The ``start`` checkpoint is the policy before RL:
    a new model after its imitation, one from a checkpoint as it was loaded. Returns the
    teacher's demonstrations if the teacher anchor needs them (a continued run's again)."""
    args, model = learner.args, learner.model
    if args.resume and resume is None:
        export_checkpoint(model, out / "start", learner.start_metadata())
    demos = None
    if resume is None and ((args.bc_decisions > 0 and not args.resume) or args.dagger_rounds > 0):
        started = time.perf_counter()
        demos = teacher_demos(args)
        if not args.resume:
            learner.bc_history = clone(model, demos, args, started)
        if args.dagger_rounds > 0:
            demos, rounds = dagger_rounds(model, demos, args)
            learner.bc_history += rounds
    elif args.anchor_coef > 0 and args.bc_decisions > 0:
        demos = teacher_demos(args)
    if not args.resume:
        export_checkpoint(model, out / "start", learner.start_metadata())
    return demos


def teacher_demos(args: Args) -> Demonstrations:
    """``bc_decisions`` decisions of the teacher, as the run's policy observes them."""
    return collect(
        args.game,
        args.players or [2],
        args.bc_decisions,
        args.seed,
        args.bc_teacher,
        args.gamma,
        policy_input=policy_input(args),
        workers=args.imitation_workers or os.cpu_count() or 1,
        progress=args.progress_bar,
    )


def clone(
    model: MaskablePPO, demos: Demonstrations, args: Args, started: float
) -> list[dict[str, float]]:
    """Behaviour cloning on ``demos``; the statistics of each epoch."""
    history = behaviour_cloning(
        model,
        demos,
        args.bc_epochs,
        args.bc_batch_size,
        args.bc_learning_rate,
        seed=args.seed,
        label_smoothing=args.bc_label_smoothing,
    )
    print(
        f"behaviour cloning of {args.bc_teacher}: {len(demos.actions)} decisions, "
        f"accuracy {history[-1]['accuracy']:.1%}, entropy {history[-1]['entropy']:.2f} nats, "
        f"{time.perf_counter() - started:.0f} s"
    )
    return history


def dagger_rounds(
    model: MaskablePPO, demos: Demonstrations, args: Args
) -> tuple[Demonstrations, list[dict[str, float]]]:
    """``dagger_rounds`` DAgger rounds (:func:`hot_envs.training.imitation.dagger`): the grown
    demonstrations and the statistics of each round."""
    return dagger(
        model,
        demos,
        args.game,
        args.players or [2],
        args.dagger_rounds,
        args.dagger_decisions,
        args.seed,
        args.bc_teacher,
        args.gamma,
        log=report_dagger_round,
        opponent=args.dagger_opponent or None,
        own_labels=args.dagger_own_labels,
        workers=args.imitation_workers or os.cpu_count() or 1,
        progress=args.progress_bar,
        improve=args.dagger_margin if args.dagger_improve else None,
        epochs=args.dagger_epochs,
        batch_size=args.bc_batch_size,
        learning_rate=args.bc_learning_rate,
        label_smoothing=args.bc_label_smoothing,
    )


def report_dagger_round(entry: dict[str, float]) -> None:
    print(
        f"DAgger round {entry['round']}: the clone agreed with the teacher on "
        f"{entry['agreement']:.1%} in its own games; {entry['decisions']} decisions, "
        f"accuracy {entry['accuracy']:.1%}, {entry['seconds']:.0f} s"
    )


# --- Step 2: PPO ---------------------------------------------------------------------------------


def learn(
    learner: Learner,
    demos: Demonstrations | None,
    resume: Resume | None,
    out: Path,
    stop: StopSignals,
) -> EvaluationCallback:
    """PPO until ``timesteps`` more steps (a continued run: its own target) or ``time_limit``
    seconds, with the league's updates, periodic evaluations, run checkpoints, the fine-tuning
    callbacks and the progress bar; the evaluations' callback, which holds their history. After
    a signal (``stop.signum``) ``latest`` is saved and the envs are closed."""
    args, model = learner.args, learner.model
    learner.learn_started, learner.start_steps = time.perf_counter(), model.num_timesteps
    learner.target_steps = (
        resume.state["target_steps"] if resume else model.num_timesteps + args.timesteps
    )
    evaluation = EvaluationCallback(
        out,
        args.eval_every,
        args.eval_opponent,
        args.eval_games,
        args.eval_players or args.players or [2],
        learner.metadata,
        seed=args.seed + 1,
        workers=args.eval_workers,
        stopped=lambda: stop.signum is not None,
    )
    learn_start = resume.saved["learn_start"] if resume else None  # the warm-up's, the anchor's
    anchor = None
    if demos is not None and args.anchor_coef > 0:
        anchor = TeacherAnchor(
            demos, args.anchor_coef, args.anchor_decay, seed=args.seed, start=learn_start
        )
    checkpointer = run_checkpointer(learner, evaluation, anchor, resume, out, stop)
    if resume is not None:
        evaluation.restore(resume.part("evaluation"))
        if anchor is not None:
            anchor.rng.bit_generator.state = resume.part("anchor")
        resume.restore_streams(model)
        if resume.state["learning_done"]:  # stopped after learning: on to the table
            model.get_env().close()
            return evaluation
    if args.anneal_lr:  # over this run's steps, however many the model learnt before
        first = model.num_timesteps if learn_start is None else learn_start
        model.lr_schedule = AnnealedLearningRate(args.learning_rate, first, learner.target_steps)
    time_limit = resume.time_limit(args.time_limit) if resume else args.time_limit
    progress_bar, progress = progress_callbacks(args.progress_bar, time_limit)
    learnt = checkpointer.learn(
        model,
        total_timesteps=learner.target_steps - model.num_timesteps,
        callback=[
            UpdateThreads(args.update_threads or args.torch_threads, args.torch_threads),
            learner.league,
            *([learner.exploiters] if learner.exploiters else []),  # before the checkpoints
            evaluation,
            *progress,
            CriticWarmup(args.critic_warmup, start=learn_start),
            *([anchor] if anchor is not None else []),
        ],
        progress_bar=progress_bar,
        reset_num_timesteps=not args.resume,
        tb_log_name="ppo",
    )
    if learnt:
        model.get_env().close()
        seconds = time.perf_counter() - learner.learn_started
        steps = model.num_timesteps - learner.start_steps
        print(f"learned {steps} steps in {seconds:.0f} s ({steps / seconds:.0f} steps/s)")
    return evaluation


def run_checkpointer(
    learner: Learner,
    evaluation: EvaluationCallback,
    anchor: TeacherAnchor | None,
    resume: Resume | None,
    out: Path,
    stop: StopSignals,
) -> Checkpointer:
    """The callback that saves what resuming needs (:mod:`hot_envs.training.run_state`): the
    model and this process's random streams, and the parts named here, which a continued run
    restores."""
    args = learner.args
    return Checkpointer(
        out,
        args.checkpoint_minutes,
        stop,
        args.game,
        resume.state["args"] if resume else asdict(args),
        {
            "league": learner.league.state,
            "evaluation": evaluation.state,
            "run": learner.origin,
            "anchor": partial(rng_state, anchor),
            **({"exploiters": learner.exploiters.state} if learner.exploiters else {}),
        },
        learner.summary,
        learner.metadata,
        resume,
    )


def rng_state(anchor: TeacherAnchor | None) -> Any:
    """The teacher anchor's random stream (the run checkpoints' part "anchor")."""
    return anchor and anchor.rng.bit_generator.state


# --- Step 3: the final table ---------------------------------------------------------------------


def final_table(learner: Learner, evaluation: EvaluationCallback, out: Path) -> None:
    """The ``final`` checkpoint, the evaluations' log and learning curve, and the table: start
    and final against random, the heuristic and (``held_out_games``) each opponent of the
    suite's held-out pool, with each one's lowest share there, and final against start, on the
    same deals with seats rotated."""
    args = learner.args
    final = export_checkpoint(learner.model, out / "final", learner.metadata())
    (out / "evaluations.json").write_text(json.dumps(evaluation.history, indent=2) + "\n")
    plot_learning_curve(
        evaluation.history, out / "learning_curve.png", f"{args.game} vs {args.eval_opponent}"
    )
    rows = compare(
        out / "start",
        final,
        args.game,
        {"random": args.eval_games, "heuristic": args.final_eval_games},
        args.final_eval_games,
        args.eval_players or args.players or [2],
        args.seed + 2,
        args.eval_workers,
        held_out={spec: args.held_out_games for spec in held_out_pool(args.game)}
        if args.held_out_games
        else None,
    )
    update_metadata(final, evaluation={"final": rows, "periodic": evaluation.history})
    print(format_comparison(rows, f"start {out / 'start'} and final {final}"))


if __name__ == "__main__":
    sys.exit(main())

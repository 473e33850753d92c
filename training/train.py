"""Train sb3-contrib MaskablePPO on Heiße Luft or Heiße Karten, CleanRL style.

    hot-envs train GAME [--config FILE] [--out DIR] [--timesteps T] [--time-limit SECONDS]
        [--players N|all] [--seed S] [--resume PATH|RUN_DIR] [--n-envs N]
        [--checkpoint-minutes M] [--no-progress] [--backend sb3|rllib]

The settings come from ``training/configs/GAME.toml`` (or ``--config``), the command line over it
(:mod:`hot_envs.training.settings`). Read :func:`run` top to bottom: the run folder, seeding, the
self-play league and the vectorised single-agent envs, the model (new, from a checkpoint, or a
stopped run continued), then the three steps:

1. :func:`imitate` — behaviour cloning of the teacher (the heuristic) for a new model, then
   DAgger rounds if configured; the policy before RL is saved as ``start``; then
   :func:`iterate` — expert iteration rounds, if configured (``[expert_iteration]``);
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
from hot_envs.agents.checkpoint import update_metadata
from hot_envs.agents.features import SPECS
from hot_envs.agents.opponents import FixedOpponent, League, LeagueRules
from hot_envs.core.arguments import split_backend
from hot_envs.core.blas import one_blas_thread
from hot_envs.core.games import get_game
from hot_envs.envs.single_agent import Opponent, SingleAgentEnv
from hot_envs.envs.vector_sb3 import SB3VectorEnv
from hot_envs.training.callbacks import AnnealedLearningRate, UpdateThreads, progress_callbacks
from hot_envs.training.evaluate import (
    EvaluationCallback,
    compare,
    format_comparison,
    plot_learning_curve,
)
from hot_envs.training.exploiters import ExploiterCallback, ExploiterRules
from hot_envs.training.export import export_checkpoint, sb3_custom_objects, trained_model
from hot_envs.training.finetune import CriticWarmup, TeacherAnchor
from hot_envs.training.imitation import Demonstrations, behaviour_cloning, collect, dagger
from hot_envs.training.league import LeagueCallback
from hot_envs.training.policies import ActionScorerPolicy, StateCriticPolicy, widen
from hot_envs.training.run_folder import Interrupted
from hot_envs.training.run_state import Checkpointer, Resume, StopSignals, is_run_dir, report_stop
from hot_envs.training.settings import (
    Args,
    EvalSettings,
    ExpertIterationSettings,
    FinetuneSettings,
    ImitationSettings,
    LeagueSettings,
    PPOSettings,
    RunSettings,
    parse_args,
)


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
        settings = parse_args(argv)
    except (ValueError, FileNotFoundError) as error:
        print(f"train: error: {error}", file=sys.stderr)
        return 2
    settings.out = settings.out or f"runs/{settings.game}-{time.strftime('%Y%m%d-%H%M%S')}"
    # numpy's BLAS on one thread, here and in the env workers (hot_envs.core.blas)
    with StopSignals() as stop, one_blas_thread(children=True):
        try:
            return run(settings, stop)
        except Interrupted as interrupt:  # before or after learning: nothing new to save
            return report_stop(settings.game, settings.out, 128 + interrupt.signum)


def run(settings: Args, stop: StopSignals) -> int:
    """:func:`main` after the settings, each part given the section it reads (``settings.run``,
    ``settings.ppo``, …); ``stop`` holds the signal handlers and closes the envs. A signal
    during learning ends the run after ``latest`` is saved (exit code 130 / 143)."""
    config = settings.run
    resume = Resume(config.resume) if is_run_dir(config.resume) else None  # --resume RUN_DIR
    out = open_run_folder(config, asdict(settings), resume)
    # Seeding: Python, numpy and torch here; every env worker from seed + rank.
    set_random_seed(config.seed)
    torch.set_num_threads(config.torch_threads)  # numpy's BLAS: one thread (main)
    league = make_league(settings.league, config, resume)
    envs = stop.closing(make_envs(config, settings.ppo, league, resume, stop))
    learner = make_learner(settings, envs, league, out, resume)
    learner.exploiters = make_exploiters(
        settings.league, config, settings.ppo, envs.num_envs, resume, stop
    )
    # 1. Behaviour cloning of the teacher, then DAgger rounds; the start checkpoint.
    demos = imitate(learner, settings.imitation, settings.ppo, settings.finetune, resume, out)
    if settings.exit_rounds > 0 and resume is None:  # a continued run had them before it learnt
        learner.expert_iteration = iterate(learner, settings.expert_iteration, settings.ppo, out)
    # 2. PPO.
    evaluation = learn(
        learner, settings.finetune, settings.eval, settings.ppo, demos, resume, out, stop
    )
    if stop.signum is not None:  # a signal stopped learning; latest is saved
        return report_stop(config.game, out, stop.exit_code)
    # 3. The final checkpoint and the table.
    final_table(learner, evaluation, settings.eval, out)
    return 0


def open_run_folder(config: RunSettings, flat: dict[str, Any], resume: Resume | None) -> Path:
    """The run folder, with ``args.json`` (the settings ``flat``) for a new run."""
    out = Path(config.out or ".")
    out.mkdir(parents=True, exist_ok=True)
    if resume is None:
        (out / "args.json").write_text(json.dumps(flat, indent=2) + "\n")
        players = config.players or [2]
        print(f"training {config.game} (players {players}) for {config.timesteps} steps → {out}")
    else:
        print(f"continuing {out} at step {resume.steps} of {resume.state['target_steps']}")
    return out


# --- The set-up: league, envs, model -------------------------------------------------------------


def make_league(
    league: LeagueSettings, config: RunSettings, resume: Resume | None
) -> LeagueCallback:
    """The self-play league, which decides who sits in the other seats, in the callback that
    updates it during learning (snapshots of the learner, the curriculum); a continued run's
    as it stood."""
    rules = {f.name: getattr(league, f.name) for f in fields(LeagueRules)}
    fixed = [FixedOpponent(**o) for o in league.opponents]
    callback = LeagueCallback(
        League(config.game, fixed, **rules),
        league.snapshot_every,
        league.curriculum_window,
        seed=config.seed,
    )
    if resume is not None:  # before the envs: they start with its fixed opponents
        callback.restore(resume.part("league"))
    return callback


def make_exploiters(
    league: LeagueSettings,
    config: RunSettings,
    ppo: PPOSettings,
    num_envs: int,
    resume: Resume | None,
    stop: StopSignals,
) -> ExploiterCallback | None:
    """The league's exploiter (``exploiter_every`` > 0): it learns on envs like the learner's,
    with the learner's PPO settings; a continued run's as it stood."""
    if league.exploiter_every <= 0:
        return None
    rules = ExploiterRules(league.exploiter_every, league.exploiter_steps, league.exploiter_share)
    exploiters = ExploiterCallback(
        config.game,
        rules,
        lambda learner, seed: game_envs(config, ppo, [Opponent("learner", learner)], seed, stop),
        ppo_settings(ppo, num_envs),
        stopped=lambda: stop.signum is not None,
        seed=config.seed,
    )
    if resume is not None:
        exploiters.restore(resume.part("exploiters"))
    return exploiters


def make_envs(
    config: RunSettings,
    ppo: PPOSettings,
    league: LeagueCallback,
    resume: Resume | None,
    stop: StopSignals,
) -> VecEnv:
    """The learner's envs, starting with the league's fixed opponents. A continued run plays
    new games."""
    seed = resume.env_seed(config.seed) if resume else config.seed
    return game_envs(config, ppo, league.first_opponents(), seed, stop)


def game_envs(
    config: RunSettings,
    ppo: PPOSettings,
    opponents: list[Opponent],
    seed: int,
    stop: StopSignals,
) -> VecEnv:
    """Envs of the run's game and settings with ``opponents`` in the other seats:
    ``batched_envs`` games in ``batched_workers`` processes, or else ``n_envs`` env worker
    processes of one game each."""
    options = {
        "opponents": opponents,
        "players": config.players,
        "game_options": config.game_options,
        "shaping": config.shaping,
        "policy_input": scorer_input(config.game, ppo),
        "critic_state": ppo.critic == "state",
    }
    with stop.children_ignore_sigint():  # a Ctrl-C reaches them too; this process decides
        if config.batched_envs > 0:  # many games per process, opponents' moves batched
            workers = config.batched_workers or min(os.cpu_count() or 1, config.batched_envs)
            batched = SB3VectorEnv(
                game=config.game,
                num_envs=config.batched_envs,
                seed=seed,
                workers=workers,
                **options,
            )
            return VecMonitor(batched)
        n_envs = config.n_envs or default_n_envs()
        vec_env_cls = SubprocVecEnv if n_envs > 1 else DummyVecEnv
        if vec_env_cls is SubprocVecEnv and "forkserver" in mp.get_all_start_methods():
            # SB3's env workers, forked from a server that has SB3 (and torch) loaded already,
            # instead of each loading them again: seconds of CPU per worker at the start.
            mp.set_forkserver_preload(["__main__", SubprocVecEnv.__module__])
        make_env = partial(SingleAgentEnv, config.game, **options)
        return make_vec_env(make_env, n_envs=n_envs, seed=seed, vec_env_cls=vec_env_cls)


def scorer_input(game: str, ppo: PPOSettings) -> ActionScorerInput | None:
    """What the run's policy reads in place of the observation: the action scorer's packed
    input (the envs and the teacher's demonstrations emit it), or the observation (None)."""
    return ActionScorerInput(game) if ppo.policy == "action_scorer" else None


def policy_input(settings: Args) -> ActionScorerInput | None:
    """:func:`scorer_input` of a run's settings."""
    return scorer_input(settings.game, settings.ppo)


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
    imitation, the league, and learning's start. ``config`` is the run's ``[run]`` settings,
    ``flat`` all of them as the files keep them."""

    config: RunSettings
    flat: dict[str, Any]
    model: MaskablePPO
    league: LeagueCallback
    resumed_from: str | None = None  # the checkpoint or the run folder the model came from
    previous: dict[str, Any] = field(default_factory=dict)
    bc_history: list[dict[str, float]] = field(default_factory=list)  # per epoch / DAgger round
    learn_started: float = 0.0  # time.perf_counter() when learning started
    start_steps: int = 0  # the model's steps then
    target_steps: int = 0  # the steps learning ends at (unless the time limit ends it first)
    exploiters: ExploiterCallback | None = None  # the league's exploiter, if the run has one
    expert_iteration: list[dict[str, Any]] = field(default_factory=list)  # its rounds' figures

    def options(self) -> dict[str, Any]:
        """The game options the checkpoints record."""
        return {"num_players": self.config.players or [2], **self.config.game_options}

    def metadata(self, evaluation: dict[str, Any] | None = None) -> dict[str, Any]:
        """A checkpoint's metadata during and after learning."""
        seconds = time.perf_counter() - self.learn_started
        steps = self.model.num_timesteps - self.start_steps
        return {
            "game": self.config.game,
            "options": self.options(),
            "training": {
                "steps": self.model.num_timesteps,
                "seconds": round(seconds, 1),
                "steps_per_second": round(steps / max(seconds, 1e-9), 1),
                "n_envs": self.model.get_env().num_envs,
                "seed": self.config.seed,
                "resumed_from": self.resumed_from,
                "previous": self.previous or None,
                "behaviour_cloning": self.bc_history or None,
                **({"expert_iteration": self.expert_iteration} if self.expert_iteration else {}),
                "league": self.league.summary(),
                **({"exploiters": self.exploiters.summary()} if self.exploiters else {}),
                "config": self.flat,
            },
            "evaluation": evaluation or {},
        }

    def start_metadata(self) -> dict[str, Any]:
        """The ``start`` checkpoint's metadata: the policy before learning."""
        return {
            "game": self.config.game,
            "options": self.options(),
            "training": {
                "stage": "start",
                "steps": self.model.num_timesteps,
                "resumed_from": self.config.resume,
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
    settings: Args, envs: VecEnv, league: LeagueCallback, out: Path, resume: Resume | None
) -> Learner:
    """The model on ``envs`` and its origin: a stopped run's (``--resume RUN_DIR``), a
    checkpoint's network with this run's PPO settings (``--resume CHECKPOINT``), or new."""
    config, ppo = settings.run, settings.ppo
    learner = partial(Learner, config, asdict(settings))
    tensorboard_log = str(out / "tb")
    if resume is not None:
        model = resume.load_model(
            envs, config.seed, tensorboard_log=tensorboard_log, verbose=config.verbose
        )
        bc_history, previous, resumed_from = resume.part("run")
        return learner(model, league, resumed_from, previous, bc_history)
    if config.resume:
        source, metadata, zip_path = trained_model(config.resume, config.game)
        trained_with = metadata.get("training", {}).get("config", {}).get("critic", "observation")
        network = {k: v for k, v in source.policy_kwargs.items() if k != "critic_state_size"}
        scorers = ppo.policy == "action_scorer" and "state_arch" in network  # both of them
        grown = scorers and network != network_keywords(ppo, config.game)
        if grown or (ppo.critic == "state" and trained_with != "state"):
            # the run's larger layers, or a critic that reads the state too: grown from its own
            model = build_model(settings, envs, tensorboard_log, None if grown else network)
            widen(model, source)
            print(f"grown from {zip_path}'s network to the run's ([ppo])")
        else:
            model = MaskablePPO.load(
                zip_path,
                env=envs,
                device="cpu",
                tensorboard_log=tensorboard_log,
                verbose=config.verbose,
                custom_objects=sb3_custom_objects(metadata),
                **ppo_settings(ppo, envs.num_envs),
            )
        print(f"resumed from {zip_path} at step {model.num_timesteps}")
        return learner(model, league, config.resume, metadata.get("training", {}))
    return learner(build_model(settings, envs, tensorboard_log), league)


def ppo_settings(ppo: PPOSettings, num_envs: int) -> dict[str, Any]:
    """The run's PPO hyperparameters as ``MaskablePPO`` keywords (``rollout_steps`` spread
    over the envs), for a new model and a resumed one alike."""
    return {
        "learning_rate": ppo.learning_rate,
        "n_steps": max(1, ppo.rollout_steps // num_envs),
        "batch_size": ppo.batch_size,
        "n_epochs": ppo.n_epochs,
        "gamma": ppo.gamma,
        "gae_lambda": ppo.gae_lambda,
        "clip_range": ppo.clip_range,
        "ent_coef": ppo.ent_coef,
        "vf_coef": ppo.vf_coef,
        "target_kl": ppo.target_kl,
    }


def build_model(
    settings: Args,
    envs: VecEnv,
    tensorboard_log: str | None = None,
    network: dict[str, Any] | None = None,
) -> MaskablePPO:
    """A new MaskablePPO on ``envs`` with the run's PPO settings and network (or ``network``: a
    checkpoint's policy keywords, its widths and activation): ``rollout_steps`` spread over the
    envs, CPU, seeded. The one place these settings meet the constructor
    (``benchmarks/training_throughput.py`` builds its models here too). With ``critic =
    "state"`` the critic reads the state the envs append to the actor's input."""
    config, ppo = settings.run, settings.ppo
    policy_kwargs: dict[str, Any] = dict(network or network_keywords(ppo, config.game))
    actor = actor_size(ppo, config.game)
    state_size = envs.observation_space.shape[0] - actor  # 0 unless critic = "state"
    if ppo.policy == "action_scorer":
        policy: Any = ActionScorerPolicy
        policy_kwargs["critic_state_size"] = state_size
    elif ppo.policy == "mlp":
        policy = StateCriticPolicy if state_size else "MlpPolicy"
        if state_size:
            policy_kwargs["actor_size"] = actor
    else:
        raise ValueError(f"policy must be 'mlp' or 'action_scorer', not {ppo.policy!r}")
    return MaskablePPO(
        policy,
        envs,
        policy_kwargs=policy_kwargs,
        **ppo_settings(ppo, envs.num_envs),
        tensorboard_log=tensorboard_log,
        verbose=config.verbose,
        seed=config.seed,
        device="cpu",
    )


def network_keywords(ppo: PPOSettings, game: str) -> dict[str, Any]:
    """The policy keywords of the run's network (``[ppo]``)."""
    activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[ppo.activation]
    if ppo.policy == "action_scorer":
        return {
            "activation_fn": activation,
            "game": game,
            "state_arch": list(ppo.state_arch),
            "scorer_arch": list(ppo.scorer_arch),
            "value_arch": list(ppo.value_arch),
        }
    return {"activation_fn": activation, "net_arch": list(ppo.net_arch)}


def actor_size(ppo: PPOSettings, game: str) -> int:
    """The entries of a learner's row the run's actor reads: its policy input."""
    return (
        SPECS[game].input_size
        if ppo.policy == "action_scorer"
        else get_game(game).engine.LAYOUT.size
    )


# --- Step 1: behaviour cloning and DAgger ---------------------------------------------------------


def imitate(
    learner: Learner,
    imitation: ImitationSettings,
    ppo: PPOSettings,
    finetune: FinetuneSettings,
    resume: Resume | None,
    out: Path,
) -> Demonstrations | None:
    """Cloning the teacher warm-starts a new model; DAgger rounds follow, on a model from a
    checkpoint too (they correct a trained policy in the positions it reaches itself). A
    continued run had them before it learnt. The ``start`` checkpoint is the policy before RL:
    a new model after its imitation, one from a checkpoint as it was loaded. Returns the
    teacher's demonstrations if the teacher anchor needs them (a continued run's again)."""
    config, model = learner.config, learner.model
    if config.resume and resume is None:
        export_checkpoint(model, out / "start", learner.start_metadata())
    demos = None
    first = imitation.bc_decisions > 0 and not config.resume
    if resume is None and (first or imitation.dagger_rounds > 0):
        started = time.perf_counter()
        demos = teacher_demos(config, imitation, ppo)
        if not config.resume:
            learner.bc_history = clone(model, demos, imitation, config.seed, started)
        if imitation.dagger_rounds > 0:
            demos, rounds = dagger_rounds(model, demos, config, imitation, ppo.gamma)
            learner.bc_history += rounds
    elif finetune.anchor_coef > 0 and imitation.bc_decisions > 0:
        demos = teacher_demos(config, imitation, ppo)
    if not config.resume:
        export_checkpoint(model, out / "start", learner.start_metadata())
    return demos


def teacher_demos(
    config: RunSettings, imitation: ImitationSettings, ppo: PPOSettings
) -> Demonstrations:
    """``bc_decisions`` decisions of the teacher, as the run's policy observes them."""
    return collect(
        config.game,
        config.players or [2],
        imitation.bc_decisions,
        config.seed,
        imitation.bc_teacher,
        ppo.gamma,
        policy_input=scorer_input(config.game, ppo),
        workers=imitation.imitation_workers or os.cpu_count() or 1,
        progress=config.progress_bar,
    )


def clone(
    model: MaskablePPO,
    demos: Demonstrations,
    imitation: ImitationSettings,
    seed: int,
    started: float,
) -> list[dict[str, float]]:
    """Behaviour cloning on ``demos``; the statistics of each epoch."""
    history = behaviour_cloning(
        model,
        demos,
        imitation.bc_epochs,
        imitation.bc_batch_size,
        imitation.bc_learning_rate,
        seed=seed,
        label_smoothing=imitation.bc_label_smoothing,
    )
    print(
        f"behaviour cloning of {imitation.bc_teacher}: {len(demos.actions)} decisions, "
        f"accuracy {history[-1]['accuracy']:.1%}, entropy {history[-1]['entropy']:.2f} nats, "
        f"{time.perf_counter() - started:.0f} s"
    )
    return history


def dagger_rounds(
    model: MaskablePPO,
    demos: Demonstrations,
    config: RunSettings,
    imitation: ImitationSettings,
    gamma: float,
) -> tuple[Demonstrations, list[dict[str, float]]]:
    """``dagger_rounds`` DAgger rounds (:func:`hot_envs.training.imitation.dagger`): the grown
    demonstrations and the statistics of each round."""
    return dagger(
        model,
        demos,
        config.game,
        config.players or [2],
        imitation.dagger_rounds,
        imitation.dagger_decisions,
        config.seed,
        imitation.bc_teacher,
        gamma,
        log=report_dagger_round,
        opponent=imitation.dagger_opponent or None,
        own_labels=imitation.dagger_own_labels,
        workers=imitation.imitation_workers or os.cpu_count() or 1,
        progress=config.progress_bar,
        improve=imitation.dagger_margin if imitation.dagger_improve else None,
        epochs=imitation.dagger_epochs,
        batch_size=imitation.bc_batch_size,
        learning_rate=imitation.bc_learning_rate,
        label_smoothing=imitation.bc_label_smoothing,
    )


def report_dagger_round(entry: dict[str, float]) -> None:
    print(
        f"DAgger round {entry['round']}: the clone agreed with the teacher on "
        f"{entry['agreement']:.1%} in its own games; {entry['decisions']} decisions, "
        f"accuracy {entry['accuracy']:.1%}, {entry['seconds']:.0f} s"
    )


def iterate(
    learner: Learner, settings: ExpertIterationSettings, ppo: PPOSettings, out: Path
) -> list[dict[str, Any]]:
    """``exit_rounds`` rounds of expert iteration on the model
    (:func:`hot_envs.training.expert_iteration.expert_iteration`), labels and rounds' networks
    in ``exit_labels_dir`` (default ``out/labels``); the rounds' figures, each logged."""
    from hot_envs.training.expert_iteration import Labelling, Targets, Training, expert_iteration

    config = learner.config
    return expert_iteration(
        learner.model,
        config.game,
        config.players or [None],
        settings.exit_rounds,
        settings.exit_labels_dir or out / "labels",
        Labelling(
            teacher=settings.exit_teacher,
            opponents=tuple(
                (o["spec"], float(o.get("weight", 1.0))) for o in settings.exit_opponents
            ),
            labels=settings.exit_labels,
            shard_labels=settings.exit_shard_labels,
            guide=tuple(settings.exit_guide),
            margin=settings.exit_margin,
            temperature=settings.exit_temperature,
            workers=settings.exit_workers or os.cpu_count() or 1,
            held_out=settings.exit_held_out,
            strength_games=settings.exit_strength_games,
        ),
        Targets(
            kind=settings.exit_target,
            temperature=settings.exit_target_temperature,
            visit=settings.exit_gumbel_visit,
            scale=settings.exit_gumbel_scale,
            gamma=ppo.gamma,
            search_share=settings.exit_value_search_share,
        ),
        Training(
            epochs=settings.exit_epochs,
            patience=settings.exit_patience,
            batch_size=settings.exit_batch_size,
            learning_rate=settings.exit_learning_rate,
            value_weight=settings.exit_value_weight,
        ),
        {"game": config.game, "options": learner.options()},
        seed=config.seed,
        progress=config.progress_bar,
        log=report_exit_round,
    )


def report_exit_round(entry: dict[str, Any]) -> None:
    shares = [
        f"{100 * row['win_share']:.1f} % ({100 * row['ci_low']:.1f}–{100 * row['ci_high']:.1f})"
        + ("" if row["players"] == 2 else f" at {row['players']} players")
        for row in entry["strength"]
    ]
    print(
        f"expert iteration round {entry['round']}: {entry['labels']} labels "
        f"({entry['new_labels']} new, {entry['held_out']} held out); on the held-out labels "
        f"agreement {entry['agreement_before']:.1%} → {entry['agreement']:.1%}, regret "
        f"{entry['regret_before']:.4f} → {entry['regret']:.4f}; against the heuristic "
        f"{', '.join(shares) or 'not played'}; {entry['seconds']:.0f} s"
    )


# --- Step 2: PPO ---------------------------------------------------------------------------------


def learn(
    learner: Learner,
    finetune: FinetuneSettings,
    eval_settings: EvalSettings,
    ppo: PPOSettings,
    demos: Demonstrations | None,
    resume: Resume | None,
    out: Path,
    stop: StopSignals,
) -> EvaluationCallback:
    """PPO until ``timesteps`` more steps (a continued run: its own target) or ``time_limit``
    seconds, with the league's updates, periodic evaluations, run checkpoints, the fine-tuning
    callbacks and the progress bar; the evaluations' callback, which holds their history. After
    a signal (``stop.signum``) ``latest`` is saved and the envs are closed."""
    config, model = learner.config, learner.model
    learner.learn_started, learner.start_steps = time.perf_counter(), model.num_timesteps
    learner.target_steps = (
        resume.state["target_steps"] if resume else model.num_timesteps + config.timesteps
    )
    evaluation = EvaluationCallback(
        out,
        eval_settings.eval_every,
        eval_settings.eval_opponent,
        eval_settings.eval_games,
        eval_settings.eval_players or config.players or [2],
        learner.metadata,
        seed=config.seed + 1,
        workers=eval_settings.eval_workers,
        stopped=lambda: stop.signum is not None,
    )
    learn_start = resume.saved["learn_start"] if resume else None  # the warm-up's, the anchor's
    anchor = None
    if demos is not None and finetune.anchor_coef > 0:
        anchor = TeacherAnchor(
            demos, finetune.anchor_coef, finetune.anchor_decay, seed=config.seed, start=learn_start
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
    if ppo.anneal_lr:  # over this run's steps, however many the model learnt before
        first = model.num_timesteps if learn_start is None else learn_start
        model.lr_schedule = AnnealedLearningRate(ppo.learning_rate, first, learner.target_steps)
    time_limit = resume.time_limit(config.time_limit) if resume else config.time_limit
    progress_bar, progress = progress_callbacks(config.progress_bar, time_limit)
    learnt = checkpointer.learn(
        model,
        total_timesteps=learner.target_steps - model.num_timesteps,
        callback=[
            UpdateThreads(config.update_threads or config.torch_threads, config.torch_threads),
            learner.league,
            *([learner.exploiters] if learner.exploiters else []),  # before the checkpoints
            evaluation,
            *progress,
            CriticWarmup(finetune.critic_warmup, start=learn_start),
            *([anchor] if anchor is not None else []),
        ],
        progress_bar=progress_bar,
        reset_num_timesteps=not config.resume,
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
    config = learner.config
    return Checkpointer(
        out,
        config.checkpoint_minutes,
        stop,
        config.game,
        resume.state["args"] if resume else learner.flat,
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


def final_table(
    learner: Learner, evaluation: EvaluationCallback, eval_settings: EvalSettings, out: Path
) -> None:
    """The ``final`` checkpoint, the evaluations' log and learning curve, and the table: start
    and final against random, the heuristic and (``held_out_games``) each opponent of the
    suite's held-out pool, with each one's lowest share there, and final against start, on the
    same deals with seats rotated."""
    config = learner.config
    final = export_checkpoint(learner.model, out / "final", learner.metadata())
    (out / "evaluations.json").write_text(json.dumps(evaluation.history, indent=2) + "\n")
    plot_learning_curve(
        evaluation.history,
        out / "learning_curve.png",
        f"{config.game} vs {eval_settings.eval_opponent}",
    )
    rows = compare(
        out / "start",
        final,
        config.game,
        {"random": eval_settings.eval_games, "heuristic": eval_settings.final_eval_games},
        eval_settings.final_eval_games,
        eval_settings.eval_players or config.players or [2],
        config.seed + 2,
        eval_settings.eval_workers,
        held_out=eval_settings.held_out_games or None,
    )
    update_metadata(final, evaluation={"final": rows, "periodic": evaluation.history})
    print(format_comparison(rows, f"start {out / 'start'} and final {final}"))


if __name__ == "__main__":
    sys.exit(main())

"""Train sb3-contrib MaskablePPO on Heiße Luft or Heiße Karten, CleanRL style.

    python -m hot_envs.training.train GAME [--players N|all] [--timesteps T] [--out DIR]
        [--config FILE] [--seed S] [--resume PATH|RUN_DIR] [--n-envs N] [--time-limit SECONDS]
        [--checkpoint-minutes M] [--no-progress]

Read top to bottom: arguments (one dataclass, defaults < the game's TOML config < command line),
seeding, the self-play league and the vectorised single-agent envs, the model (new or resumed),
imitation (behaviour cloning of the heuristic for a new model, then DAgger rounds if configured),
``learn`` with a progress bar (with ``--time-limit``, in seconds of that budget, which ends it),
TensorBoard logs, league updates and periodic evaluation (best model kept), then the final
checkpoint and an evaluation table against random and heuristic play with 95 % intervals.

Configs: ``training/configs/GAME.toml`` (the defaults, a few minutes on 2 cores),
``GAME_long.toml`` (a sitting on a 16-core machine: what trained the shipped checkpoints) and
``heisse_luft_dagger.toml`` (DAgger refinement of a trained policy).

The run directory (``--out``, default ``runs/<game>-<timestamp>/``) holds ``final``, ``best`` and
``latest`` checkpoints (``.zip`` + ``.npz`` + ``.json``, :mod:`hot_envs.agents.checkpoint`),
``evaluations.json``, ``learning_curve.png``, ``args.json`` and ``tb/`` (TensorBoard), and what
resuming needs (:mod:`hot_envs.training.run_state`): ``run_state.json`` and ``resume/``, written
every ``checkpoint_minutes`` and when Ctrl-C or SIGTERM stops the run (exit code 130 / 143).
``--resume RUN_DIR`` continues such a run where it stopped; ``--resume CHECKPOINT`` starts a new
run from a checkpoint's network.
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

import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.utils import set_random_seed
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv, VecMonitor

from hot_envs.agents import make_agent
from hot_envs.agents.checkpoint import read_metadata, update_metadata
from hot_envs.agents.shipped import find_checkpoint
from hot_envs.arguments import BACKENDS, non_negative_int, positive_int, split_backend
from hot_envs.games import DEFAULT_GAME, GAMES, get_game
from hot_envs.single_agent import Opponent, SingleAgentEnv
from hot_envs.training.evaluate import (
    EvaluationCallback,
    compare,
    format_comparison,
    plot_learning_curve,
)
from hot_envs.training.export import export_checkpoint, sb3_custom_objects
from hot_envs.training.finetune import CriticWarmup, TeacherAnchor
from hot_envs.training.imitation import Demonstrations, behaviour_cloning, collect, dagger
from hot_envs.training.league import FixedOpponent, League, LeagueCallback
from hot_envs.training.policies import ActionScorerPolicy
from hot_envs.training.run_state import (
    STATE_FILE,
    Checkpointer,
    Interrupted,
    Resume,
    StopSignals,
    continuing_args,
    is_run_dir,
    report_stop,
)
from hot_envs.vector_sb3 import SB3VectorEnv

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

CONFIGS = Path(__file__).parent / "configs"


@dataclass
class Args:
    """Every knob of a run. The TOML configs set most of them; see their comments.

    ``batched_envs`` games run in ``batched_workers`` processes (``SB3VectorEnv(workers=…)``;
    1: all in this one; 0: one per core). The split decides the games, so a seed repeats a run
    only with the same count. This process steps its share while the others step theirs, and
    they idle while it runs the policy's forward passes and the PPO update: ``torch_threads``
    up to the core count could use their cores then, but only cores that no other job uses — a
    torch thread waiting for a busy core stalls every operation (on a busy 2-core machine 2
    threads made ``learn`` 4–7× slower). ``update_threads`` gives torch more threads for the
    PPO update alone, when the workers have finished their rollouts and wait
    (:class:`UpdateThreads`).
    """

    game: str = DEFAULT_GAME
    players: list[int] | None = None  # Heiße Karten: table sizes, one drawn per episode
    timesteps: int = 200_000  # env steps of learning (added to a resumed model's count)
    time_limit: float = 0.0  # stop learning after this many seconds (0: no limit); then finish
    out: str | None = None  # run directory; default runs/<game>-<timestamp>
    config: str | None = None  # TOML file; default training/configs/<game>.toml
    seed: int = 0
    resume: str | None = None  # checkpoint to warm-start from (its .zip), or a run to continue
    checkpoint_minutes: float = 2.0  # what resuming needs, written at least this often
    n_envs: int = 0  # 0: default_n_envs() — several per core, so one forward pass serves many
    batched_envs: int = 0  # > 0: that many batched games instead (hot_envs.vector_sb3)
    batched_workers: int = 1  # processes they run in (hot_envs.vector_workers); 0: one per core
    torch_threads: int = 1
    update_threads: int = 0  # torch threads during the PPO update only; 0: torch_threads
    progress_bar: bool = True
    verbose: int = 1  # 1: SB3's table of PPO figures (approx_kl, clip_fraction, …) per update
    # PPO
    learning_rate: float = 3e-4
    rollout_steps: int = 4096  # steps per PPO update, over all envs (n_steps = this / n_envs)
    batch_size: int = 256
    n_epochs: int = 5
    gamma: float = 0.995
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    target_kl: float | None = None  # stop an update's epochs early past 1.5 × this KL
    policy: str = (
        "mlp"  # "mlp" (observation → logits) or "action_scorer" (hot_envs.training.policies)
    )
    net_arch: list[int] = field(default_factory=lambda: [256, 256])  # the MLP policy and value
    state_arch: list[int] = field(default_factory=lambda: [256, 64])  # action_scorer: embedding
    scorer_arch: list[int] = field(default_factory=lambda: [128, 128])  # … shared scorer
    value_arch: list[int] = field(default_factory=lambda: [256, 256])  # … critic
    activation: str = "tanh"
    shaping: float = 0.0  # reward shaping coefficient (hot_envs.single_agent); 0 = off
    game_options: dict[str, Any] = field(default_factory=dict)  # engine options, e.g. turn_limit
    # fine-tuning the clone (hot_envs.training.finetune)
    critic_warmup: int = 0  # steps of learning the critic alone before the actor moves
    anchor_coef: float = 0.0  # weight of behaviour-cloning steps on the teacher's data …
    anchor_decay: int = 100_000  # … decaying linearly to 0 over these steps
    # behaviour cloning warm start (imitation; skipped when resuming), DAgger rounds
    bc_decisions: int = 0
    bc_epochs: int = 4
    bc_batch_size: int = 256
    bc_learning_rate: float = 1e-3
    bc_label_smoothing: float = 0.0  # share of the target spread over the legal actions
    bc_teacher: str = "heuristic"
    dagger_rounds: int = 0  # DAgger rounds after cloning (hot_envs.training.imitation.dagger)
    dagger_decisions: int = 50_000  # teacher-labelled decisions each round adds
    dagger_epochs: int = 2  # cloning epochs over all the data after each round
    dagger_opponent: str = ""  # agent spec for the learner's opponents; "": the teacher plays them
    dagger_own_labels: list[int] = field(default_factory=list)  # sizes the learner labels itself
    dagger_improve: bool = False  # the search teacher corrects the learner's own moves (its prior)
    dagger_margin: float = 0.1  # … only by moves better by this mean return (dagger_improve)
    imitation_workers: int = 1  # processes collecting teacher decisions; 0: one per core
    # self-play league (hot_envs.training.league)
    opponents: list[dict[str, Any]] = field(
        default_factory=lambda: [{"spec": "random"}, {"spec": "heuristic", "curriculum": True}]
    )
    snapshot_share: float = 0.5
    snapshot_every: int = 20_000
    max_snapshots: int = 5
    epsilon_start: float = 0.5
    epsilon_min: float = 0.0
    epsilon_step: float = 0.1
    win_low: float = 0.2
    win_high: float = 0.6
    curriculum_window: int = 200
    pfsp: bool = (
        False  # snapshots weighted by how often they beat the learner (hot_envs.training.league)
    )
    # evaluation (hot_envs.training.evaluate)
    eval_opponent: str = "heuristic"
    eval_players: list[int] | None = None  # player counts evaluated; default: those trained on
    eval_every: int = 50_000
    eval_games: int = 100
    final_eval_games: int = 300
    eval_workers: int = 0  # processes for evaluation games; 0: one per core


class TimeLimit(BaseCallback):
    """Ends ``learn`` once ``seconds`` have passed since it started (0: never), so a run fits a
    sitting; the final evaluation and checkpoints follow as after the last step."""

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.seconds, self.deadline = seconds, float("inf")

    def _on_training_start(self) -> None:
        if self.seconds > 0:
            self.deadline = time.perf_counter() + self.seconds

    def _on_step(self) -> bool:
        return time.perf_counter() < self.deadline


class TimeBudgetBar(BaseCallback):
    """The progress bar of a run with a time limit, in seconds of its budget: it fills with the
    time learnt, or with the steps where they would end learning sooner (the step bound), so its
    total and its ETA are those of the run. SB3's own bar counts towards the step bound, which a
    time-limited run (a config's ``timesteps`` is an upper bound there) does not reach."""

    REFRESH = 0.5  # seconds between updates

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.seconds = seconds
        self.bar: Any = None

    def _on_training_start(self) -> None:
        from tqdm.auto import tqdm

        self.started = self.shown = time.perf_counter()
        self.first_step = self.model.num_timesteps
        self.steps = max(self.locals["total_timesteps"] - self.first_step, 1)
        self.bar = tqdm(
            total=round(self.seconds),
            desc="learning",
            unit="s",
            bar_format="{desc}: {percentage:3.0f}%|{bar}| {n:.0f}/{total} s "
            "[{elapsed}<{remaining}{postfix}]",
        )

    def _on_step(self) -> bool:
        if time.perf_counter() - self.shown >= self.REFRESH:
            self.show()
        return True

    def _on_rollout_start(self) -> None:  # after each PPO update
        self.show()

    def show(self) -> None:
        self.shown = now = time.perf_counter()
        steps = self.model.num_timesteps - self.first_step
        done = min(max((now - self.started) / self.seconds, steps / self.steps), 1.0)
        self.bar.update(done * self.bar.total - self.bar.n)
        self.bar.set_postfix_str(f"{steps:,} steps", refresh=False)

    def _on_training_end(self) -> None:
        self.show()
        self.bar.close()


def progress_callbacks(progress_bar: bool, time_limit: float) -> tuple[bool, list[BaseCallback]]:
    """SB3's ``progress_bar`` flag and the callbacks that end learning and show its progress:
    with a time limit, the bar counts seconds of it (:class:`TimeBudgetBar`)."""
    if time_limit <= 0:
        return progress_bar, [TimeLimit(0)]
    return False, [TimeLimit(time_limit), *([TimeBudgetBar(time_limit)] if progress_bar else [])]


class UpdateThreads(BaseCallback):
    """``threads`` torch threads while the PPO update runs, ``rollout_threads`` while the
    rollouts are collected — the env workers wait during the update, so their cores are free."""

    def __init__(self, threads: int, rollout_threads: int) -> None:
        super().__init__()
        self.threads, self.rollout_threads = threads, rollout_threads

    def _on_rollout_start(self) -> None:
        torch.set_num_threads(self.rollout_threads)

    def _on_rollout_end(self) -> None:
        torch.set_num_threads(self.threads)

    def _on_training_end(self) -> None:
        torch.set_num_threads(self.rollout_threads)

    def _on_step(self) -> bool:
        return True


def teacher_demos(args: Args, counts: list[int]) -> Demonstrations:
    """``bc_decisions`` decisions of the teacher, as the run's policy observes them."""
    return collect(
        args.game,
        counts,
        args.bc_decisions,
        args.seed,
        args.bc_teacher,
        args.gamma,
        action_features=args.policy == "action_scorer",
        workers=imitation_workers(args),
        progress=args.progress_bar,
    )


def imitation_workers(args: Args) -> int:
    """Processes for collecting teacher decisions (``imitation_workers``; 0: one per core)."""
    return args.imitation_workers or os.cpu_count() or 1


def imitate(
    model: Any, args: Args, counts: list[int], clone: bool
) -> tuple[list[dict[str, float]], Demonstrations]:
    """Behaviour cloning on ``bc_decisions`` teacher decisions (if ``clone``), then
    ``dagger_rounds`` DAgger rounds (imitation); the statistics of each epoch/round, and the
    demonstrations (for the teacher anchor)."""
    started = time.perf_counter()
    demos = teacher_demos(args, counts)
    history = []
    if clone:
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
    if args.dagger_rounds > 0:

        def report(entry: dict[str, float]) -> None:
            print(
                f"DAgger round {entry['round']}: the clone agreed with the teacher on "
                f"{entry['agreement']:.1%} in its own games; {entry['decisions']} decisions, "
                f"accuracy {entry['accuracy']:.1%}, {entry['seconds']:.0f} s"
            )

        demos, rounds = dagger(
            model,
            demos,
            args.game,
            counts,
            args.dagger_rounds,
            args.dagger_decisions,
            args.seed,
            args.bc_teacher,
            args.gamma,
            log=report,
            opponent=args.dagger_opponent or None,
            own_labels=args.dagger_own_labels,
            workers=imitation_workers(args),
            progress=args.progress_bar,
            improve=args.dagger_margin if args.dagger_improve else None,
            epochs=args.dagger_epochs,
            batch_size=args.bc_batch_size,
            learning_rate=args.bc_learning_rate,
            label_smoothing=args.bc_label_smoothing,
        )
        history += rounds
    return history, demos


def default_n_envs() -> int:
    """4 env workers per core, at least one per core, at most 16 unless there are more cores.

    The policy's forward pass in the main process costs about the same for 1 or 16
    observations, so more workers share it; on 2 busy cores 8 workers learned 1.1–1.8× as fast
    as 2 (benchmarks/training_throughput.py: the gain depends on the machine's load)."""
    cores = os.cpu_count() or 1
    return min(4 * cores, max(cores, 16))


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


def build_model(args: Args, envs: VecEnv, tensorboard_log: str | None = None) -> MaskablePPO:
    """A new MaskablePPO on ``envs`` with the run's PPO settings and network: ``rollout_steps``
    spread over the envs, CPU, seeded. The one place these arguments meet the constructor
    (``benchmarks/training_throughput.py`` builds its models here too)."""
    activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[args.activation]
    policy_kwargs: dict[str, Any] = {"activation_fn": activation}
    if args.policy == "action_scorer":
        policy: Any = ActionScorerPolicy
        policy_kwargs.update(
            game=args.game,
            state_arch=list(args.state_arch),
            scorer_arch=list(args.scorer_arch),
            value_arch=list(args.value_arch),
        )
    elif args.policy == "mlp":
        policy = "MlpPolicy"
        policy_kwargs["net_arch"] = list(args.net_arch)
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


def load_config(path: Path) -> dict[str, Any]:
    """The TOML file's keys, sections flattened; unknown keys are an error."""
    with open(path, "rb") as file:
        data = tomllib.load(file)
    flat: dict[str, Any] = {}
    for key, value in data.items():
        flat.update(value if isinstance(value, dict) and key != "game_options" else {key: value})
    known = {f.name for f in fields(Args)}
    unknown = sorted(set(flat) - known)
    if unknown:
        raise ValueError(f"{path}: unknown config keys {unknown}")
    return flat


def parse_args(argv: list[str] | None) -> Args:
    parser = argparse.ArgumentParser(
        prog="hot-envs train",
        description=__doc__.splitlines()[0],
        epilog="Options not given come from the config (training/configs/GAME.toml).",
    )
    parser.add_argument("game", help=" or ".join(GAMES))
    parser.add_argument(
        "--backend",
        choices=list(BACKENDS),  # main hands rllib to training.rllib_train, as hot-envs train
        help="sb3: MaskablePPO, these options (the default); rllib: Ray RLlib, its own "
        "options (hot-envs train --backend rllib -h)",
    )
    parser.add_argument("--players", help="Heiße Karten: a player count 2–6, or 'all'")
    parser.add_argument("--timesteps", type=positive_int, help="environment steps to learn for")
    parser.add_argument("--out", help="run folder (default runs/GAME-TIMESTAMP/)")
    parser.add_argument("--config", help="TOML config (default training/configs/GAME.toml)")
    parser.add_argument("--seed", type=non_negative_int, help="seed of the run")
    parser.add_argument(
        "--resume",
        help="a run folder: continue that run where it stopped; a checkpoint: a new run from "
        "its network",
    )
    parser.add_argument(
        "--checkpoint-minutes",
        type=float,
        dest="checkpoint_minutes",
        help="save what resuming needs at least this often (default 2)",
    )
    parser.add_argument(
        "--n-envs", type=positive_int, dest="n_envs", help="env workers (default: by cores)"
    )
    parser.add_argument(
        "--time-limit", type=float, dest="time_limit", help="seconds of learning at most"
    )
    parser.add_argument(
        "--no-progress",
        action="store_false",
        dest="progress_bar",
        default=None,
        help="no progress bar",
    )
    cli = {k: v for k, v in vars(parser.parse_args(argv)).items() if v is not None}
    cli.pop("backend", None)  # hot-envs train dispatched on it already
    game = get_game(cli["game"]).name
    if is_run_dir(cli.get("resume")):  # continue that run, with its own settings
        values = continuing_args({**cli, "game": game}, {f.name for f in fields(Args)})
    elif cli.get("resume") and Path(cli["resume"]).is_dir():
        raise ValueError(
            f"--resume {cli['resume']}: a folder without {STATE_FILE}, so no run to continue "
            "(stopped before its first checkpoint?); name a checkpoint to start from its network"
        )
    else:
        config = Path(cli.get("config") or CONFIGS / f"{game.replace('-', '_')}.toml")
        values = {**load_config(config), **cli, "game": game, "config": str(config)}
    players = values.get("players")
    description = get_game(game)
    if players == "all" or players is None:
        players = list(description.players)
    elif isinstance(players, str | int):
        players = [int(players)] if str(players).isdigit() else [players]
    values["players"] = [description.check_players(n) for n in players]
    if description.min_players == description.max_players:
        values["players"] = None  # nothing to choose (Heiße Luft)
    if not values.get("opponents", Args().opponents):
        raise ValueError("the league needs at least one fixed opponent (weight 0 is fine)")
    args = Args(**values)
    for key in ("batched_workers", "imitation_workers", "update_threads"):
        workers = getattr(args, key)
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 0:
            raise ValueError(f"{key} must be an int ≥ 0, not {workers!r}")
    workers = args.batched_workers
    if args.batched_envs > 0 and workers > args.batched_envs:
        raise ValueError(
            f"batched_workers ({workers}) must not exceed batched_envs ({args.batched_envs})"
        )
    if not args.checkpoint_minutes > 0:
        raise ValueError(f"checkpoint_minutes must be > 0, not {args.checkpoint_minutes!r}")
    # Bad player counts, options, agent specs or checkpoints fail here, not inside a worker.
    SingleAgentEnv(game, players=args.players, game_options=args.game_options)
    if args.dagger_opponent:
        make_agent(args.dagger_opponent, game)
    for n in args.dagger_own_labels:
        description.check_players(n)
    if args.dagger_improve and not args.bc_teacher.partition(":")[0] == "search":
        raise ValueError(f"dagger_improve needs a search teacher, not {args.bc_teacher!r}")
    if args.resume and not is_run_dir(args.resume):  # the checkpoint decides the network …
        network = read_metadata(args.resume, game)["network"]
        args.policy = network.get("architecture", "mlp")
        if not find_checkpoint(args.resume).with_suffix(".zip").is_file():
            raise FileNotFoundError(f"--resume {args.resume}: no .zip model next to the checkpoint")
    return args


def main(argv: list[str] | None = None) -> int:
    """The script: ``--backend rllib`` hands the other arguments to
    :func:`hot_envs.training.rllib_train.main`; 2 on bad options."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if split_backend(argv)[0] == "rllib":
        from hot_envs.training import rllib_train

        return rllib_train.main(split_backend(argv)[1])
    try:
        args = parse_args(argv)
    except (ValueError, FileNotFoundError) as error:
        print(f"train: error: {error}", file=sys.stderr)
        return 2
    args.out = args.out or f"runs/{args.game}-{time.strftime('%Y%m%d-%H%M%S')}"
    with StopSignals() as stop:
        try:
            return run(args, stop)
        except Interrupted as interrupt:  # before or after learning: nothing new to save
            return report_stop(args.game, args.out, 128 + interrupt.signum)


def run(args: Args, stop: StopSignals) -> int:
    """:func:`main` after the arguments; ``stop`` holds the signal handlers and closes the envs."""
    resume = Resume(args.resume) if is_run_dir(args.resume) else None  # --resume RUN_DIR
    counts = args.players or [2]
    n_envs = args.n_envs or default_n_envs()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if resume is None:
        (out / "args.json").write_text(json.dumps(asdict(args), indent=2) + "\n")
        print(f"training {args.game} (players {counts}) for {args.timesteps} steps → {out}")
    else:
        print(f"continuing {out} at step {resume.steps} of {resume.state['target_steps']}")

    # Seeding: Python, numpy and torch here; every env worker from seed + rank.
    set_random_seed(args.seed)
    torch.set_num_threads(args.torch_threads)

    # The league decides who sits in the other seats; the envs start with its fixed opponents.
    league = League(
        args.game,
        [FixedOpponent(**o) for o in args.opponents],
        snapshot_share=args.snapshot_share,
        max_snapshots=args.max_snapshots,
        epsilon=args.epsilon_start,
        epsilon_min=args.epsilon_min,
        epsilon_step=args.epsilon_step,
        win_low=args.win_low,
        win_high=args.win_high,
        pfsp=args.pfsp,
    )
    league_callback = LeagueCallback(
        league, args.snapshot_every, args.curriculum_window, seed=args.seed
    )
    if resume is not None:  # before the envs: they start with its fixed opponents
        league_callback.restore(resume.part("league"))
    env_options = {
        "opponents": [Opponent(*entry) for entry in league.initial_entries()],
        "players": args.players,
        "game_options": args.game_options,
        "shaping": args.shaping,
        "action_features": args.policy == "action_scorer",
    }
    seed = resume.env_seed(args.seed) if resume else args.seed  # a resumed run: new games
    with stop.children_ignore_sigint():  # a Ctrl-C reaches them too; this process decides
        if args.batched_envs > 0:  # many games per process, opponents' moves batched
            n_envs = args.batched_envs
            workers = args.batched_workers or min(os.cpu_count() or 1, n_envs)
            envs = VecMonitor(
                SB3VectorEnv(
                    game=args.game, num_envs=n_envs, seed=seed, workers=workers, **env_options
                )
            )
        else:  # one game per env worker process
            vec_env_cls = SubprocVecEnv if n_envs > 1 else DummyVecEnv
            make_env = partial(SingleAgentEnv, args.game, **env_options)
            envs = make_vec_env(make_env, n_envs=n_envs, seed=seed, vec_env_cls=vec_env_cls)
    stop.closing(envs)

    # The model: a run continued, resumed from a checkpoint, or new (optionally warm-started by
    # imitation).
    bc_history: list[dict[str, float]] = []
    demos = None
    previous_training: dict[str, Any] = {}
    resumed_from = args.resume
    if resume is not None:
        model = resume.load_model(
            envs, args.seed, tensorboard_log=str(out / "tb"), verbose=args.verbose
        )
        bc_history, previous_training, resumed_from = resume.part("run")
    elif args.resume:
        previous_training = read_metadata(args.resume, args.game).get("training", {})
        zip_path = find_checkpoint(args.resume).with_suffix(".zip")
        # The network and its weights come from the checkpoint, the PPO settings from this run.
        model = MaskablePPO.load(
            zip_path,
            env=envs,
            device="cpu",
            tensorboard_log=str(out / "tb"),
            verbose=args.verbose,
            custom_objects=sb3_custom_objects(read_metadata(args.resume, args.game)),
            **ppo_settings(args, envs.num_envs),
        )
        print(f"resumed from {zip_path} at step {model.num_timesteps}")
    else:
        model = build_model(args, envs, tensorboard_log=str(out / "tb"))

    # The run's start, kept so that anyone can compare the end with it: a new model after its
    # imitation (the policy before RL), a resumed one as it was loaded (before its DAgger rounds).
    def export_start() -> None:
        start_meta = {
            "game": args.game,
            "options": {"num_players": counts, **args.game_options},
            "training": {
                "stage": "start",
                "steps": model.num_timesteps,
                "resumed_from": args.resume,
                "behaviour_cloning": bc_history or None,
            },
        }
        export_checkpoint(model, out / "start", start_meta)

    if args.resume and resume is None:
        export_start()
    # Imitation: cloning the teacher warm-starts a new model; DAgger rounds follow, on a resumed
    # model too (they correct a trained policy in the positions it reaches itself). A continued
    # run had them before it learnt; an anchor gets the teacher's decisions again.
    if resume is None and ((args.bc_decisions > 0 and not args.resume) or args.dagger_rounds > 0):
        bc_history, demos = imitate(model, args, counts, clone=not args.resume)
    elif args.anchor_coef > 0 and args.bc_decisions > 0:  # a resumed model's anchor data
        demos = teacher_demos(args, counts)
    if not args.resume:
        export_start()

    # Learn: league updates, periodic evaluation and run checkpoints run as callbacks.
    started = time.perf_counter()
    start_steps = model.num_timesteps
    target_steps = resume.state["target_steps"] if resume else start_steps + args.timesteps

    def metadata(evaluation: dict[str, Any] | None = None) -> dict[str, Any]:
        seconds = time.perf_counter() - started
        steps = model.num_timesteps - start_steps
        return {
            "game": args.game,
            "options": {"num_players": counts, **args.game_options},
            "training": {
                "steps": model.num_timesteps,
                "seconds": round(seconds, 1),
                "steps_per_second": round(steps / max(seconds, 1e-9), 1),
                "n_envs": n_envs,
                "seed": args.seed,
                "resumed_from": resumed_from,
                "previous": previous_training or None,
                "behaviour_cloning": bc_history or None,
                "league": league_callback.summary(),
                "config": asdict(args),
            },
            "evaluation": evaluation or {},
        }

    eval_callback = EvaluationCallback(
        out,
        args.eval_every,
        args.eval_opponent,
        args.eval_games,
        args.eval_players or counts,
        metadata,
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
    checkpointer = Checkpointer(
        out,
        args.checkpoint_minutes,
        stop,
        args.game,
        resume.state["args"] if resume else asdict(args),
        {
            "league": league_callback.state,
            "evaluation": eval_callback.state,
            "run": lambda: (bc_history, previous_training, resumed_from),
            "anchor": lambda: anchor and anchor.rng.bit_generator.state,
        },
        lambda: {"target_steps": target_steps, **league_callback.summary()},
        metadata,
        resume,
    )
    if resume is not None:
        eval_callback.restore(resume.part("evaluation"))
        if anchor is not None:
            anchor.rng.bit_generator.state = resume.part("anchor")
        resume.restore_streams(model)
    if resume is None or not resume.state["learning_done"]:
        time_limit = resume.time_limit(args.time_limit) if resume else args.time_limit
        progress_bar, progress = progress_callbacks(args.progress_bar, time_limit)
        learnt = checkpointer.learn(
            model,
            total_timesteps=target_steps - model.num_timesteps if resume else args.timesteps,
            callback=[
                UpdateThreads(args.update_threads or args.torch_threads, args.torch_threads),
                league_callback,
                eval_callback,
                *progress,
                CriticWarmup(args.critic_warmup, start=learn_start),
                *([anchor] if anchor is not None else []),
            ],
            progress_bar=progress_bar,
            reset_num_timesteps=not args.resume,
            tb_log_name="ppo",
        )
        if not learnt:  # a signal: latest is saved
            return report_stop(args.game, out, stop.exit_code)
    envs.close()
    seconds = time.perf_counter() - started
    steps_per_second = (model.num_timesteps - start_steps) / seconds
    print(
        f"learned {model.num_timesteps - start_steps} steps in {seconds:.0f} s "
        f"({steps_per_second:.0f} steps/s)"
    )

    # The final checkpoint, and the table: start and final against random and the heuristic,
    # and final against start, on the same deals with seats rotated.
    final = export_checkpoint(model, out / "final", metadata())
    (out / "evaluations.json").write_text(json.dumps(eval_callback.history, indent=2) + "\n")
    plot_learning_curve(
        eval_callback.history, out / "learning_curve.png", f"{args.game} vs {args.eval_opponent}"
    )
    rows = compare(
        out / "start",
        final,
        args.game,
        {"random": args.eval_games, "heuristic": args.final_eval_games},
        args.final_eval_games,
        args.eval_players or counts,
        args.seed + 2,
        args.eval_workers,
    )
    update_metadata(final, evaluation={"final": rows, "periodic": eval_callback.history})
    print(format_comparison(rows, f"start {out / 'start'} and final {final}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())

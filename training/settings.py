"""The settings of a training run (:mod:`hot_envs.training.train`): a config file
(``training/configs/GAME.toml``), then the command line over it.

A config has the sections ``[run]``, ``[ppo]``, ``[finetune]``, ``[imitation]``,
``[expert_iteration]``, ``[league]`` and ``[eval]``, one dataclass each below; a key belongs to
the section whose dataclass has it.
An unknown key or section, a key in another section than its own and a value of the wrong type
are errors that name the file. Keys outside any section are read as well (``hot-envs exploit``
writes its configs flat), and ``game_options``, a table of engine options, may stand on its own
(``[game_options]``).

A run's settings are :class:`Args`: the sections' fields side by side, as every key is unique,
and each section as its own dataclass (``args.ppo``, ``args.league``, …), which the run hands to
the part that reads it. They stay flat where they are kept: ``args.json``, ``run_state.json``
and the checkpoints' ``training.config``.
"""

from __future__ import annotations

import argparse
import types
import typing
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from hot_envs.agents import make_agent
from hot_envs.agents.checkpoint import read_metadata
from hot_envs.agents.opponents import FixedOpponent, LeagueRules
from hot_envs.agents.shipped import find_checkpoint
from hot_envs.agents.specs import SEARCH_SPECS
from hot_envs.core.arguments import BACKENDS, non_negative_int, positive_int
from hot_envs.core.games import DEFAULT_GAME, GAMES, get_game
from hot_envs.envs.single_agent import SingleAgentEnv
from hot_envs.training.run_folder import STATE_FILE
from hot_envs.training.run_state import continuing_args, is_run_dir

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

CONFIGS = Path(__file__).parent / "configs"


@dataclass
class RunSettings:
    """``[run]``: the game and its tables, the budget of steps and seconds, the folders, the seed,
    and the processes and threads the run uses.

    ``batched_envs`` games run in ``batched_workers`` processes (``SB3VectorEnv(workers=…)``;
    1: all in this one; 0: one per core). The split decides the games, so a seed repeats a run
    only with the same count. This process steps its share while the others step theirs, and
    they idle while it runs the policy's forward passes and the PPO update: ``torch_threads``
    up to the core count could use their cores then, but only cores that no other job uses — a
    torch thread waiting for a busy core stalls every operation (on a busy 2-core machine 2
    threads made ``learn`` 4–7× slower). ``update_threads`` gives torch more threads for the
    PPO update alone, when the workers have finished their rollouts and wait
    (:class:`hot_envs.training.callbacks.UpdateThreads`).
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
    batched_envs: int = 0  # > 0: that many batched games instead (hot_envs.envs.vector_sb3)
    batched_workers: int = 1  # their processes (hot_envs.envs.vector_workers); 0: one per core
    torch_threads: int = 1
    update_threads: int = 0  # torch threads during the PPO update only; 0: torch_threads
    progress_bar: bool = True
    verbose: int = 1  # 1: SB3's table of PPO figures (approx_kl, clip_fraction, …) per update
    shaping: float = 0.0  # reward shaping coefficient (hot_envs.envs.single_agent); 0 = off
    game_options: dict[str, Any] = field(default_factory=dict)  # engine options, e.g. turn_limit


@dataclass
class PPOSettings:
    """``[ppo]``: MaskablePPO's hyperparameters and the network."""

    learning_rate: float = 3e-4
    anneal_lr: bool = False  # falling linearly to 0 over the run's steps (``timesteps``)
    rollout_steps: int = 4096  # steps per PPO update, over all envs (n_steps = this / n_envs)
    batch_size: int = 256
    n_epochs: int = 5
    gamma: float = 0.995
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    target_kl: float | None = None  # stop an update's epochs early past 1.5 × this KL
    policy: str = "mlp"  # or "action_scorer" (hot_envs.training.policies)
    net_arch: list[int] = field(default_factory=lambda: [256, 256])  # the MLP policy and value
    state_arch: list[int] = field(default_factory=lambda: [256, 64])  # action_scorer: embedding
    scorer_arch: list[int] = field(default_factory=lambda: [128, 128])  # … shared scorer
    value_arch: list[int] = field(default_factory=lambda: [256, 256])  # … critic
    activation: str = "tanh"  # or "relu"
    critic: str = "observation"  # or "state": the critic reads the full state too, the actor not


@dataclass
class FinetuneSettings:
    """``[finetune]``: PPO's first steps on a clone (hot_envs.training.finetune)."""

    critic_warmup: int = 0  # steps of learning the critic alone before the actor moves
    anchor_coef: float = 0.0  # weight of behaviour-cloning steps on the teacher's data …
    anchor_decay: int = 100_000  # … decaying linearly to 0 over these steps


@dataclass
class ImitationSettings:
    """``[imitation]``: behaviour cloning of the teacher for a new model, then DAgger rounds
    (hot_envs.training.imitation)."""

    bc_decisions: int = 0  # teacher decisions to clone (a resumed model is not cloned)
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


@dataclass
class ExpertIterationSettings:
    """``[expert_iteration]``: rounds in which the apprentice (the model) plays, the search labels
    its decisions and the apprentice learns every round's labels, before PPO
    (hot_envs.training.expert_iteration; docs/training.md, "Expert iteration")."""

    exit_rounds: int = 0  # rounds (0: none); a rerun with the same labels folder goes on
    exit_labels: int = 20_000  # labels each round adds
    exit_shard_labels: int = 500  # labels a shard file holds (the unit a rerun skips)
    exit_labels_dir: str = ""  # the rounds' labels and networks; "": the run folder's labels/
    exit_teacher: str = "search-strong"  # a search spec
    exit_guide: list[str] = field(default_factory=list)  # "prior", "rollout": by the apprentice
    exit_margin: float | None = None  # guide "prior": its move kept unless beaten by this
    exit_opponents: list[dict[str, Any]] = field(
        default_factory=lambda: [{"spec": "heuristic", "weight": 1.0}]
    )  # spec (an agent spec, "self" or "snapshot") and weight
    exit_temperature: float = 1.0  # the apprentice's moves: its softmax at this temperature
    exit_target: str = "softmax"  # or "gumbel" (completed Q)
    exit_target_temperature: float = 0.05  # softmax: of the search's mean returns
    exit_gumbel_visit: float = 50.0  # gumbel: σ(q) = (visit + max count) · scale · q
    exit_gumbel_scale: float = 0.1
    exit_value_search_share: float = 0.0  # the search's value's share of the value target
    exit_epochs: int = 10  # at most, each round
    exit_patience: int = 2  # epochs without a better held-out loss before a round stops
    exit_batch_size: int = 256
    exit_learning_rate: float = 3e-4
    exit_value_weight: float = 0.5
    exit_held_out: float = 0.1  # share of the games held out
    exit_strength_games: int = 200  # each round against the heuristic (0: none)
    exit_workers: int = 1  # processes labelling; 0: one per core


@dataclass
class LeagueSettings(LeagueRules):
    """``[league]``: who sits in the other seats (:class:`hot_envs.agents.opponents.League`): fixed
    opponents (agent specs with weights, a curriculum of random moves for some), snapshots of the
    learner every ``snapshot_every`` steps, and the league's rules (:class:`LeagueRules`)."""

    opponents: list[dict[str, Any]] = field(
        default_factory=lambda: [{"spec": "random"}, {"spec": "heuristic", "curriculum": True}]
    )
    snapshot_every: int = 20_000
    curriculum_window: int = 200  # episodes against a curriculum opponent between ε changes
    # Exploiters (hot_envs.training.exploiters): every exploiter_every steps (0: none), a best
    # response to the learner learns exploiter_steps steps, then holds exploiter_share of seats.
    exploiter_every: int = 0
    exploiter_steps: int = 100_000
    exploiter_share: float = 0.2


@dataclass
class EvalSettings:
    """``[eval]``: the evaluations during learning and the final table
    (hot_envs.training.evaluate)."""

    eval_opponent: str = "heuristic"
    eval_players: list[int] | None = None  # player counts evaluated; default: those trained on
    eval_every: int = 50_000
    eval_games: int = 100
    final_eval_games: int = 300
    held_out_games: int = 0  # per held-out opponent (agents.suite) in the final table; 0: none
    eval_workers: int = 0  # processes for evaluation games; 0: one per core


SECTIONS: dict[str, type] = {
    "run": RunSettings,
    "ppo": PPOSettings,
    "finetune": FinetuneSettings,
    "imitation": ImitationSettings,
    "expert_iteration": ExpertIterationSettings,
    "league": LeagueSettings,
    "eval": EvalSettings,
}


def _section(name: str) -> property:
    """A property of :class:`Args`: section ``name``'s settings, as its own dataclass."""
    cls = SECTIONS[name]

    def get(args: Args) -> Any:
        return cls(**{f.name: getattr(args, f.name) for f in fields(cls)})

    return property(get, doc=f"The ``[{name}]`` settings (:class:`{cls.__name__}`).")


@dataclass
class Args(
    EvalSettings,
    LeagueSettings,
    ExpertIterationSettings,
    ImitationSettings,
    FinetuneSettings,
    PPOSettings,
    RunSettings,
):
    """Every setting of a run: the sections' fields (in the order of :data:`SECTIONS`), flat as
    the files keep them, and each section as its own dataclass (``args.ppo``, ``args.league``,
    …), which is what the run hands each of its parts."""

    run = _section("run")
    ppo = _section("ppo")
    finetune = _section("finetune")
    imitation = _section("imitation")
    expert_iteration = _section("expert_iteration")
    league = _section("league")
    eval = _section("eval")


SECTION_OF = {f.name: name for name, cls in SECTIONS.items() for f in fields(cls)}
TYPES = {key: hint for cls in SECTIONS.values() for key, hint in typing.get_type_hints(cls).items()}
# What a config may set: the types above, but players before parse_args resolves it to sizes.
CONFIG_TYPES = {**TYPES, "players": int | str | list[int]}


def load_config(path: str | Path) -> dict[str, Any]:
    """The settings a TOML config sets, flat; errors (module docstring) raise ``ValueError``."""
    with open(path, "rb") as file:
        data = tomllib.load(file)
    flat: dict[str, Any] = {}
    problems = []
    for name, value in data.items():
        if name in SECTIONS and isinstance(value, dict):
            entries = [(name, key, v) for key, v in value.items()]
        elif name not in SECTION_OF and isinstance(value, dict):
            problems.append(f"unknown section [{name}]")
            continue
        else:
            entries = [(None, name, value)]
        for section, key, v in entries:
            problem = check_key(section, key, v)
            if problem:
                problems.append(problem)
            elif key in flat:
                problems.append(f"{key} is set twice")
            flat[key] = v
    if problems:
        raise ValueError(f"{path}: " + "; ".join(problems))
    return flat


def check_key(section: str | None, key: str, value: Any) -> str | None:
    """What is wrong with ``key = value`` in ``[section]`` (None: outside any), if anything."""
    where = f"[{section}] " if section else ""
    if key not in SECTION_OF:
        return f"unknown key {where}{key}"
    if section is not None and SECTION_OF[key] != section:
        return f"{key} belongs in [{SECTION_OF[key]}], not in [{section}]"
    if not conforms(value, CONFIG_TYPES[key]):
        return f"{where}{key} must be {type_name(CONFIG_TYPES[key])}, not {value!r}"
    return None


def conforms(value: Any, hint: Any) -> bool:
    """Whether ``value`` is of the annotated type ``hint`` (an int is a float, a bool no number;
    lists are checked item by item, dicts only as dicts)."""
    origin, inner = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return any(conforms(value, option) for option in inner)
    if origin is list:
        return isinstance(value, list) and all(conforms(item, inner[0]) for item in value)
    if origin is dict:
        return isinstance(value, dict)
    if hint is Any:
        return True
    if hint is type(None):
        return value is None
    if hint in (int, float) and isinstance(value, bool):
        return False
    return isinstance(value, int | float) if hint is float else isinstance(value, hint)


def type_name(hint: Any) -> str:
    """``hint`` as an error message says it: "of type float", "of type list[int] or None", …"""
    text = str(hint) if typing.get_args(hint) else hint.__name__
    return "of type " + text.replace("NoneType", "None").replace(" | ", " or ")


def parse_args(argv: list[str] | None) -> Args:
    """The settings of the run that ``argv`` asks for: defaults, then the config (the game's
    own unless ``--config``), then the options given. ``--resume RUN_DIR`` takes the run's own
    settings instead. Bad settings raise ``ValueError`` (``FileNotFoundError`` for a missing
    file) before anything starts."""
    cli = command_line(argv)
    game = get_game(cli["game"]).name
    if is_run_dir(cli.get("resume")):  # continue that run, with its own settings
        values = continuing_args({**cli, "game": game}, set(SECTION_OF))
    elif cli.get("resume") and Path(cli["resume"]).is_dir():
        raise ValueError(
            f"--resume {cli['resume']}: a folder without {STATE_FILE}, so no run to continue "
            "(stopped before its first checkpoint?); name a checkpoint to start from its network"
        )
    else:
        config = Path(cli.get("config") or CONFIGS / f"{game.replace('-', '_')}.toml")
        values = {**load_config(config), **cli, "game": game, "config": str(config)}
        values.update(shortened_warmup(load_config(config), cli))
    values["players"] = table_sizes(game, values.get("players"))
    args = Args(**values)
    check(args)
    return args


# The largest share of a run shortened by --timesteps that the critic's warm-up may take.
WARMUP_SHARE = 0.25


def shortened_warmup(config: dict[str, Any], cli: dict[str, Any]) -> dict[str, int]:
    """``critic_warmup`` for a run that ``--timesteps`` makes shorter than its config's: at most
    :data:`WARMUP_SHARE` of the run's steps, so that a small budget is not spent on the critic
    alone (said in the log); a config whose warm-up covers all its steps (the actor frozen for
    the whole run, a critic fit) keeps it. Empty where nothing changes."""
    defaults = FinetuneSettings.critic_warmup, RunSettings.timesteps
    warmup = config.get("critic_warmup", defaults[0])
    planned = config.get("timesteps", defaults[1])
    steps = cli.get("timesteps")
    if steps is None or warmup >= planned or warmup <= WARMUP_SHARE * steps:
        return {}
    capped = int(WARMUP_SHARE * steps)
    print(
        f"critic_warmup: {capped} steps, not the config's {warmup}: at most "
        f"{WARMUP_SHARE:.0%} of --timesteps {steps}"
    )
    return {"critic_warmup": capped}


def command_line(argv: list[str] | None) -> dict[str, Any]:
    """The options given on the command line (``hot-envs train GAME …``), by setting."""
    parser = argparse.ArgumentParser(
        prog="hot-envs train",
        description="Train sb3-contrib MaskablePPO on Heiße Luft or Heiße Karten, CleanRL style.",
        epilog="Options not given come from the config (training/configs/GAME.toml).",
    )
    parser.add_argument("game", help=" or ".join(GAMES))
    parser.add_argument(
        "--backend",
        choices=list(BACKENDS),  # train.main hands rllib to training.rllib_train
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
    cli.pop("backend", None)  # train.main dispatched on it already
    return cli


def table_sizes(game: str, players: Any) -> list[int] | None:
    """The player counts to train at: ``players`` from the config or ``--players`` (a count,
    counts, or "all"), checked; None for a game of one size (Heiße Luft)."""
    description = get_game(game)
    if players == "all" or players is None:
        players = list(description.players)
    elif isinstance(players, str | int):
        players = [int(players)] if str(players).isdigit() else [players]
    sizes = [description.check_players(n) for n in players]
    return None if description.min_players == description.max_players else sizes


CRITICS = ("observation", "state")  # what the critic reads ([ppo] critic)


def check(args: Args) -> None:
    """Raise ``ValueError`` (or ``FileNotFoundError``) for settings that would fail later: bad
    counts, player counts, options, agent specs or checkpoints fail here, not inside a worker.
    A checkpoint to start from decides the network (``policy``)."""
    for key in SECTION_OF:  # the command line's and a continued run's too
        if not conforms(getattr(args, key), TYPES[key]):
            raise ValueError(f"{key} must be {type_name(TYPES[key])}, not {getattr(args, key)!r}")
    for key in ("batched_workers", "imitation_workers", "update_threads"):
        if getattr(args, key) < 0:
            raise ValueError(f"{key} must be an int ≥ 0, not {getattr(args, key)!r}")
    if args.batched_envs > 0 and args.batched_workers > args.batched_envs:
        raise ValueError(
            f"batched_workers ({args.batched_workers}) must not exceed batched_envs "
            f"({args.batched_envs})"
        )
    if not args.checkpoint_minutes > 0:
        raise ValueError(f"checkpoint_minutes must be > 0, not {args.checkpoint_minutes!r}")
    if args.exploiter_every < 0 or args.exploiter_steps < 1:
        raise ValueError(
            f"exploiter_every must be ≥ 0 and exploiter_steps ≥ 1, not {args.exploiter_every!r}"
            f" and {args.exploiter_steps!r}"
        )
    if not 0.0 < args.exploiter_share < 1.0:
        raise ValueError(f"exploiter_share must be in (0, 1), not {args.exploiter_share!r}")
    if not args.opponents:
        raise ValueError("the league needs at least one fixed opponent (weight 0 is fine)")
    for opponent in args.opponents:
        try:
            FixedOpponent(**opponent)
        except TypeError:
            raise ValueError(
                f"an opponent has spec, weight and curriculum, not {opponent!r}"
            ) from None
    SingleAgentEnv(args.game, players=args.players, game_options=args.game_options)
    if args.dagger_opponent:
        make_agent(args.dagger_opponent, args.game)
    for n in args.dagger_own_labels:
        get_game(args.game).check_players(n)
    if args.critic not in CRITICS:
        raise ValueError(f"critic must be one of {CRITICS}, not {args.critic!r}")
    if args.critic == "state" and (args.bc_decisions or args.dagger_rounds or args.anchor_coef):
        raise ValueError(
            'critic = "state" learns by PPO alone: the teacher\'s demonstrations hold no state '
            "(clone with the observation's critic, then go on from that checkpoint)"
        )
    check_expert_iteration(args)
    if args.dagger_improve and args.bc_teacher.partition(":")[0] not in SEARCH_SPECS:
        raise ValueError(f"dagger_improve needs a search teacher, not {args.bc_teacher!r}")
    if args.resume and not is_run_dir(args.resume):  # the checkpoint decides the network …
        network = read_metadata(args.resume, args.game)["network"]
        args.policy = network.get("architecture", "mlp")
        if not find_checkpoint(args.resume).with_suffix(".zip").is_file():
            raise FileNotFoundError(f"--resume {args.resume}: no .zip model next to the checkpoint")


EXIT_TARGETS = ("softmax", "gumbel")
EXIT_GUIDES = ("prior", "rollout")


def check_expert_iteration(args: Args) -> None:
    """Raise ``ValueError`` for ``[expert_iteration]`` settings that would fail later."""
    if args.exit_rounds < 0:
        raise ValueError(f"exit_rounds must be ≥ 0, not {args.exit_rounds!r}")
    if args.exit_rounds == 0:
        return
    for key in ("exit_labels", "exit_shard_labels", "exit_epochs", "exit_patience"):
        if getattr(args, key) < 1:
            raise ValueError(f"{key} must be ≥ 1, not {getattr(args, key)!r}")
    for key in ("exit_strength_games", "exit_workers"):
        if getattr(args, key) < 0:
            raise ValueError(f"{key} must be ≥ 0, not {getattr(args, key)!r}")
    if args.exit_teacher.partition(":")[0] not in SEARCH_SPECS:
        raise ValueError(f"exit_teacher must be a search spec, not {args.exit_teacher!r}")
    make_agent(args.exit_teacher, args.game)
    if args.exit_target not in EXIT_TARGETS:
        raise ValueError(f"exit_target must be one of {EXIT_TARGETS}, not {args.exit_target!r}")
    if not args.exit_target_temperature > 0:
        raise ValueError(
            f"exit_target_temperature must be > 0, not {args.exit_target_temperature!r}"
        )
    if not args.exit_temperature >= 0:
        raise ValueError(f"exit_temperature must be ≥ 0, not {args.exit_temperature!r}")
    if not 0 < args.exit_held_out < 1:
        raise ValueError(f"exit_held_out must be in (0, 1), not {args.exit_held_out!r}")
    if not 0 <= args.exit_value_search_share <= 1:
        raise ValueError(
            f"exit_value_search_share must be in [0, 1], not {args.exit_value_search_share!r}"
        )
    for guide in args.exit_guide:
        if guide not in EXIT_GUIDES:
            raise ValueError(f"exit_guide takes {EXIT_GUIDES}, not {guide!r}")
    if not args.exit_opponents:
        raise ValueError("exit_opponents needs at least one opponent")
    for opponent in args.exit_opponents:
        spec, weight = opponent.get("spec"), opponent.get("weight", 1.0)
        if set(opponent) - {"spec", "weight"} or not isinstance(spec, str):
            raise ValueError(f"an exit opponent has spec and weight, not {opponent!r}")
        if not conforms(weight, float) or weight < 0:
            raise ValueError(f"exit opponent {spec!r}: weight must be ≥ 0, not {weight!r}")
        if spec not in ("self", "snapshot"):
            make_agent(spec, args.game)
    if sum(opponent.get("weight", 1.0) for opponent in args.exit_opponents) <= 0:
        raise ValueError("exit_opponents' weights must not all be 0")
    if args.critic == "state":
        raise ValueError(
            'critic = "state" learns by PPO alone: the search\'s labels hold no state '
            "(run expert iteration with the observation's critic)"
        )

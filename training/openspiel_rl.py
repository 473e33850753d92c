"""OpenSpiel's DQN and NFSP, and a Deep Monte-Carlo learner, on both games, with a measured
learning curve (docs/training.md, "Other algorithms").

``python -m hot_envs.training.openspiel_rl GAME --algorithm dqn|nfsp|dmc --steps N --out DIR`` (or
``hot-envs train GAME --backend openspiel …``) trains OpenSpiel's PyTorch learners
(``open_spiel.python.pytorch.dqn.DQN``, ``open_spiel.python.pytorch.nfsp.NFSP``) on the
registered games (``python_heisse_luft``, ``python_heisse_karten(players=N)``,
docs/openspiel.md) through ``rl_environment``, which hands each player the legal actions: both
learners only ever pick among them (DQN masks its Q-values, NFSP its average policy's logits).
:class:`DMC` is DouZero's Deep Monte-Carlo on the same interface: Monte-Carlo returns instead of
DQN's bootstrapped targets.

* **Seats.** Each game the learners' seats are drawn (one rotation of the table, seeded), so a
  learner plays every seat, as it will in the arena; its ``player_id`` is set between games.
  DQN and DMC learn against an agent spec in the other seats (``--opponent``, default ``random``),
  seated through :func:`hot_envs.openspiel.bot`; NFSP learns by self-play, one NFSP agent per
  seat (its method).
* **Evaluation.** Every ``--eval-every`` steps (and before the first), the network the run
  reports — DQN's and DMC's Q-network, NFSP's average policy — is written as a checkpoint
  (``DIR/policy``: ``policy.npz`` + ``policy.json``, the MLP format of
  :mod:`hot_envs.agents.checkpoint`, its argmax over the legal actions the learner's greedy
  move) and the arena plays it against ``random`` and the ``heuristic``
  (:func:`hot_envs.training.evaluate.evaluate`: seats rotated over duplicate deals, 95 % Wilson
  intervals). The last checkpoint is an agent spec like any other:
  ``hot-envs evaluate heisse-karten --agents DIR/policy.npz heuristic --players 2``.
* **Output.** ``DIR/curve.csv`` (one row per evaluation and opponent: steps, games, training
  CPU seconds, win share and interval; rewritten after each evaluation), ``DIR/curve.png`` (at
  the end) and ``DIR/run.json`` (the settings).

Seeded: ``--seed`` seeds the environment's chance sampler, numpy's and torch's generators (the
learners draw from both), the opponents and the arena's deals. ``steps`` counts the learners'
decisions (all seats' in self-play). Torch runs on one thread (``torch.set_num_threads(1)``).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from hot_envs.core.games import DEFAULT_GAME, GAMES, get_game

ALGORITHMS = ("dqn", "nfsp", "dmc")
EVAL_OPPONENTS = ("random", "heuristic")


@dataclass
class Settings:
    """One run's settings (the command line's, by the same names)."""

    game: str
    algorithm: str = "dqn"
    players: int = 2
    steps: int = 50_000
    out: str = "runs/openspiel"
    seed: int = 0
    opponent: str = "random"  # DQN's and DMC's other seats (an agent spec); NFSP plays itself
    reward: str = "win"  # Heiße Karten's reward_mode (HK-4.3): "win" or "score"
    eval_every: int = 10_000
    eval_games: int = 400
    final_games: int = 1_000
    hidden: list[int] = field(default_factory=lambda: [256, 256])
    learning_rate: float = 1e-3
    batch_size: int = 128
    buffer: int = 50_000
    learn_every: int = 4
    target_every: int = 500  # steps between copies to the target network (99.5 % of one)
    epsilon_decay: int = 0  # DQN's ε from 1 to 0.05 over this many steps; 0: a fifth of steps
    anticipatory: float = 0.1  # NFSP's share of games played by the best response
    progress: bool = True

    def check(self) -> Settings:
        """This, or a ``ValueError`` naming the first bad setting."""
        self.game = get_game(self.game).name  # unknown names: the library's own message
        if self.reward not in ("win", "score"):
            raise ValueError(f"reward must be win or score, not {self.reward!r}")
        if self.reward == "score" and "reward_mode" not in parameters(self.game):
            title = get_game(self.game).title
            raise ValueError(f"reward score is Heiße Karten's (HK-4.3); {title} has no score")
        if self.algorithm not in ALGORITHMS:
            raise ValueError(
                f"algorithm must be one of {', '.join(ALGORITHMS)}, not {self.algorithm!r}"
            )
        low, high = get_game(self.game).min_players, get_game(self.game).max_players
        if isinstance(self.players, bool) or not low <= self.players <= high:
            raise ValueError(
                f"{get_game(self.game).title} has {low}..{high} players, not {self.players!r}"
            )
        positive = ("steps", "eval_every", "eval_games", "final_games", "batch_size", "buffer")
        for name in (*positive, "target_every"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive int, not {value!r}")
        if not self.hidden or any(h < 1 for h in self.hidden):
            raise ValueError(f"hidden must be positive layer sizes, not {self.hidden!r}")
        if not self.learning_rate > 0:
            raise ValueError(f"learning_rate must be positive, not {self.learning_rate!r}")
        if self.learn_every < 3:  # OpenSpiel's DQN learns before its first transition below 3
            raise ValueError(f"learn_every must be at least 3, not {self.learn_every!r}")
        if self.epsilon_decay < 0:
            raise ValueError(f"epsilon_decay must not be negative, not {self.epsilon_decay!r}")
        if not 0.0 < self.anticipatory <= 1.0:
            raise ValueError(f"anticipatory must be in (0, 1], not {self.anticipatory!r}")
        if self.algorithm != "nfsp":
            from hot_envs.agents import make_agent

            make_agent(self.opponent, self.game, 0)  # an unknown spec: its own message
        return self


def parameters(game: str) -> dict[str, Any]:
    """The parameters of ``game``'s registered OpenSpiel game (``python_`` and its key)."""
    import pyspiel

    import hot_envs.openspiel  # noqa: F401  (registers the games)

    name = f"python_{get_game(game).key}"
    (found,) = (g for g in pyspiel.registered_games() if g.short_name == name)
    return found.parameter_specification


def pyspiel_name(game: str, players: int, reward: str = "win") -> str:
    """The registered OpenSpiel game of ``game`` at ``players`` seats (Heiße Karten's
    ``reward_mode`` ``reward``)."""
    name = f"python_{get_game(game).key}"
    if "players" not in parameters(game):
        return name
    return f"{name}(players={players},reward_mode={reward})"


def make_learners(settings: Settings, size: int, actions: int) -> list[Any]:
    """DQN and DMC: one learner; NFSP: one per seat (self-play)."""
    if settings.algorithm == "dmc":
        return [DMC(0, size, actions, settings)]
    common = {
        "state_representation_size": size,
        "num_actions": actions,
        "hidden_layers_sizes": list(settings.hidden),
        "batch_size": settings.batch_size,
        "learn_every": settings.learn_every,
        "min_buffer_size_to_learn": min(1_000, settings.buffer),
        "optimizer_str": "adam",
    }
    if settings.algorithm == "dqn":
        from open_spiel.python.pytorch import dqn

        return [
            dqn.DQN(
                player_id=0,
                replay_buffer_capacity=settings.buffer,
                learning_rate=settings.learning_rate,
                update_target_network_every=settings.target_every,
                epsilon_end=0.05,
                epsilon_decay_duration=settings.epsilon_decay or max(settings.steps // 5, 1),
                epsilon_decay_schedule_str="linear",
                seed=settings.seed,
                **common,
            )
        ]
    from open_spiel.python.pytorch import nfsp

    return [
        nfsp.NFSP(
            player_id=seat,
            reservoir_buffer_capacity=settings.buffer,
            anticipatory_param=settings.anticipatory,
            rl_learning_rate=settings.learning_rate,
            sl_learning_rate=settings.learning_rate,
            seed=settings.seed + 10 * seat,
            # the inner DQN's settings
            replay_buffer_capacity=settings.buffer,
            update_target_network_every=settings.target_every,
            epsilon_start=0.06,
            epsilon_end=0.001,
            **common,
        )
        for seat in range(settings.players)
    ]


class DMC:
    """Deep Monte-Carlo, DouZero's learner (Zha et al., 2021), with one output per action: the
    network's output for an action is trained towards the return of the game it was played in
    (mean squared error, no bootstrapping), and the learner plays ε-greedily among the legal
    actions (ε as DQN's). It keeps OpenSpiel's agent interface (``step(time_step)``), so it plays
    through ``rl_environment`` like the others; the network is OpenSpiel's ``MLP``."""

    def __init__(self, player_id: int, size: int, actions: int, settings: Settings) -> None:
        import torch
        from open_spiel.python.pytorch import dqn

        self.player_id = player_id
        self._q_network = dqn.MLP(size, list(settings.hidden), actions, seed=settings.seed)
        self._optimizer = torch.optim.Adam(self._q_network.parameters(), lr=settings.learning_rate)
        self._states = np.zeros((settings.buffer, size), dtype=np.float32)
        self._actions = np.zeros(settings.buffer, dtype=np.int64)
        self._returns = np.zeros(settings.buffer, dtype=np.float32)
        self._stored = 0  # transitions written so far (the buffer is a ring)
        self._game: list[tuple[np.ndarray, int]] = []
        self._iteration = 0
        self._settings = settings
        self._decay = settings.epsilon_decay or max(settings.steps // 5, 1)

    def step(self, time_step: Any, is_evaluation: bool = False) -> Any:
        """The action for the player to move (``None`` at the end, where the game's decisions
        go to the buffer with its return)."""
        import torch
        from open_spiel.python import rl_agent

        if time_step.last():
            if not is_evaluation:
                for state, action in self._game:
                    slot = self._stored % len(self._returns)
                    self._states[slot], self._actions[slot] = state, action
                    self._returns[slot] = time_step.rewards[self.player_id]
                    self._stored += 1
            self._game = []
            return None
        state = np.asarray(time_step.observations["info_state"][self.player_id], dtype=np.float32)
        legal = time_step.observations["legal_actions"][self.player_id]
        progress = min(self._iteration / self._decay, 1.0)
        epsilon = 0.0 if is_evaluation else 1.0 + (0.05 - 1.0) * progress
        if np.random.rand() < epsilon:
            action = int(np.random.choice(legal))
        else:
            with torch.no_grad():
                values = self._q_network(torch.from_numpy(state)[None])[0]
            action = int(legal[int(torch.argmax(values[legal]))])
        if not is_evaluation:
            self._game.append((state, action))
            self._iteration += 1
            if self._iteration % self._settings.learn_every == 0:
                self.learn()
        return rl_agent.StepOutput(action=action, probs=[])

    def learn(self) -> float | None:
        """One gradient step on a batch from the buffer (once it holds 1,000 decisions)."""
        import torch

        held = min(self._stored, len(self._returns))
        if held < min(1_000, len(self._returns)) or held < self._settings.batch_size:
            return None
        rows = np.random.randint(held, size=self._settings.batch_size)
        values = self._q_network(torch.from_numpy(self._states[rows]))
        chosen = values.gather(1, torch.from_numpy(self._actions[rows])[:, None])[:, 0]
        loss = torch.nn.functional.mse_loss(chosen, torch.from_numpy(self._returns[rows]))
        self._optimizer.zero_grad()
        loss.backward()
        self._optimizer.step()
        return float(loss.detach())


def seat(learner: Any, player: int) -> None:
    """Move ``learner`` to seat ``player`` for the next game (between games only)."""
    learner.player_id = player
    inner = getattr(learner, "_rl_agent", None)  # NFSP's best response
    if inner is not None:
        inner.player_id = player


def network(learner: Any) -> Any:
    """The network a run reports: DQN's and DMC's Q-network, NFSP's average policy."""
    return learner._avg_network if hasattr(learner, "_avg_network") else learner._q_network


def write_policy(learner: Any, path: Path, game: str, metadata: dict[str, Any]) -> Path:
    """``learner``'s network as a checkpoint at ``path`` (``.npz`` + ``.json``): an MLP of ReLU
    layers whose outputs the agent masks and maximises, as the learner's greedy move."""
    import torch

    from hot_envs.agents.checkpoint import mlp_arrays, write_checkpoint

    linear = [m for m in network(learner).modules() if isinstance(m, torch.nn.Linear)]
    layers = [(m.weight.detach().numpy().copy(), m.bias.detach().numpy().copy()) for m in linear]
    hidden = [w.shape[0] for w, _ in layers[:-1]]
    spec = {"architecture": "mlp", "hidden": hidden, "activation": "relu"}
    return write_checkpoint(path, game, mlp_arrays(layers), spec, metadata)


def run(settings: Settings) -> list[dict[str, Any]]:
    """Train and evaluate as the module docstring says; the curve's rows."""
    settings.check()
    import pyspiel
    import torch
    from open_spiel.python import rl_environment

    import hot_envs.openspiel
    from hot_envs.core.engine import make_rng
    from hot_envs.training.evaluate import evaluate

    torch.set_num_threads(1)
    np.random.seed(settings.seed)  # the learners' ε and NFSP's sampling draw from numpy's
    torch.manual_seed(settings.seed)
    out = Path(settings.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "run.json").write_text(json.dumps(asdict(settings), indent=2) + "\n", encoding="utf-8")
    game = pyspiel.load_game(pyspiel_name(settings.game, settings.players, settings.reward))
    env = rl_environment.Environment(game, seed=settings.seed)
    size = env.observation_spec()["info_state"][0]
    actions = env.action_spec()["num_actions"]
    learners = make_learners(settings, size, actions)
    n = settings.players
    opponents = []
    if settings.algorithm != "nfsp":  # the other seats: the spec, one bot per seat
        opponents = [
            hot_envs.openspiel.bot(settings.opponent, game, p, seed=settings.seed + p)
            for p in range(n)
        ]
    rng = make_rng(settings.seed)
    rows: list[dict[str, Any]] = []
    stem = out / "policy"
    meta = {"options": {"num_players": [n]}, "training": {"algorithm": settings.algorithm}}
    clock = time.process_time()
    cpu = 0.0  # training's CPU seconds, evaluations not counted

    def evaluate_now(steps: int, games: int, episodes: int) -> None:
        write_policy(learners[0], stem, settings.game, meta)
        for opponent in EVAL_OPPONENTS:
            (row,) = evaluate(stem, settings.game, opponent, games, [n], seed=settings.seed + 1)
            rows.append(
                {
                    "algorithm": settings.algorithm,
                    "game": settings.game,
                    "players": n,
                    "reward": settings.reward,
                    "steps": steps,
                    "episodes": episodes,
                    "cpu_seconds": round(cpu, 1),
                    "opponent": opponent,
                    "games": row["games"],
                    "win_share": row["win_share"],
                    "ci_low": row["ci_low"],
                    "ci_high": row["ci_high"],
                }
            )
        shares = ", ".join(f"{r['opponent']} {r['win_share']:.1%}" for r in rows[-2:])
        bar.write(f"{steps:>9} steps, {episodes} games: {shares}")
        write_curve(rows, out)

    from hot_envs.evaluation.arena import progress_bar

    bar = progress_bar(settings.steps, unit="step", desc=settings.algorithm) or _NoBar()
    if not settings.progress:
        bar.close()
        bar = _NoBar()
    evaluate_now(0, settings.eval_games, 0)
    clock = time.process_time()
    steps = episodes = 0
    next_eval = settings.eval_every
    while steps < settings.steps:
        rotation = int(rng.integers(n))  # the learners' seats this game
        for k, learner in enumerate(learners):
            seat(learner, (k + rotation) % n)
        mine = {learner.player_id: learner for learner in learners}
        time_step = env.reset()
        while not time_step.last():
            player = time_step.observations["current_player"]
            if player in mine:
                action = mine[player].step(time_step).action
                steps += 1
                bar.update(1)
            else:
                action = opponents[player].step(env.get_state)
            time_step = env.step([action])
        for learner in learners:  # each learner's last transition, with its reward
            learner.step(time_step)
        episodes += 1
        if steps >= next_eval or steps >= settings.steps:
            cpu += time.process_time() - clock
            last = steps >= settings.steps
            evaluate_now(steps, settings.final_games if last else settings.eval_games, episodes)
            next_eval += settings.eval_every
            clock = time.process_time()
    bar.close()
    meta["training"].update(steps=steps, games=episodes, cpu_seconds=round(cpu, 1))
    meta["evaluation"] = rows[-len(EVAL_OPPONENTS) :]
    write_policy(learners[0], stem, settings.game, meta)
    plot_curve(rows, out / "curve.png")
    return rows


class _NoBar:
    def update(self, n: int) -> None:
        pass

    def write(self, text: str) -> None:
        print(text, flush=True)

    def close(self) -> None:
        pass


CSV_FIELDS = (
    "algorithm",
    "game",
    "players",
    "reward",
    "steps",
    "episodes",
    "cpu_seconds",
    "opponent",
    "games",
    "win_share",
    "ci_low",
    "ci_high",
)


def write_curve(rows: Sequence[dict[str, Any]], out: Path) -> None:
    """``curve.csv`` in ``out``, rewritten after each evaluation."""
    with (out / "curve.csv").open("w", newline="", encoding="utf-8") as file:
        writer = csv.DictWriter(file, CSV_FIELDS)
        writer.writeheader()
        writer.writerows(rows)


def plot_curve(rows: Sequence[dict[str, Any]], path: Path) -> bool:
    """Win share against training steps, one line (with its 95 % band) per opponent, the even
    share dotted. False (nothing drawn) without matplotlib or rows."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    if not rows:
        return False
    fig, ax = plt.subplots(figsize=(6, 4))
    for opponent in EVAL_OPPONENTS:
        points = [r for r in rows if r["opponent"] == opponent]
        steps = [r["steps"] for r in points]
        ax.plot(steps, [r["win_share"] for r in points], marker="o", label=f"vs {opponent}")
        ax.fill_between(
            steps, [r["ci_low"] for r in points], [r["ci_high"] for r in points], alpha=0.2
        )
    first = rows[0]
    ax.axhline(1 / first["players"], color="grey", linestyle=":", label="even share")
    title = f"{first['algorithm'].upper()}, {get_game(first['game']).title}"
    if len(get_game(first["game"]).players) > 1:
        title += f", {first['players']} players"
    if first.get("reward", "win") != "win":
        title += f", {first['reward']} as reward"
    ax.set(xlabel="training steps", ylabel="win share (95 % CI)", title=title, ylim=(0, 1))
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True


def parse_args(argv: Sequence[str] | None = None) -> Settings:
    defaults = Settings(game=DEFAULT_GAME)
    parser = argparse.ArgumentParser(
        prog="python -m hot_envs.training.openspiel_rl",
        description="Train OpenSpiel's DQN or NFSP, or Deep Monte-Carlo, on one of our games, "
        "with a learning curve against random and the heuristic (docs/training.md, "
        "'Other algorithms').",
    )
    parser.add_argument("game", choices=sorted(GAMES))
    parser.add_argument("--algorithm", choices=ALGORITHMS, default=defaults.algorithm)
    parser.add_argument("--players", type=int, default=defaults.players, help="Heiße Karten: 2-6")
    parser.add_argument("--steps", type=int, default=defaults.steps, help="learner decisions")
    parser.add_argument("--out", default=defaults.out, help="the run folder")
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument(
        "--opponent", default=defaults.opponent, help="DQN's and DMC's other seats, an agent spec"
    )
    parser.add_argument(
        "--reward",
        choices=("win", "score"),
        default=defaults.reward,
        help="Heiße Karten: learn from the win (+1/-1) or the score (HK-4.3)",
    )
    parser.add_argument("--eval-every", type=int, default=defaults.eval_every)
    parser.add_argument("--eval-games", type=int, default=defaults.eval_games)
    parser.add_argument("--final-games", type=int, default=defaults.final_games)
    parser.add_argument("--hidden", type=int, nargs="+", default=defaults.hidden)
    parser.add_argument("--learning-rate", type=float, default=defaults.learning_rate)
    parser.add_argument("--batch-size", type=int, default=defaults.batch_size)
    parser.add_argument("--buffer", type=int, default=defaults.buffer)
    parser.add_argument("--learn-every", type=int, default=defaults.learn_every)
    parser.add_argument("--target-every", type=int, default=defaults.target_every)
    parser.add_argument("--epsilon-decay", type=int, default=defaults.epsilon_decay)
    parser.add_argument("--anticipatory", type=float, default=defaults.anticipatory)
    parser.add_argument("--no-progress", dest="progress", action="store_false")
    args = parser.parse_args(argv)
    try:
        return Settings(**vars(args)).check()
    except ValueError as error:
        parser.error(str(error))
        raise  # parser.error exits


def main(argv: Sequence[str] | None = None) -> int:
    run(parse_args(argv))
    return 0


if __name__ == "__main__":
    sys.exit(main())

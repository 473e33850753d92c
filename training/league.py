"""The self-play league: fixed opponents, snapshots of the learner, and an ε curriculum.

**Sampling rule.** A share ``snapshot_share`` of the opponent draws goes to the learner's own
snapshots, split evenly over the newest ``max_snapshots`` (older ones leave the pool); the rest
goes to the fixed opponents in proportion to their configured weights. (Without snapshots yet, or
with ``snapshot_share = 0``, the fixed opponents get every draw; without fixed opponents the
snapshots do.) Each opponent seat of each episode draws independently
(:class:`hot_envs.single_agent.OpponentPool`).

**Prioritised fictitious self-play** (``pfsp = true``, AlphaStar's rule): the snapshot share is
split by how often each snapshot beats the learner, weight ∝ (1 − score)², with score the
learner's mean score over its last ``window`` episodes against that snapshot (½ before any): the
snapshots the learner still loses to are met most. With ``pfsp_fixed = true`` the fixed
opponents' share is split by the same rule too, each weight ∝ its configured weight ·
(1 − score)²: over a pool of opponents of different styles, the ones the learner handles worst
are met most.

**Snapshots.** The policy is copied into the pool at the start (so self-play starts at once)
and every ``snapshot_every`` steps, as a numpy :class:`~hot_envs.agents.checkpoint.CheckpointAgent`
that samples from its masked softmax (a varied opponent, and fast: no torch in the env workers).

**Curriculum.** A fixed opponent with ``curriculum = true`` (meant for ``heuristic``) is played
as ``heuristic:ε``. ε starts at ``epsilon_start``; after every ``curriculum_window`` finished
episodes against it, ε drops by ``epsilon_step`` if the learner's score there is above
``win_high`` and rises by ``epsilon_step`` if it is below ``win_low`` (within
``[epsilon_min, 1]``), so the learner keeps meeting an opponent it beats now and then. The score
is the win share scaled to the player count, ``min(1, win_share · N / 2)``: the win rate with two
players, and ½ for an even share (1/N) with N.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import KW_ONLY, dataclass, field
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from hot_envs.agents.checkpoint import CheckpointAgent
from hot_envs.training.export import numpy_policy


@dataclass
class FixedOpponent:
    """A configured opponent: an agent spec (:func:`hot_envs.agents.make_agent`) and a weight."""

    spec: str
    weight: float = 1.0
    curriculum: bool = False

    def name(self) -> str:
        return self.spec


@dataclass
class League:
    """Which opponents are in the pool, and with which weights (module docstring). Everything
    after the game and the fixed opponents is a keyword argument."""

    game: str
    fixed: list[FixedOpponent]
    _: KW_ONLY
    snapshot_share: float = 0.5
    max_snapshots: int = 5
    epsilon: float = 0.5
    epsilon_min: float = 0.0
    epsilon_step: float = 0.1
    win_low: float = 0.2
    win_high: float = 0.6
    pfsp: bool = False
    pfsp_fixed: bool = False
    snapshots: list[str] = field(default_factory=list)
    scores: dict[str, float] = field(default_factory=dict)  # learner's recent score per opponent

    def source(self, opponent: FixedOpponent) -> str:
        """The spec that plays ``opponent`` now (ε applied to a curriculum opponent)."""
        if opponent.curriculum:
            return f"{opponent.spec.partition(':')[0]}:{self.epsilon:.2f}"
        return opponent.spec

    def weights(self) -> dict[str, float]:
        """Current weight of every pool entry (they sum to 1)."""
        fixed_total = sum(o.weight for o in self.fixed)
        if not self.snapshots:
            share = 0.0
        elif fixed_total <= 0:
            share = 1.0
        else:
            share = self.snapshot_share
        fixed = {o.name(): o.weight for o in self.fixed}
        if self.pfsp_fixed:
            hard = {n: w * (1.0 - self.scores.get(n, 0.5)) ** 2 for n, w in fixed.items()}
            if sum(hard.values()) > 0:
                fixed, fixed_total = hard, sum(hard.values())
        weights = {
            name: (1 - share) * (weight / fixed_total if fixed_total > 0 else 1 / len(fixed))
            for name, weight in fixed.items()
        }
        if self.pfsp:
            hardness = {name: (1.0 - self.scores.get(name, 0.5)) ** 2 for name in self.snapshots}
            total = sum(hardness.values())
            if total > 0:
                weights.update({name: share * h / total for name, h in hardness.items()})
                return weights
        weights.update({name: share / len(self.snapshots) for name in self.snapshots})
        return weights

    def initial_entries(self) -> list[tuple[str, str, float]]:
        """``(name, spec, weight)`` of the fixed opponents, for the envs' first pool."""
        weights = self.weights()
        return [(o.name(), self.source(o), weights[o.name()]) for o in self.fixed]

    def add_snapshot(self, name: str) -> list[str]:
        """Put snapshot ``name`` in; return the names of the snapshots that drop out."""
        self.snapshots.append(name)
        dropped = self.snapshots[: -self.max_snapshots]
        self.snapshots = self.snapshots[-self.max_snapshots :]
        for name in dropped:
            self.scores.pop(name, None)
        return dropped

    def adapt_epsilon(self, score: float) -> bool:
        """Move ε after a window with learner ``score`` against the curriculum opponent."""
        old = self.epsilon
        if score > self.win_high:
            self.epsilon = max(self.epsilon_min, round(self.epsilon - self.epsilon_step, 4))
        elif score < self.win_low:
            self.epsilon = min(1.0, round(self.epsilon + self.epsilon_step, 4))
        return self.epsilon != old


def learner_score(info: dict[str, Any]) -> float:
    """``min(1, win_share · N / 2)`` of a finished episode (module docstring)."""
    return min(1.0, info["win_share"] * info["num_players"] / 2)


class LeagueCallback(BaseCallback):
    """Keeps the envs' opponent pools in step with the :class:`League` during ``learn``."""

    def __init__(
        self, league: League, snapshot_every: int, window: int = 200, seed: int = 0
    ) -> None:
        super().__init__()
        self.league = league
        self.snapshot_every = snapshot_every
        self.window = window
        self.seed = seed
        self.next_snapshot = 0
        self.results: dict[str, list[float]] = defaultdict(list)
        self.recent: dict[str, list[float]] = defaultdict(list)  # PFSP's window of fixed ones
        self.agents: dict[str, CheckpointAgent] = {}  # the snapshots in the pool
        self.restored = False

    def state(self) -> dict[str, Any]:
        """What :meth:`restore` needs to go on where the league stands now (picklable)."""
        return {
            "epsilon": self.league.epsilon,
            "snapshots": list(self.league.snapshots),
            "scores": dict(self.league.scores),
            "agents": dict(self.agents),
            "results": {name: list(scores) for name, scores in self.results.items()},
            "recent": {name: list(scores) for name, scores in self.recent.items()},
            "next_snapshot": self.next_snapshot,
        }

    def restore(self, state: dict[str, Any]) -> None:
        """Go on from :meth:`state` (a resumed run): the league at once, so that the envs
        start with its fixed opponents as they were; the snapshots enter the envs' pools when
        learning starts, instead of a new one."""
        self.league.epsilon = state["epsilon"]
        self.league.snapshots = list(state["snapshots"])
        self.league.scores = dict(state["scores"])
        self.agents = dict(state["agents"])
        self.results = defaultdict(list, {k: list(v) for k, v in state["results"].items()})
        self.recent = defaultdict(list, {k: list(v) for k, v in state.get("recent", {}).items()})
        self.next_snapshot = state["next_snapshot"]
        self.restored = True

    def _on_training_start(self) -> None:
        if self.restored:
            weights = self.league.weights()
            for name in self.league.snapshots:
                self.training_env.env_method("set_opponent", name, self.agents[name], 0.0)
            self._push_weights(weights)
            return
        self.next_snapshot = self.num_timesteps
        self._snapshot()

    def _snapshot(self) -> None:
        name = f"snapshot@{self.num_timesteps}"
        agent = CheckpointAgent(
            numpy_policy(self.model),
            {"game": self.league.game},
            sample=True,
            seed=int(np.random.SeedSequence([self.seed, self.num_timesteps]).generate_state(1)[0]),
        )
        self.agents[name] = agent
        for dropped in self.league.add_snapshot(name):
            self.training_env.env_method("remove_opponent", dropped)
            self.agents.pop(dropped, None)
        weights = self.league.weights()
        self.training_env.env_method("set_opponent", name, agent, weights[name])
        self._push_weights(weights)
        self.next_snapshot += self.snapshot_every
        self.logger.record("league/snapshots", len(self.league.snapshots))

    def _push_weights(self, weights: dict[str, float]) -> None:
        for name, weight in weights.items():
            self.training_env.env_method("set_opponent", name, None, weight)

    def _on_step(self) -> bool:
        for done, info in zip(self.locals["dones"], self.locals["infos"], strict=True):
            if done and "win_share" in info:
                for name in set(info["opponents"]) - {None}:
                    self.results[name].append(learner_score(info))
                    if self.league.pfsp_fixed:
                        self.recent[name].append(learner_score(info))
        if self.league.pfsp or self.league.pfsp_fixed:
            self._update_pfsp()
        for opponent in self.league.fixed:
            scores = self.results[opponent.name()]
            if scores:
                self.logger.record(f"league/score/{opponent.name()}", float(np.mean(scores)))
            if opponent.curriculum and len(scores) >= self.window:
                score = float(np.mean(scores))
                self.logger.record("league/curriculum_score", score)
                if self.league.adapt_epsilon(score):
                    spec = self.league.source(opponent)
                    weight = self.league.weights()[opponent.name()]
                    self.training_env.env_method("set_opponent", opponent.name(), spec, weight)
                scores.clear()
        self.logger.record("league/epsilon", self.league.epsilon)
        if self.num_timesteps >= self.next_snapshot:
            self._snapshot()
        return True

    def _update_pfsp(self) -> None:
        """Refresh the scores (last ``window`` episodes) of the snapshots (``pfsp``) and of the
        fixed opponents (``pfsp_fixed``); push new weights once one has a full window."""
        changed = False
        windows = [(n, self.results) for n in self.league.snapshots if self.league.pfsp]
        if self.league.pfsp_fixed:
            windows += [(o.name(), self.recent) for o in self.league.fixed]
        for name, results in windows:
            if len(results[name]) >= self.window:
                self.league.scores[name] = float(np.mean(results[name][-self.window :]))
                results[name].clear()
                changed = True
        if changed:
            self._push_weights(self.league.weights())
            snapshots = [
                self.league.scores[n] for n in self.league.snapshots if n in self.league.scores
            ]
            if snapshots:
                self.logger.record("league/snapshot_score", float(np.mean(snapshots)))

    def summary(self) -> dict[str, Any]:
        """The league's state, for the checkpoint's training summary."""
        return {
            "fixed": [vars(o) for o in self.league.fixed],
            "snapshot_share": self.league.snapshot_share,
            "max_snapshots": self.league.max_snapshots,
            "snapshot_every": self.snapshot_every,
            "final_epsilon": self.league.epsilon,
            "pfsp": self.league.pfsp,
            "pfsp_fixed": self.league.pfsp_fixed,
            "snapshot_scores": {
                n: self.league.scores[n] for n in self.league.snapshots if n in self.league.scores
            },
            "fixed_scores": {
                o.name(): self.league.scores[o.name()]
                for o in self.league.fixed
                if o.name() in self.league.scores
            },
            "snapshots": list(self.league.snapshots),
        }

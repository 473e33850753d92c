"""The SB3 side of the self-play league: :class:`LeagueCallback` keeps the envs' opponent pools in
step with a :class:`hot_envs.agents.opponents.League`, the roster and sampling rule (fixed
opponents, snapshots, PFSP, the ε curriculum) that the RLlib backend shares; it and
:class:`~hot_envs.agents.opponents.FixedOpponent` are importable from here too.

**Snapshots.** The policy is copied into the pool at the start (so self-play starts at once)
and every ``snapshot_every`` steps, as a numpy :class:`~hot_envs.agents.checkpoint.CheckpointAgent`
that samples from its masked softmax (a varied opponent, and fast: no torch in the env workers).

**Scores.** An episode's learner score is its win share scaled to the player count,
``min(1, win_share · N / 2)``: the win rate with two players, and ½ for an even share (1/N) with
N. PFSP weighs an opponent by the mean over the last ``window`` episodes against it
(``curriculum_window`` in the settings); the curriculum moves ε after every ``window`` episodes
against its opponent.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from hot_envs.agents.checkpoint import CheckpointAgent
from hot_envs.agents.opponents import FixedOpponent, League, Opponent
from hot_envs.training.export import numpy_policy

__all__ = ["FixedOpponent", "League", "LeagueCallback", "learner_score"]


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

    def first_opponents(self) -> list[Opponent]:
        """The envs' opponents before learning starts: the league's fixed ones with their
        weights (a continued run's as restored); the snapshots join when learning starts."""
        return [Opponent(*entry) for entry in self.league.initial_entries()]

    def state(self) -> dict[str, Any]:
        """What :meth:`restore` needs to go on where the league stands now (picklable)."""
        return {
            **self.league.state(),
            "agents": dict(self.agents),
            "results": {name: list(scores) for name, scores in self.results.items()},
            "recent": {name: list(scores) for name, scores in self.recent.items()},
            "next_snapshot": self.next_snapshot,
        }

    def restore(self, state: dict[str, Any]) -> None:
        """Go on from :meth:`state` (a resumed run): the league at once, so that the envs
        start with its fixed opponents as they were; the snapshots enter the envs' pools when
        learning starts, instead of a new one."""
        self.league.restore(state)
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
        if any(opponent.curriculum for opponent in self.league.fixed):  # ε moves only then
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
                self.league.record(name, float(np.mean(results[name][-self.window :])))
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

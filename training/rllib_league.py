"""Who plays which seat: shared self-play, the league of frozen snapshots, and the metrics.

**Shared self-play** maps every seat to the trained module ``main``.

**League.** One seat per episode, drawn from the episode id, is ``main`` (so ``main`` plays
every seat in turn); each other seat draws an opponent with the probabilities of a
:class:`hot_envs.agents.opponents.League` — the roster and sampling rule the SB3 backend shares —
whose opponents are named by their module ids: the fixed agents ``fixed_k``
(:class:`hot_envs.rllib.module.FixedAgentRLModule`, e.g. the heuristic), each as likely, with
probability ``fixed_share`` in all (the league's snapshot share is ``1 − fixed_share``), else one
of the newest ``max_snapshots`` frozen copies of ``main`` (``snapshot_k``); without snapshots every
such seat is fixed, without fixed agents a snapshot. :class:`LeagueCallback` adds ``snapshot_0``
when the algorithm is built and another every ``snapshot_every`` iterations
(``Algorithm.add_module`` with the new mapping, then ``main``'s learner weights copied in), and
removes those the league drops. Only ``main`` is trained (``policies_to_train``). A resumed run
rebuilds the league from :meth:`LeagueCallback.league_state` before it loads the checkpoint.

**Metrics** (per iteration, under ``result["env_runners"]``): ``illegal_actions`` (sum over the
iteration's finished episodes; ``illegal_actions_lifetime``), ``main_return`` (mean over the
last 100 episodes), ``league_size`` (in the train result).
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass, field
from typing import Any

from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.core.rl_module.rl_module import RLModuleSpec

from hot_envs.agents.opponents import FixedOpponent, League

MAIN = "main"


def fixed_module_id(index: int) -> str:
    return f"fixed_{index}"


def shared_mapping(agent_id: str, episode: Any, **kwargs: Any) -> str:
    """Shared self-play: one policy for every seat."""
    return MAIN


def make_league(game: str, fixed: int, fixed_share: float, max_snapshots: int) -> League:
    """The league of ``fixed`` fixed modules and ``main``'s snapshots: an opponent seat draws a
    fixed module with probability ``fixed_share`` once there are snapshots (module docstring)."""
    if not 0.0 <= fixed_share <= 1.0:
        raise ValueError(f"--fixed-share must be in [0, 1], not {fixed_share!r}")
    return League(
        game,
        [FixedOpponent(fixed_module_id(i)) for i in range(fixed)],
        snapshot_share=1.0 - fixed_share,
        max_snapshots=max_snapshots,
    )


@dataclass(frozen=True)
class LeagueMapping:
    """Agent → module for a league episode (module docstring); a picklable callable, so Ray can
    ship it to every env runner. ``opponents`` holds ``(module_id, probability)`` pairs."""

    num_players: int
    opponents: tuple[tuple[str, float], ...] = ()

    @classmethod
    def of(cls, num_players: int, league: League) -> LeagueMapping:
        """The mapping that draws ``league``'s opponents with its current weights."""
        weights = league.weights()
        return cls(num_players, tuple((name, w) for name, w in weights.items() if w > 0))

    def __call__(self, agent_id: str, episode: Any, **kwargs: Any) -> str:
        # Seeded by the episode id: every seat of an episode agrees on where main sits.
        if int(agent_id.rsplit("_", 1)[1]) == random.Random(episode.id_).randrange(
            self.num_players
        ):
            return MAIN
        if not self.opponents:
            return MAIN
        draw = random.Random(f"{episode.id_}/{agent_id}")
        modules, weights = zip(*self.opponents, strict=True)
        return draw.choices(modules, weights)[0]


def count_illegal(episode: Any) -> int:
    """Illegal actions in an episode's last step (where the env ends a game for one)."""
    infos = episode.get_infos(-1)
    return sum(bool(info.get("illegal_action")) for info in infos.values() if info)


def main_return(episode: Any) -> float | None:
    """The return of the seat ``main`` played (the first, in shared self-play)."""
    for agent_id, single in episode.agent_episodes.items():
        if episode.module_for(agent_id) == MAIN:
            return float(single.get_return())
    return None


@dataclass
class LeagueCallback(RLlibCallback):
    """Illegal-action and return metrics always; snapshots in league mode (module docstring).

    ``spec`` is ``main``'s :class:`RLModuleSpec` (snapshots are built from it); ``league`` is
    ``None`` for shared self-play, else the league as it starts (each instance keeps a copy)."""

    spec: RLModuleSpec | None = None
    league: League | None = None
    num_players: int = 2
    snapshot_every: int = 5
    added: int = field(default=0, init=False)
    mapping: LeagueMapping | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        super().__init__()
        if self.league is not None:
            # One partial builds the driver's callback and the local env runner's: no sharing.
            self.league = copy.deepcopy(self.league)
            self.mapping = LeagueMapping.of(self.num_players, self.league)

    @staticmethod
    def of(algorithm: Any) -> LeagueCallback:
        """The algorithm's instance of this callback (it keeps the league's bookkeeping)."""
        callbacks = algorithm.callbacks
        for callback in callbacks if isinstance(callbacks, list) else [callbacks]:
            if isinstance(callback, LeagueCallback):
                return callback
        raise RuntimeError("the algorithm has no LeagueCallback")

    def on_episode_end(self, *, episode: Any, metrics_logger: Any, **kwargs: Any) -> None:
        illegal = count_illegal(episode)
        metrics_logger.log_value("illegal_actions", illegal, reduce="sum")
        metrics_logger.log_value("illegal_actions_lifetime", illegal, reduce="lifetime_sum")
        value = main_return(episode)
        if value is not None:
            metrics_logger.log_value("main_return", value, reduce="mean", window=100)

    def on_algorithm_init(self, *, algorithm: Any, **kwargs: Any) -> None:
        if self.league is not None:
            self.add_snapshot(algorithm)

    def on_train_result(self, *, algorithm: Any, result: dict, **kwargs: Any) -> None:
        if self.league is None:
            return
        if algorithm.iteration % self.snapshot_every == 0:
            self.add_snapshot(algorithm)
        result["league_size"] = len(self.league.snapshots) + len(self.league.fixed)

    def league_state(self) -> dict[str, Any] | None:
        """What a resumed run needs to rebuild the league (the snapshots' weights are in the
        RLlib checkpoint): the snapshot ids, newest last, and how many were ever added. (The
        league's scores and ε, which RLlib does not use, are not kept.)"""
        if self.league is None:
            return None
        return {"snapshots": list(self.league.snapshots), "added": self.added}

    def restore_league(self, algorithm: Any, state: dict[str, Any]) -> None:
        """Make the league ``state`` (from :meth:`league_state`) the algorithm's: add the
        saved snapshot modules (their weights come from ``restore_from_path`` afterwards) and
        remove the ones this build added. ``Algorithm.restore_from_path`` alone would skip the
        snapshots it has no module for."""
        if self.league is None:
            return
        built = list(self.league.snapshots)
        self.league.restore(state)
        self.added = int(state["added"])
        self.mapping = LeagueMapping.of(self.num_players, self.league)
        for module_id in self.league.snapshots:
            if module_id not in built:
                algorithm.add_module(
                    module_id=module_id,
                    module_spec=self.spec,
                    new_agent_to_module_mapping_fn=self.mapping,
                    new_should_module_be_updated=[MAIN],
                )
        for module_id in built:
            if module_id not in self.league.snapshots:
                algorithm.remove_module(module_id, new_agent_to_module_mapping_fn=self.mapping)

    def add_snapshot(self, algorithm: Any) -> str:
        """Freeze a copy of ``main`` as the newest opponent; remove those the league drops."""
        module_id = f"snapshot_{self.added}"
        self.added += 1
        dropped = self.league.add_snapshot(module_id)
        self.mapping = LeagueMapping.of(self.num_players, self.league)
        algorithm.add_module(
            module_id=module_id,
            module_spec=self.spec,
            new_agent_to_module_mapping_fn=self.mapping,
            new_should_module_be_updated=[MAIN],
        )
        weights = algorithm.learner_group.get_weights(module_ids=[MAIN])[MAIN]
        algorithm.learner_group.set_weights({module_id: weights})
        algorithm.env_runner_group.sync_weights(
            from_worker_or_learner_group=algorithm.learner_group, inference_only=True
        )
        for old in dropped:
            algorithm.remove_module(old, new_agent_to_module_mapping_fn=self.mapping)
        return module_id

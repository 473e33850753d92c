"""Helpers shared by several test modules (not a test module: pytest collects nothing here).

Imports that need an extra (stable-baselines3) happen inside the functions that use them, so a
module importing this file runs without that extra.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hot_envs import heisse_karten, heisse_karten_v0, heisse_luft, heisse_luft_v0

# ------------------------------------------------------------------ the environments' setups


@dataclass(frozen=True)
class Setup:
    """One game with one set of options."""

    env_module: Any
    engine: Any
    env_id: str
    kwargs: dict = field(default_factory=dict)

    def env(self, **kwargs: Any) -> Any:
        return self.env_module.env(**self.kwargs, **kwargs)

    def raw_env(self, **kwargs: Any) -> Any:
        return self.env_module.raw_env(**self.kwargs, **kwargs)

    def new_state(self, seed: int) -> Any:
        return self.engine.State.new(seed=seed, **self.kwargs)

    def __str__(self) -> str:
        extra = ",".join(f"{k}={v}" for k, v in self.kwargs.items())
        return f"{self.env_module.__name__.rsplit('.', 1)[-1]}({extra})"


SETUPS = [Setup(heisse_luft_v0, heisse_luft, "hot_envs/heisse_luft-v0")] + [
    Setup(heisse_karten_v0, heisse_karten, "hot_envs/heisse_karten-v0", {"num_players": n})
    for n in range(2, 7)
]


def random_positions(setup: Setup, games: int, seed: int = 0) -> list[Any]:
    """States met along seeded random games, every few actions."""
    rng = np.random.default_rng(seed)
    positions = []
    for game in range(games):
        state = setup.new_state(seed + game)
        while not state.is_terminal():
            if rng.random() < 0.2:
                positions.append(state.clone())
            legal = state.legal_actions()
            state.apply(legal[rng.integers(len(legal))])
    return positions


def play_random(env: Any, seed: int) -> list[tuple]:
    """Play one seeded game through the AEC loop; the trace of (agent, obs bytes, reward)."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    trace = []
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        trace.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward))
        if terminated or truncated:
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return trace


# ------------------------------------------------------------------ records and checkpoints


def recorded_game(game: str, options: dict, seats: list[str], seed: int) -> dict:
    """A record as the arena writes one (:mod:`hot_envs.evaluation.records`), played here by the
    seats' agents."""
    from hot_envs.agents import make_agent
    from hot_envs.agents.base import decide
    from hot_envs.core.games import get_game
    from hot_envs.evaluation.records import make_record

    engine = get_game(game).engine
    state = engine.State.new(seed=seed, **options)
    agents = [make_agent(spec, game, s) for s, spec in enumerate(seats)]
    actions = []
    while not state.is_terminal():
        actions.append(decide(agents[state.current_player], engine, state, state.current_player))
        state.apply(actions[-1])
    return make_record(game, options, seed, seats, actions, state.returns())


def plays_every_seat(game: str, stem, counts) -> None:
    """The checkpoint's numpy agent finishes games in every seat of every player count, and the
    SB3 agent of the same checkpoint picks the same actions there (needs stable-baselines3)."""
    from hot_envs.agents.checkpoint import CheckpointAgent
    from hot_envs.agents.play import play_game
    from hot_envs.agents.random_agent import RandomAgent
    from hot_envs.core.games import get_game
    from hot_envs.training.export import SB3Agent

    agent = CheckpointAgent.load(stem, game=game)
    sb3 = SB3Agent.load(stem)
    module = get_game(game).env
    for n in counts:
        kwargs = {} if game == "heisse-luft" else {"num_players": n}
        for seat in range(n):
            env = module.env(**kwargs)
            agents = {name: RandomAgent(seat) for name in env.possible_agents}
            agents[f"player_{seat}"] = agent
            checked = []

            def same(name, observation, view, action, seat=seat, checked=checked):
                if name == f"player_{seat}" and len(checked) < 5:
                    checked.append(sb3.act(observation, view) == action)

            play_game(env, agents, seed=seat, on_action=same)
            assert env.unwrapped.game.is_terminal()
            assert checked and all(checked)


# ------------------------------------------------------------------ SB3 vector envs


def step_and_check_final_infos(envs, rng: np.random.Generator, steps: int) -> int:
    """Step Heiße Luft ``envs`` (an SB3 ``VecEnv``, in one process or on worker processes) with
    random legal actions; check every step's rewards, dones and infos as ``DummyVecEnv`` gives
    them; return how many games finished."""
    finished = 0
    for _ in range(steps):
        masks = np.stack(envs.env_method("action_masks"))
        assert masks.dtype == bool and masks.any(axis=1).all()
        _, rewards, dones, infos = envs.step((rng.random(masks.shape) * masks).argmax(axis=1))
        assert rewards.dtype == np.float32 and dones.dtype == bool
        for done, info in zip(dones, infos, strict=True):
            assert ("terminal_observation" in info) == done
            if done:
                finished += 1
                assert info["terminal_observation"].shape == (644,)
                assert info["TimeLimit.truncated"] == (info["returns"] == [0.0, 0.0])
                assert {"opponents", "win_share", "num_players", "is_success"} <= set(info)
    return finished


# The end of a tiny training run's config: one heuristic opponent, evaluations of two games.
TINY_LEAGUE_AND_EVAL = """
[league]
snapshot_every = 64
max_snapshots = 1
opponents = [{ spec = "heuristic" }]
[eval]
eval_every = 100000
eval_games = 2
final_eval_games = 2
"""

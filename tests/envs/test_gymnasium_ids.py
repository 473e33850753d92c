"""The Gymnasium ids of the single-agent view (docs/environments.md, "One learner against
opponents"): one per game, registered by ``import hot_envs``, options as keyword arguments."""

from __future__ import annotations

import json
import subprocess
import sys

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import hot_envs  # noqa: F401  (registers the ids)
from hot_envs.core.games import GAMES, get_game
from hot_envs.envs.registration import GYMNASIUM_IDS
from hot_envs.envs.single_agent import SingleAgentEnv
from hot_envs.envs.vector import VectorSingleAgentEnv

HL, HK = "hot_envs/HeisseLuft-v0", "hot_envs/HeisseKarten-v0"


class LowestLegal:
    """A deterministic opponent: the lowest legal action id."""

    def act(self, observation, view) -> int:
        return int(np.flatnonzero(observation["action_mask"])[0])


def _play(env: gymnasium.Env, reset_seed: int | None = None) -> list:
    """One whole episode with the lowest legal learner action: every observation and reward."""
    observation, _ = env.reset(seed=reset_seed)
    trajectory = [observation]
    while True:
        action = int(np.flatnonzero(env.unwrapped.action_masks())[0])
        observation, reward, terminated, truncated, _ = env.step(action)
        trajectory += [observation, reward]
        if terminated or truncated:
            return trajectory


def _same(a: list, b: list) -> bool:
    return len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def test_one_id_per_game_registered_by_importing_the_package_alone() -> None:
    code = """if True:
        import json, sys
        import gymnasium
        import hot_envs
        ids = [i for i in gymnasium.registry if i.startswith("hot_envs/")]
        print(json.dumps([ids, sorted(sys.modules)]))
    """
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    ids, modules = json.loads(result.stdout)
    assert sorted(ids) == [HK, HL]
    # registering imports no env code and nothing beyond numpy, gymnasium and pettingzoo
    assert "hot_envs.envs.registration" in modules
    assert not {"hot_envs.envs.single_agent", "hot_envs.envs.vector"} & set(modules)
    packages = {m.partition(".")[0] for m in modules}
    assert not {"torch", "numba", "stable_baselines3", "sb3_contrib", "ray"} & packages
    assert {get_game(game).name for game in GYMNASIUM_IDS.values()} == set(GAMES)


@pytest.mark.parametrize(
    ("env_id", "game", "size"), [(HL, "heisse-luft", 644), (HK, "heisse-karten", 670)]
)
def test_make_gives_the_games_single_agent_env(env_id: str, game: str, size: int) -> None:
    env = gymnasium.make(env_id)
    assert type(env.unwrapped) is SingleAgentEnv
    assert env.unwrapped.game_name == game
    assert env.spec.id == env_id
    observation, info = env.reset(seed=0)
    assert observation.shape == (size,)
    assert info["opponents"].count(None) == 1  # the learner's seat; the others: the default pool
    assert set(info["opponents"]) == {None, "random"}
    # the masks reach through Gymnasium's wrappers as get_wrapper_attr finds them
    assert env.get_wrapper_attr("action_masks")().any()


def test_keyword_arguments_are_the_envs_options() -> None:
    env = gymnasium.make(HK, players=2, opponents=["heuristic"], learner_seat=1, render_mode="ansi")
    _, info = env.reset(seed=3)
    assert (info["num_players"], info["learner_seat"]) == (2, 1)
    assert info["opponents"] == ["heuristic", None]
    assert isinstance(env.render(), str)
    _, info = gymnasium.make(HK, num_players=3).reset(seed=0)  # the AEC env's name for players
    assert info["num_players"] == 3
    luft = gymnasium.make(HL, game_options={"turn_limit": 50}, seed=7)
    assert luft.unwrapped.game_options == {"turn_limit": 50}


@pytest.mark.parametrize(
    ("env_id", "kwargs"),
    [
        (HL, {}),  # random opponents: a seeded reset seeds them anew
        (HK, {"players": 2}),
        (HL, {"opponents": [LowestLegal()]}),
        (HK, {"opponents": ["heuristic"], "players": 3}),
    ],
)
def test_gymnasiums_env_checker_passes(env_id: str, kwargs: dict) -> None:
    env = gymnasium.make(env_id, **kwargs)
    check_env(env.unwrapped, skip_render_check=True)
    check_env(gymnasium.make(env_id, render_mode="ansi", **kwargs).unwrapped)


@pytest.mark.parametrize("env_id", [HL, HK])
def test_seeding_repeats_the_episode(env_id: str) -> None:
    by_constructor = _play(gymnasium.make(env_id, seed=11))
    assert _same(by_constructor, _play(gymnasium.make(env_id, seed=11)))
    assert _same(by_constructor, _play(gymnasium.make(env_id), reset_seed=11))
    assert not _same(by_constructor, _play(gymnasium.make(env_id, seed=12)))


@pytest.mark.parametrize("env_id", [HL, HK])
def test_a_later_seeded_reset_of_the_same_env_repeats_the_episode(env_id: str) -> None:
    env = gymnasium.make(env_id)  # random opponents
    assert _same(_play(env, reset_seed=5), _play(env, reset_seed=5))


def test_make_vec_batches_the_games_or_vectorizes_gymnasiums_way() -> None:
    batched = gymnasium.make_vec(HK, num_envs=4, players=2, opponents=["heuristic"])
    assert isinstance(batched, VectorSingleAgentEnv)
    observations, _ = batched.reset(seed=0)
    assert observations.shape == (4, 670)
    masks = batched.action_masks()
    actions = np.array([np.flatnonzero(m)[0] for m in masks])
    _, rewards, terminated, truncated, _ = batched.step(actions)
    assert rewards.shape == (4,) and not terminated.any() and not truncated.any()

    synced = gymnasium.make_vec(HL, num_envs=2, vectorization_mode="sync")
    assert isinstance(synced, gymnasium.vector.SyncVectorEnv)
    observations, _ = synced.reset(seed=0)
    assert observations.shape == (2, 644)
    masks = np.stack(synced.call("action_masks"))
    _, _, terminated, _, info = synced.step(np.array([np.flatnonzero(m)[0] for m in masks]))
    assert not terminated.any() and "illegal_action" not in info


@pytest.mark.parametrize("mode", [None, "sync"])
def test_make_vec_takes_num_players_as_make_does(mode: str | None) -> None:
    envs = gymnasium.make_vec(HK, num_envs=4, num_players=3, vectorization_mode=mode)
    _, info = envs.reset(seed=0)
    assert info["num_players"].tolist() == [3] * 4
    with pytest.raises(TypeError, match="players= or num_players="):
        gymnasium.make_vec(HK, num_envs=2, num_players=3, players=3)


def test_a_bad_keyword_argument_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match=r"give num_players=3 \(or players=3\)"):
        gymnasium.make(HK, game_options={"num_players": 3})
    with pytest.raises(ValueError, match=r"give num_players=3 \(or players=3\)"):
        gymnasium.make_vec(HK, num_envs=2, game_options={"num_players": 3})
    with pytest.raises(TypeError, match="unexpected keyword argument 'num_player'"):
        gymnasium.make(HK, num_player=2)
    with pytest.raises(ValueError, match="2-player game, not 3"):
        gymnasium.make(HL, players=3)
    with pytest.raises(ValueError, match="render_mode must be one of"), pytest.warns(UserWarning):
        gymnasium.make(HL, render_mode="sound")

"""``hot_envs.envs.driver.Driver``, the one loop of the single-agent envs, on its own: the
end-of-game accounting, the learners' rewards, and that ``SingleAgentEnv`` is its one-game view."""

from __future__ import annotations

import numpy as np
import pytest

from hot_envs.agents.arrays import ActionScorerInput
from hot_envs.agents.features import SPECS, policy_input
from hot_envs.core.scoring import score
from hot_envs.envs.driver import Driver
from hot_envs.envs.single_agent import SingleAgentEnv


class Ended:
    """A finished game as ``score`` reads it."""

    def __init__(self, returns: list[float]) -> None:
        self._returns = returns

    def returns(self) -> list[float]:
        return self._returns


@pytest.mark.parametrize(
    ("returns", "seat", "winners", "share", "success"),
    [
        ([1, -1], 0, [0], 1.0, True),
        ([1, -1], 1, [0], 0.0, False),
        ([0, 0], 1, [0, 1], 0.5, False),  # a 2-player draw is half a win
        ([1, 1, -1], 0, [0, 1], 0.5, False),
        ([-1, 1, 1, 1], 0, [1, 2, 3], 0.0, False),
    ],
)
def test_score_counts_shared_wins_as_the_arena_does(returns, seat, winners, share, success):
    result = score(Ended(returns), seat)
    assert result == {
        "returns": [float(r) for r in returns],
        "winners": winners,
        "win_share": share,
        "is_success": success,
    }


def test_the_driver_pays_each_learner_its_return_when_its_game_ends():
    driver = Driver("heisse-karten", num_envs=4, players=[2, 3], opponents=["heuristic"])
    rngs = [np.random.default_rng(i) for i in range(4)]
    driver.reset(rngs)
    pick = np.random.default_rng(0)
    ended = 0
    for _ in range(40):
        actions = [int(pick.choice(np.flatnonzero(mask))) for mask in driver.masks]
        rewards, terminated, truncated, finals = driver.step(actions)
        assert rewards.dtype == np.float32 and not truncated.any()
        assert set(np.flatnonzero(terminated).tolist()) == set(finals)
        for i, final in finals.items():
            seat = final["learner_seat"]
            assert rewards[i] == final["returns"][seat] == driver.games[i].returns()[seat]
            opponents = final["opponents"]
            assert opponents[seat] is None and len(opponents) == final["num_players"]
        ended += len(finals)
        assert not rewards[~terminated].any()
        driver.new_games(finals, rngs)
        driver.observe()
    assert ended >= 4


def test_single_agent_env_is_the_one_game_driver():
    """The same generator, the same learner actions: the same observations, rewards and ends."""
    env = SingleAgentEnv("heisse-luft", opponents=["random", "heuristic"], shaping=0.5, seed=3)
    driver = Driver("heisse-luft", opponents=["random", "heuristic"], shaping=0.5)
    rng = np.random.default_rng(3)  # what gymnasium's reset(seed=3) seeds the env with
    observation, info = env.reset()
    driver.reset([rng])
    pick = np.random.default_rng(0)
    for _ in range(300):
        np.testing.assert_array_equal(observation, driver.observations[0])
        assert info["learner_seat"] == driver.seats[0]
        action = int(pick.choice(np.flatnonzero(env.action_masks())))
        observation, reward, terminated, truncated, info = env.step(action)
        rewards, *_ = driver.step([action])
        driver.observe()
        assert np.float32(reward) == rewards[0]
        if terminated or truncated:
            observation, info = env.reset()
            driver.reset([rng])


@pytest.mark.parametrize(
    ("game", "players"),
    [("heisse-luft", None), ("heisse-karten", 2), ("heisse-karten", [3, 4]), ("heisse-karten", 6)],
)
def test_the_batched_action_features_are_the_per_game_ones_bit_for_bit(game, players):
    """The driver computes every learner's features at once (``policy_input_batch``); each row
    is what ``policy_input`` gives for that learner's decision alone, to the bit."""
    driver = Driver(
        game,
        num_envs=16,
        players=players,
        opponents=["heuristic", "random"],
        policy_input=ActionScorerInput(game),
    )
    assert driver.observations.shape[1] == SPECS[driver.game_name].input_size
    rngs = [np.random.default_rng(100 + i) for i in range(driver.num_envs)]
    compared = 0

    def check() -> None:  # also the finished games, before they are dealt anew
        nonlocal compared
        for i, (state, seat) in enumerate(zip(driver.games, driver.seats.tolist(), strict=True)):
            expected = policy_input(
                driver.game_name, driver.engine.encode(state, seat), state.view(seat)
            )
            assert driver.observations[i].tobytes() == expected.tobytes()
            compared += 1

    driver.reset(rngs)
    pick = np.random.default_rng(1)
    for _ in range(60):
        check()
        actions = [int(pick.choice(np.flatnonzero(mask))) for mask in driver.masks]
        _, _, _, finals = driver.step(actions)
        if finals:
            driver.observe()
            check()
        driver.new_games(finals, rngs)
        driver.observe()
    assert compared >= 60 * driver.num_envs


def test_the_envs_know_no_policy_input_but_the_one_they_are_given():
    """What an env emits does not depend on the model that reads it: no single-agent env
    module imports the action scorers' input (or any feature code but the batched heuristic
    opponents), and a policy input of any size is emitted as given."""
    import ast
    from pathlib import Path

    import hot_envs

    modules = sorted((Path(hot_envs.__file__).parent / "envs").glob("*.py"))
    assert {m.stem for m in modules} >= {"driver", "single_agent", "vector", "vector_sb3"}
    for module in modules:
        name = module.stem
        tree = ast.parse(module.read_text(encoding="utf-8"))
        imported = {
            (node.module, alias.name)
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom)
            for alias in node.names
        }
        features = {pair for pair in imported if pair[0].startswith("hot_envs.agents.features")}
        assert not features, name
        scorer_input = {pair for pair in imported if pair[1] == "ActionScorerInput"}
        assert not scorer_input, name

    class Ones:
        size = 3

        def one(self, observation, view):
            return np.ones(3, np.float32)

        def arrays(self, games, which, seats, observations, out):
            out[:] = 1.0

    from hot_envs.envs.single_agent import SingleAgentEnv
    from hot_envs.envs.vector import VectorSingleAgentEnv

    single = SingleAgentEnv("heisse-luft", policy_input=Ones())
    assert single.observation_space.shape == (3,)
    np.testing.assert_array_equal(single.reset(seed=0)[0], np.ones(3))
    batch = VectorSingleAgentEnv("heisse-karten", num_envs=4, policy_input=Ones())
    np.testing.assert_array_equal(batch.reset(seed=0)[0], np.ones((4, 3)))


@pytest.mark.parametrize("critic_state", [False, True])
def test_the_learners_space_is_float32_without_gymnasiums_precision_warning(critic_state) -> None:
    """The action scorer's unbounded input (and the critic's state after it) is declared in
    float32, the dtype of the rows: gymnasium warns when a Box's bounds lose precision."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        driver = Driver(
            "heisse-luft",
            num_envs=1,
            policy_input=ActionScorerInput("heisse-luft"),
            critic_state=critic_state,
        )
    space = driver.observation_space
    assert space.dtype == np.float32 and space.low.dtype == np.float32
    assert np.isneginf(space.low[: driver.actor_size]).all()
    assert space.contains(driver.observations[0])

"""The Heiße Luft PettingZoo environment (docs/environments.md; HL-7.3/HL-7.4 in docs/rules.md).

The contract both games share (api/seed/render tests, registration, masks, wrappers) is in
``tests/envs/test_contract.py``; this file checks what is particular to Heiße Luft: its options, its
spaces and metadata, views, rewards at the end of a game and truncation. The helpers take an env
factory so they can join the shared suite.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pettingzoo
import pytest
from gymnasium import spaces
from pettingzoo.test import api_test, seed_test

import hot_envs  # noqa: F401  (registers the environments)
from hot_envs import heisse_luft_v0
from hot_envs.heisse_luft import LAYOUT, NUM_ACTIONS, State, action_mask, encode

from .positions import position_dict, stage

MakeEnv = Callable[..., Any]
ENV_ID = "hot_envs/heisse_luft-v0"
OPTION_SETS = {
    "default": {},
    "no three-for-one": {"three_for_one": False},
    "random starter": {"starting_player": "random"},
    "player_1 starts": {"starting_player": 1},
}
option_sets = pytest.mark.parametrize("options", OPTION_SETS.values(), ids=OPTION_SETS)


def play(
    env: Any,
    seed: int,
    step: Callable[[Any, str], None] | None = None,
    reset_options: dict | None = None,
) -> list[tuple]:
    """Play one game through the AEC loop with actions from ``np.random.default_rng(seed)``;
    ``step(env, agent)`` is called before each live step. Returns the trace of
    (agent, observation, mask, reward, terminated, truncated) as seen by ``env.last()``."""
    env.reset(seed=seed, options=reset_options)
    chooser = np.random.default_rng(seed)
    trace = []
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        trace.append((agent, obs["observation"], obs["action_mask"], reward, terminated, truncated))
        if terminated or truncated:
            env.step(None)
            continue
        if step is not None:
            step(env, agent)
        env.step(int(chooser.choice(np.flatnonzero(obs["action_mask"]))))
    return trace


def same_traces(a: list[tuple], b: list[tuple]) -> bool:
    return len(a) == len(b) and all(
        x[0] == y[0]
        and np.array_equal(x[1], y[1])
        and np.array_equal(x[2], y[2])
        and x[3:] == y[3:]
        for x, y in zip(a, b, strict=True)
    )


# ---------------------------------------------------------------------- PettingZoo's own tests


@option_sets
def test_pettingzoo_api_test_with_every_option_set(options):
    api_test(heisse_luft_v0.env(**options), num_cycles=1000)


@pytest.mark.parametrize("options", [{"starting_player": "random"}], ids=["random starter"])
def test_pettingzoo_seed_test_with_a_random_starting_player(options):
    seed_test(lambda **kw: heisse_luft_v0.env(**options, **kw), num_cycles=300)


def test_make_from_the_pettingzoo_registry_passes_options_through():
    env = pettingzoo.make("aec", ENV_ID, three_for_one=False, starting_player=1)
    env.reset(seed=0)
    assert env.unwrapped.metadata["name"] == "heisse_luft_v0"
    assert env.unwrapped.game.options["three_for_one"] is False
    assert env.agent_selection == "player_1"


# ------------------------------------------------ spaces (metadata: tests/envs/test_contract.py)


def test_spaces():
    """Dict(observation: Box(0, 1, (LAYOUT.size,), float32), action_mask: Box(0, 1, (366,),
    int8)); actions Discrete(366); two agents player_0 and player_1."""
    env = heisse_luft_v0.env()
    assert env.possible_agents == ["player_0", "player_1"]
    for agent in env.possible_agents:
        space = env.observation_space(agent)
        assert isinstance(space, spaces.Dict) and set(space.spaces) == {
            "observation",
            "action_mask",
        }
        observation, mask = space["observation"], space["action_mask"]
        assert observation.shape == (LAYOUT.size,) and observation.dtype == np.float32
        assert (observation.low == 0).all() and (observation.high == 1).all()
        assert mask.shape == (NUM_ACTIONS,) and mask.dtype == np.int8
        assert (mask.low == 0).all() and (mask.high == 1).all()
        assert env.action_space(agent) == spaces.Discrete(NUM_ACTIONS)


# ---------------------------------------------------------------------- options and seeding


@pytest.mark.parametrize("starting_player", [0, 1])
def test_starting_player_option_picks_the_first_agent(starting_player):
    """HL-2.5: player_0 starts unless configured otherwise."""
    env = heisse_luft_v0.env(starting_player=starting_player)
    for seed in range(5):
        env.reset(seed=seed)
        assert env.agent_selection == f"player_{starting_player}"
        assert env.unwrapped.game.current_player == starting_player


def test_random_starting_player_comes_from_the_seed():
    """HL-2.5 "random": drawn from the env's seeded generator — both seats occur, and the same
    seed always gives the same starter."""
    env = heisse_luft_v0.env(starting_player="random")
    starters = {}
    for seed in range(20):
        env.reset(seed=seed)
        starters[seed] = env.agent_selection
    assert set(starters.values()) == {"player_0", "player_1"}
    for seed, starter in starters.items():
        env.reset(seed=seed)
        assert env.agent_selection == starter


@pytest.mark.parametrize(
    "options",
    [{"three_for_one": False}, {"starting_player": "random"}, {"turn_limit": 50}],
    ids=["three_for_one", "starting_player", "turn_limit"],
)
def test_env_options_reach_the_engine(options):
    env = heisse_luft_v0.env(**options)
    env.reset(seed=0)
    game_options = env.unwrapped.game.options
    assert {k: game_options[k] for k in options} == options


def test_without_three_for_one_the_observation_says_so():
    env = heisse_luft_v0.env(three_for_one=False)
    env.reset(seed=0)
    pieces = LAYOUT.split(env.observe(env.agent_selection)["observation"])
    assert pieces["three_for_one"].tolist() == [0.0]


@option_sets
def test_same_seed_same_game_action_for_action(options):
    """Two envs, same seed and same seeded action choices: the same agents, observations,
    masks and rewards, step by step."""
    first = play(heisse_luft_v0.env(**options), seed=13)
    second = play(heisse_luft_v0.env(**options), seed=13)
    assert same_traces(first, second)
    assert not same_traces(first, play(heisse_luft_v0.env(**options), seed=14))


def test_reset_with_the_same_seed_repeats_the_game_and_without_a_seed_moves_on():
    env = heisse_luft_v0.env()
    env.reset(seed=3)
    deal = env.unwrapped.game.to_dict()
    env.reset(seed=3)
    assert env.unwrapped.game.to_dict() == deal
    env.reset()
    assert env.unwrapped.game.to_dict() != deal


# ---------------------------------------------------------------------- observations and views


def check_observations_and_views(make_env: MakeEnv, seed: int) -> None:
    """At every step both agents' observations are the engine's encoding and mask, and
    ``env.unwrapped.view(agent)`` is the engine's view of that seat."""

    def check(env: Any, _: str) -> None:
        game = env.unwrapped.game
        for seat, agent in enumerate(env.possible_agents):
            obs = env.observe(agent)
            np.testing.assert_array_equal(obs["observation"], encode(game, seat))
            np.testing.assert_array_equal(obs["action_mask"], action_mask(game, seat))
            assert env.unwrapped.view(agent) == game.view(seat)

    play(make_env(), seed, step=check)


@pytest.mark.parametrize("seed", [0, 1])
def test_observations_and_views_are_the_engines(seed):
    check_observations_and_views(heisse_luft_v0.env, seed)


def test_ansi_render_is_the_table_seen_by_the_player_to_move():
    env = heisse_luft_v0.env(render_mode="ansi")
    env.reset(seed=0)
    game = env.unwrapped.game
    assert env.render() == game.render(viewer=game.current_player)


def test_render_without_a_render_mode_returns_nothing():
    env = heisse_luft_v0.raw_env()
    env.reset(seed=0)
    assert env.render() is None


# ---------------------------------------------------------------------- rewards and the end


def final_rewards(env: Any, position: dict) -> tuple[dict, dict, str]:
    """Play the game from ``position`` (via ``reset(options={"state": …})``) to its end; return
    each agent's reward from ``env.last()`` when its game ended, the cumulative rewards just
    before the last move, and the agent that made the last move."""
    ended: dict[str, float] = {}
    before_end: dict[str, float] = {}
    last_mover = [""]

    def remember(env: Any, agent: str) -> None:
        before_end.update(env.unwrapped._cumulative_rewards)
        last_mover[0] = agent

    trace = play(env, seed=0, step=remember, reset_options={"state": position})
    for agent, _, _, reward, terminated, truncated in trace:
        if terminated or truncated:
            ended[agent] = reward
    return ended, before_end, last_mover[0]


def last_flight(mover: int, spare_prizes: int | str) -> dict:
    """Only stage 1 (lowland, one ♥ prize) is left and the prize deck is empty. The other
    player's ♥5 lies on their side; ``mover`` completes the stage with ♥9 on their own side and
    loses it (HL-4.2), the stage leaves the game (HL-5.4), nobody can claim a trophy, and with
    one trophy each (player_0 ♥, player_1 ♦) HL-7.2 decides on prize cards: the other 26 lie in
    ``spare_prizes``'s trophy cards, or alternately in both players' (then player_0 holds 20,
    player_1 19)."""
    sides = [[], []]
    sides[1 - mover] = ["H5"]
    hands = [["D1"], ["D2"]]
    hands[mover] = ["H9"]
    return position_dict(
        hands=tuple(hands),
        stages={1: stage("H", *sides, last=1 - mover)},
        current_player=mover,
        trophies=("H", "D"),
        spare_prizes=spare_prizes,
    )


def test_the_loser_gets_minus_one_when_their_own_move_ends_the_game():
    """HL-7.4: the game ends on player_0's move, which player_1 wins on prize cards (HL-7.2):
    player_0 −1, player_1 +1, both only at the end."""
    env = heisse_luft_v0.env()
    ended, before_end, last_mover = final_rewards(env, last_flight(mover=0, spare_prizes=1))
    assert last_mover == "player_0" and env.unwrapped.game.winner == 1
    assert ended == {"player_0": -1.0, "player_1": 1.0}
    assert before_end == {"player_0": 0.0, "player_1": 0.0}


def test_the_winner_gets_plus_one_when_their_own_move_ends_the_game():
    env = heisse_luft_v0.env()
    ended, before_end, last_mover = final_rewards(env, last_flight(mover=1, spare_prizes=1))
    assert last_mover == "player_1" and env.unwrapped.game.winner == 1
    assert ended == {"player_0": -1.0, "player_1": 1.0}
    assert before_end == {"player_0": 0.0, "player_1": 0.0}


def test_a_drawn_game_gives_zero_to_both():
    """HL-7.2/7.4: equal trophies (one each) and equal prize cards (20 each) is a draw."""
    env = heisse_luft_v0.env()
    ended, _, _ = final_rewards(env, last_flight(mover=0, spare_prizes="split"))
    assert env.unwrapped.game.winner == "draw"
    assert ended == {"player_0": 0.0, "player_1": 0.0}


@pytest.mark.parametrize("seed", range(5))
def test_random_games_end_with_the_engine_returns_and_nothing_before(seed):
    """In whole random games the only non-zero rewards are the final ones, equal to returns()."""
    env = heisse_luft_v0.env()
    trace = play(env, seed)
    returns = dict(zip(env.possible_agents, env.unwrapped.game.returns(), strict=True))
    ended = {agent: reward for agent, _, _, reward, term, trunc in trace if term or trunc}
    assert ended == returns and sorted(returns.values()) == [-1.0, 1.0]
    assert all(reward == 0.0 for _, _, _, reward, term, trunc in trace if not (term or trunc))


@pytest.mark.parametrize("turn_limit", [1, 5, 30])
def test_truncation_at_the_turn_limit(turn_limit):
    """HL-7.3: a game reaching its turn limit is truncated for both agents, without a winner
    and with 0 rewards."""
    env = heisse_luft_v0.env(turn_limit=turn_limit)
    trace = play(env, seed=0)
    game = env.unwrapped.game
    assert game.is_truncated() and game.turn == turn_limit
    final = {agent: (reward, term, trunc) for agent, _, _, reward, term, trunc in trace[-2:]}
    assert final == {"player_0": (0.0, False, True), "player_1": (0.0, False, True)}
    assert all(reward == 0.0 for _, _, _, reward, _, _ in trace)


def test_reset_to_a_trophy_phase_position_asks_the_stage_winner():
    """reset(options={"state": …}) sets up a position; the agent to act is the engine's mover."""
    env = heisse_luft_v0.env()
    state = State.new(seed=5)
    chooser = np.random.default_rng(5)
    while state.to_dict()["phase"] != "trophy":
        legal = state.legal_actions()
        state.apply(legal[chooser.integers(len(legal))])
    env.reset(seed=0, options={"state": state.to_dict()})
    assert env.agent_selection == f"player_{state.current_player}"
    mask = env.observe(env.agent_selection)["action_mask"]
    assert np.flatnonzero(mask).tolist() == state.legal_actions()
    assert mask[365] == 1  # stop claiming is always possible

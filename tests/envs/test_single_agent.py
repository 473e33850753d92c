"""The single-agent Gymnasium wrapper: spaces, masks, seeding, the opponent pool, and above all
that the learner gets its own final reward whoever ends the game (PettingZoo issue #1147)."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from hot_envs.core.games import get_game
from hot_envs.envs.single_agent import (
    OpponentPool,
    SingleAgentEnv,
    random_decisions,
    random_observations,
)
from hot_envs.heisse_karten import State as KartenState
from tests.heisse_luft.positions import OWN, play, position_dict, stage

GAMES = [("heisse-luft", None), ("heisse-karten", 2), ("heisse-karten", [2, 3, 4, 5, 6])]


def play_out(env: SingleAgentEnv, rng: np.random.Generator, **reset: object) -> list[tuple]:
    """Random legal learner moves to the end; one ``(reward, terminated, truncated, info)`` per
    step."""
    env.reset(**reset)
    steps = []
    while not steps or not (steps[-1][1] or steps[-1][2]):
        legal = np.flatnonzero(env.action_masks())
        _, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
        steps.append((reward, terminated, truncated, info))
    return steps


@pytest.mark.parametrize(("game", "players"), GAMES)
def test_sb3_check_env(game, players):
    env_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    env_checker.check_env(SingleAgentEnv(game, players=players, seed=0), warn=True)


@pytest.mark.parametrize(("game", "players"), GAMES)
def test_masks_are_the_learners_legal_actions_and_observations_its_encoding(game, players):
    env = SingleAgentEnv(game, opponents=["random", "heuristic"], players=players, seed=1)
    rng = np.random.default_rng(1)
    for _ in range(3):
        observation, info = env.reset()
        done = False
        while not done:
            state, seat = env.game, info["learner_seat"]
            assert state.current_player == seat
            assert np.flatnonzero(env.action_masks()).tolist() == state.legal_actions()
            assert np.array_equal(observation, env.engine.encode(state, seat))
            assert env.observation_space.contains(observation)
            action = int(rng.choice(state.legal_actions()))
            observation, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        assert not env.action_masks().any()


# ------------------------------------------------------------------ reward attribution


def karten_ending(leader: int) -> dict:
    """Two players, one card each: seat 0 holds 40 (black, wins the trick), seat 1 holds 3;
    seat 0 has taken every other black card, so seat 0 wins the game (560 to −573 before the
    last trick). ``leader`` plays first; the other seat's card ends the game."""
    rest = [c for c in range(1, 49) if c not in (40, 3)]
    return {
        "game": "heisse_karten",
        "num_players": 2,
        "current_player": leader,
        "leader": leader,
        "hands": [[40], [3]],
        "draw_pile": [],
        "set_aside": [],
        "trick": [],
        "taken": [[c for c in rest if c % 2 == 0], [c for c in rest if c % 2 == 1]],
    }


def luft_last_stage(mover: int, spare_prizes: int | str) -> dict:
    """Heiße Luft, only stage 1 left (lowland, one ♥ prize, both sides empty), one trophy each,
    the other prize cards in ``spare_prizes``'s trophy cards (or split). ``mover`` holds ♥9, the
    other player ♥5: after ``mover`` puts ♥9 on their side, the other player's forced ♥5 completes
    and wins the stage, no stage is left and prize cards decide (HL-7.2)."""
    hands = [[], []]
    hands[mover], hands[1 - mover] = ["H9"], ["H5"]
    return position_dict(
        hands=tuple(hands),
        stages={1: stage("H")},
        current_player=mover,
        trophies=("H", "D"),
        spare_prizes=spare_prizes,
    )


def test_learner_wins_on_the_opponents_move_heisse_karten():
    env = SingleAgentEnv("heisse-karten", learner_seat=0, players=2, seed=0)
    env.reset(options={"state": karten_ending(leader=0)})
    _, reward, terminated, truncated, info = env.step(39)  # play 40; seat 1 ends the game
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert info["winners"] == [0] and info["is_success"] and info["win_share"] == 1.0


def test_learner_wins_on_the_opponents_move_heisse_luft():
    env = SingleAgentEnv("heisse-luft", learner_seat=0, seed=0)
    env.reset(options={"state": luft_last_stage(mover=0, spare_prizes=0)})
    _, reward, terminated, truncated, info = env.step(play("H9", 1, OWN))
    assert env.game.is_terminal() and env.game.winner == 0
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert info["returns"] == [1.0, -1.0]


def test_learner_loses_on_its_own_move():
    """The opponent (seat 0) leads inside ``reset``; the learner's own last card ends the game."""
    env = SingleAgentEnv("heisse-karten", learner_seat=1, players=2, seed=0)
    env.reset(options={"state": karten_ending(leader=0)})
    assert env.game.current_player == 1 and env.game.view(1)["trick"] == [[0, 40]]
    _, reward, terminated, truncated, info = env.step(2)  # play 3
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["winners"] == [0] and not info["is_success"] and info["win_share"] == 0.0


def test_learner_loses_on_the_opponents_move_in_heisse_luft():
    env = SingleAgentEnv("heisse-luft", learner_seat=0, seed=0)
    env.reset(options={"state": luft_last_stage(mover=0, spare_prizes=1)})
    _, reward, terminated, _, _ = env.step(play("H9", 1, OWN))
    assert (reward, terminated) == (-1.0, True)


def test_a_draw_gives_zero_and_half_a_win():
    """Split spare prizes: player_0 holds 20 prize cards, player_1 19 plus the stage's ♥."""
    env = SingleAgentEnv("heisse-luft", learner_seat=0, seed=0)
    env.reset(options={"state": luft_last_stage(mover=0, spare_prizes="split")})
    _, reward, terminated, truncated, info = env.step(play("H9", 1, OWN))
    assert env.game.winner == "draw"
    assert (reward, terminated, truncated) == (0.0, True, False)
    assert info["win_share"] == 0.5 and not info["is_success"]


@pytest.mark.parametrize("turn_limit", [1, 4, 20])
def test_truncation_at_the_turn_limit_gives_zero_and_truncated(turn_limit):
    env = SingleAgentEnv(
        "heisse-luft", game_options={"turn_limit": turn_limit}, learner_seat=0, seed=3
    )
    steps = play_out(env, np.random.default_rng(3))
    reward, terminated, truncated, _ = steps[-1]
    assert (reward, terminated, truncated) == (0.0, False, True)
    assert all(r == 0.0 for r, *_ in steps)


@pytest.mark.parametrize(("game", "players"), GAMES)
def test_whole_games_pay_the_engines_return_once_at_the_end(game, players):
    env = SingleAgentEnv(game, opponents=["random", "heuristic"], players=players, seed=4)
    rng = np.random.default_rng(4)
    for _ in range(10):
        steps = play_out(env, rng)
        *middle, (reward, terminated, _, info) = steps
        assert all(r == 0.0 and not t for r, t, *_ in middle)
        assert terminated and reward == env.game.returns()[info["learner_seat"]]


@pytest.mark.parametrize(("game", "players"), GAMES)
def test_shaping_moves_credit_but_keeps_the_episode_return(game, players):
    env = SingleAgentEnv(game, players=players, shaping=1.0, seed=5)
    rng = np.random.default_rng(5)
    shaped_any = False
    for _ in range(5):
        steps = play_out(env, rng)
        total = sum(r for r, *_ in steps)
        assert total == pytest.approx(env.game.returns()[steps[-1][3]["learner_seat"]], abs=1e-9)
        shaped_any |= any(r != 0.0 for r, *_ in steps[:-1])
    assert shaped_any


def test_an_illegal_action_ends_the_episode_with_minus_one():
    env = SingleAgentEnv("heisse-karten", players=3, seed=0)
    env.reset()
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


# ------------------------------------------------------------------ seats, pool, seeding


def test_same_seed_same_episodes():
    def trace(seed: int) -> list:
        env = SingleAgentEnv("heisse-karten", opponents=["random"], players=[2, 4, 6])
        rng = np.random.default_rng(0)
        return [
            (s[0], s[3]["learner_seat"], s[3]["num_players"])
            for i in range(4)
            for s in play_out(env, rng, **({"seed": seed} if i == 0 else {}))
        ]

    assert trace(7) == trace(7)
    assert trace(7) != trace(8)


def test_rotating_seat_and_player_counts_cover_every_case():
    env = SingleAgentEnv("heisse-karten", players=[2, 3], seed=0)
    seen = set()
    for _ in range(60):
        _, info = env.reset()
        seen.add((info["num_players"], info["learner_seat"]))
    assert seen == {(2, 0), (2, 1), (3, 0), (3, 1), (3, 2)}


def test_pool_sampling_follows_the_weights():
    pool = OpponentPool([("random", 3.0), ("heuristic", 1.0), ("search:2", 0.0)])
    rng = np.random.default_rng(0)
    draws = [pool.sample(rng) for _ in range(4000)]
    assert "search:2" not in draws
    assert draws.count("random") / len(draws) == pytest.approx(0.75, abs=0.03)
    pool.set("random", None, 0.0)
    assert {pool.sample(rng) for _ in range(50)} == {"heuristic"}
    pool.remove("heuristic")
    with pytest.raises(ValueError, match="weight 0"):
        pool.sample(rng)


def test_pool_changes_wait_for_the_next_episode():
    env = SingleAgentEnv("heisse-karten", opponents=["random"], players=4, seed=0)
    env.reset()
    env.remove_opponent("random")
    env.set_opponent("heuristic", "heuristic", 1.0)
    rng = np.random.default_rng(0)
    done = False
    while not done:  # the random opponents finish the game they started
        _, _, done, _, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
    assert set(info["opponents"]) == {None, "random"}
    _, info = env.reset()
    assert set(info["opponents"]) == {None, "heuristic"}


def test_opponents_can_be_agents_factories_or_specs():
    class Lowest:
        def act(self, observation, view):
            return int(np.flatnonzero(observation["action_mask"])[0])

    built = []

    def factory(seed: int) -> Lowest:
        built.append(seed)
        return Lowest()

    for source in (Lowest(), factory, "random"):
        env = SingleAgentEnv("heisse-karten", opponents=[source], players=4, seed=0)
        play_out(env, np.random.default_rng(0))
    assert len(built) == 1  # a factory is called once, not per episode


def test_bad_arguments_are_clear_errors():
    with pytest.raises(ValueError, match="2-player"):
        SingleAgentEnv("heisse-luft", players=3)
    with pytest.raises(ValueError, match="learner_seat"):
        SingleAgentEnv("heisse-karten", players=[2, 4], learner_seat=2)
    with pytest.raises(ValueError, match="unknown game"):
        SingleAgentEnv("skat")
    with pytest.raises(ValueError, match="no agent"):
        SingleAgentEnv("heisse-luft", opponents=[42])
    with pytest.raises(ValueError, match="2–6 players, not 9"):
        SingleAgentEnv("heisse-karten", players=9)
    env = SingleAgentEnv("heisse-karten", players=2, seed=0)
    finished = KartenState.new(seed=0, num_players=2)
    while not finished.is_terminal():
        finished.apply(finished.legal_actions()[0])
    with pytest.raises(ValueError, match="in progress"):
        env.reset(options={"state": finished.to_dict()})
    env = SingleAgentEnv("heisse-luft", game_options={"turn_limit": 1}, learner_seat=1)
    with pytest.raises(ValueError, match="before the learner's first decision"):
        env.reset(seed=0)


@pytest.mark.slow  # worker processes
def test_subproc_vec_env_steps_with_masks():
    pytest.importorskip("stable_baselines3")
    from functools import partial

    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import SubprocVecEnv

    make = partial(SingleAgentEnv, "heisse-karten", opponents=["heuristic"], players=[2, 5])
    envs = make_vec_env(make, n_envs=2, seed=0, vec_env_cls=SubprocVecEnv)
    try:
        envs.reset()
        rng = np.random.default_rng(0)
        finished = 0
        for _ in range(60):
            masks = np.stack(envs.env_method("action_masks"))
            actions = [int(rng.choice(np.flatnonzero(m))) for m in masks]
            _, _, dones, infos = envs.step(np.array(actions))
            finished += sum("returns" in info for info, d in zip(infos, dones, strict=True) if d)
        assert finished >= 2
        envs.env_method("set_opponent", "random", "random", 1.0)
        assert envs.get_attr("pool")[0].entries.keys() == {"heuristic", "random"}
    finally:
        envs.close()


@pytest.mark.parametrize(("game", "players"), GAMES)
def test_random_observations_are_seeded_learner_inputs(game, players):
    space = SingleAgentEnv(game, players=players, seed=0).observation_space
    batch = random_observations(game, players, 300, seed=3)
    assert len(batch) == 300
    for item in batch:
        assert item.keys() == {"observation", "action_mask"}
        assert space.contains(item["observation"])
        assert item["action_mask"].dtype == np.int8 and item["action_mask"].any()
    again = random_observations(game, players, 300, seed=3)
    other = random_observations(game, players, 300, seed=4)
    assert all(np.array_equal(a[k], b[k]) for a, b in zip(batch, again, strict=True) for k in a)
    assert not all(
        np.array_equal(a["observation"], b["observation"])
        for a, b in zip(batch, other, strict=True)
    )


@pytest.mark.parametrize(("game", "players"), GAMES)
def test_random_decisions_are_the_random_observations_with_the_learners_views(game, players):
    engine = get_game(game).engine
    decisions = random_decisions(game, players, 300, seed=3)
    observations = random_observations(game, players, 300, seed=3)
    assert len(decisions) == 300
    for (item, view), expected in zip(decisions, observations, strict=True):
        assert item.keys() == expected.keys()
        assert all(np.array_equal(item[k], expected[k]) for k in item)
        assert item["action_mask"].dtype == np.int8
        # each view is that decision's own (a snapshot, not the game as it went on): a state
        # consistent with it encodes to the same observation and the same legal actions
        seat = view["player"]
        state = engine.State.from_view(view, rng=0)
        assert state.current_player == seat
        np.testing.assert_array_equal(engine.encode(state, seat), item["observation"])
        np.testing.assert_array_equal(engine.action_mask(state, seat), item["action_mask"])


def test_the_envs_and_the_numpy_agent_import_and_run_without_torch_or_sb3(monkeypatch):
    """In this process, with torch and SB3 made unimportable: the vector env's module and the
    random agent (what ``reset`` loads for the default opponent) are imported afresh, and both
    envs reset. That the rest of the envs' and the checkpoint agent's imports load no torch, in a
    fresh interpreter, is tests/test_layers.py's program (it imports the single-agent env and
    plays the checkpoints)."""
    import importlib

    for name in ("torch", "stable_baselines3", "sb3_contrib"):
        monkeypatch.setitem(sys.modules, name, None)  # import torch raises ImportError
    for name in ("hot_envs.envs.vector", "hot_envs.agents.random_agent"):
        monkeypatch.delitem(sys.modules, name, raising=False)  # put back after the test
    vector = importlib.import_module("hot_envs.envs.vector")
    SingleAgentEnv("heisse-luft", seed=0).reset()
    vector.VectorSingleAgentEnv("heisse-karten", num_envs=2, seed=0).reset()
    assert "hot_envs.agents.random_agent" in sys.modules


def test_num_players_is_players_as_the_aec_env_names_it():
    by_name = SingleAgentEnv("heisse-karten", num_players=3, seed=0)
    assert by_name.player_counts == (3,)
    assert by_name.reset()[1]["num_players"] == 3
    assert by_name.reset(seed=7)[0].tolist() == (
        SingleAgentEnv("heisse-karten", players=3).reset(seed=7)[0].tolist()
    )
    with pytest.raises(TypeError, match="players= or num_players="):
        SingleAgentEnv("heisse-karten", players=3, num_players=3)
    with pytest.raises(TypeError, match="colour"):
        SingleAgentEnv("heisse-karten", colour="red")


@pytest.mark.parametrize("game", ["heisse-karten", "heisse-luft"])
def test_a_player_count_in_game_options_says_where_it_goes(game):
    with pytest.raises(ValueError, match=r"give num_players=3 \(or players=3\)"):
        SingleAgentEnv(game, game_options={"num_players": 3})


def test_the_signature_spells_out_the_options():
    import inspect

    parameters = inspect.signature(SingleAgentEnv).parameters
    assert {"opponents", "players", "shaping", "seed", "render_mode"} <= set(parameters)

"""``hot_envs.envs.vector_workers.SubprocVectorSingleAgentEnv`` and ``SB3VectorEnv(workers=K)``: the
batched games split over worker processes play exactly the games of one in-process
``VectorSingleAgentEnv`` per worker, keep their pools in step, report workers' errors and leave
no processes behind."""

from __future__ import annotations

import os
import signal

import numpy as np
import pytest

from hot_envs.envs.vector import VectorSingleAgentEnv
from hot_envs.envs.vector_workers import SubprocVectorSingleAgentEnv, WorkerError
from tests.helpers import step_and_check_final_infos

OPTIONS = {"opponents": ["random", ("heuristic", 2.0)], "game_options": {"turn_limit": 8}}


@pytest.fixture
def workers_env():
    """Five Heiße Luft games (short: turn limit 8) over two workers, seed 3: games 0–2 in
    worker 0, 3–4 in worker 1."""
    env = SubprocVectorSingleAgentEnv("heisse-luft", num_envs=5, workers=2, seed=3, **OPTIONS)
    yield env
    env.close()


def random_actions(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    return (rng.random(masks.shape) * masks).argmax(axis=1)


def test_workers_play_the_games_of_one_in_process_env_each_seeded_seed_plus_k(workers_env):
    parts = [
        VectorSingleAgentEnv("heisse-luft", 3, seed=3, **OPTIONS),
        VectorSingleAgentEnv("heisse-luft", 2, seed=4, **OPTIONS),
    ]
    observations, info = workers_env.reset()
    answers = [part.reset() for part in parts]
    np.testing.assert_array_equal(observations, np.concatenate([a[0] for a in answers]))
    np.testing.assert_array_equal(info["learner_seat"], [*parts[0].seats, *parts[1].seats])
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(30):
        masks = workers_env.action_masks()
        np.testing.assert_array_equal(masks, np.concatenate([p.action_masks() for p in parts]))
        actions = random_actions(rng, masks)
        joined = workers_env.step(actions)
        answers = [parts[0].step(actions[:3]), parts[1].step(actions[3:])]
        for got, *expected in zip(joined[:4], *[a[:4] for a in answers], strict=True):
            np.testing.assert_array_equal(got, np.concatenate(expected))
        info, infos = joined[4], [a[4] for a in answers]
        if "final_info" not in info:
            assert not any("final_info" in i for i in infos)
            continue
        finished += int(info["_final_info"].sum())
        blanks = {  # what a worker none of whose games ended stands for
            "final_obs": lambda n: np.zeros((n, 644), np.float32),
            "_final_obs": lambda n: np.zeros(n, bool),
            "final_info": lambda n: np.full(n, None, object),
        }
        for key, blank in blanks.items():
            expected = [i.get(key, blank(p.num_envs)) for i, p in zip(infos, parts, strict=True)]
            assert info[key].tolist() == np.concatenate(expected).tolist(), key
    assert finished >= 5  # games ended in both workers (turn limit 8)


def test_the_same_seed_deals_the_same_games_and_masks_are_the_legal_actions(workers_env):
    """``reset(seed=11)`` deals what in-process envs reset with seeds 11 and 12 deal (worker k
    seeded seed + k, as at construction above), without a second set of worker processes."""
    again = [
        VectorSingleAgentEnv("heisse-luft", 3, **OPTIONS),
        VectorSingleAgentEnv("heisse-luft", 2, **OPTIONS),
    ]
    first, _ = workers_env.reset(seed=11)
    expected = [part.reset(seed=11 + k)[0] for k, part in enumerate(again)]
    np.testing.assert_array_equal(np.concatenate(expected), first)
    seeds = [list(part.deal_seeds) for part in again]
    assert [list(worker) for worker in workers_env.get_attr("deal_seeds")] == seeds
    rng = np.random.default_rng(1)
    for _ in range(10):
        masks = workers_env.action_masks()
        games = [g for games in workers_env.get_attr("games") for g in games]
        seats = np.concatenate(workers_env.get_attr("seats"))
        for mask, game, seat in zip(masks, games, seats, strict=True):
            assert game.current_player == seat
            assert np.flatnonzero(mask).tolist() == sorted(game.legal_actions())
        actions = random_actions(rng, masks)
        answers = [again[0].step(actions[:3]), again[1].step(actions[3:])]
        for got, *parts in zip(
            workers_env.step(actions)[:4], *[a[:4] for a in answers], strict=True
        ):
            np.testing.assert_array_equal(got, np.concatenate(parts))


def test_set_opponent_reaches_every_worker(workers_env):
    workers_env.reset(seed=0)
    workers_env.set_opponent("marker", "random", 1.0)
    workers_env.set_opponent("random", None, 0.0)
    workers_env.set_opponent("heuristic", None, 0.0)
    assert [sorted(pool.entries) for pool in workers_env.get_attr("pool")] == [
        ["heuristic", "marker", "random"]
    ] * 2
    rng = np.random.default_rng(2)
    redealt = np.zeros(5, dtype=bool)
    for _ in range(40):
        info = workers_env.step(random_actions(rng, workers_env.action_masks()))[4]
        redealt |= info.get("_final_info", False)
    assert redealt.all()  # every game ended and was dealt anew, in both workers
    names = [set(n) - {None} for n in np.concatenate(workers_env.get_attr("opponent_names"))]
    assert names == [{"marker"}] * 5
    workers_env.remove_opponent("marker")
    assert all("marker" not in pool.entries for pool in workers_env.get_attr("pool"))


def test_a_workers_error_is_raised_in_the_main_process_with_its_message(workers_env):
    workers_env.reset(seed=0)
    with pytest.raises(AttributeError, match="no_such_method"):
        workers_env.call("no_such_method")
    # three legal actions suit worker 0 (games 0–2), not worker 1 (games 3–4)
    actions = random_actions(np.random.default_rng(3), workers_env.action_masks()[:3])
    with pytest.raises(ValueError, match="actions must be 2 integers") as raised:
        workers_env.call("step", actions)
    assert isinstance(raised.value.__cause__, WorkerError)
    assert "in worker 1" in str(raised.value.__cause__)
    assert "Traceback" in str(raised.value.__cause__)
    # an opponent that cannot be built fails when a worker deals it
    workers_env.set_opponent("broken", "no-such-agent", 1.0)
    workers_env.set_opponent("random", None, 0.0)
    workers_env.set_opponent("heuristic", None, 0.0)
    rng = np.random.default_rng(3)
    with pytest.raises(ValueError, match="no-such-agent"):
        for _ in range(40):
            workers_env.step(random_actions(rng, workers_env.action_masks()))


def test_an_illegal_action_moves_no_game_and_a_dead_worker_is_reported(workers_env):
    workers_env.reset(seed=0)
    masks = workers_env.action_masks()
    actions = random_actions(np.random.default_rng(4), masks)
    actions[4] = int(np.flatnonzero(~masks[4])[0])
    states = [[game.to_dict() for game in games] for games in workers_env.get_attr("games")]
    with pytest.raises(ValueError, match="illegal action .* in game 4"):
        workers_env.step(actions)
    after = [[game.to_dict() for game in games] for games in workers_env.get_attr("games")]
    assert after == states  # no worker moved
    with pytest.raises(ValueError, match="5 integers"):
        workers_env.step(actions[:4])
    (process,) = workers_env._processes  # worker 1; worker 0 is this process
    os.kill(process.pid, signal.SIGKILL)
    with pytest.raises(WorkerError, match="worker 1 .* ended"):
        workers_env.step(random_actions(np.random.default_rng(5), masks))


def test_close_ends_every_worker_process():
    env = SubprocVectorSingleAgentEnv("heisse-karten", num_envs=3, workers=3, players=[2, 4])
    env.reset(seed=0)
    processes = list(env._processes)  # workers 1 and 2; worker 0 is this process
    assert len(processes) == 2 and all(p.is_alive() for p in processes)
    env.close()
    assert env.closed and not any(p.is_alive() for p in processes)
    assert [p.exitcode for p in processes] == [0, 0]
    for process in processes:  # joined: no zombie is left either
        with pytest.raises(ProcessLookupError):
            os.kill(process.pid, 0)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"workers": 0}, "workers must be a positive int"),
        ({"workers": -2}, "workers must be a positive int"),
        ({"workers": True}, "workers must be a positive int"),
        ({"workers": 2.0}, "workers must be a positive int"),
        ({"workers": "2"}, "workers must be a positive int"),
        ({"workers": 5}, "5 workers need at least as many games, not 4"),
        ({"workers": 2, "game": "skat"}, "skat"),
        ({"workers": 2, "opponents": [("random", -1.0)]}, "weight"),
    ],
)
def test_bad_arguments_raise_before_any_worker_starts(arguments, message):
    import multiprocessing

    before = set(multiprocessing.active_children())
    with pytest.raises(ValueError, match=message):
        SubprocVectorSingleAgentEnv(num_envs=4, **arguments)
    assert set(multiprocessing.active_children()) == before


def test_sb3_vector_env_with_workers_follows_the_vec_env_conventions():
    pytest.importorskip("sb3_contrib")
    from hot_envs.envs.vector_sb3 import SB3VectorEnv

    for workers in (0, 1.5, "2", 9):
        with pytest.raises(ValueError, match="workers"):
            SB3VectorEnv(game="heisse-luft", num_envs=8, workers=workers)
    with pytest.raises(ValueError, match="not both"):
        SB3VectorEnv(VectorSingleAgentEnv(), workers=2)
    envs = SB3VectorEnv(game="heisse-luft", num_envs=4, workers=2, **OPTIONS)
    try:
        envs.seed(7)
        observations = envs.reset()
        one = SB3VectorEnv(game="heisse-luft", num_envs=2, **OPTIONS)
        one.seed(8)  # worker 1: seed + 1
        np.testing.assert_array_equal(one.reset(), observations[2:])
        assert envs.env_method("set_opponent", "random", None, 3.0) == [None] * 4
        assert [p.entries["random"].weight for p in envs.get_attr("pool")] == [3.0] * 4
        envs.set_attr("shaping", 0.5)
        assert envs.get_attr("shaping", indices=[0, 3]) == [0.5, 0.5]
        assert envs.get_attr("num_envs") == [2] * 4  # each index: its worker's env
        assert np.stack(envs.env_method("action_masks")).shape == (4, 366)
        assert step_and_check_final_infos(envs, np.random.default_rng(0), 30) >= 4
    finally:
        envs.close()


def test_maskable_ppo_and_the_league_train_on_worker_processes():
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor

    from hot_envs.envs.vector_sb3 import SB3VectorEnv
    from hot_envs.training.league import FixedOpponent, League, LeagueCallback

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    league = League("heisse-karten", [FixedOpponent("random")], max_snapshots=2)
    envs = VecMonitor(
        SB3VectorEnv(game="heisse-karten", num_envs=8, workers=2, players=[2, 3], seed=0)
    )
    try:
        model = MaskablePPO("MlpPolicy", envs, n_steps=16, batch_size=64, n_epochs=1, seed=0)
        model.learn(384, callback=LeagueCallback(league, snapshot_every=128, window=10))
        assert model.num_timesteps == 384 and model.ep_info_buffer
        pools = [set(pool.entries) for pool in envs.get_attr("pool", indices=[0, 7])]
        assert pools[0] == pools[1] == {"random", *league.snapshots}
    finally:
        envs.close()
        torch.set_num_threads(threads)

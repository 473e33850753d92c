"""The contract of every array engine (hot_envs.batched.ArrayGames), for both games: bad input
changes nothing, handed-out arrays are read-only, ``step(where=…)`` moves only the games it
marks, and ``deal`` deals a game from its seed alone."""

from __future__ import annotations

import numpy as np
import pytest

from hot_envs import batched

GAMES = pytest.mark.parametrize("game", ["heisse-luft", "heisse-karten"])


def dealt(game: str, num_games: int = 4, seed: int = 0) -> batched.ArrayGames:
    games = batched.make(game, num_games)
    games.reset(seed=seed)
    return games


def states(games: batched.ArrayGames) -> list[dict]:
    return [games.state_dict(i) for i in range(games.num_games)]


def test_unknown_games_are_refused():
    with pytest.raises(ValueError, match="unknown game"):
        batched.make("skat", 4)


@GAMES
@pytest.mark.parametrize("num_games", [0, -1, 2**21, 2.5, "8", True, None])
def test_absurd_batch_sizes_are_refused(game, num_games):
    with pytest.raises(ValueError, match="num_games"):
        batched.make(game, num_games)


@GAMES
@pytest.mark.parametrize(
    ("actions", "message"),
    [
        (np.zeros(3, dtype=np.int64), r"shape \(4,\)"),
        (np.zeros(4, dtype=np.float64), "int array"),
        (np.zeros(4, dtype=bool), "int array"),
        (np.zeros((4, 1), dtype=np.int64), "shape"),
        ("play", "int array"),
    ],
)
def test_malformed_actions_are_refused_and_change_nothing(game, actions, message):
    games = dealt(game)
    before = states(games)
    with pytest.raises(ValueError, match=message):
        games.step(actions)
    assert states(games) == before


@GAMES
def test_arrays_handed_out_cannot_be_written(game):
    games = dealt(game, 2)
    with pytest.raises(ValueError, match="read-only"):
        games.current_player[0] = 1
    rewards, done = games.step(games.sample_legal(np.random.default_rng(0)))
    for array in (rewards, done, games.done, games.truncated):
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 1


@GAMES
def test_step_where_moves_only_the_games_it_marks(game):
    games = dealt(game, 5)
    before = states(games)
    where = np.array([True, False, True, False, False])
    actions = games.sample_legal(np.random.default_rng(0))
    actions[~where] = -1  # ignored: those games do not move
    games.step(actions, where=where)
    after = states(games)
    assert [after[i] != before[i] for i in range(5)] == where.tolist()
    assert not games.done.any()
    for bad in (np.ones(5, dtype=int), np.ones(4, dtype=bool)):
        with pytest.raises(ValueError, match="where"):
            games.step(actions, where=bad)
    assert states(games) == after


@GAMES
def test_deal_deals_chosen_games_from_their_seeds_alone(game):
    """``deal(games, seeds)``: the same seed deals the same game, in any row, any batch."""
    games = dealt(game, 4)
    before = states(games)
    games.deal([1, 3], [77, 78])
    after = states(games)
    assert after[0] == before[0] and after[2] == before[2]
    other = dealt(game, 2, seed=5)
    other.deal([0], [77])
    assert other.state_dict(0) == after[1]
    for seeds, bad in (([-1], [0]), ([1], [4])):
        with pytest.raises(ValueError, match="seeds|indices"):
            games.deal(bad, seeds)
    assert states(games) == after


@GAMES
def test_reseed_gives_a_game_a_stream_of_its_own(game):
    """Two games in the same position with the same stream seed play the same chance events."""
    games = dealt(game, 2)
    games.load(1, games.state_dict(0))
    games.reseed(0, 9)
    games.reseed(1, 9)
    rng = np.random.default_rng(0)
    for _ in range(300):
        actions = games.sample_legal(rng)
        actions[1] = actions[0]
        games.step(actions, where=~games.done)
        assert games.state_dict(0) == games.state_dict(1)
        if games.done.all():
            break
    with pytest.raises(ValueError, match="seed"):
        games.reseed(0, -3)


FRESH = {"heisse-luft": ("turn", 0), "heisse-karten": ("played", [])}  # a deal's mark


@GAMES
def test_reset_done_deals_only_the_finished_games(game):
    games = batched.make(game, 6, **({"num_players": 2} if game == "heisse-karten" else {}))
    games.reset(seed=0)
    rng = np.random.default_rng(2)
    while not games.done.any():
        games.step(games.sample_legal(rng))
    before = states(games)
    done = games.done.copy()
    dealt_now = games.reset_done(seed=5)
    assert (dealt_now == done).all() and not games.done.any()
    after = states(games)
    key, fresh = FRESH[game]
    for i in range(6):
        assert (after[i] == before[i]) != done[i]
        if done[i]:
            assert after[i][key] == fresh


@GAMES
def test_observing_some_rows_gives_those_rows_of_the_whole_observation(game):
    games = dealt(game, 6, seed=3)
    rng = np.random.default_rng(3)
    for _ in range(5):
        games.step(games.sample_legal(rng), where=~games.done)
    seats = np.where(np.arange(6) % 3 == 0, -1, games.current_player)
    rows = np.array([4, 0, 4, 2])  # any order, repeats allowed
    whole = games.observe(seats)
    assert np.array_equal(games.observe(seats, rows=rows), whole[rows])
    assert np.array_equal(games.observe(rows=rows), games.observe()[rows])
    assert games.observe(seats, rows=np.array([], dtype=np.int64)).shape == (0, whole.shape[1])
    for bad in ([6], [-1], [[0, 1]], [0.5]):
        with pytest.raises(ValueError, match="rows"):
            games.observe(seats, rows=np.array(bad))

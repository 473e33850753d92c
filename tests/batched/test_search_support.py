"""What a search needs of the array engines: positions loaded from the per-game engine, copied,
their hidden cards dealt again, and finished by random moves — each checked against the per-game
engine, the rule book."""

from __future__ import annotations

import numpy as np
import pytest

from hot_envs import batched
from hot_envs.batched.heisse_karten import rollout_values
from hot_envs.heisse_karten.spec import rollout_value

GAMES = [
    ("heisse-luft", {}),
    ("heisse-karten", {"num_players": 2}),
    ("heisse-karten", {"num_players": 4}),
    ("heisse-karten", {"num_players": 6}),
]
IDS = ["hl", "hk2", "hk4", "hk6"]


def midgames(game, options, num_games=24, moves=15, seed=0):
    """``num_games`` games after up to ``moves`` random actions each (some may have ended)."""
    games = batched.make(game, num_games=num_games, **options)
    games.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        games.step(games.sample_legal(rng))
    return games


@pytest.mark.parametrize(("game", "options"), GAMES, ids=IDS)
def test_load_state_is_load_of_its_dict(game, options):
    games = midgames(game, options)
    other = batched.make(game, num_games=2, **options)
    for i in np.flatnonzero(~games.done)[:5].tolist():
        state = games.engine.from_dict(games.state_dict(i))
        other.load_state(0, state)
        other.load(1, state.to_dict())
        assert other.state_dict(0) == other.state_dict(1) == games.state_dict(i)
    with pytest.raises(ValueError, match="State"):
        other.load_state(0, games.state_dict(0))


@pytest.mark.parametrize(("game", "options"), GAMES, ids=IDS)
def test_copies_play_on_as_their_source(game, options):
    games = midgames(game, options, num_games=8)
    games.copy_games([0, 0, 1], [5, 6, 7])
    assert games.state_dict(5) == games.state_dict(6) == games.state_dict(0)
    assert games.state_dict(7) == games.state_dict(1)
    live = ~games.done
    rng = np.random.default_rng(3)
    for _ in range(40):  # the same moves: the copies stay their sources, chance events included
        actions = games.sample_legal(rng)
        actions[5] = actions[6] = actions[0]
        actions[7] = actions[1]
        rewards, done = games.step(actions)
        assert (rewards[5] == rewards[0]).all() and done[6] == done[0]
    for a, b in ((5, 0), (6, 0), (7, 1)):
        if live[b]:
            assert games.state_dict(a) == games.state_dict(b)
    with pytest.raises(ValueError, match="indices"):
        games.copy_games([0], [8])
    with pytest.raises(ValueError, match="as many"):
        games.copy_games([0, 1], [2])


@pytest.mark.parametrize(("game", "options"), GAMES, ids=IDS)
def test_determinise_keeps_the_seats_view(game, options):
    """Every dealt game gives the seat the view it had (HL-8, HK-5: it only deals what the seat
    cannot see), is a valid position of the rule book, and the hidden cards do move."""
    games = midgames(game, options, num_games=32, moves=9, seed=7)
    engine = games.engine
    moved = 0
    rows = np.flatnonzero(~games.done)
    seat = int(games.current_player[rows[0]])
    rows = rows[games.current_player[rows] == seat]
    before = {i: engine.from_dict(games.state_dict(i)) for i in rows.tolist()}
    games.determinise(rows, seat)
    for i, state in before.items():
        after = engine.from_dict(games.state_dict(i))
        assert after.view(seat) == state.view(seat)
        moved += after.to_dict()["hands"] != state.to_dict()["hands"]
    assert moved > len(rows) // 2
    with pytest.raises(ValueError, match="seat"):
        games.determinise(rows, 9)


def test_determinise_refuses_finished_games():
    games = batched.make("heisse-karten", num_games=2, num_players=2)
    games.reset(seed=0)
    games.finish_randomly(np.array([True, False]))
    with pytest.raises(ValueError, match="in progress"):
        games.determinise([0], 0)


@pytest.mark.parametrize(("game", "options"), GAMES, ids=IDS)
def test_finish_randomly_ends_the_games_it_is_given(game, options):
    games = midgames(game, options, num_games=32)
    where = ~games.done & (np.arange(32) % 2 == 0)
    untouched = {i: games.state_dict(i) for i in np.flatnonzero(~where).tolist()}
    returns = games.finish_randomly(where)
    assert games.done[where].all() and (games.current_player[where] == -1).all()
    for i, d in untouched.items():
        assert games.state_dict(i) == d
        assert (returns[i] == 0).all()
    for i in np.flatnonzero(where).tolist():  # the rule book's returns of each ended game
        state = games.engine.from_dict(games.state_dict(i))
        assert state.is_terminal()
        assert returns[i, : state.num_players].tolist() == pytest.approx(state.returns())


def test_finish_randomly_repeats_from_the_same_streams():
    first, second = (midgames("heisse-luft", {}, seed=4) for _ in range(2))
    assert np.array_equal(first.finish_randomly(), second.finish_randomly())


@pytest.mark.parametrize("players", [2, 3, 5])
def test_rollout_values_are_the_rule_books(players):
    games = midgames("heisse-karten", {"num_players": players}, num_games=12)
    returns = games.finish_randomly(~games.done)
    rows = np.arange(12)
    values = rollout_values(games, rows, returns)
    for i in rows.tolist():
        state = games.engine.from_dict(games.state_dict(i))
        expected = [rollout_value(state, s) for s in range(players)]
        assert values[i, :players].tolist() == pytest.approx(expected)
    games.reset(seed=1)
    with pytest.raises(ValueError, match="finished"):
        rollout_values(games, rows, returns)

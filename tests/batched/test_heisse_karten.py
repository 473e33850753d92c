"""Heiße Karten in arrays (hot_envs.batched.heisse_karten) against the per-game engine, the
rule book: every state, mask, observation, reward and ending compared action by action
(tests/batched/differential.py), at every table size and in matches; bad input; seeds; the
information boundary on the arrays; the plain-Python fallback."""

from __future__ import annotations

import json

import numpy as np
import pytest

from hot_envs import batched
from hot_envs.batched.heisse_karten import ArrayHeisseKarten
from hot_envs.heisse_karten import State
from tests.batched.differential import play
from tests.batched.helpers import compiled_and_python
from tests.heisse_karten.helpers import random_states

PLAYER_COUNTS = pytest.mark.parametrize("num_players", range(2, 7))


def states(games: batched.ArrayGames) -> list[dict]:
    return [games.state_dict(i) for i in range(games.num_games)]


def dealt(num_games: int = 8, seed: int = 0, **options) -> ArrayHeisseKarten:
    games = batched.make("heisse-karten", num_games, **options)
    games.reset(seed=seed)
    return games


# -- differential play (HK-2 … HK-4 through the rule book) ------------------------------------


@PLAYER_COUNTS
def test_random_games_match_the_engine(num_players):
    report = play("heisse-karten", 6, 800, seed=num_players, num_players=num_players)
    assert report.actions >= 800 and report.endings >= 6 and report.mismatches == []


@pytest.mark.parametrize(
    "options",
    [
        {"num_players": 4, "rounds": 3, "reward_mode": "score", "round_rewards": True},
        {"num_players": 5, "target": 150, "first_leader": "random"},
        {"num_players": 3, "rounds": 2, "first_leader": 2},
    ],
    ids=["rounds-score-round-rewards", "target-random-leader", "rounds-fixed-leader"],
)
def test_matches_match_the_engine_deal_after_deal(options):
    """HK-4.4: the next round is dealt by the action that ends one; HK-4.3 rewards."""
    report = play("heisse-karten", 6, 1200, seed=7, **options)
    assert report.chance_events > 0 and report.endings >= 3 and report.mismatches == []


def test_heuristic_games_match_the_engine():
    report = play("heisse-karten", 6, 800, seed=3, policy="heuristic", num_players=4)
    assert report.mismatches == []


@pytest.mark.parametrize("num_players", [2, 5])
def test_positions_set_up_by_hand_match_the_engine(num_players):
    """Positions reached mid-game, some without ``played`` (their taken piles from before any
    history), loaded into the arrays and played on."""
    positions = []
    for seed in range(6):
        for i, state in enumerate(random_states(State.new(seed, num_players), seed)):
            if i == 7 * seed + 3:
                d = state.to_dict()
                if seed % 2:
                    del d["played"]
                positions.append(d)
                break
    report = play("heisse-karten", 6, 600, seed=1, positions=positions, num_players=num_players)
    assert report.mismatches == []


def test_the_comparison_finds_a_wrong_draw(monkeypatch):
    """The differential run can fail: a draw from the pile's bottom instead of its top (HK-3.1)
    is found at once."""
    original = ArrayHeisseKarten._apply

    def bottom_draw(self, actions):
        pile = self.pile.copy()
        original(self, actions)
        drew = (self.top > 0) & (self.top <= self.end)
        for b in np.flatnonzero(drew)[:1]:  # swap the drawn card for the pile's last one
            top, last = pile[b, self.top[b] - 1], pile[b, self.end[b] - 1]
            if top != last and self._current[b] >= 0:
                seat = next(s for s in range(self.num_players) if self.hands[b, s] >> (top - 1) & 1)
                self.hands[b, seat] ^= (1 << (top - 1)) | (1 << (last - 1))
                self.pile[b, self.end[b] - 1] = top

    monkeypatch.setattr(ArrayHeisseKarten, "_apply", bottom_draw)
    report = play("heisse-karten", 4, 40, seed=0, num_players=3)
    assert any("state after action" in m for m in report.mismatches)


# -- the contract ---------------------------------------------------------------------------


def test_make_takes_the_game_by_any_of_its_names_and_the_env_options():
    for name in ("heisse-karten", "heisse_karten", "heisse_karten_v0"):
        games = batched.make(name, 3, num_players=6, rounds=2)
        assert isinstance(games, ArrayHeisseKarten) and games.num_players == 6
    games = dealt(5, num_players=3)
    assert games.current_player.shape == (5,) and games.current_player.dtype == np.int64
    assert games.legal_mask().shape == (5, 48) and games.legal_mask().dtype == bool
    observations = games.observe()
    assert observations.shape == (5, 670) and observations.dtype == np.float32
    rewards, done = games.step(games.sample_legal(np.random.default_rng(0)))
    assert rewards.shape == (5, 3) and rewards.dtype == np.float64 and done.dtype == bool


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"num_players": 7}, "num_players"),
        ({"num_players": 1}, "num_players"),
        ({"num_players": "4"}, "num_players"),
        ({"reward_mode": "money"}, "reward_mode"),
        ({"rounds": 0}, "rounds"),
        ({"target": -5}, "target"),
        ({"first_leader": 9}, "first_leader"),
        ({"colour": "red"}, "unknown option"),
        ({"round_rewards": "yes"}, "round_rewards"),
    ],
)
def test_bad_options_are_refused(options, message):
    with pytest.raises(ValueError, match=message):
        batched.make("heisse-karten", 4, **options)


@pytest.mark.parametrize("bad", [-1, 48, 10**6])
def test_an_illegal_action_in_one_game_names_it_and_changes_no_game(bad):
    """HK-3.1: only a card in the mover's hand; the error names the game and the action, and
    the games that had legal actions did not move either."""
    games = dealt(6, num_players=4)
    actions = games.sample_legal(np.random.default_rng(0))
    actions[4] = bad
    before = states(games)
    with pytest.raises(ValueError, match=f"game 4: action {bad}"):
        games.step(actions)
    assert states(games) == before


def test_a_card_not_in_hand_is_refused_with_the_engines_reason():
    games = dealt(3, num_players=2)
    actions = games.sample_legal(np.random.default_rng(0))
    hand = games.state_dict(1)["hands"][games.current_player[1]]
    actions[1] = next(card for card in range(1, 49) if card not in hand) - 1
    with pytest.raises(ValueError, match="game 1: .* not in player_0's hand"):
        games.step(actions)


def test_finished_games_ignore_their_actions_until_dealt_again():
    games = dealt(3, num_players=2)
    rng = np.random.default_rng(1)
    while not games.done.all():
        games.step(games.sample_legal(rng))
    finished = states(games)
    _, done = games.step(np.full(3, -7))
    assert done.all() and states(games) == finished
    assert (games.current_player == -1).all() and not games.legal_mask().any()
    assert not games.observe().any()


# -- seeds and dealing --------------------------------------------------------------------------


def test_the_same_seed_deals_the_same_games_whatever_the_batch_size():
    """A game's deal depends on the seed and its index only, not on the batch."""
    small, large = dealt(4, seed=11, num_players=5), dealt(9, seed=11, num_players=5)
    assert states(small) == states(large)[:4]
    assert states(dealt(4, seed=12, num_players=5)) != states(small)
    d = small.state_dict(0)
    assert len(d["set_aside"]) == 3 and len(d["draw_pile"]) == 48 - 40 - 3  # HK-2.2, HK-2.3


def test_the_same_seed_plays_the_same_games_compiled_or_not():
    """The plain-Python fallback (no numba) deals and plays exactly as the compiled kernels."""
    code = """if True:
        import json, sys
        import numpy as np
        from hot_envs import batched
        games = batched.make("heisse-karten", 5, num_players=4, rounds=2)
        games.reset(seed=3)
        rng = np.random.default_rng(4)
        for _ in range(150):
            games.step(games.sample_legal(rng))
            games.reset_done()
        print(json.dumps([batched.COMPILED, [games.state_dict(i) for i in range(5)]]))
    """
    compiled, python = compiled_and_python(code)
    assert compiled == python


def test_a_random_first_leader_is_drawn_per_game():
    """HK-2.4 ``first_leader="random"``: each game draws its own."""
    games = dealt(40, num_players=6, first_leader="random")
    leaders = {d["options"]["first_leader"] for d in states(games)}
    assert len(leaders) > 3 and leaders == set(games.current_player.tolist())


# -- positions --------------------------------------------------------------------------------


def test_load_takes_the_engines_dicts_and_gives_them_back():
    state = State.new(5, 3, rounds=2)
    for _ in range(10):
        state.apply(state.legal_actions()[0])
    games = dealt(2, num_players=3, rounds=2)
    games.load(1, state.to_dict())
    assert games.state_dict(1) == state.to_dict()
    assert games.current_player[1] == state.current_player


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(num_players=4), "hands"),
        (lambda d: d["hands"][0].append(d["draw_pile"][0]), "appears twice"),
        (lambda d: d["options"].update(rounds=5), "options"),
    ],
)
def test_load_refuses_bad_or_foreign_positions(change, message):
    games = dealt(2, num_players=3, rounds=2)
    d = State.new(1, 3, rounds=2).to_dict()
    change(d)
    before = states(games)
    with pytest.raises(ValueError, match=message):
        games.load(0, d)
    assert states(games) == before


def test_load_refuses_a_finished_game():
    state = State.new(2, 2)
    while not state.is_terminal():
        state.apply(state.legal_actions()[-1])
    with pytest.raises(ValueError, match="finished"):
        dealt(1, num_players=2).load(0, state.to_dict())


# -- the information boundary (HK-5) -------------------------------------------------------


@PLAYER_COUNTS
def test_hidden_cards_never_reach_a_seats_observation(num_players):
    """Two positions that differ only in what seat s cannot see — the other hands, the draw
    pile's order, the cards set aside — give s the same observation row and mask."""
    rng = np.random.default_rng(num_players)
    for seed in range(4):
        state = State.new(seed, num_players)
        for _ in range(int(rng.integers(0, 20))):
            state.apply(state.legal_actions()[int(rng.integers(len(state.legal_actions())))])
        d = state.to_dict()
        for seat in range(num_players):
            hidden = [c for s, hand in enumerate(d["hands"]) if s != seat for c in hand]
            hidden += d["draw_pile"] + d["set_aside"]
            shuffled = list(rng.permutation(hidden))
            other = json.loads(json.dumps(d))
            for s in range(num_players):
                if s != seat:
                    size = len(other["hands"][s])
                    other["hands"][s], shuffled = sorted(shuffled[:size]), shuffled[size:]
            size = len(other["draw_pile"])
            other["draw_pile"], other["set_aside"] = shuffled[:size], shuffled[size:]
            other = json.loads(json.dumps(other, default=int))
            games = dealt(2, num_players=num_players)
            games.load(0, d)
            games.load(1, other)
            rows = games.observe(np.full(2, seat))
            assert np.array_equal(rows[0], rows[1])
            if state.current_player == seat:
                mask = games.legal_mask()
                assert np.array_equal(mask[0], mask[1])


# -- tables of several sizes in one batch, and stepping some games ----------------------------


def test_games_of_every_table_size_in_one_batch_match_the_engine():
    """HK-2.1 one batch, a seat count per game: rewards and observations padded past a game's
    seats."""
    counts = np.array([2, 3, 4, 5, 6] * 2)
    report = play("heisse-karten", 10, 1500, seed=4, num_players=counts, rounds=2)
    assert report.actions >= 1500 and report.endings >= 10 and report.mismatches == []


def test_set_players_gives_finished_games_their_next_seat_count():
    games = dealt(4, num_players=np.array([6, 2, 2, 2]))
    assert [d["num_players"] for d in states(games)] == [6, 2, 2, 2]
    rng = np.random.default_rng(0)
    small = np.array([False, True, True, True])
    while not games.done[1:].all():
        games.step(games.sample_legal(rng), where=small & ~games.done)
    with pytest.raises(ValueError, match="finished"):
        games.set_players(np.array([0]), 3)
    with pytest.raises(ValueError, match="from 2 to 6"):
        games.set_players(np.array([1]), 7)
    with pytest.raises(ValueError, match="room for 3"):
        dealt(2, num_players=np.array([2, 3])).set_players(np.array([0]), 4)
    games.set_players(np.array([1, 2, 3]), np.array([3, 4, 6]))
    games.reset_done(seed=1)
    assert [d["num_players"] for d in states(games)][1:] == [3, 4, 6]
    assert games.observe(np.array([5, 2, 3, 5])).any(axis=1).all()
    with pytest.raises(ValueError, match="seat count"):
        games.observe(np.array([0, 3, 0, 0]))  # game 1 has 3 seats


@pytest.mark.parametrize("counts", [[4, 1], [4, 7], "4"])
def test_bad_seat_counts_per_game_are_refused(counts):
    with pytest.raises(ValueError, match="num_players"):
        batched.make("heisse-karten", 2, num_players=counts)


def test_deal_deals_chosen_games_from_their_own_seeds():
    """``deal(games, seeds)``: the same seed deals the same game, in any row, any batch."""
    games = dealt(4, num_players=np.array([6, 6, 6, 6]))
    before = states(games)
    games.deal([1, 3], [77, 78], players=[3, 5])
    after = states(games)
    assert after[0] == before[0] and after[2] == before[2]
    assert [after[1]["num_players"], after[3]["num_players"]] == [3, 5]
    other = dealt(2, num_players=np.array([6, 6]))
    other.deal([0], [77], players=3)
    assert other.state_dict(0) == after[1]
    with pytest.raises(ValueError, match="seeds"):
        games.deal([0], [-1])
    with pytest.raises(ValueError, match="indices"):
        games.deal([4], [1])
    with pytest.raises(ValueError, match="from 2 to 6"):
        games.deal([0], [1], players=[9])
    assert states(games) == after

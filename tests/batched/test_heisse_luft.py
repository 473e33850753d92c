"""Heiße Luft in arrays (hot_envs.batched.heisse_luft): the contract around the rules — bad
input changes no game, options are checked as the engine checks them, seeds deal per game, the
plain-Python fallback plays as the compiled kernels, positions load and come back, and no
hidden card reaches a seat's row (HL-8). The rules themselves are compared action by action
with the engine in test_heisse_luft_differential.py."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from hot_envs import batched
from hot_envs.batched.base import ArrayGames
from hot_envs.batched.heisse_luft import ArrayHeisseLuft
from hot_envs.heisse_luft import LAYOUT, State, encode
from hot_envs.heisse_luft.facts import (
    CARD_CODES,
    START_TERRAIN,
    SUIT_SIZES,
    SUITS,
    TERRAINS,
    TROPHY,
)
from tests.batched.differential import play
from tests.batched.helpers import compiled_and_python
from tests.heisse_luft.random_games import random_game


def states(games: ArrayGames) -> list[dict]:
    return [games.state_dict(i) for i in range(games.num_games)]


def dealt(num_games: int = 8, seed: int = 0, **options) -> ArrayHeisseLuft:
    games = batched.make("heisse-luft", num_games, **options)
    games.reset(seed=seed)
    return games


def played(num_games: int = 8, steps: int = 40, seed: int = 0, **options) -> ArrayHeisseLuft:
    """Games after ``steps`` random steps (finished ones dealt again)."""
    games = dealt(num_games, seed, **options)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        games.step(games.sample_legal(rng))
        games.reset_done()
    return games


# -- the contract ---------------------------------------------------------------------------


def test_make_takes_the_game_by_any_of_its_names_and_the_env_options():
    for name in ("heisse-luft", "heisse_luft", "heisse_luft_v0"):
        games = batched.make(name, 3, three_for_one=False, turn_limit=50)
        assert isinstance(games, ArrayHeisseLuft) and games.num_players == 2
        assert games.options == {"three_for_one": False, "starting_player": 0, "turn_limit": 50}
    games = dealt(5)
    assert games.observation_size == LAYOUT.size
    assert games.current_player.shape == (5,) and games.current_player.dtype == np.int64
    assert games.legal_mask().shape == (5, 366) and games.legal_mask().dtype == bool
    observations = games.observe()
    assert observations.shape == (5, LAYOUT.size) and observations.dtype == np.float32
    rewards, done = games.step(games.sample_legal(np.random.default_rng(0)))
    assert rewards.shape == (5, 2) and rewards.dtype == np.float64 and done.dtype == bool


@pytest.mark.parametrize(
    "options",
    [
        {"three_for_one": "yes"},
        {"three_for_one": 1},
        {"starting_player": 2},
        {"starting_player": True},
        {"starting_player": "first"},
        {"turn_limit": 0},
        {"turn_limit": 2.5},
        {"turn_limit": True},
        {"colour": "red"},
    ],
)
def test_bad_options_are_refused_in_the_engines_words(options):
    with pytest.raises(ValueError) as engine:
        State.new(0, **options)
    with pytest.raises(ValueError) as arrays:
        batched.make("heisse-luft", 4, **options)
    assert str(arrays.value) == str(engine.value)


def illegal_actions(legal: list[int]) -> list[int]:
    """Illegal actions of every kind where ``legal`` are the legal ones: out of range, each
    phase's ids in the wrong phase, cards not held, sides that are full."""
    wrong = [-1, 366, 10**6, 360]  # 360 "exchange done" is never legal with nothing picked
    wrong += [a for a in (0, 7, 100, 319, 320, 339, 359, 361, 364, 365) if a not in legal]
    return wrong


def test_an_illegal_action_in_one_game_names_it_and_changes_no_game():
    """Every kind of illegal action, in any phase: the error names the game and the action
    (in the engine's words), and no game moved, the legal ones neither."""
    games = played(12, 60, seed=4)
    rng = np.random.default_rng(0)
    before, table = states(games), games.table.tobytes()
    checked = 0
    for game in range(12):
        d = games.state_dict(game)
        if d["phase"] == "over":
            continue
        legal = State.from_dict(d).legal_actions()
        for bad in illegal_actions(legal):
            actions = games.sample_legal(rng)
            actions[game] = bad
            with pytest.raises(ValueError, match=rf"^game {game}: action {bad}\b"):
                games.step(actions)
            assert games.table.tobytes() == table  # every game's record, byte for byte
            checked += 1
    assert checked > 100
    assert states(games) == before


def test_an_illegal_action_in_a_trophy_phase_at_the_turn_limit_is_named():
    """HL-7.3: the last turn's flight may open a trophy phase at the limit; an illegal action
    there is named in the engine's words too."""
    games = dealt(256, turn_limit=40)
    rng = np.random.default_rng(0)
    for _ in range(400):
        at_limit = np.flatnonzero((games.table.phase == TROPHY) & (games.table.turn == 40))
        if len(at_limit):
            break
        games.step(games.sample_legal(rng))
        games.reset_done()
    game = int(at_limit[0])
    actions = games.sample_legal(rng)
    actions[game] = 0
    with pytest.raises(ValueError, match=rf"^game {game}: action 0 .* not the play phase"):
        games.step(actions)


def test_a_card_not_held_is_refused_with_the_engines_reason():
    games = dealt(3)
    actions = games.sample_legal(np.random.default_rng(0))
    hand = games.state_dict(1)["hands"][0]
    card = next(c for c, code in enumerate(CARD_CODES) if code not in hand)
    actions[1] = 8 * card
    with pytest.raises(ValueError, match="game 1: .* player_0 does not hold that card"):
        games.step(actions)


def test_finished_games_ignore_their_actions_until_dealt_again():
    games = dealt(3)
    rng = np.random.default_rng(1)
    while not games.done.all():
        games.step(games.sample_legal(rng))
    finished = states(games)
    _, done = games.step(np.full(3, -7))
    assert done.all() and states(games) == finished
    assert (games.current_player == -1).all() and not games.legal_mask().any()
    assert not games.observe().any()
    assert all(d["phase"] == "over" and d["current_player"] is None for d in finished)
    for seat in (0, 1):  # a seat's row of a finished game is still the engine's
        rows = games.observe(np.full(3, seat))
        for i, d in enumerate(finished):
            assert np.array_equal(rows[i], encode(State.from_dict(d), seat))


def test_sample_legal_picks_as_the_base_does_from_a_mask():
    """The record-counted sample is the base's ``floor(u * count)``-th legal action."""
    games = dealt(64, seed=2)
    for step in range(300):
        mine = games.sample_legal(np.random.default_rng(step))
        assert np.array_equal(mine, ArrayGames.sample_legal(games, np.random.default_rng(step)))
        assert games.legal_mask()[np.arange(64), mine][~games.done].all()
        games.step(mine)
        games.reset_done()


def test_the_comparison_finds_a_wrong_draw(monkeypatch):
    """The differential run can fail: a draw from below the top card (HL-3.5) is found."""
    original = ArrayHeisseLuft._apply

    def second_card_drawn(self, actions):
        original(self, actions)
        r = self.table[0]
        size = int(r.draw_size)
        if size >= 2:  # swap the pile's top two cards: the next draw takes the wrong one
            r.draw[size - 1], r.draw[size - 2] = r.draw[size - 2], r.draw[size - 1]

    monkeypatch.setattr(ArrayHeisseLuft, "_apply", second_card_drawn)
    report = play("heisse-luft", 2, 20, seed=0)
    assert any("state after action" in m for m in report.mismatches)


# -- seeds and dealing (HL-2) ---------------------------------------------------------------


def test_the_same_seed_deals_the_same_games_whatever_the_batch_size():
    small, large = dealt(4, seed=11), dealt(9, seed=11)
    assert states(small) == states(large)[:4]
    assert states(dealt(4, seed=12)) != states(small)


def test_deals_follow_HL_2():
    """HL-2.1 terrain, HL-2.2 prizes from a shuffled deck, HL-2.3 never four spades at a
    stage, HL-2.4 eight cards each and the rest the draw pile; deals differ game to game."""
    games = dealt(200, seed=5)
    seen = set()
    for d in states(games):
        assert State.from_dict(d).to_dict() == d  # the engine takes it as it is
        assert [len(hand) for hand in d["hands"]] == [8, 8] and len(d["draw_pile"]) == 24
        assert Counter(d["hands"][0] + d["hands"][1] + d["draw_pile"]) == Counter(CARD_CODES)
        assert [s["terrain"] for s in d["stages"]] == [TERRAINS[t] for t in START_TERRAIN]
        assert [len(s["prizes"]) for s in d["stages"]] == [1, 2, 3, 4]
        assert all(s["prizes"].count("S") <= 3 for s in d["stages"])
        prizes = d["prize_deck"] + [p for s in d["stages"] for p in s["prizes"]]
        assert Counter(prizes) == Counter(dict(zip(SUITS, SUIT_SIZES, strict=True)))
        assert d["turn"] == 0 and d["discard_pile"] == []
        seen.add(tuple(d["hands"][0]))
    assert len(seen) == 200


def test_the_starting_player_option():
    """HL-2.5: player_0 by default, 1 if asked, and drawn per game for "random"."""
    assert set(dealt(20).current_player.tolist()) == {0}  # no stuck first player here
    assert set(dealt(20, starting_player=1).current_player.tolist()) == {1}
    first = dealt(40, starting_player="random").current_player
    assert set(first.tolist()) == {0, 1}
    assert np.array_equal(dealt(40, starting_player="random").current_player, first)


def test_a_turn_limit_truncates_with_no_reward():
    """HL-7.3: the limit ends the game as truncated, with 0 for both (HL-7.4)."""
    games = dealt(6, turn_limit=5)
    rng = np.random.default_rng(0)
    while not games.done.all():
        rewards, done = games.step(games.sample_legal(rng))
        assert not rewards[done & games.truncated].any()
    assert games.truncated.all()
    assert all(d["turn"] == 5 and d["winner"] is None for d in states(games))


@pytest.mark.slow
def test_the_same_seed_plays_the_same_games_compiled_or_not():
    """The plain-Python fallback (no numba) deals, plays, masks and observes exactly as the
    compiled kernels."""
    code = """if True:
        import json
        import numpy as np
        from hot_envs import batched
        games = batched.make("heisse-luft", 6, starting_player="random", turn_limit=120)
        games.reset(seed=3)
        rng = np.random.default_rng(4)
        for _ in range(260):
            games.step(games.sample_legal(rng))
            games.reset_done()
        views = [games.observe().tolist(), games.observe(np.zeros(6, int)).tolist()]
        print(json.dumps([batched.COMPILED, [[games.state_dict(i) for i in range(6)],
                          games.legal_mask().tolist(), views]]))
    """
    compiled, python = compiled_and_python(code)
    assert compiled == python


# -- positions ----------------------------------------------------------------------------------


def mid_game(seed: int, actions: int) -> State:
    state = State.new(seed)
    for i, _ in enumerate(random_game(state, seed)):
        if i + 1 >= actions:
            break
    return state


def test_load_takes_the_engines_dicts_and_gives_them_back():
    games = dealt(3)
    for seed in range(10):
        state = mid_game(seed, 10 + 9 * seed)
        if state.is_terminal():
            continue
        games.load(seed % 3, state.to_dict())
        assert games.state_dict(seed % 3) == state.to_dict()
        assert games.current_player[seed % 3] == state.current_player
        assert not games.done[seed % 3]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["discard_pile"].append(d["draw_pile"][0]), "appears twice"),
        (lambda d: d.update(phase="trophy"), "trophy"),
        (lambda d: d.update(options={"three_for_one": False}), "options"),
        (lambda d: d.update(game="heisse_karten"), "game"),
    ],
)
def test_load_refuses_bad_or_foreign_positions(change, message):
    games = played(2, 10)
    d = mid_game(1, 12).to_dict()
    change(d)
    before = states(games)
    with pytest.raises(ValueError, match=message):
        games.load(0, d)
    assert states(games) == before


def test_load_refuses_a_finished_game():
    state = State.new(2)
    for _ in random_game(state, 2):
        pass
    with pytest.raises(ValueError, match="finished"):
        dealt(1).load(0, state.to_dict())


def test_a_loaded_position_that_starts_stuck_begins_its_exchange():
    """HL-3.4: a position whose mover has no fitting card loads as that mover's exchange, as
    ``State.from_dict`` resumes it."""
    from tests.heisse_luft.test_rules import stuck_position

    d = stuck_position(["C1", "C2", "S1"], ["D9"]).to_dict()
    games = dealt(2)
    games.load(1, {**d, "phase": "play", "revealed_cards": [[], []]})
    assert games.state_dict(1) == d and d["phase"] == "exchange"
    mask = games.legal_mask()[1]
    assert np.flatnonzero(mask).tolist() == State.from_dict(d).legal_actions()


# -- the information boundary (HL-8) ---------------------------------------------------------


def hide_differently(d: dict, seat: int, rng: np.random.Generator) -> dict:
    """``d`` with what ``seat`` cannot see dealt again: the opponent's cards not shown to
    ``seat`` and the draw pile's cards swapped among themselves, the prize deck reordered."""
    other = json.loads(json.dumps(d))
    opponent = 1 - seat
    shown = set(d["revealed_cards"][opponent])
    unseen = [c for c in d["hands"][opponent] if c not in shown] + d["draw_pile"]
    unseen = [str(c) for c in rng.permutation(unseen)]
    size = len(d["hands"][opponent]) - len(shown)
    other["hands"][opponent] = sorted(
        [*shown, *unseen[:size]], key=lambda code: CARD_CODES.index(code)
    )
    other["draw_pile"] = unseen[size:]
    other["prize_deck"] = [str(s) for s in rng.permutation(d["prize_deck"])]
    return other


def test_hidden_cards_never_reach_the_movers_row_or_mask():
    """Two positions that differ only in what the seat to move cannot see — the opponent's
    unshown hand cards, the draw pile's order and cards, the prize deck's order — give that
    seat the same observation row and the same mask."""
    rng = np.random.default_rng(0)
    compared = 0
    for seed in range(30):
        state = mid_game(seed, int(rng.integers(1, 80)))
        if state.is_terminal():
            continue
        d = state.to_dict()
        seat = d["current_player"]
        other = hide_differently(d, seat, rng)
        if other == d:
            continue
        games = dealt(2)
        games.load(0, d)
        games.load(1, other)
        rows = games.observe()
        assert np.array_equal(rows[0], rows[1])
        mask = games.legal_mask()
        assert np.array_equal(mask[0], mask[1])
        compared += 1
    assert compared > 20

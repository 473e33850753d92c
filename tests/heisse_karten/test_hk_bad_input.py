"""Bad input gets a clear error and changes nothing: actions, player counts, options, dicts."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from hot_envs.core.errors import IllegalActionError
from hot_envs.heisse_karten import State
from tests.heisse_karten.helpers import play_out, position


def snapshot(state: State) -> tuple:
    return state.to_dict(), state.round_finished, state.legal_actions()


@pytest.fixture
def state() -> State:
    """Player_0 to play after player_1 led 11, holding 5 17 36; player_1 holds 1 and 9."""
    state = State.from_dict(position([[2, 5, 17, 36], [1, 40, 9, 11]]))
    state.apply(1)  # player_0 plays 2
    state.apply(39)  # player_1 plays 40 and wins the trick
    state.apply(10)  # player_1 leads 11
    return state


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (8, r"action 8 \(play 9\) is illegal: card 9 is not in player_0's hand"),
        (1, r"action 1 \(play 2\) is illegal: card 2 has already been played"),
        (39, r"play 40\) is illegal: card 40 has already been played"),
        (-1, r"action -1 is illegal: no such action \(ids are 0..47\)"),
        (48, r"action 48 is illegal: no such action"),
        (np.int64(1000), r"action 1000 is illegal: no such action"),
        ("4", r"action '4' is illegal: not an action id \(an int 0..47\)"),
        (4.0, r"action 4.0 is illegal: not an action id"),
        (None, r"action None is illegal: not an action id"),
        (True, r"action True is illegal: not an action id"),
        ([4], r"action \[4\] is illegal: not an action id"),
    ],
)
def test_illegal_actions_raise_and_change_nothing(state, action, message):
    """Not in hand, already played, out of range, not an int: IllegalActionError, no change."""
    assert state.current_player == 0
    before = snapshot(state)
    with pytest.raises(IllegalActionError, match=message):
        state.apply(action)
    assert snapshot(state) == before


def test_illegal_action_error_is_a_value_error_and_numpy_ints_play():
    state = State.from_dict(position([[2], [4]]))
    with pytest.raises(ValueError):
        state.apply(5)
    state.apply(np.int64(1))
    assert state.trick == [2]


def test_action_after_the_end_raises():
    state = play_out(State.new(1, 2), 1)
    before = snapshot(state)
    with pytest.raises(IllegalActionError, match=r"the game is over"):
        state.apply(0)
    assert snapshot(state) == before


@pytest.mark.parametrize("num_players", [0, 1, 7, -3, "4", True, 4.0, None])
def test_player_counts_outside_2_to_6_raise(num_players):
    """HK-2.1 2 to 6 players; anything else is a ValueError."""
    with pytest.raises(ValueError, match="num_players"):
        State.new(0, num_players)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"first_leader": 4}, r"first_leader must be in 0..3"),
        ({"first_leader": "last"}, r"first_leader must be an int"),
        ({"reward_mode": "points"}, r"reward_mode must be one of"),
        ({"rounds": 0}, r"rounds must be at least 1"),
        ({"rounds": True}, r"rounds must be an int"),
        ({"target": 0}, r"target must be at least 1"),
        ({"target": 1.5}, r"target must be an int"),
    ],
)
def test_bad_options_raise(options, message):
    with pytest.raises(ValueError, match=message):
        State.new(0, 4, **options)


def test_unknown_option_raises():
    with pytest.raises(ValueError, match="unknown option 'colour'"):
        State.new(0, 4, colour="red")


def base_dict() -> dict:
    """3 players after 7 actions: 2 tricks taken, 1 card in the trick, 17 cards to draw."""
    state, rng = State.new(3, 3), np.random.default_rng(3)
    for _ in range(7):
        legal = state.legal_actions()
        state.apply(legal[rng.integers(len(legal))])
    return state.to_dict()


def move(d: dict, source: str, target: str) -> None:
    """Move the first card of list ``source`` to the end of ``target`` ("hands.0" style paths)."""

    def at(path: str) -> list:
        key, *index = path.split(".")
        return d[key][int(index[0])] if index else d[key]

    at(target).append(at(source).pop(0))


def _set(key, value):
    return lambda d: d.__setitem__(key, value)


MALFORMED = {
    "not a dict": (lambda d: None, "a state dict is needed"),
    "unknown key": (_set("colour", 1), r"unknown key 'colour'"),
    "missing key": (lambda d: d.pop("taken"), r"missing key 'taken'"),
    "other game": (_set("game", "heisse_luft"), r"game must be 'heisse_karten'"),
    "1 player": (_set("num_players", 1), r"num_players must be in 2..6"),
    "7 players": (_set("num_players", 7), r"num_players must be in 2..6"),
    "bool player count": (_set("num_players", True), r"num_players must be an int"),
    "options not a dict": (_set("options", []), r"options must be a dict"),
    "unknown option": (_set("options", {"speed": 1}), r"unknown option 'speed'"),
    "too few hands": (lambda d: d["hands"].pop(), r"hands must be a list with one entry per"),
    "hand not a list": (lambda d: d["hands"].__setitem__(0, 5), r"hands\[0\] must be a list"),
    "str card": (lambda d: d["hands"][1].__setitem__(0, "7"), r"hands\[1\]\[0\] must be an int"),
    "bool card": (lambda d: d["draw_pile"].__setitem__(0, True), r"draw_pile\[0\] must be an int"),
    "card 49": (lambda d: d["draw_pile"].__setitem__(0, 49), r"draw_pile\[0\] must be in 1..48"),
    "duplicate card": (
        lambda d: d["hands"][0].__setitem__(0, d["draw_pile"][0]),
        r"card \d+ appears twice \(hands\[0\] and draw_pile\)",
    ),
    "missing card": (lambda d: d["draw_pile"].pop(), r"card \d+ is missing"),
    "set-aside with 3 players": (
        lambda d: [move(d, "draw_pile", "set_aside") for _ in range(3)],
        r"set_aside must be empty with 3 players",
    ),
    "too few taken piles": (lambda d: d["taken"].pop(), r"taken must be a list with one entry"),
    "trick not pairs": (lambda d: d["trick"].__setitem__(0, 5), r"trick\[0\] must be a \[seat, "),
    "trick by the wrong seat": (
        lambda d: d["trick"][0].__setitem__(0, (d["trick"][0][0] + 1) % 3),
        r"trick\[0\] was played by",
    ),
    "leader out of range": (_set("leader", 3), r"leader must be in 0..2"),
    "wrong current player": (
        lambda d: d.__setitem__("current_player", (d["current_player"] + 1) % 3),
        r"current_player must be",
    ),
    "current player None": (_set("current_player", None), r"current_player must be an int"),
    "uneven hands": (lambda d: move(d, "hands.0", "hands.1"), r"cannot be played out evenly"),
    "pile runs out mid-trick": (
        lambda d: move(d, "draw_pile", "taken.0"),
        r"would run out in the middle of a later trick",
    ),
    "played out of order": (
        lambda d: d["played"].insert(0, d["played"].pop(1)),
        r"played trick 0 is not in seat order",
    ),
    "played without the trick": (lambda d: d["played"].pop(), r"played must end with the current"),
    "taken not as played": (
        lambda d: move(d, "taken.0", "taken.1") or move(d, "taken.1", "taken.2"),
        r"taken\[\d\] lacks cards of the tricks it won in played",
    ),
    "totals too short": (_set("totals", [0, 0]), r"totals must be a list with one entry"),
    "totals not ints": (_set("totals", [0, 0, "1"]), r"totals\[2\] must be an int"),
    "round beyond the match": (_set("round", 1), r"round must be in 0..0"),
    "target reached": (
        lambda d: d.update(options={"target": 50}, totals=[60, 0, 0]),
        r"a total has reached the target 50",
    ),
}


@pytest.mark.parametrize("case", MALFORMED)
def test_malformed_dicts_raise_value_error_naming_the_problem(case):
    """from_dict names the first problem and leaves its input alone."""
    spoil, message = MALFORMED[case]
    d = base_dict()
    assert State.from_dict(d).to_dict() == d
    result = spoil(d)
    if case == "not a dict":
        d = result
    given = copy.deepcopy(d)
    with pytest.raises(ValueError, match=message):
        State.from_dict(d)
    assert d == given


def test_finished_game_dicts_must_be_consistent():
    """Empty hands mean the game is over: no player to move, and no rounds left in the match."""
    over = position([[], []])
    assert State.from_dict(over).is_terminal()
    with pytest.raises(ValueError, match="current_player must be None"):
        State.from_dict({**over, "current_player": 0})
    with pytest.raises(ValueError, match="the match has rounds left"):
        State.from_dict({**over, "options": {"rounds": 2}})
    with pytest.raises(ValueError, match="more than 8"):
        State.from_dict(position([list(range(1, 10)), list(range(10, 19))]))


@pytest.mark.parametrize("player", [-1, 2, "0", None, True])
def test_bad_players_for_view_raise(player):
    state = State.new(0, 2)
    with pytest.raises(ValueError, match="player must be"):
        state.view(player)


@pytest.mark.parametrize(
    ("d", "message"),
    [
        (position([[2], [4]], trick=[6, 8]), r"trick holds 2 cards; a trick of 2 is decided"),
        (
            position([[c] for c in (1, 2, 3, 4, 5)], set_aside=[6, 7]),
            r"set_aside must hold 0 or 3 cards with 5 players",
        ),
        (position([[2, 4], [6]], draw_pile=[8]), r"cannot be played out evenly"),
        (position([[2], [6]], draw_pile=[8]), r"cannot be played out evenly"),
    ],
)
def test_structural_problems_raise(d, message):
    with pytest.raises(ValueError, match=message):
        State.from_dict(d)


@pytest.mark.parametrize(
    "d",
    [
        position([[2], [6]], draw_pile=[8, 10]),  # the pile runs out as the trick ends
        position([[2], [4, 6]], draw_pile=[8]),  # player_0 draws the last card
        position([[2, 3], [4, 6], [10]], trick=[8], leader=2),  # player_2 has played
    ],
)
def test_short_hands_that_play_out_evenly_are_accepted(d):
    assert not play_out(State.from_dict(d), 0).hands[0]


def test_from_view_needs_a_whole_view():
    view = State.new(0, 3).view(1)
    del view["taken"]
    with pytest.raises(ValueError, match="the view lacks 'taken'"):
        State.from_view(view, 0)

"""Bad input gets a clear error and changes nothing (the engine contract,
hot_envs/core/engine.py).

Illegal and malformed actions raise ``IllegalActionError`` (a ``ValueError``) naming the action,
its readable name and why; malformed state dicts and options raise ``ValueError`` naming the
first problem. After every error the state (or the given dict) is exactly as before.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable

import numpy as np
import pytest

from hot_envs import heisse_luft_v0
from hot_envs.core.errors import IllegalActionError
from hot_envs.heisse_luft import State, action_name
from hot_envs.heisse_luft.facts import NUM_ACTIONS

from .positions import CLAIM, EXCHANGE_DONE, OPP, OWN, STOP, pick, play, position, stage
from .positions import position_dict as make_position_dict
from .random_games import random_game

# ---------------------------------------------------------------------- positions

HAND_0 = ["H5", "H9", "D3", "C4", "S1", "S3", "S5", "S7"]
HAND_1 = ["H6", "D5", "C6", "C7", "D6", "D7", "D8", "D9"]


def play_phase() -> State:
    """player_0 to move: stage 1 (♥) holds player_0's ♥2, stage 2 (♦♣) is open, stages 3 and 4
    are out of the game."""
    return position(hands=(HAND_0, HAND_1), stages={1: stage("H", ["H2"]), 2: stage("DC")})


def exchange_phase() -> State:
    """player_0 is stuck (only spades in hand, only hearts wanted) and exchanging, ♠A chosen."""
    state = position(
        hands=(["S1", "S3", "S5", "S7", "S9", "S11", "S13", "D1"], HAND_1),
        stages={1: stage("H")},
    )
    state.apply(pick("S1"))
    return state


def trophy_phase() -> State:
    """player_0 won a stage and holds 7 ♥ prizes: deciding about the ♥ trophy."""
    return position(
        hands=(HAND_0, HAND_1),
        stages={1: stage("D")},
        prizes_won=({"H": 7}, {}),
        phase="trophy",
        trophy_phase={"winner": 0, "asking": "winner"},
    )


def game_over() -> State:
    state = State.new(seed=1)
    for _ in random_game(state, choice_seed=1):
        pass
    return state


def assert_illegal(state: State, action, *fragments: str) -> None:
    """``apply(action)`` raises IllegalActionError whose message holds ``fragments``, and the
    state (dict and legal actions) is unchanged."""
    before, legal = state.to_dict(), state.legal_actions()
    with pytest.raises(IllegalActionError) as error:
        state.apply(action)
    for fragment in fragments:
        assert fragment in str(error.value)
    assert state.to_dict() == before
    assert state.legal_actions() == legal


def test_illegal_action_error_is_a_value_error():
    assert issubclass(IllegalActionError, ValueError)


# ---------------------------------------------------------------------- illegal actions

PLAY_PHASE_CASES = {
    "card not in hand": (play("H6", 1, OPP), "player_0 does not hold that card"),
    "side full (HL-3.1)": (play("H5", 1, OWN), "needs no more cards of that suit"),
    "suit the stage does not take": (play("S1", 2, OWN), "needs no more cards of that suit"),
    "stage out of play": (play("H5", 3, OWN), "stage 3 is out of the game"),
    "exchange pick in play phase": (pick("S1"), "not an exchange (HL-3.4)"),
    "exchange done in play phase": (EXCHANGE_DONE, "not an exchange (HL-3.4)"),
    "claim outside trophy phase": (CLAIM["H"], "only in the trophy phase (HL-6.4)"),
    "stop claiming outside trophy phase": (STOP, "only in the trophy phase (HL-6.4)"),
}


@pytest.mark.parametrize(("action", "why"), PLAY_PHASE_CASES.values(), ids=PLAY_PHASE_CASES)
def test_illegal_action_in_the_play_phase(action, why):
    """The message gives the action id, its readable name and the reason."""
    assert_illegal(play_phase(), action, f"action {action} ", action_name(action), why)


EXCHANGE_PHASE_CASES = {
    "play while exchanging": (play("D1", 1, OWN), "it is the exchange phase, not the play phase"),
    "pick a card not in hand": (pick("H5"), "player_0 does not hold that card"),
    "pick a card twice": (pick("S1"), "that card is already chosen"),
    "claim while exchanging": (CLAIM["S"], "only in the trophy phase"),
}


@pytest.mark.parametrize(("action", "why"), EXCHANGE_PHASE_CASES.values(), ids=EXCHANGE_PHASE_CASES)
def test_illegal_action_in_the_exchange_phase(action, why):
    assert_illegal(exchange_phase(), action, action_name(action), why)


def test_exchange_done_before_choosing_a_card():
    """HL-3.4 an exchange takes 1 to 4 cards."""
    state = position(hands=(["S1", "S3", "D1"], HAND_1), stages={1: stage("H")})
    assert_illegal(state, EXCHANGE_DONE, "exchange done", "choose at least one card first")


TROPHY_PHASE_CASES = {
    "claim a trophy not paid for": (CLAIM["S"], "player_0 cannot claim that trophy (HL-6.1)"),
    "play in trophy phase": (play("H5", 1, OWN), "it is the trophy phase, not the play phase"),
    "exchange in trophy phase": (pick("H5"), "it is the trophy phase, not an exchange"),
}


@pytest.mark.parametrize(("action", "why"), TROPHY_PHASE_CASES.values(), ids=TROPHY_PHASE_CASES)
def test_illegal_action_in_the_trophy_phase(action, why):
    assert_illegal(trophy_phase(), action, action_name(action), why)


def test_a_claimed_trophy_cannot_be_claimed_again():
    """HL-6.1 nobody else can claim a suit once its trophy is taken."""
    state = position(
        hands=(HAND_0, HAND_1),
        stages={1: stage("D")},
        prizes_won=({"H": 6, "S": 2}, {}),  # ♠ is payable three for one with ♥ (HL-6.2)
        trophies=("", "H"),
        phase="trophy",
        trophy_phase={"winner": 0, "asking": "winner"},
    )
    assert CLAIM["H"] not in state.legal_actions()
    assert_illegal(state, CLAIM["H"], "cannot claim that trophy")


@pytest.mark.parametrize("action", [0, 100, EXCHANGE_DONE, CLAIM["H"], STOP])
def test_any_action_after_the_game_ended(action):
    state = game_over()
    assert state.is_terminal()
    assert_illegal(state, action, "the game is over")


@pytest.mark.parametrize("action", [-1, NUM_ACTIONS, 10**9, np.int64(366)])
def test_out_of_range_action(action):
    assert_illegal(play_phase(), action, f"action {action} is out of range 0..365")


@pytest.mark.parametrize("action", ["3", 3.0, None, True, [3], np.float64(3)], ids=repr)
def test_action_that_is_not_an_int(action):
    assert_illegal(play_phase(), action, "is not an action id", "expected an int in 0..365")


def test_numpy_integer_actions_are_accepted():
    """Actions sampled from a mask are numpy integers; they are ordinary action ids."""
    state = play_phase()
    state.apply(np.int64(play("H5", 1, OPP)))
    assert state.to_dict()["stages"][0]["sides"] == [[], []]  # ♥5 completed stage 1: it flew


# ---------------------------------------------------------------------- malformed state dicts


def base_dict() -> dict:
    """A valid play-phase dict: every stage in play, player_0 to move."""
    return make_position_dict(
        hands=(HAND_0, HAND_1),
        stages={1: stage("H"), 2: stage("DC"), 3: stage("HDC"), 4: stage("HDCS", ["C1"])},
    )


def set_stage_prizes(d: dict, index: int, prizes: list[str]) -> None:
    """Give stage ``index`` (0-based) these prizes, trading cards with the prize deck."""
    d["prize_deck"] += d["stages"][index]["prizes"]
    for suit in prizes:
        d["prize_deck"].remove(suit)
    d["stages"][index]["prizes"] = prizes


def move_card(d: dict, code: str, to: list) -> None:
    """Take ``code`` out of the draw pile and append it to ``to``."""
    d["draw_pile"].remove(code)
    to.append(code)


def four_spades_at_stage_4(d: dict) -> None:
    d["stages"][3]["sides"] = [[], []]
    d["stages"][3]["last_player"] = None
    d["draw_pile"].append("C1")
    set_stage_prizes(d, 3, ["S", "S", "S", "S"])


def card_that_does_not_fit(d: dict) -> None:
    move_card(d, "S9", d["stages"][0]["sides"][0])
    d["stages"][0]["last_player"] = 0


def complete_stage_in_play(d: dict) -> None:
    move_card(d, "H1", d["stages"][0]["sides"][0])
    move_card(d, "H2", d["stages"][0]["sides"][1])
    d["stages"][0]["last_player"] = 1


def cards_without_last_player(d: dict) -> None:
    d["stages"][3]["last_player"] = None


def stage_out_of_play_with_prizes(d: dict) -> None:
    d["stages"][2]["in_play"] = False


def exchange_with_a_fitting_card(d: dict) -> None:
    d["phase"] = "exchange"


def trophy_phase_for_a_player_who_cannot_claim(d: dict) -> None:
    d["phase"] = "trophy"
    d["trophy_phase"] = {"winner": 0, "asking": "winner"}


def keys_of(path: str) -> list:
    """``"hands/0/2"`` → ``["hands", 0, 2]``."""
    return [int(k) if k.isdigit() else k for k in path.split("/")]


def edit(path: str, value) -> Callable[[dict], None]:
    """Set the entry at ``path`` (``"k1/k2/…"``, numbers index lists) to ``value``."""
    *parents, last = keys_of(path)

    def apply(d: dict) -> None:
        for key in parents:
            d = d[key]
        d[last] = value

    return apply


def delete(path: str) -> Callable[[dict], None]:
    *parents, last = keys_of(path)

    def apply(d: dict) -> None:
        for key in parents:
            d = d[key]
        del d[last]

    return apply


def append(path: str, value) -> Callable[[dict], None]:
    def apply(d: dict) -> None:
        for key in keys_of(path):
            d = d[key]
        d.append(value)

    return apply


def both(*edits: Callable[[dict], None]) -> Callable[[dict], None]:
    def apply(d: dict) -> None:
        for e in edits:
            e(d)

    return apply


MALFORMED = {
    # card codes
    "card code H14": (edit("hands/0/0", "H14"), "'H14' is not a balloon card code"),
    "card code X1": (edit("draw_pile/0", "X1"), "draw_pile: 'X1' is not a balloon card code"),
    "card code 5": (edit("hands/1/0", 5), "hands[1]: 5 is not a balloon card code"),
    "no diamond 4": (edit("hands/0/2", "D4"), "'D4' is not a balloon card code"),
    "lower-case code": (edit("hands/0/0", "h5"), "'h5' is not a balloon card code"),
    # every balloon card exactly once
    "duplicated card": (append("draw_pile", "H5"), "balloon card H5 appears twice"),
    "missing card": (delete("draw_pile/0"), "balloon cards missing"),
    "nine cards in a hand": (
        lambda d: move_card(d, "C13", d["hands"][0]),
        "hands[0] holds 9 cards; at most 8",
    ),
    # stages
    "card that does not fit (HL-3.1)": (card_that_does_not_fit, "S9 does not fit"),
    "4 spade prizes at stage 4 (HL-2.3)": (four_spades_at_stage_4, "4 spade prizes; at most 3"),
    "wrong prize count at a stage": (
        lambda d: set_stage_prizes(d, 1, ["D"]),
        "stage 2) must hold 2 prize cards, not 1",
    ),
    "prizes at a stage out of play": (
        stage_out_of_play_with_prizes,
        "stage 3) must hold 0 prize cards, not 3",
    ),
    "complete stage not flown (HL-4.1)": (complete_stage_in_play, "should have been flown"),
    "cards without last_player": (cards_without_last_player, "last_player must be 0 or 1"),
    "bad terrain": (edit("stages/0/terrain", "hill"), "terrain must be 'lowland' or 'mountain'"),
    "in_play not a bool": (edit("stages/0/in_play", "yes"), "in_play must be a bool"),
    "three stages": (delete("stages/3"), "stages must have 4 entries, not 3"),
    "unknown stage key": (edit("stages/0/colour", "red"), "unknown keys ['colour']"),
    "stage not a dict": (edit("stages/0", ["H"]), "stages[0] (stage 1) must be a dict"),
    "one side at a stage": (
        edit("stages/0/sides", [["H2"]]),
        "stages[0] (stage 1).sides must have 2 entries, not 1",
    ),
    "sides not a list": (edit("stages/1/sides", "H2"), "stages[1] (stage 2).sides must be a list"),
    "prize suit X": (edit("prize_deck/0", "X"), "prize_deck: 'X' is not a suit letter"),
    # prize cards
    "prizes_won missing a suit": (delete("prizes_won/0/S"), "prizes_won[0] must be a dict"),
    "negative prize count": (edit("prizes_won/1/H", -1), "prizes_won[1] must hold counts ≥ 0"),
    "prize count as text": (edit("prizes_won/1/H", "1"), "prizes_won[1] must hold counts ≥ 0"),
    "one prize card too many": (edit("prizes_won/0/H", 1), "prize cards of suit H: 14"),
    "one prize card too few": (delete("prize_deck/0"), "but the game has"),
    "same trophy twice (HL-6.1)": (
        edit("trophies", [["H"], ["H"]]),
        "a trophy is claimed twice",
    ),
    "a player's trophies not a list": (edit("trophies/1", "H"), "trophies[1] must be a list"),
    "trophy cards below the price": (
        both(edit("trophies", [["S"], []]), edit("trophy_cards", [dict.fromkeys("HDCS", 0)] * 2)),
        "trophy_cards[0] hold 0 cards, but the trophies",
    ),
    "trophy cards without a trophy": (
        edit("trophy_cards/1/S", 1),
        "trophy_cards[1] hold 1 cards, but the trophies [] cost 0",
    ),
    # phase and players
    "bad phase": (edit("phase", "bidding"), "phase must be one of"),
    "current_player 2": (edit("current_player", 2), "current_player must be 0 or 1"),
    "current_player as text": (edit("current_player", "0"), "current_player must be 0 or 1"),
    "current_player True": (edit("current_player", True), "current_player must be 0 or 1"),
    "current_player null in play": (edit("current_player", None), "current_player must be 0 or 1"),
    "over with a player to move": (edit("phase", "over"), "current_player must be null"),
    "two trophies but not over (HL-7.1)": (
        both(
            edit("trophies", [["H", "S"], []]),
            edit("trophy_cards", [{"H": 7, "D": 0, "C": 0, "S": 4}, dict.fromkeys("HDCS", 0)]),
        ),
        "player 0 holds two trophies, so the phase must be 'over'",
    ),
    "winner while playing": (edit("winner", 0), "winner must be null while the game is not over"),
    "selection outside an exchange": (
        edit("exchange_selection", ["H5"]),
        "exchange_selection must be empty outside the exchange phase",
    ),
    "trophy_phase outside trophies": (
        edit("trophy_phase", {"winner": 0, "asking": "winner"}),
        "trophy_phase must be null outside the trophy phase",
    ),
    "trophy phase without trophy_phase": (
        edit("phase", "trophy"),
        "the trophy phase needs trophy_phase",
    ),
    "trophy phase for a player who cannot claim": (
        trophy_phase_for_a_player_who_cannot_claim,
        "player 0 can claim no trophy",
    ),
    "exchange with a fitting card (HL-3.3)": (exchange_with_a_fitting_card, "cannot exchange"),
    "revealed card not in the hand": (
        edit("revealed_cards", [["H6"], []]),
        "revealed_cards[0] lists cards that are not in hands[0]",
    ),
    "pass streak 2": (edit("pass_streak", 2), "pass_streak must be an int in 0..1, not 2"),
    "negative turn": (edit("turn", -1), "turn must be an int in 0..1999, not -1"),
    "turn at the limit": (edit("turn", 2000), "turn must be an int in 0..1999, not 2000"),
    # types and keys
    "hands not a list": (edit("hands", "H5 H9"), "hands must be a list, not str"),
    "a hand not a list": (edit("hands/0", {"H5": 1}), "hands[0] must be a list, not dict"),
    "three hands": (append("hands", []), "hands must have 2 entries, not 3"),
    "unknown key": (edit("score", 3), "state dict has unknown key(s) ['score']"),
    "missing key": (delete("stages"), "state dict lacks the key(s) ['stages']"),
    "other game": (edit("game", "heisse_karten"), "is for game 'heisse_karten'"),
    "bad option": (
        edit("options", {"three_for_one": "yes"}),
        "option three_for_one must be a bool",
    ),
    "unknown option": (edit("options", {"speed": 2}), "unknown option(s) ['speed']"),
}


def test_base_dict_is_valid():
    state = State.from_dict(base_dict())
    assert state.to_dict()["phase"] == "play" and state.current_player == 0


@pytest.mark.parametrize(("mutate", "problem"), MALFORMED.values(), ids=MALFORMED)
def test_malformed_state_dict(mutate, problem):
    """from_dict raises ValueError naming the problem and leaves the given dict as it was."""
    d = base_dict()
    mutate(d)
    given = copy.deepcopy(d)
    with pytest.raises(ValueError, match=re.escape(problem)):
        State.from_dict(d)
    assert d == given


# A corrupted entry anywhere in a dict or view: tests/core/test_malformed_input.py (both games).


@pytest.mark.parametrize("value", [None, [], "state", 3], ids=repr)
def test_state_dict_that_is_not_a_dict(value):
    with pytest.raises(ValueError, match="a state dict must be a dict"):
        State.from_dict(value)


def test_no_stage_in_play_but_not_over():
    """HL-7.2 the game ends when no stage is left."""
    d = make_position_dict(hands=(HAND_0, HAND_1), stages={})
    with pytest.raises(ValueError, match="no stage is in play, so the phase must be 'over'"):
        State.from_dict(d)


@pytest.mark.parametrize("player", [2, -1, "0", True, None], ids=repr)
def test_view_of_a_player_who_is_not_seated(player):
    state = play_phase()
    with pytest.raises(ValueError, match="player must be 0 or 1"):
        state.view(player)


def test_from_view_of_something_else():
    with pytest.raises(ValueError, match="from_view needs a Heiße Luft view dict"):
        State.from_view(play_phase().to_dict(), 0)


# ---------------------------------------------------------------------- options

BAD_OPTIONS = {
    "three_for_one yes": ({"three_for_one": "yes"}, "option three_for_one must be a bool"),
    "three_for_one 1": ({"three_for_one": 1}, "option three_for_one must be a bool"),
    "starting_player 2": ({"starting_player": 2}, "option starting_player.*must be 0.*not 2"),
    "starting_player True": ({"starting_player": True}, "option starting_player.*not True"),
    "starting_player text": ({"starting_player": "first"}, "option starting_player.*not 'first'"),
    "turn_limit 0": ({"turn_limit": 0}, "option turn_limit must be a positive int, not 0"),
    "turn_limit 1.5": ({"turn_limit": 1.5}, "option turn_limit must be a positive int"),
    "unknown option": ({"colour": "red"}, re.escape("unknown option(s) ['colour']")),
}
CONSTRUCTORS = {
    "State.new": lambda **options: State.new(seed=0, **options),
    "env": heisse_luft_v0.env,
    "raw_env": heisse_luft_v0.raw_env,
}


@pytest.mark.parametrize("make", CONSTRUCTORS.values(), ids=CONSTRUCTORS)
@pytest.mark.parametrize(("options", "problem"), BAD_OPTIONS.values(), ids=BAD_OPTIONS)
def test_bad_options(make, options, problem):
    """``problem`` is a regular expression for the message."""
    with pytest.raises(ValueError, match=problem):
        make(**options)


def test_a_numpy_starting_player_becomes_a_plain_seat_or_is_refused():
    try:
        state = State.new(seed=0, starting_player=np.int64(1))
    except ValueError:
        return
    d = state.to_dict()
    assert json.loads(json.dumps(d)) == d
    assert State.from_dict(d).to_dict() == d


def test_a_view_for_a_numpy_seat_is_plain_json_or_refused():
    state = play_phase()
    try:
        view = state.view(np.int64(0))
    except ValueError:
        return
    assert json.loads(json.dumps(view)) == view
    assert State.from_view(view, 0).view(0) == view


def test_bad_render_mode():
    with pytest.raises(ValueError, match="render_mode must be one of"):
        heisse_luft_v0.env(render_mode="rgb")


@pytest.mark.parametrize("seed", ["7", 7.0, [7]], ids=repr)
def test_bad_seed(seed):
    with pytest.raises(TypeError, match="seed must be an int, a numpy Generator or None"):
        State.new(seed=seed)


# ---------------------------------------------------------------------- the environment


def test_wrapped_env_ends_the_game_on_an_illegal_action_with_minus_one():
    """env(): TerminateIllegalWrapper gives the offender −1, the other player 0, and ends the
    game for both."""
    env = heisse_luft_v0.env()
    env.reset(seed=2)
    offender = env.agent_selection
    other = next(a for a in env.agents if a != offender)
    illegal = int(np.flatnonzero(env.observe(offender)["action_mask"] == 0)[0])
    env.step(illegal)
    assert all(env.terminations.values())
    assert env.rewards == {offender: -1, other: 0}
    assert env._cumulative_rewards[offender] == -1


@pytest.mark.parametrize("action", [-1, NUM_ACTIONS, 10**9])
def test_wrapped_env_asserts_on_out_of_range_actions(action):
    env = heisse_luft_v0.env()
    env.reset(seed=2)
    before = env.unwrapped.game.to_dict()
    with pytest.raises(AssertionError):
        env.step(action)
    assert env.unwrapped.game.to_dict() == before


def test_raw_env_raises_illegal_action_error_and_changes_nothing():
    env = heisse_luft_v0.raw_env()
    env.reset(seed=4)
    agent, before = env.agent_selection, env.game.to_dict()
    illegal = int(np.flatnonzero(env.observe(agent)["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError, match=f"action {illegal} "):
        env.step(illegal)
    assert env.game.to_dict() == before
    assert env.agent_selection == agent
    assert not any(env.terminations.values())


def test_raw_env_refuses_an_action_after_the_game_ended():
    """After the end only ``None`` is a valid step (PettingZoo's dead-agent rule)."""
    env = heisse_luft_v0.raw_env()
    env.reset(seed=4)
    chooser = np.random.default_rng(4)
    while not env.game.is_terminal():
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(chooser.choice(np.flatnonzero(mask))))
    before = env.game.to_dict()
    with pytest.raises(ValueError, match="the only valid action is None"):
        env.step(0)
    assert env.game.to_dict() == before

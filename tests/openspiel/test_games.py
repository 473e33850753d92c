"""Both games as pyspiel games: loaded by name, declared honestly, delegating to the engine,
passing OpenSpiel's own random simulation test with serialization (docs/openspiel.md)."""

from __future__ import annotations

import pickle

import numpy as np
import pyspiel
import pytest

from hot_envs import heisse_karten, heisse_luft
from hot_envs.openspiel import KARTEN, LUFT, from_engine
from tests.openspiel.helpers import GAME_STRINGS, decision_states, random_step


def test_the_games_load_by_name_with_the_environments_options() -> None:
    game = pyspiel.load_game("python_heisse_karten(players=4)")
    assert game.num_players() == 4
    assert game.get_parameters()["players"] == 4
    assert game.num_distinct_actions() == heisse_karten.NUM_ACTIONS == 48
    luft = pyspiel.load_game(LUFT, {"turn_limit": 100, "three_for_one": False})
    assert luft.num_players() == 2
    assert luft.num_distinct_actions() == heisse_luft.NUM_ACTIONS == 366
    assert luft.new_initial_state().get_game().options == {
        "three_for_one": False,
        "starting_player": 0,
        "turn_limit": 100,
    }
    assert {LUFT, KARTEN} <= set(pyspiel.registered_names())


def test_game_type_and_info_are_declared() -> None:
    for name in (LUFT, KARTEN):
        game = pyspiel.load_game(name)
        kind = game.get_type()
        assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
        assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
        assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
        assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM
        assert kind.reward_model == pyspiel.GameType.RewardModel.TERMINAL
        assert game.utility_sum() == 0.0
    # decisions only, as OpenSpiel counts them: HL-3.4, HL-3.2, HL-6.4 a turn, HL-7.1 claims
    assert pyspiel.load_game(LUFT).max_game_length() == 7 * 2000 + 6
    assert pyspiel.load_game(LUFT, {"turn_limit": 10}).max_game_length() == 76
    assert pyspiel.load_game(KARTEN, {"players": 5}).max_game_length() == 45  # 3 set aside
    assert pyspiel.load_game(KARTEN, {"players": 4, "rounds": 3}).max_game_length() == 144
    assert pyspiel.load_game(KARTEN, {"target": 100}).max_game_length() == 100 * 48
    assert pyspiel.load_game(KARTEN).max_chance_outcomes() == 48
    # chance nodes: HK-2.2 a shuffle of 48 a round, the last card forced; HK-2.4 a random leader
    assert pyspiel.load_game(KARTEN, {"rounds": 3}).max_chance_nodes_in_history() == 3 * 47
    assert pyspiel.load_game(KARTEN, {"first_leader": -1}).max_chance_nodes_in_history() == 48
    # HL-2.2 and HL-2.4 two shuffles of 40, HL-3.5 the reshuffles: five draws a turn and one more
    luft = pyspiel.load_game(LUFT, {"turn_limit": 10, "starting_player": -1})
    assert luft.max_chance_nodes_in_history() == 3 * 39 + 5 * 10 + 1
    assert luft.max_history_length() == 76 + 168
    assert pyspiel.load_game(LUFT).max_chance_outcomes() == 40
    win = pyspiel.load_game(KARTEN, {"players": 3})
    assert (win.min_utility(), win.max_utility()) == (-1.0, 1.0)
    score = pyspiel.load_game(KARTEN, {"players": 2, "reward_mode": "score"})
    # HK-4.3: all 600 black points against all 576 red ones, over 300
    assert score.max_utility() == pytest.approx(1176 / 300)
    assert score.min_utility() == pytest.approx(-1176 / 300)


@pytest.mark.parametrize(
    "game_string, message",
    [
        ("python_heisse_karten(players=7)", "num_players must be in 2..6"),
        ("python_heisse_karten(players=1)", "num_players must be in 2..6"),
        ("python_heisse_karten(reward_mode=most)", "reward_mode must be one of"),
        ("python_heisse_karten(first_leader=4)", "first_leader"),
        ("python_heisse_luft(turn_limit=0)", "turn_limit must be a positive int"),
        ("python_heisse_luft(starting_player=2)", "starting_player"),
    ],
)
def test_bad_parameters_are_clear_errors(game_string: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        pyspiel.load_game(game_string)


def test_an_unknown_parameter_is_refused() -> None:
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'players'"):
        pyspiel.load_game("python_heisse_luft(players=3)")


@pytest.mark.parametrize("game_string", GAME_STRINGS[::3])
def test_a_game_pickles_with_its_parameters(game_string: str) -> None:
    game = pyspiel.load_game(game_string)
    copy = pickle.loads(pickle.dumps(game))
    assert str(copy) == str(game) and copy.options == game.options
    assert copy.max_chance_nodes_in_history() == game.max_chance_nodes_in_history()
    state = copy.new_initial_state()
    while state.is_chance_node():
        random_step(state, np.random.default_rng(0))
    assert state.legal_actions()


@pytest.mark.parametrize("game_string", GAME_STRINGS)
def test_openspiel_random_sim_test_with_serialization(game_string: str) -> None:
    pyspiel.random_sim_test(
        pyspiel.load_game(game_string), num_sims=2, serialize=True, verbose=False
    )


@pytest.mark.parametrize("game_string", GAME_STRINGS[::2])
def test_the_state_answers_with_the_engine(game_string: str) -> None:
    """Legal actions, the player to move, returns and the end are the engine's; a chance node's
    outcomes are a uniform choice among what is left of the shuffle."""
    rng = np.random.default_rng(3)
    state = pyspiel.load_game(game_string).new_initial_state()
    chance_nodes = 0
    while not state.is_terminal():
        if state.is_chance_node():
            chance_nodes += 1
            outcomes = state.chance_outcomes()
            assert len({a for a, _ in outcomes}) == len(outcomes) >= 2
            assert sum(p for _, p in outcomes) == pytest.approx(1.0)
            assert len({p for _, p in outcomes}) == 1
        else:
            engine = state.engine
            assert state.current_player() == engine.current_player
            assert state.legal_actions() == engine.legal_actions()
            for seat in range(state.num_players()):
                if seat != engine.current_player:
                    assert state.legal_actions(seat) == []
        random_step(state, rng)
    assert chance_nodes >= 39  # at least one whole shuffle
    assert state.returns() == state.engine.returns()
    assert state.current_player() == pyspiel.PlayerId.TERMINAL


def test_a_reshuffle_while_drawing_is_a_chance_node_with_the_action_pending() -> None:
    """HL-3.5: the action whose draw empties the pile waits for the shuffle's outcomes."""
    for seed in range(20):
        rng = np.random.default_rng(seed)
        state = pyspiel.load_game(LUFT).new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node() and state.history() and state.engine is not None:
                before = state.engine
                assert before.draw_pile == []  # the pending action draws from an empty pile
                pending = state.history()[-1 - len(state._outcomes)]
                assert pending in before.legal_actions()
                while state.is_chance_node():
                    random_step(state, rng)
                assert len(state.engine.draw_pile) + len(state.engine.discard_pile) > 0
                return
            random_step(state, rng)
    pytest.fail("no reshuffle in 20 random games")


def test_a_round_of_a_match_is_dealt_by_chance_nodes() -> None:
    state = pyspiel.load_game(KARTEN, {"players": 4, "rounds": 2}).new_initial_state()
    rng = np.random.default_rng(0)
    while state.engine is None or state.engine.round == 0:
        random_step(state, rng)
    assert not state.is_chance_node()
    assert state.engine.round == 1 and sum(map(len, state.engine.hands)) == 32
    chance = [a for a in state.full_history() if a.player == pyspiel.PlayerId.CHANCE]
    assert len(chance) == 2 * 47  # two shuffles of 48 cards, the last card of each forced


def test_chance_outcomes_other_than_those_offered_are_refused() -> None:
    state = pyspiel.load_game(KARTEN).new_initial_state()
    state.apply_action(5)
    with pytest.raises(Exception, match="chance outcome 5 is not possible"):
        state.apply_action(5)


def test_an_illegal_action_is_refused_by_the_engine() -> None:
    state = next(decision_states(LUFT, 0))
    illegal = next(a for a in range(366) if a not in state.legal_actions())
    with pytest.raises(Exception, match="illegal"):
        state.apply_action(illegal)


@pytest.mark.parametrize("game_string", GAME_STRINGS)
def test_serialize_and_deserialize_round_trip(game_string: str) -> None:
    game = pyspiel.load_game(game_string)
    for state in decision_states(game_string, seed=5, every=7):
        text = state.serialize()
        copy = game.deserialize_state(text)
        assert str(copy) == str(state)
        assert copy.history() == state.history()
        assert copy.serialize() == text
        assert copy.engine.to_dict() == state.engine.to_dict()
        # both go on alike: the same chance outcomes and actions give the same game
        a, b = np.random.default_rng(1), np.random.default_rng(1)
        for _ in range(30):
            if state.is_terminal():
                break
            random_step(state, a)
            random_step(copy, b)
        assert str(copy) == str(state)
    whole = pyspiel.serialize_game_and_state(game, state)
    game_back, state_back = pyspiel.deserialize_game_and_state(whole)
    assert str(game_back) == str(game) and str(state_back) == str(state)


def test_a_bad_serialized_state_is_a_clear_error() -> None:
    game = pyspiel.load_game(KARTEN)
    good = next(decision_states(KARTEN, 0)).serialize()
    for bad in ("nonsense", good.replace("__dict__=", "__dict__=AAAA"), good[: len(good) // 2]):
        with pytest.raises(ValueError, match="not a serialized Heiße Karten state"):
            game.deserialize_state(bad)


def test_a_serialized_state_that_breaks_the_rules_is_refused_by_the_engine() -> None:
    from hot_envs.openspiel.games import loads

    state = next(decision_states(KARTEN, 0)).engine.to_dict()
    state["hands"][0][0] = state["hands"][1][0]  # one card twice
    import json

    with pytest.raises(ValueError):
        loads(json.dumps(state))
    with pytest.raises(ValueError, match="no game named"):
        loads(json.dumps({"game": "chess"}))


@pytest.mark.parametrize("game_string", GAME_STRINGS[::2])
def test_resample_from_infostate_keeps_what_the_player_knows(game_string: str) -> None:
    rng = np.random.default_rng(0)
    changed = 0
    for state in decision_states(game_string, seed=2, every=5):
        if state.is_terminal():
            continue
        player = state.current_player()
        sample = state.resample_from_infostate(player, rng.random)
        assert sample.engine.view(player) == state.engine.view(player)
        assert sample.history() == state.history()
        assert sample.legal_actions() == state.legal_actions()
        assert sample.information_state_string(player) == state.information_state_string(player)
        changed += sample.engine.to_dict() != state.engine.to_dict()
        random_step(sample, rng)  # a full state that plays on
    assert changed >= 3


def test_from_engine_wraps_an_engine_state_for_openspiel() -> None:
    engine = heisse_karten.State.new(seed=4, num_players=3)
    state = from_engine(engine)
    assert state.get_game().num_players() == 3
    assert state.legal_actions() == engine.legal_actions()
    state.apply_action(state.legal_actions()[0])
    assert engine.played == []  # a copy was wrapped
    luft = from_engine(heisse_luft.State.new(seed=4, turn_limit=50))
    assert luft.get_game().get_type().short_name == LUFT
    assert luft.get_game().max_game_length() == 7 * 50 + 6
    match = from_engine(heisse_karten.State.new(seed=4, num_players=5, target=200))
    assert match.get_game().get_parameters()["target"] == 200
    assert match.get_game().max_game_length() == 100 * 45  # the round cap (HK-4.4)

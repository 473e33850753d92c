"""Bots both ways: OpenSpiel's ISMCTS as the ``ismcts`` agent spec at our tables, our agent specs
as ``pyspiel.Bot`` in OpenSpiel's ``evaluate_bots``. Shimmy's way back to PettingZoo is in
test_shimmy.py."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import evaluate_bots
from open_spiel.python.bots import uniform_random

from hot_envs import heisse_karten_v0, heisse_luft_v0
from hot_envs.agents import make_agent
from hot_envs.agents.base import observe
from hot_envs.agents.play import play_game
from hot_envs.evaluation.arena import play_match
from hot_envs.openspiel import KARTEN, LUFT, AgentBot, bot
from hot_envs.openspiel.ismcts import SIMULATIONS, ISMCTSAgent


def test_the_ismcts_spec() -> None:
    agent = make_agent("ismcts", "heisse-karten", seed=1)
    assert isinstance(agent, ISMCTSAgent) and agent.simulations == SIMULATIONS
    assert make_agent("ismcts:12", "heisse-luft", seed=1).simulations == 12
    for bad in ("ismcts:0", "ismcts:x", "ismcts:2.5", "ismcts:-3"):
        with pytest.raises(ValueError, match="SIMULATIONS must be a positive int"):
            make_agent(bad, "heisse-luft")


def test_without_openspiel_the_spec_names_the_extra() -> None:
    code = textwrap.dedent(
        """
        import sys
        sys.modules["pyspiel"] = None  # as if OpenSpiel were not installed
        import hot_envs
        from hot_envs.agents import make_agent
        try:
            make_agent("ismcts", "heisse-luft")
        except ValueError as error:
            print(error)
        """
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "pip install hot_envs[openspiel]" in result.stdout


@pytest.mark.parametrize(
    "game, env",
    [("heisse-karten", heisse_karten_v0.env(num_players=3)), ("heisse-luft", heisse_luft_v0.env())],
)
def test_ismcts_plays_whole_games_at_our_tables(game, env) -> None:
    agents = {name: make_agent("ismcts:4", game, seed=1) for name in env.possible_agents}
    masked = []

    def check(name, observation, view, action):
        masked.append(bool(observation["action_mask"][action]))

    totals = play_game(env, agents, seed=3, on_action=check)
    assert masked and all(masked)
    assert sum(totals.values()) == pytest.approx(0.0)


def test_ismcts_is_reproducible_with_a_seed_and_searches() -> None:
    from hot_envs import heisse_karten

    state = heisse_karten.State.new(seed=5, num_players=2)
    observation, view = observe(heisse_karten, state, 0), state.view(0)
    first = [ISMCTSAgent("heisse-karten", 20, seed=9).act(observation, view) for _ in range(2)]
    assert first[0] == first[1] and first[0] in state.legal_actions()
    # with many simulations it plays what its searches prefer, not any legal card
    picks = {ISMCTSAgent("heisse-karten", 60, seed=s).act(observation, view) for s in range(6)}
    assert len(picks) < len(state.legal_actions())


def test_ismcts_in_the_arena() -> None:
    result = play_match(
        "heisse-karten", ["ismcts:3", "random"], games=2, seed=1, workers=1, progress=False
    )
    assert len(result.records) == 2
    assert {s.games for s in result.stats()} == {2}


def test_the_cpp_ismcts_bot_cannot_search_a_python_game() -> None:
    """Why ``ismcts`` uses OpenSpiel's Python bot (hot_envs/openspiel/ismcts.py): the C++ bot
    releases the interpreter lock in ``step`` and then calls the Python game without it."""
    code = textwrap.dedent(
        """
        import pyspiel, hot_envs.openspiel
        game = pyspiel.load_game("python_heisse_karten(players=2)")
        state = game.new_initial_state()
        while state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
        evaluator = pyspiel.RandomRolloutEvaluator(1, 0)
        bot = pyspiel.ISMCTSBot(0, evaluator, 2.0, 10)
        print(bot.step(state))
        """
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode != 0  # a segmentation fault, not a Python exception


@pytest.mark.parametrize(
    "game_string, specs",
    [
        (LUFT, ["heuristic", "heisse_luft_v0"]),
        ("python_heisse_karten(players=3)", ["heuristic", "heisse_karten_v0", "search:10"]),
    ],
)
def test_our_agents_play_in_evaluate_bots(game_string: str, specs: list[str]) -> None:
    game = pyspiel.load_game(game_string)
    bots = [bot(spec, game, seat, seed=seat) for seat, spec in enumerate(specs)]
    assert all(isinstance(b, pyspiel.Bot) for b in bots)
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(0))
    assert len(returns) == game.num_players() and sum(returns) == pytest.approx(0.0)


def test_the_heuristic_beats_openspiels_random_bot_in_evaluate_bots() -> None:
    game = pyspiel.load_game(KARTEN, {"players": 2})
    rng = np.random.RandomState(0)
    wins = 0
    for seat in range(10):
        heuristic = bot("heuristic", game, seat % 2, seed=seat)
        other = uniform_random.UniformRandomBot(1 - seat % 2, rng)
        bots = [heuristic, other] if seat % 2 == 0 else [other, heuristic]
        wins += evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)[seat % 2] > 0
    assert wins >= 7


def test_a_bot_gets_only_its_own_view() -> None:
    game = pyspiel.load_game(KARTEN, {"players": 2})
    seen = []

    class Spy:
        def act(self, observation, view):
            seen.append(view)
            return view["legal_actions"][0]

    spy = AgentBot(Spy(), game, 1)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    assert state.current_player() == 0  # HK-2.4 seat 0 leads the first trick
    with pytest.raises(ValueError, match="plays seat 1, not seat 0"):
        spy.step(state)
    state.apply_action(state.legal_actions()[0])
    assert spy.step(state) in state.legal_actions()
    assert seen[0] == state.engine.view(1) and "hands" not in seen[0]


def test_bad_bot_arguments_are_clear_errors() -> None:
    with pytest.raises(ValueError, match="not one of our games"):
        bot("heuristic", pyspiel.load_game("kuhn_poker"), 0)
    with pytest.raises(ValueError, match="player must be a seat of 2"):
        bot("heuristic", LUFT, 2)
    with pytest.raises(ValueError, match="unknown agent spec"):
        bot("grandmaster", LUFT, 0)

"""The determinised search agent: legal play in every seat, determinism, no peeking."""

from __future__ import annotations

import math
import random
import time

import numpy as np
import pytest

from hot_envs import heisse_karten, heisse_luft
from hot_envs.agents import SearchAgent, agent_rollout, make_agent, random_rollout
from hot_envs.agents.random_agent import RandomAgent
from hot_envs.agents.search import engine_module

SEATINGS = [(heisse_luft, {}, seat) for seat in range(2)] + [
    (heisse_karten, {"num_players": n}, seat) for n in range(2, 7) for seat in range(n)
]


def observe(engine, state, seat):
    return {
        "observation": engine.encode(state, seat),
        "action_mask": engine.action_mask(state, seat),
    }


def play(engine, state, agents):
    """Play ``state`` to its end; every action must be in the mover's legal list."""
    while not state.is_terminal():
        seat = state.current_player
        view = state.view(seat)
        action = agents[seat].act(observe(engine, state, seat), view)
        assert action in view["legal_actions"]
        state.apply(action)
    return state.returns()


def midgame(engine, options, moves, seed):
    """A position after ``moves`` random actions."""
    state = engine.State.new(seed=seed, **options)
    rng = random.Random(seed)
    for _ in range(moves):
        state.apply(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize(
    ("engine", "options", "seat"),
    SEATINGS,
    ids=[f"{e.__name__.split('.')[-1]}-{o.get('num_players', 2)}p-seat{s}" for e, o, s in SEATINGS],
)
def test_full_games_in_every_seat(engine, options, seat):
    state = engine.State.new(seed=seat, **options)
    agents = [RandomAgent(s) for s in range(state.num_players)]
    agents[seat] = SearchAgent(engine, simulations=1, seed=seat)
    returns = play(engine, state, agents)
    assert len(returns) == state.num_players


@pytest.mark.parametrize("game", ["heisse-luft", "heisse-karten"])
def test_game_given_by_name_module_or_class(game):
    engine = engine_module(game)
    assert engine_module(engine) is engine
    assert engine_module(engine.State) is engine
    with pytest.raises(ValueError):
        engine_module("chess")


def test_same_seed_same_actions():
    state = midgame(heisse_luft, {}, 10, seed=4)
    seat = state.current_player
    view, observation = state.view(seat), observe(heisse_luft, state, seat)
    a, b = SearchAgent(heisse_luft, 40, seed=9), SearchAgent(heisse_luft, 40, seed=9)
    assert [a.act(observation, view) for _ in range(3)] == [
        b.act(observation, view) for _ in range(3)
    ]
    assert a.last_values == b.last_values


def test_seeded_games_repeat():
    def game():
        state = heisse_karten.State.new(seed=2, num_players=3)
        agents = [SearchAgent(heisse_karten, 24, seed=s) for s in range(3)]
        actions = []
        while not state.is_terminal():
            seat = state.current_player
            actions.append(agents[seat].act(observe(heisse_karten, state, seat), state.view(seat)))
            state.apply(actions[-1])
        return actions

    assert game() == game()


@pytest.mark.parametrize(
    ("engine", "options", "moves"),
    [(heisse_luft, {}, 12), (heisse_luft, {}, 30), (heisse_karten, {"num_players": 2}, 9)]
    + [(heisse_karten, {"num_players": 4}, 13)],
)
def test_same_action_whatever_the_hidden_cards(engine, options, moves):
    """The agent sees only the view: a state that differs in every hidden card gives the same
    view, the same observation and so the same action (HL-8, HK-5: no leaks)."""
    state = midgame(engine, options, moves, seed=moves)
    seat = state.current_player
    view = state.view(seat)
    rng = np.random.default_rng(1)
    other = next(
        s
        for s in (engine.State.from_view(view, rng) for _ in range(20))
        if s.to_dict()["hands"] != state.to_dict()["hands"]
    )
    assert other.view(seat) == view
    obs, other_obs = observe(engine, state, seat), observe(engine, other, seat)
    assert all(np.array_equal(obs[k], other_obs[k]) for k in obs)
    first = SearchAgent(engine, 60, seed=5).act(obs, view)
    second = SearchAgent(engine, 60, seed=5).act(other_obs, other.view(seat))
    assert first == second


def test_one_legal_action_costs_nothing():
    state = midgame(heisse_karten, {"num_players": 2}, 46, seed=0)  # the last trick
    seat = state.current_player
    agent = SearchAgent(heisse_karten, simulations=10**9, seed=0)
    assert (
        agent.act(observe(heisse_karten, state, seat), state.view(seat)) == state.legal_actions()[0]
    )


def test_seconds_budget():
    state = heisse_luft.State.new(seed=1)
    agent = SearchAgent(heisse_luft, seconds=0.05, seed=0)
    start = time.perf_counter()
    action = agent.act(observe(heisse_luft, state, 0), state.view(0))
    assert action in state.legal_actions()
    assert time.perf_counter() - start < 1.0


@pytest.mark.parametrize("game", ["heisse-luft", "heisse-karten"])
def test_heuristic_rollouts(game):
    """Any agent serves as rollout policy, with a share of random moves."""
    engine = engine_module(game)
    policy = agent_rollout(make_agent("heuristic", game, 0), game, epsilon=0.3)
    state = midgame(engine, {}, 40, seed=2)
    seat = state.current_player
    agent = SearchAgent(game, simulations=8, rollout=policy, seed=1)
    assert agent.act(observe(engine, state, seat), state.view(seat)) in state.legal_actions()
    assert make_agent("search:8:heuristic:0.3", game, 0).rollout is not None


def test_rollout_plies_limit_the_policy():
    """With ``rollout_plies`` the policy plays that many moves per rollout, random ones the rest."""
    calls = []

    def policy(state, rng):
        calls.append(1)
        return state.legal_actions()[0]

    state = midgame(heisse_karten, {"num_players": 2}, 4, seed=1)
    agent = SearchAgent(heisse_karten, 10, rollout=policy, rollout_plies=3, seed=0)
    agent.act(observe(heisse_karten, state, state.current_player), state.view(state.current_player))
    rollouts = sum(n for _, n in agent.last_values.values())
    assert len(calls) == 3 * rollouts


def test_value_scores_the_rollouts():
    seen = []

    def value(state, seat):
        assert state.is_terminal()
        seen.append(seat)
        return 0.0

    state = midgame(heisse_karten, {"num_players": 3}, 5, seed=2)
    seat = state.current_player
    agent = SearchAgent(heisse_karten, 12, value=value, seed=0)
    agent.act(observe(heisse_karten, state, seat), state.view(seat))
    assert seen and set(seen) == {seat}
    assert all(v == 0.0 for v, _ in agent.last_values.values())


def test_prior_stays_in_the_race_and_wins_ties():
    """The prior's choice is kept to the last round and replaced only by a clear gain."""
    state = midgame(heisse_luft, {}, 6, seed=3)
    seat = state.current_player
    obs, view = observe(heisse_luft, state, seat), state.view(seat)
    prior = RandomAgent(7)
    default = RandomAgent(7).act(obs, view)
    stubborn = SearchAgent(heisse_luft, 200, prior=prior, margin=math.inf, seed=0)
    assert stubborn.act(obs, view) == default
    most = max(n for _, n in stubborn.last_values.values())
    assert stubborn.last_values[default][1] == most
    free = SearchAgent(heisse_luft, 200, prior=RandomAgent(7), margin=-math.inf, seed=0)
    action = free.act(obs, view)
    finalists = {a: v for a, (v, n) in free.last_values.items() if n == most}
    assert default in finalists and action in finalists
    assert finalists[action] == max(finalists.values())


@pytest.mark.parametrize(
    "kwargs", [{"simulations": 0}, {"simulations": 2.5}, {"simulations": True}, {"seconds": 0}]
)
def test_bad_budgets(kwargs):
    with pytest.raises(ValueError):
        SearchAgent("heisse-luft", **kwargs)


@pytest.mark.parametrize(
    ("engine", "options", "moves"),
    [(heisse_luft, {}, 20), (heisse_karten, {"num_players": 2}, 10)]
    + [(heisse_karten, {"num_players": 5}, 12)],
)
def test_rollouts_in_arrays_estimate_what_rollouts_one_by_one_do(engine, options, moves):
    """Random rollouts run in arrays by default and one game at a time for a rollout callable:
    both estimate each action's value from the same determinisations' distribution."""
    state = midgame(engine, options, moves, seed=moves)
    seat = state.current_player
    view = state.view(seat)
    actions = state.legal_actions()[:4]
    in_arrays = SearchAgent(engine, 10, seed=1)
    one_by_one = SearchAgent(engine, 10, seed=2, rollout=random_rollout)
    in_arrays._rollouts.start(engine.State.from_view(view, 3), 400 * len(actions))
    n = 400
    means = np.array(in_arrays._playouts(view, n, actions)) / n
    expected = np.array(one_by_one._playouts(view, n, actions)) / n
    assert np.abs(means - expected).max() < 0.25  # four standard errors of returns in [-1, 1]
    assert np.abs(means).max() > 0  # the games were played to an end


@pytest.mark.parametrize("rollout", [None, random_rollout], ids=["in arrays", "one by one"])
def test_on_rollouts_can_stop_a_search(rollout):
    """The hook runs after every batch of rollouts; what it raises ends the decision (how the
    browser table holds a search to its clock)."""
    state = midgame(heisse_luft, {}, 10, seed=3)
    seat = state.current_player
    agent = SearchAgent(heisse_luft, simulations=10**6, rollout=rollout, seed=0)
    calls = []

    def stop():
        calls.append(1)
        if len(calls) == 3:
            raise TimeoutError

    agent.on_rollouts = stop
    with pytest.raises(TimeoutError):
        agent.act(observe(heisse_luft, state, seat), state.view(seat))
    assert len(calls) == 3


@pytest.mark.parametrize("game", ["heisse-luft", "heisse-karten"])
def test_search_strong_is_the_preset_at_ten_times_its_rollouts(game):
    from hot_envs.agents import SEARCH_PRESETS
    from hot_envs.agents.suite import training_pool

    strong = make_agent("search-strong", game, 0)
    preset = make_agent("search", game, 0)
    assert strong.simulations == 10 * SEARCH_PRESETS[game]["simulations"] == 10 * preset.simulations
    assert (strong.rollout_plies, strong.margin) == (preset.rollout_plies, preset.margin)
    assert type(strong.prior) is type(preset.prior)
    assert "search-strong" in training_pool(game)
    with pytest.raises(ValueError, match="no options"):
        make_agent("search-strong:100", game, 0)

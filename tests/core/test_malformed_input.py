"""Bad input to either engine gets a clear ``ValueError`` and changes nothing — written once for
both games: state dicts and views with absurd sizes, wrong types or missing keys, viewers who
are not seated, actions in numpy's forms, and a refused action in ``raw_env``.
"""

from __future__ import annotations

import copy
import random
import re
import time
import tracemalloc
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hot_envs import heisse_karten, heisse_karten_v0, heisse_luft
from hot_envs.core.errors import IllegalActionError

ENGINES = {"heisse_luft": (heisse_luft, {}), "heisse_karten": (heisse_karten, {"num_players": 3})}
engines = pytest.mark.parametrize("name", ENGINES)

# Wrong types, wrong values and absurd sizes: what a corrupted file or a careless caller sends.
GARBAGE = [None, -1, 0, 1, 2, 1.5, True, "", "x", "H1", "S", "over", "draw", [], [[]], {}]
GARBAGE += [10**9, -(10**9), 10**18, [1.5], [None], {"H": 10**9}, np.int64(3), np.array(2)]


def position(name: str, seed: int, actions: int) -> Any:
    """The state after up to ``actions`` seeded random actions of a new game."""
    engine, options = ENGINES[name]
    state = engine.State.new(seed=seed, **options)
    rng = random.Random(seed)
    for _ in range(actions):
        if state.is_terminal():
            break
        state.apply(rng.choice(state.legal_actions()))
    return state


def key_paths(value: Any, path: tuple = ()) -> Iterator[tuple]:
    """Every key path inside a JSON-like value."""
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return
    for key, inner in items:
        yield (*path, key)
        yield from key_paths(inner, (*path, key))


def corrupt(d: dict, pick: random.Random) -> None:
    """Replace one entry anywhere in ``d`` by garbage, delete it, or add an unknown key."""
    *parents, last = pick.choice(list(key_paths(d)))
    target = d
    for key in parents:
        target = target[key]
    roll = pick.random()
    if roll < 0.15:
        del target[last]
    elif roll < 0.2 and isinstance(target, dict):
        target["surplus"] = 1
    else:
        target[last] = copy.deepcopy(pick.choice(GARBAGE))


def parse_bounded(parse: Any, d: dict) -> Any:
    """``parse(d)``: a state or ``None`` after a ``ValueError`` — nothing else, within seconds
    and ``d`` unchanged."""
    given_dict = copy.deepcopy(d)
    start = time.perf_counter()
    try:
        state = parse(d)
    except ValueError:
        state = None
    assert time.perf_counter() - start < 5.0  # loaded machines; an expanded 10**9 takes minutes
    np.testing.assert_equal(d, given_dict)
    return state


@pytest.mark.parametrize("name", ENGINES)
@pytest.mark.parametrize("kind", ["dict", "view"])
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    actions=st.integers(0, 80),
    pick=st.randoms(use_true_random=False),
)
def test_a_corrupted_dict_or_view_is_a_value_error_or_a_whole_state(
    name, kind, seed, actions, pick
):
    """One corrupted entry anywhere in a real dict or view: a ``ValueError`` (never a
    ``TypeError``, ``KeyError``, a hang or a huge allocation) or a state that round-trips; the
    given dict is never changed."""
    state = position(name, seed, actions)
    State = ENGINES[name][0].State
    if kind == "dict":
        d, parse = state.to_dict(), State.from_dict
    else:
        d = state.view(pick.randrange(state.num_players))
        parse = lambda view: State.from_view(view, seed)  # noqa: E731
    corrupt(d, pick)
    rebuilt = parse_bounded(parse, d)
    if rebuilt is not None:
        again = rebuilt.to_dict()
        assert State.from_dict(again).to_dict() == again


ABSURD_VIEWS = {
    "heisse_luft prize deck count": ("heisse_luft", "prize_deck_counts", {"H": 10**9}),
    "heisse_luft draw pile size": ("heisse_luft", "draw_pile_size", 10**9),
    "heisse_luft opponent hand size": ("heisse_luft", "opponent_hand_size", 10**9),
    "heisse_karten hand size": ("heisse_karten", "hand_sizes", [10**9, 8, 8]),
    "heisse_karten draw pile size": ("heisse_karten", "draw_pile_size", 10**9),
    "heisse_karten set-aside count": ("heisse_karten", "set_aside_count", 10**18),
}


@pytest.mark.parametrize(("name", "key", "value"), ABSURD_VIEWS.values(), ids=ABSURD_VIEWS)
def test_absurd_sizes_in_a_view_are_refused_before_anything_is_allocated(name, key, value):
    view = position(name, seed=5, actions=3).view(0)
    if isinstance(value, dict):
        value = {**view[key], **value}
    view[key] = value
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=key):
            ENGINES[name][0].State.from_view(view, 0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2**20  # under 1 MB: the count was checked, not expanded


MALFORMED_VIEWS = {
    "heisse_luft without hand": ("heisse_luft", "hand", ..., "the view lacks the key(s) ['hand']"),
    "heisse_luft hand 5": ("heisse_luft", "hand", 5, "hand must be a list, not int"),
    "heisse_luft stage sides": ("heisse_luft", "stages", [{}] * 4, "stages[0] must be a dict"),
    "heisse_luft known cards": ("heisse_luft", "known_opponent_cards", ["X"], "known_opponent"),
    "heisse_karten played 1.5": ("heisse_karten", "played", [1.5], "played[0] must be a [seat"),
    "heisse_karten card 1.5": ("heisse_karten", "played", [[0, 1.5]], "played[0] card must be"),
    "heisse_karten hand": ("heisse_karten", "hand", "1 2", "hand must be a list of cards"),
    "heisse_karten taken": ("heisse_karten", "taken", [[]], "taken must be a list with one"),
    "heisse_karten no player": ("heisse_karten", "player", ..., "the view lacks 'player'"),
    "heisse_karten player 7": ("heisse_karten", "player", 7, "player must be in 0..2"),
}


@pytest.mark.parametrize(
    ("name", "key", "value", "problem"), MALFORMED_VIEWS.values(), ids=MALFORMED_VIEWS
)
def test_a_malformed_view_is_a_value_error_naming_the_field(name, key, value, problem):
    view = position(name, seed=2, actions=4).view(0)
    if value is ...:
        del view[key]
    else:
        view[key] = value
    given_view = copy.deepcopy(view)
    with pytest.raises(ValueError, match=re.escape(problem)):
        ENGINES[name][0].State.from_view(view, 0)
    assert view == given_view


@engines
@pytest.mark.parametrize("viewer", [-1, True, 9, "0", 1.0], ids=repr)
def test_render_checks_the_viewer_as_view_does(name, viewer):
    """A viewer who is not a seat is refused, never shown another seat's hand."""
    state = position(name, seed=1, actions=2)
    with pytest.raises(ValueError, match="viewer"):
        state.render(viewer)
    with pytest.raises(ValueError):
        state.view(viewer)
    assert state.render(np.int64(1)) == state.render(1) != state.render(None)


@engines
def test_a_0d_integer_array_is_an_action_in_both_games(name):
    """``np.argmax`` and friends give 0-d arrays and numpy integers: both engines take them."""
    for form in (np.array, np.int64):
        state, twin = position(name, seed=3, actions=2), position(name, seed=3, actions=2)
        action = state.legal_actions()[0]
        state.apply(form(action))
        twin.apply(action)
        assert state.to_dict() == twin.to_dict()


@engines
@pytest.mark.parametrize(
    "action", [np.array(1.0), np.array(True), np.bool_(True), np.array([1]), 1.0], ids=repr
)
def test_non_integral_and_bool_actions_are_refused_in_both_games(name, action):
    state = position(name, seed=3, actions=2)
    before = state.to_dict()
    with pytest.raises(IllegalActionError, match="not an action id"):
        state.apply(action)
    assert state.to_dict() == before


def test_a_refused_action_keeps_the_pending_reward():
    """A refused action changes nothing, the acting agent's pending reward included: here the
    round reward of a 2-round match, shown by ``last()`` until that agent acts."""
    env = heisse_karten_v0.raw_env(num_players=2, rounds=2, round_rewards=True)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    while env.game.round == 0:
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    before = env.last()
    assert before[1] != 0.0  # the round's reward waits for this agent
    illegal = int(np.flatnonzero(before[0]["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError):
        env.step(illegal)
    after = env.last()
    assert after[1] == before[1]
    np.testing.assert_equal(after[0], before[0])

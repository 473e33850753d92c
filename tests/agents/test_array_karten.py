"""The Heiße Karten heuristic and policy input from the arrays (hot_envs.agents.array_karten)
against the per-view functions, the reference: ``games.state_dict(i)`` → ``State.from_dict``
→ ``.view(seat)`` → ``hk.card_scores`` / ``features.policy_input`` / ``agent.act``.

Everything is compared exactly (float64 and float32 arrays with ``np.array_equal``, NaN where
NaN), not within a tolerance: the agent breaks ties among scores within 1e-9 of the best, so
any rounding difference could change a move.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest

from hot_envs import batched
from hot_envs.agents import array_karten as ak
from hot_envs.agents import features as ft
from hot_envs.agents import heuristic_karten as hk
from hot_envs.agents.array_karten import ArrayHeuristic
from hot_envs.heisse_karten import State
from tests.batched.helpers import compiled_and_python

GAME = "heisse-karten"
PLAYER_COUNTS = pytest.mark.parametrize("num_players", range(2, 7))


@dataclass
class Tally:
    """What a run compared: decisions scored, rows packed, actions chosen, tied choices."""

    decisions: int = 0
    rows: int = 0
    actions: int = 0
    ties: int = 0
    follows: int = 0
    mismatches: list = field(default_factory=list)


def reference_scores(view: dict) -> np.ndarray:
    """``hk.card_scores`` of the view's hand as a ``(48,)`` row, NaN off the hand."""
    row = np.full(48, np.nan)
    hand = view["hand"]
    if view["legal_actions"]:
        row[np.array(hand) - 1] = hk.card_scores(view, hand)
    return row


def run(
    num_players: int,
    num_games: int,
    steps: int,
    seed: int,
    epsilons: tuple[float, ...] = (0.0, 0.2),
    tolerance: float | None = None,
    **options,
) -> Tally:
    """Play ``num_games`` games in arrays for ``steps`` steps — a quarter of them by the
    heuristic of each epsilon (through :class:`ArrayHeuristic`), the rest at random — and at
    every step compare, for every game in progress (in a shuffled order): the scores, the packed
    input of the seat to move and of another seat, and the actions of an ``ArrayHeuristic``
    against ``act`` of a twin agent seeded alike, one by one."""
    games = batched.make(GAME, num_games, num_players=num_players, **options)
    games.reset(seed=seed)
    rng = np.random.default_rng(seed)
    pairs = [
        (
            hk.HeisseKartenHeuristic(seed + i, epsilon=e),
            hk.HeisseKartenHeuristic(seed + i, epsilon=e),
        )
        for i, e in enumerate(epsilons)
    ]
    if tolerance is not None:
        for pair in pairs:
            for agent in pair:
                agent.tolerance = tolerance
    arrays = [ArrayHeuristic(mine) for mine, _ in pairs]
    tally = Tally()
    size = ft.SPECS[GAME].input_size
    for _ in range(steps):
        which = rng.permutation(np.flatnonzero(~games.done))
        movers = games.current_player.copy()
        others = np.where(
            rng.random(num_games) < 0.5, movers, rng.integers(num_players, size=num_games)
        )
        others[games.done] = -1
        mover_obs, other_obs = games.observe(), games.observe(others)
        masks = games.legal_mask()
        scores = ak.card_scores(games, which)
        packed = np.zeros((len(which), size), np.float32)
        ak.fill_policy_input(games, which, movers[which], mover_obs[which], packed)
        packed_other = np.zeros((len(which), size), np.float32)
        ak.fill_policy_input(games, which, others[which], other_obs[which], packed_other)
        chosen = [array.act_arrays(games, which) for array in arrays]
        expected = [np.zeros(len(which), np.int64) for _ in arrays]
        for j, b in enumerate(which.tolist()):
            state = State.from_dict(games.state_dict(b))
            view = state.view(int(movers[b]))
            tally.decisions += 1
            tally.follows += bool(view["trick"])
            if not np.array_equal(scores[j], reference_scores(view), equal_nan=True):
                tally.mismatches.append(("scores", b, view))
            for row, seat, obs in (
                (packed[j], movers[b], mover_obs),
                (packed_other[j], others[b], other_obs),
            ):
                tally.rows += 1
                if not np.array_equal(row, ft.policy_input(GAME, obs[b], state.view(int(seat)))):
                    tally.mismatches.append(("policy_input", b, int(seat)))
            observation = {"observation": mover_obs[b], "action_mask": masks[b]}
            for i, (_, twin) in enumerate(pairs):
                expected[i][j] = twin.act(observation, view)
        for i, (got, want) in enumerate(zip(chosen, expected, strict=True)):
            tally.actions += len(want)
            if not np.array_equal(got, want):
                tally.mismatches.append(("act", i, np.flatnonzero(got != want)))
        tally.ties += _ties(pairs, games, which, tolerance)
        actions = games.sample_legal(rng)
        for i, got in enumerate(chosen):
            heuristic = which[which % 4 == i]
            actions[heuristic] = got[which % 4 == i]
        games.step(actions)
        games.reset_done()
    for mine, twin in pairs:  # the same draws, so the generators end alike
        if mine.rng.bit_generator.state != twin.rng.bit_generator.state:
            tally.mismatches.append(("rng", mine.epsilon))
    return tally


def _ties(pairs, games, which, tolerance) -> int:
    """How many decisions of this step had several best-scored moves (a draw among them)."""
    if tolerance is None:
        tolerance = hk.HeisseKartenHeuristic.tolerance
    scores = ak.card_scores(games, which)
    best = np.nanmax(scores, axis=1, keepdims=True)
    return int(((scores >= best - tolerance).sum(axis=1) > 1).sum())


# -- the arrays against the views --------------------------------------------------------------


@PLAYER_COUNTS
def test_scores_inputs_and_actions_equal_the_per_view_ones(num_players):
    """Random and heuristic play (epsilon 0 and 0.2) at every table size: over a thousand
    decisions, leads and follows, each equal to the reference."""
    tally = run(num_players, num_games=24, steps=48, seed=num_players)
    assert tally.mismatches == []
    assert tally.decisions > 1000 and tally.rows == 2 * tally.decisions
    assert tally.follows > tally.decisions // 3  # follows, not only leads
    assert tally.actions == 2 * tally.decisions


def test_a_match_of_three_rounds():
    """HK-4.4: the played cards start again each round; the heuristic plays matches out."""
    tally = run(4, num_games=12, steps=260, seed=11, rounds=3)
    assert tally.mismatches == []
    assert tally.decisions > 2500


def test_ties_are_drawn_from_the_agents_generator_as_act_draws_them():
    """Real scores seldom tie within 1e-9, so here both agents count scores within 30 points of
    the best as equal: most choices draw among two or more moves, in the same order."""
    tally = run(3, num_games=16, steps=40, seed=4, tolerance=30.0)
    assert tally.mismatches == []
    assert tally.ties > 300


def test_the_comparison_catches_a_changed_number():
    """One score a float64 step off, one packed float32 a step off: both are seen."""
    games = batched.make(GAME, 4, num_players=3)
    games.reset(seed=1)
    games.step(games.sample_legal(np.random.default_rng(1)))
    which = np.arange(4)
    scores = ak.card_scores(games, which)
    view = State.from_dict(games.state_dict(2)).view(int(games.current_player[2]))
    assert np.array_equal(scores[2], reference_scores(view), equal_nan=True)
    k = int(np.flatnonzero(~np.isnan(scores[2]))[0])
    scores[2, k] = np.nextafter(scores[2, k], np.inf)
    assert not np.array_equal(scores[2], reference_scores(view), equal_nan=True)
    packed = np.zeros((4, ft.SPECS[GAME].input_size), np.float32)
    ak.fill_policy_input(games, which, games.current_player, games.observe(), packed)
    expected = ft.policy_input(GAME, games.observe()[2], view)
    assert np.array_equal(packed[2], expected)
    column = ft.SPECS[GAME].observation_size + 17  # the first card's score / 50
    packed[2, column] = np.nextafter(packed[2, column], np.float32(np.inf))
    assert not np.array_equal(packed[2], expected)


def test_trick_value_is_the_heuristics_to_the_last_bit():
    """The compiled ``_trick_value`` (its ``pow`` above all) against ``hk.trick_value`` on
    random terms: the same float64 bytes."""
    rng = np.random.default_rng(0)
    for _ in range(3000):
        args = (
            int(rng.integers(-150, 150)),
            bool(rng.random() < 0.8),
            int(rng.integers(0, 6)),
            1.0 / int(rng.integers(1, 6)),
            float(rng.normal() * 5),
            float(rng.random()),
            float(rng.normal() * 10),
        )
        got = np.array(ak._trick_value(*args), np.float64)
        assert got.tobytes() == np.array(hk.trick_value(*args), np.float64).tobytes(), args


# -- the contract --------------------------------------------------------------------------------


def test_only_the_plain_heuristic_is_wrapped():
    class Cautious(hk.HeisseKartenHeuristic):
        pass

    with pytest.raises(TypeError):
        ArrayHeuristic(Cautious(1))
    with pytest.raises(TypeError):
        ArrayHeuristic(object())
    assert "ArrayHeuristic" in repr(ArrayHeuristic(hk.HeisseKartenHeuristic(1)))


def test_bad_calls_are_value_errors():
    games = batched.make(GAME, 3, num_players=2)
    games.reset(seed=0)
    agent = ArrayHeuristic(hk.HeisseKartenHeuristic(0))
    size = ft.SPECS[GAME].input_size
    with pytest.raises(ValueError):
        ak.card_scores(games, np.array([3]))
    with pytest.raises(ValueError):
        ak.card_scores(games, np.array([0.5]))
    with pytest.raises(ValueError):
        ak.fill_policy_input(games, [0], [2], games.observe()[:1], np.zeros((1, size), np.float32))
    with pytest.raises(ValueError):
        ak.fill_policy_input(games, [0], [0], games.observe()[:1], np.zeros((1, size)))
    with pytest.raises(ValueError):
        ak.fill_policy_input(
            games, [0], [0, 1], games.observe()[:1], np.zeros((1, size), np.float32)
        )
    rng = np.random.default_rng(0)
    while not games.done.any():
        games.step(games.sample_legal(rng))
    over = np.flatnonzero(games.done)
    assert np.isnan(ak.card_scores(games, over)).all()
    with pytest.raises(ValueError):
        agent.act_arrays(games, over)
    assert agent.act_arrays(games, np.array([], np.int64)).shape == (0,)


def test_the_kernels_give_the_same_results_compiled_or_not():
    """The plain-Python fallback (no numba) scores, packs and chooses exactly as the compiled
    kernels."""
    code = """if True:
        import hashlib, json
        import numpy as np
        from hot_envs import batched
        from hot_envs.agents import array_karten as ak
        from hot_envs.agents import heuristic_karten as hk
        games = batched.make("heisse-karten", 6, num_players=5)
        games.reset(seed=2)
        agent = ak.ArrayHeuristic(hk.HeisseKartenHeuristic(5, epsilon=0.2))
        rng = np.random.default_rng(3)
        digest = hashlib.sha256()
        for _ in range(30):
            which = np.flatnonzero(~games.done)
            packed = np.zeros((len(which), ak.SPEC.input_size), np.float32)
            ak.fill_policy_input(games, which, games.current_player[which],
                                 games.observe()[which], packed)
            actions = games.sample_legal(rng)
            actions[which] = agent.act_arrays(games, which)
            for part in (ak.card_scores(games, which), packed, actions):
                digest.update(part.tobytes())
            games.step(actions)
            games.reset_done()
        print(json.dumps([batched.COMPILED, digest.hexdigest()]))
    """
    compiled, python = compiled_and_python(code)
    assert compiled == python


@pytest.mark.slow
@PLAYER_COUNTS
def test_many_more_positions(num_players):
    """About three times the decisions of the fast test, in matches of two rounds played out:
    for the rare positions (no unseen card left, a trick led into by the last cards of a round)."""
    tally = run(num_players, num_games=64, steps=120, seed=100 + num_players, rounds=2)
    assert tally.mismatches == [] and tally.decisions > 6000

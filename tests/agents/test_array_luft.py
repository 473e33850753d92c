"""The Heiße Luft heuristic and the action-scoring policy's input computed from the arrays of
:class:`~hot_envs.batched.heisse_luft.ArrayHeisseLuft` (:mod:`hot_envs.agents.array_luft`)
against the per-game functions, on positions reached by random and heuristic play.

The reference is each game's own view, ``State.from_dict(games.state_dict(g)).view(seat)``.
Everything is compared bit for bit (bytes), not within a tolerance: the agent breaks ties among
scores within 1e-12 of the best, so any rounding difference could change a move.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pytest

from hot_envs.agents import array_luft as al
from hot_envs.agents import features as ft
from hot_envs.agents import heuristic_luft as hl
from hot_envs.agents import make_agent
from hot_envs.batched.heisse_luft import ArrayHeisseLuft
from hot_envs.heisse_luft.facts import CLAIM_TROPHY, EXCHANGE_PICK, NUM_ACTIONS
from hot_envs.heisse_luft.state import State
from tests.batched.helpers import compiled_and_python

GAME = "heisse-luft"
AGENTS = ((7, 0.0), (8, 0.2))  # (seed, epsilon) of the agents act_arrays is checked with


class Recorded(NamedTuple):
    """One moment of a batch: the games with a seat to move (``which``, shuffled) and what the
    arrays gave there; ``views``/``observations``/``masks`` of each mover, and of the other
    seat in ``idle_views``/``idle_observations``."""

    which: np.ndarray
    views: list
    observations: np.ndarray
    masks: np.ndarray
    scores: np.ndarray
    rows: np.ndarray
    idle_views: list
    idle_observations: np.ndarray
    idle_rows: np.ndarray
    actions: list  # act_arrays' actions for each of AGENTS


class Played(NamedTuple):
    records: list[Recorded]
    agents: list  # the ArrayHeuristic of each of AGENTS, with their generators as left


def _play(three_for_one: bool, num_games: int, steps: int, every: int, seed: int) -> Played:
    """``steps`` moves in ``num_games`` games (the first half played by a heuristic, the rest at
    random, games dealt again as they end), recording every ``every``-th moment."""
    games = ArrayHeisseLuft(num_games, three_for_one=three_for_one, starting_player="random")
    games.reset(seed=seed)
    rng = np.random.default_rng(seed)
    driver = al.ArrayHeuristic(hl.HeisseLuftHeuristic(seed, epsilon=0.1))
    agents = [al.ArrayHeuristic(hl.HeisseLuftHeuristic(s, epsilon=e)) for s, e in AGENTS]
    records = []
    half = np.arange(num_games // 2)
    for step in range(steps):
        if step % every == every - 1:
            records.append(_record(games, agents, rng))
        actions = games.sample_legal(rng)
        actions[half] = driver.act_arrays(games, half)
        games.step(actions)
        games.reset_done()
    return Played(records, agents)


def _record(games: ArrayHeisseLuft, agents: list, rng: np.random.Generator) -> Recorded:
    which = rng.permutation(games.num_games)
    current = games.current_player[which]
    states = [State.from_dict(games.state_dict(g)) for g in which.tolist()]
    views = [s.view(int(p)) for s, p in zip(states, current.tolist(), strict=True)]
    idle_views = [s.view(1 - int(p)) for s, p in zip(states, current.tolist(), strict=True)]
    observations = games.observe()[which]
    idle_observations = games.observe(1 - games.current_player)[which]
    rows = np.full((len(which), al.SPEC.input_size), np.nan, dtype=np.float32)
    al.fill_policy_input(games, which, current, observations, rows)
    idle_rows = np.full_like(rows, np.nan)
    al.fill_policy_input(games, which, 1 - current, idle_observations, idle_rows)
    return Recorded(
        which,
        views,
        observations,
        games.legal_mask()[which],
        al.play_scores(games, which),
        rows,
        idle_views,
        idle_observations,
        idle_rows,
        [agent.act_arrays(games, which) for agent in agents],
    )


@pytest.fixture(scope="module", params=[True, False], ids=["three-for-one", "no-three-for-one"])
def played(request) -> Played:
    return _play(request.param, num_games=40, steps=600, every=16, seed=3 + request.param)


def _reference_scores(view: dict) -> np.ndarray:
    """``hl.play_scores`` of the view's legal placements by action id, NaN elsewhere."""
    row = np.full(NUM_ACTIONS, np.nan)
    legal = view["legal_actions"]
    if legal and legal[0] < EXCHANGE_PICK:
        row[legal] = hl.play_scores(hl._Table(view), legal)
    return row


def _same(got: np.ndarray, expected: np.ndarray) -> bool:
    """The same numbers bit for bit (NaNs at the same places, zeros of the same sign)."""
    return got.dtype == expected.dtype and got.tobytes() == expected.tobytes()


def _check_scores(records: list[Recorded]) -> int:
    checked = 0
    for record in records:
        for j, view in enumerate(record.views):
            assert _same(record.scores[j], _reference_scores(view)), (record.which[j], view)
            checked += bool(view["legal_actions"]) and view["legal_actions"][0] < EXCHANGE_PICK
    return checked


def _check_rows(records: list[Recorded]) -> int:
    checked = 0
    for record in records:
        for j, (view, idle) in enumerate(zip(record.views, record.idle_views, strict=True)):
            expected = ft.policy_input(GAME, record.observations[j], view)
            assert _same(record.rows[j], expected), (record.which[j], view)
            expected = ft.policy_input(GAME, record.idle_observations[j], idle)
            assert _same(record.idle_rows[j], expected), (record.which[j], idle)
            checked += 1
    return checked


def test_play_scores_are_the_heuristics_own_float64_numbers(played):
    """``play_scores`` gives ``hl.play_scores`` exactly, action for action, and NaN where the
    seat to move does not place a card."""
    assert _check_scores(played.records) > 1000


def test_policy_input_rows_are_policy_input_bit_for_bit(played):
    """``fill_policy_input`` gives ``features.policy_input`` of the mover's view (placements,
    exchanges and trophy decisions) and of the other seat's (no legal actions), bit for bit."""
    assert _check_rows(played.records) > 1000
    kinds = [v["legal_actions"][0] for r in played.records for v in r.views]
    assert sum(k >= CLAIM_TROPHY for k in kinds) >= 1  # a trophy decision, rare
    assert sum(EXCHANGE_PICK <= k < CLAIM_TROPHY for k in kinds) >= 10  # exchanges


def _check_actions(played: Played, agent: int) -> int:
    """``act`` one decision at a time, in the order of ``which``, from an agent seeded as
    ``AGENTS[agent]``, against what ``act_arrays`` chose; the number of placements whose best
    scores tie within the tolerance (the seeded draw picks among them)."""
    seed, epsilon = AGENTS[agent]
    one = hl.HeisseLuftHeuristic(seed, epsilon=epsilon)
    chosen, expected, tied = [], [], 0
    for record in played.records:
        chosen += record.actions[agent].tolist()
        for j, view in enumerate(record.views):
            observation = {"observation": record.observations[j], "action_mask": record.masks[j]}
            expected.append(one.act(observation, view))
            scores = record.scores[j][~np.isnan(record.scores[j])]
            tied += len(scores) > 1 and (scores >= scores.max() - one.tolerance).sum() > 1
    assert chosen == expected
    assert played.agents[agent].agent.rng.bit_generator.state == one.rng.bit_generator.state
    return tied


@pytest.mark.parametrize("agent", range(len(AGENTS)), ids=[f"epsilon={e}" for _, e in AGENTS])
def test_act_arrays_chooses_what_act_chooses_with_the_same_draws(played, agent):
    """``act_arrays`` against ``act`` (placements, exchanges, trophy decisions) from an agent
    with the same seed: the same actions, and the generators end in the same state."""
    assert _check_actions(played, agent) > 10


def test_a_perturbed_value_is_caught(played, monkeypatch):
    """The comparisons see one ulp: a score or a feature moved by one ulp differs, and so do the
    scores when the heuristic's keep costs change (the kernels keep the tables they read)."""
    record = played.records[0]
    j = next(j for j, v in enumerate(record.views) if v["legal_actions"][0] < EXCHANGE_PICK)
    scores = record.scores[j].copy()
    action = record.views[j]["legal_actions"][0]
    assert _same(scores, _reference_scores(record.views[j]))
    scores[action] = np.nextafter(scores[action], np.inf)
    assert not _same(scores, _reference_scores(record.views[j]))
    row = record.rows[j].copy()
    column = al.SPEC.observation_size + 29  # P(win) now of the first slot
    row[column] = np.nextafter(row[column], np.float32(np.inf))
    assert not _same(row, ft.policy_input(GAME, record.observations[j], record.views[j]))
    monkeypatch.setattr(hl, "_KEEP", tuple(k * (1 + 1e-15) for k in hl._KEEP))
    with pytest.raises(AssertionError):
        _check_scores([record])


def test_only_the_plain_heuristic_is_wrapped():
    class Cautious(hl.HeisseLuftHeuristic):
        pass

    with pytest.raises(TypeError):
        al.ArrayHeuristic(Cautious(1))
    with pytest.raises(TypeError):
        al.ArrayHeuristic(make_agent("random", GAME, 1))
    assert repr(al.ArrayHeuristic(hl.HeisseLuftHeuristic(1))).startswith("ArrayHeuristic(")


def test_bad_calls_are_value_errors():
    games = ArrayHeisseLuft(3)
    games.reset(seed=1)
    agent = al.ArrayHeuristic(hl.HeisseLuftHeuristic(1))
    with pytest.raises(ValueError, match="game indices"):
        al.play_scores(games, [0, 3])
    with pytest.raises(ValueError, match="1-d int"):
        al.play_scores(games, [[0]])
    with pytest.raises(TypeError):
        al.play_scores(State.new(seed=1), [0])
    out = np.zeros((2, al.SPEC.input_size), np.float32)
    observations = games.observe()[:2]
    with pytest.raises(ValueError, match="seats"):
        al.fill_policy_input(games, [0, 1], [0, 2], observations, out)
    with pytest.raises(ValueError, match="observations"):
        al.fill_policy_input(games, [0, 1], [0, 1], observations[:1], out)
    with pytest.raises(ValueError, match="out"):
        al.fill_policy_input(games, [0, 1], [0, 1], observations, out[:, 1:])
    assert agent.act_arrays(games, np.zeros(0, np.int64)).shape == (0,)
    unfinished = ArrayHeisseLuft(1)  # never dealt: over
    with pytest.raises(ValueError, match="over"):
        agent.act_arrays(unfinished, [0])
    assert np.isnan(al.play_scores(unfinished, [0])).all()


@pytest.mark.slow
@pytest.mark.parametrize("three_for_one", [True, False])
def test_many_more_positions(three_for_one):
    """The same checks over longer play (about 4,800 positions per setting)."""
    played = _play(three_for_one, num_games=64, steps=600, every=8, seed=11 + three_for_one)
    assert _check_scores(played.records) > 2500
    assert _check_rows(played.records) > 2500
    for agent in range(len(AGENTS)):
        _check_actions(played, agent)


@pytest.mark.slow
def test_the_kernels_give_the_same_numbers_compiled_or_not():
    """The plain-Python fallback (no numba) gives the compiled kernels' scores, rows and
    actions, byte for byte."""
    code = """if True:
        import json, sys
        import numpy as np
        from hot_envs.agents import array_luft as al, heuristic_luft as hl
        from hot_envs.batched import COMPILED
        from hot_envs.batched.heisse_luft import ArrayHeisseLuft

        games = ArrayHeisseLuft(24, three_for_one=True)
        games.reset(seed=5)
        rng = np.random.default_rng(6)
        agent = al.ArrayHeuristic(hl.HeisseLuftHeuristic(7, epsilon=0.2))
        which = np.arange(24)
        found = []
        for step in range(160):
            if step % 20 == 19:
                rows = np.zeros((24, al.SPEC.input_size), np.float32)
                al.fill_policy_input(games, which, games.current_player, games.observe(), rows)
                found += [al.play_scores(games, which).tobytes().hex(), rows.tobytes().hex()]
                found.append(agent.act_arrays(games, which).tolist())
            games.step(games.sample_legal(rng))
            games.reset_done()
        print(json.dumps([COMPILED, found]))
    """
    compiled, python = compiled_and_python(code)
    assert compiled == python

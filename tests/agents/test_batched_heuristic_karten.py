"""The Heiße Karten heuristic decided in arrays (``features_batch_karten.BatchedHeuristic``)
plays what the heuristic plays decision by decision.

Scores are compared bit for bit (float64 bytes), not within a tolerance: the agent breaks ties
among scores within 1e-9 of the best, so any rounding difference could change a move.
"""

from __future__ import annotations

import numpy as np
import pytest

from hot_envs.agents import heuristic_karten as hk
from hot_envs.agents import make_agent
from hot_envs.agents.base import observe
from hot_envs.agents.features_batch import ActionScorerInput, batched_heuristic
from hot_envs.agents.features_batch_karten import BatchedHeuristic, card_scores_batch
from hot_envs.core.games import get_game
from hot_envs.envs import driver as driver_module
from hot_envs.envs.vector import VectorSingleAgentEnv

GAME = "heisse-karten"
ENGINE = get_game(GAME).engine


def _positions(players: range, games: int, seed: int) -> list:
    """(state, seat) copies at every decision with a choice of random games at each table size,
    shuffled so that a batch mixes games, table sizes, leads and follows."""
    rng = np.random.default_rng(seed)
    out = []
    for n in players:
        for g in range(games):
            state = ENGINE.State.new(seed=seed + 100 * n + g, num_players=n)
            while not state.is_terminal():
                legal = state.legal_actions()
                if len(legal) > 1:
                    out.append((ENGINE.State.from_dict(state.to_dict()), state.current_player))
                state.apply(legal[rng.integers(len(legal))])
    return [out[i] for i in rng.permutation(len(out))]


@pytest.fixture(scope="module")
def positions() -> list:
    return _positions(range(2, 7), games=16, seed=5)


def test_the_batched_scores_are_the_heuristics_own_float64_numbers(positions):
    """``card_scores_batch`` over batches of 1 to 64 mixed decisions (2–6 players) gives
    ``card_scores``'s numbers exactly, card for card."""
    views = [state.view(seat) for state, seat in positions]
    assert len(views) > 3000
    assert {view["num_players"] for view in views} == set(range(2, 7))
    assert sum(bool(view["trick"]) for view in views) > 1000  # follows, not only leads
    start, sizes = 0, (1, 64, 7, 33, 2, 64)
    for turn in range(len(views)):
        part = views[start : start + sizes[turn % len(sizes)]]
        if not part:
            break
        legal = [view["legal_actions"] for view in part]
        got = card_scores_batch(part, legal)
        for view, actions, scores in zip(part, legal, got, strict=True):
            expected = hk.card_scores(view, [action + 1 for action in actions])
            assert (
                np.array(scores, np.float64).tobytes() == np.array(expected, np.float64).tobytes()
            )
        start += len(part)
    assert start == len(views)


@pytest.mark.parametrize("epsilon", [0.0, 0.2])
def test_act_batch_chooses_what_act_chooses_with_the_same_draws(positions, epsilon):
    """Batches of decisions (forced ones too) against ``act`` one at a time from an agent with
    the same seed: the same actions, and the generators end in the same state."""
    batched = BatchedHeuristic(hk.HeisseKartenHeuristic(3, epsilon=epsilon))
    one = hk.HeisseKartenHeuristic(3, epsilon=epsilon)
    chosen, expected = [], []
    for start in range(0, 1200, 48):
        part = positions[start : start + 48]
        states = [state for state, _ in part]
        seats = np.array([seat for _, seat in part])
        observations = [observe(ENGINE, state, seat) for state, seat in part]
        masks = np.stack([o["action_mask"] for o in observations])
        chosen += batched.act_batch(states, seats, np.zeros((len(part), 1)), masks).tolist()
        expected += [
            one.act(o, state.view(seat))
            for o, (state, seat) in zip(observations, part, strict=True)
        ]
    assert chosen == expected
    assert batched.agent.rng.random() == one.rng.random()


def test_ties_break_with_the_agents_generator_as_act_breaks_them(positions, monkeypatch):
    """Real scores almost never tie, so here every card scores its number modulo 3 (two to
    sixteen cards share the best score): the same draws pick the same one of them."""
    from hot_envs.agents import features_batch_karten as fbk

    def tied(view, cards):
        return [float(card % 3) for card in cards]

    monkeypatch.setattr(hk, "card_scores", tied)
    monkeypatch.setattr(
        fbk,
        "card_scores_batch",
        lambda views, legal: [tied(None, [a + 1 for a in actions]) for actions in legal],
    )
    test_act_batch_chooses_what_act_chooses_with_the_same_draws(positions, 0.0)


def test_only_the_plain_heuristic_is_batched():
    """A subclass may decide otherwise, so it plays through its own ``act``."""

    class Cautious(hk.HeisseKartenHeuristic):
        pass

    assert isinstance(
        batched_heuristic(GAME, make_agent("heuristic:0.2", GAME, 1)), BatchedHeuristic
    )
    assert batched_heuristic(GAME, Cautious(1)) is None
    assert batched_heuristic(GAME, make_agent("random", GAME, 1)) is None
    with pytest.raises(TypeError):
        BatchedHeuristic(Cautious(1))


def _play(env: VectorSingleAgentEnv, steps: int, seed: int) -> tuple[list, list]:
    """``steps`` steps of seeded random learner actions: every step's outputs, and every game
    that ended (deal seed and final state)."""
    rng = np.random.default_rng(seed)
    observations, _ = env.reset(seed=seed)
    outputs, finished = [observations], []
    for _ in range(steps):
        masks = env.action_masks()
        actions = (rng.random(masks.shape) * masks).argmax(axis=1)
        games, deal_seeds = list(env.games), list(env.deal_seeds)
        observations, rewards, terminated, truncated, _ = env.step(actions)
        outputs.append(np.concatenate([observations.ravel(), rewards, terminated, truncated]))
        for i in np.flatnonzero(terminated | truncated).tolist():
            finished.append((deal_seeds[i], games[i].to_dict()))
    return outputs, finished


@pytest.mark.parametrize("spec", ["heuristic", "heuristic:0.2"])
def test_the_batched_heuristic_plays_the_games_the_per_seat_one_plays(spec, monkeypatch):
    """A vector env (2–6 players, features on) with the heuristic deciding in arrays plays the
    same games, step for step, as with the heuristic deciding seat by seat through ``act``."""
    from hot_envs.agents import features_batch_karten as fbk

    batches = []  # the decisions the arrays scored, per call
    scores_batch = fbk.card_scores_batch

    def counted(views, legal):
        batches.append(len(views))
        return scores_batch(views, legal)

    monkeypatch.setattr(fbk, "card_scores_batch", counted)

    def run() -> tuple[list, list]:
        env = VectorSingleAgentEnv(
            GAME,
            num_envs=48,
            opponents=[spec, ("random", 0.25)],
            players=(2, 3, 4, 5, 6),
            policy_input=ActionScorerInput(GAME),
        )
        return _play(env, 40, seed=9)

    batched_outputs, batched_finished = run()
    assert sum(batches) > 1000  # the arrays decided most moves
    monkeypatch.setattr(driver_module, "batched_heuristic", lambda game, agent: None)
    batches.clear()
    outputs, finished = run()
    assert not batches
    assert len(finished) == len(batched_finished) > 10
    assert finished == batched_finished
    for got, expected in zip(batched_outputs, outputs, strict=True):
        np.testing.assert_array_equal(got, expected)

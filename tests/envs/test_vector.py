"""``hot_envs.envs.vector.VectorSingleAgentEnv``: many games, one learner seat each, batched
opponents.

Every finished game is replayed from its deal seed and the actions both sides played in a fresh
array engine, its final observation checked against the per-game engine's encoding, so the
vector env's bookkeeping (who moves, auto-reset, rewards) is checked against the rules.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from hot_envs import batched
from hot_envs.agents.arrays import ActionScorerInput, PerGameAgent, as_array_agent
from hot_envs.agents.checkpoint import CheckpointAgent
from hot_envs.agents.features import SPECS, policy_input
from hot_envs.agents.random_agent import RandomAgent
from hot_envs.agents.scorer import NumpyScorer
from hot_envs.core.games import get_game
from hot_envs.envs.vector import VectorSingleAgentEnv

CHECKPOINTS = Path(__file__).resolve().parents[2] / "checkpoints"
SHIPPED = {"heisse-luft": "heisse_luft_v0", "heisse-karten": "heisse_karten_v0"}


class Recorder:
    """An array agent that logs every decision it makes, per game and deal seed (``act`` too:
    pool entries are agents)."""

    def __init__(self, game, inner, log):
        self.inner, self.log, self.env = as_array_agent(game, inner), log, None

    def act(self, observation, view):
        raise AssertionError("the vector env plays an array agent through act_arrays")

    def act_arrays(self, games, which):
        actions = self.inner.act_arrays(games, which)
        seats = games.current_player[which]
        for i, seat, action in zip(which.tolist(), seats.tolist(), actions.tolist(), strict=True):
            self.log[(i, self.env.deal_seeds[i])].append((seat, action))
        return actions


def random_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return (rng.random(masks.shape) * masks).argmax(axis=1)


def play(env: VectorSingleAgentEnv, steps: int, seed: int = 0, log=None):
    """``steps`` steps of seeded random learner actions; every step's outputs, and the finished
    games as (deal seed, state, learner seat, reward, final info)."""
    rng = np.random.default_rng(seed)
    observations, _ = env.reset(seed=seed)
    outputs, finished = [observations], []
    for _ in range(steps):
        masks = env.action_masks()
        actions = random_actions(masks, rng)
        deal_seeds, seats = list(env.deal_seeds), env.seats.copy()
        if log is not None:
            for i, (seat, action) in enumerate(zip(seats.tolist(), actions.tolist(), strict=True)):
                log[(i, deal_seeds[i])].append((seat, action))
        observations, rewards, terminated, truncated, info = env.step(actions)
        outputs.append((observations, rewards, terminated, truncated))
        for i in np.flatnonzero(terminated | truncated).tolist():
            finished.append((deal_seeds[i], i, seats[i], rewards[i], info))
    return outputs, finished


def shipped_agent(game: str, sample: bool = False, seed: int = 0) -> CheckpointAgent:
    return CheckpointAgent.load(CHECKPOINTS / SHIPPED[game], game=game, sample=sample, seed=seed)


def mlp_agent(sample: bool = False, seed: int = 0) -> CheckpointAgent:
    """An MLP policy (the shipped ones are action scorers): Heiße Karten's of 2026-12-01."""
    return CheckpointAgent.load("heisse_karten_v0_2026_12_01", sample=sample, seed=seed)


@pytest.mark.parametrize(
    ("game", "players"),
    [("heisse-luft", None), *(("heisse-karten", n) for n in range(2, 7))],
)
def test_finished_games_replay_identically_from_their_deal_seeds(game, players):
    """Deal seed + the logged actions of learner and opponents rebuild every finished game in a
    fresh array engine; the learner's reward is its own return, also when an opponent made the
    last move, and its final observation is the per-game engine's encoding of the end."""
    log = defaultdict(list)
    recorders = [
        Recorder(game, shipped_agent(game, sample=True), log),
        Recorder(game, RandomAgent(1), log),
    ]
    env = VectorSingleAgentEnv(
        game, num_envs=6, opponents=[(recorders[0], 2.0), recorders[1]], players=players
    )
    for recorder in recorders:
        recorder.env = env
    _, finished = play(env, 60 if game == "heisse-luft" else 30, log=log)
    assert len(finished) >= 4
    opponent_ended = 0
    engine = get_game(game).engine
    for deal_seed, i, seat, reward, info in finished:
        options = {} if players is None else {"num_players": players}
        replay = batched.make(game, 1, **options)
        replay.deal([0], [deal_seed])
        actions = log[(i, deal_seed)]
        for actor, action in actions:
            assert replay.current_player[0] == actor
            rewards, done = replay.step(np.array([action]))
        assert done[0] and rewards[0, seat] == info["final_info"][i]["returns"][seat]
        assert reward == np.float32(rewards[0, seat])  # the batched env's rewards: float32
        assert info["final_info"][i]["learner_seat"] == seat
        end = engine.State.from_dict(replay.state_dict(0))
        assert end.is_terminal()
        np.testing.assert_array_equal(info["final_obs"][i], engine.encode(end, seat))
        opponent_ended += actions[-1][0] != seat
    assert opponent_ended > 0  # the learner got the final reward of an opponent's last move


def test_the_same_seed_gives_the_same_games_and_another_seed_other_games():
    def run(seed):
        env = VectorSingleAgentEnv(
            "heisse-karten",
            num_envs=4,
            players=[2, 3, 6],
            opponents=[shipped_agent("heisse-karten", sample=True, seed=5), "heuristic"],
        )
        outputs, _ = play(env, 25, seed=seed)
        return outputs, env.deal_seeds

    (first, seeds), (again, seeds_again), (other, other_seeds) = run(3), run(3), run(4)
    assert seeds == seeds_again and seeds != other_seeds
    np.testing.assert_array_equal(first[0], again[0])
    for a, b in zip(first[1:], again[1:], strict=True):
        for x, y in zip(a, b, strict=True):
            np.testing.assert_array_equal(x, y)
    assert not np.array_equal(first[0], other[0])


def test_a_seeded_reset_of_the_same_env_repeats_its_episodes_opponents_draws_included():
    env = VectorSingleAgentEnv("heisse-luft", num_envs=3, opponents=["heuristic", "random"])
    first, _ = play(env, 40, seed=11)
    again, _ = play(env, 40, seed=11)  # the heuristic's ties and random's moves drawn afresh
    np.testing.assert_array_equal(first[0], again[0])
    for a, b in zip(first[1:], again[1:], strict=True):
        for x, y in zip(a, b, strict=True):
            np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("game", ["heisse-luft", "heisse-karten"])
def test_masks_are_the_learners_legal_actions_and_observations_its_encoding(game):
    env = VectorSingleAgentEnv(game, num_envs=5, players=None if game == "heisse-luft" else 4)
    engine = get_game(game).engine
    rng = np.random.default_rng(0)
    observations, _ = env.reset(seed=1)
    for _ in range(20):
        masks = env.action_masks()
        assert masks.dtype == bool and masks.shape == (5, engine.NUM_ACTIONS)
        for i, (game_state, seat) in enumerate(zip(env.games, env.seats.tolist(), strict=True)):
            assert game_state.current_player == seat
            assert np.flatnonzero(masks[i]).tolist() == game_state.legal_actions()
            np.testing.assert_array_equal(observations[i], engine.encode(game_state, seat))
        observations, *_ = env.step(random_actions(masks, rng))


def random_positions(num_games: int, counts: list[int], seed: int) -> batched.ArrayGames:
    """``num_games`` Heiße Karten games of ``counts`` seats (in turn) a few random moves in."""
    games = batched.make("heisse-karten", num_games, num_players=np.resize(counts, num_games))
    games.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(int(rng.integers(3, 30))):
        games.step(games.sample_legal(rng), where=~games.done)
    return games


def test_array_mlp_actions_equal_the_agents_one_by_one():  # scorers: the test below
    agent = mlp_agent()
    games = random_positions(300, [2, 4, 6], seed=2)
    engine = get_game("heisse-karten").engine
    which = np.flatnonzero(~games.done)
    one_by_one = []
    for i in which.tolist():
        state = engine.State.from_dict(games.state_dict(i))
        seat = state.current_player
        row = {
            "observation": engine.encode(state, seat),
            "action_mask": engine.action_mask(state, seat),
        }
        one_by_one.append(agent.act(row))
    assert len(which) > 200 and agent.act_arrays(games, which).tolist() == one_by_one


def test_sampled_batched_actions_are_legal_and_follow_the_softmax():
    agent = mlp_agent(sample=True, seed=0)
    n = 4000
    engine = get_game("heisse-karten").engine
    games = random_positions(n, [3], seed=1)
    position = engine.State.from_dict(games.state_dict(0))
    while position.legal_actions().__len__() < 3:
        position.apply(position.legal_actions()[0])
    for i in range(n):  # the same decision in every game
        games.load(i, position.to_dict())
    seat = position.current_player
    row = {
        "observation": engine.encode(position, seat),
        "action_mask": engine.action_mask(position, seat),
    }
    actions = agent.act_arrays(games, np.arange(n))
    assert row["action_mask"][actions].all()
    logits = agent.policy.masked_logits(row["observation"], row["action_mask"])
    p = np.exp(logits - logits.max())
    p /= p.sum()
    frequencies = np.bincount(actions, minlength=len(p)) / n
    assert np.abs(frequencies - p).max() < 0.04  # ≈ 5 standard errors at most


def test_ordinary_agents_play_seat_by_seat_with_their_own_view():
    seen = []

    class Spy:
        def act(self, observation, view):
            seen.append((observation["observation"].shape, view["player"], view["legal_actions"]))
            return view["legal_actions"][0]

    assert isinstance(as_array_agent("heisse-karten", Spy()), PerGameAgent)
    env = VectorSingleAgentEnv("heisse-karten", num_envs=3, players=5, opponents=[Spy()])
    env.reset(seed=0)
    env.step(random_actions(env.action_masks(), np.random.default_rng(0)))
    assert seen and all(shape == (670,) and legal for shape, _, legal in seen)
    with pytest.raises(ValueError, match="neither act_arrays"):
        as_array_agent("heisse-karten", object())


def test_pool_changes_reach_new_games_and_leave_games_in_progress_alone():
    env = VectorSingleAgentEnv("heisse-karten", num_envs=8, players=3, opponents=["random"])
    env.reset(seed=0)
    in_progress = [list(names) for names in env.opponent_names]
    env.set_opponent("snapshot", shipped_agent("heisse-karten", sample=True), 1.0)
    env.remove_opponent("random")
    rng = np.random.default_rng(0)
    names = set()
    for _ in range(40):
        _, _, terminated, truncated, info = env.step(random_actions(env.action_masks(), rng))
        for i in np.flatnonzero(terminated | truncated):
            names.update(info["final_info"][i]["opponents"])
    assert {n for names_ in in_progress for n in names_} == {None, "random"}
    assert names == {None, "snapshot", "random"}  # first the old games, then only snapshots
    assert {n for row in env.opponent_names for n in row} == {None, "snapshot"}


def test_a_fixed_learner_seat_and_a_truncated_game():
    env = VectorSingleAgentEnv(
        "heisse-luft", num_envs=4, learner_seat=1, game_options={"turn_limit": 6}, seed=0
    )
    _, info = env.reset()
    assert info["learner_seat"].tolist() == [1, 1, 1, 1]
    rng = np.random.default_rng(0)
    for _ in range(30):
        _, rewards, terminated, truncated, info = env.step(random_actions(env.action_masks(), rng))
        if truncated.any():
            break
    assert truncated.any() and not (terminated & truncated).any()
    assert (rewards[truncated] == 0).all() and info["_final_obs"][truncated].all()


def test_bad_input_is_refused_and_changes_nothing():
    env = VectorSingleAgentEnv("heisse-luft", num_envs=3, seed=0)
    env.reset()
    before = [game.to_dict() for game in env.games]
    masks = env.action_masks()
    illegal = np.array([np.flatnonzero(m)[0] for m in masks])
    illegal[1] = np.flatnonzero(~masks[1])[0]
    for actions in (illegal, illegal[:2], illegal.astype(float), [0, 0, 999]):
        with pytest.raises(ValueError):
            env.step(actions)
    assert [game.to_dict() for game in env.games] == before
    with pytest.raises(ValueError, match="num_envs"):
        VectorSingleAgentEnv(num_envs=0)
    with pytest.raises(ValueError, match="2-player"):
        VectorSingleAgentEnv("heisse-luft", players=3)
    with pytest.raises(ValueError, match="learner_seat"):
        VectorSingleAgentEnv("heisse-karten", players=[2, 4], learner_seat=3)
    with pytest.raises(RuntimeError, match="reset"):
        VectorSingleAgentEnv().step([0] * 16)


def test_an_opponent_that_plays_an_illegal_action_is_named():
    class Cheat:
        def act(self, observation, view):
            return 47 if 47 not in view["legal_actions"] else 0

    env = VectorSingleAgentEnv("heisse-karten", num_envs=2, players=3, opponents=[Cheat()])
    with pytest.raises(ValueError, match="opponent 'Cheat#0' in seat .* illegal action"):
        env.reset(seed=0)
        env.step(random_actions(env.action_masks(), np.random.default_rng(0)))


def random_scorer(game: str, sample: bool) -> CheckpointAgent:
    """A small action-scoring checkpoint agent with random weights."""
    spec = SPECS[game]
    rng = np.random.default_rng(0)
    shapes = {"state_0": (16, spec.observation_size), "scorer_0": (8, 16 + spec.size)}
    shapes["scorer_1"] = (1, 8)
    arrays = {}
    for name, shape in shapes.items():
        arrays[f"{name}.weight"] = rng.normal(0, 0.5, shape).astype(np.float32)
        arrays[f"{name}.bias"] = rng.normal(0, 0.1, shape[0]).astype(np.float32)
    return CheckpointAgent(NumpyScorer(game, arrays, "tanh"), {"game": game}, sample, seed=1)


@pytest.mark.parametrize("game", ["heisse-luft", "heisse-karten"])
def test_an_action_scoring_checkpoint_decides_batched_as_one_by_one(game):
    """Its ``act_arrays`` packs each row's features from the engine's arrays: the argmax
    equals ``act``; sampled ones are legal (the env checks every opponent action). The
    learners' packed observations are ``policy_input``'s, as ``SingleAgentEnv``'s with
    ``ActionScorerInput``."""
    agent, sampler = random_scorer(game, False), random_scorer(game, True)
    log = defaultdict(list)
    recorders = [Recorder(game, agent, log), Recorder(game, sampler, log)]
    env = VectorSingleAgentEnv(
        game,
        num_envs=4,
        players=None if game == "heisse-luft" else [2, 5],
        opponents=recorders,
        policy_input=ActionScorerInput(game),
    )
    for recorder in recorders:
        recorder.env = env
    observations, _ = env.reset(seed=0)
    assert observations.shape == (4, SPECS[game].input_size)
    rng = np.random.default_rng(0)
    for _ in range(6):
        for i, (state, seat) in enumerate(zip(env.games, env.seats.tolist(), strict=True)):
            plain = get_game(game).engine.encode(state, seat)
            expected = policy_input(game, plain, state.view(seat))
            np.testing.assert_array_equal(observations[i], expected)
        observations, *_ = env.step(random_actions(env.action_masks(), rng))
    engine = get_game(game).engine  # the learners' decisions now, as opponents' rows
    states, seats = list(env.games), env.seats.copy()
    rows = [
        {"observation": engine.encode(s, seat), "action_mask": engine.action_mask(s, seat)}
        for s, seat in zip(states, seats.tolist(), strict=True)
    ]
    batch = agent.act_arrays(env.driver.arrays, np.arange(env.num_envs))
    one_by_one = [
        agent.act(row, state.view(seat))
        for row, state, seat in zip(rows, states, seats.tolist(), strict=True)
    ]
    assert batch.tolist() == one_by_one
    assert sum(map(len, log.values())) > 0  # the opponents played through act_arrays


@pytest.mark.parametrize("spec", ["heuristic", "heuristic:0.3"])
def test_the_batched_heuristic_plays_the_games_the_per_seat_one_plays(spec, monkeypatch):
    """The game's heuristic decides in arrays (its ``ArrayHeuristic``): the same seeds give the
    same games as its ``act`` seat by seat — ties and ``epsilon`` draws too."""
    from hot_envs.envs import driver as driver_module

    def run():
        env = VectorSingleAgentEnv("heisse-luft", num_envs=8, opponents=[spec, "random"])
        return play(env, 80, seed=4)  # some fifteen finished games

    batched_outputs, batched_finished = run()
    monkeypatch.setattr(driver_module, "as_array_agent", lambda game, agent: PerGameAgent(agent))
    outputs, finished = run()
    assert len(finished) == len(batched_finished) > 0
    for got, expected in zip(batched_outputs[1:], outputs[1:], strict=True):
        for a, b in zip(got, expected, strict=True):
            np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(batched_outputs[0], outputs[0])
    for got, expected in zip(batched_finished, finished, strict=True):
        assert got[:4] == expected[:4]


def test_replaced_opponents_are_let_go_once_no_game_seats_them():
    """A league replaces its snapshot entry again and again: the driver keeps the agents of the
    pool and of the games in progress only, not every snapshot it ever seated."""
    env = VectorSingleAgentEnv("heisse-karten", num_envs=4, players=2, opponents=["random"])
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for k in range(30):
        env.set_opponent("snapshot", RandomAgent(k), 1.0)
        env.step(random_actions(env.action_masks(), rng))
    seated = {id(agent) for row in env.driver.seat_agents for agent in row if agent is not None}
    pooled = {id(entry[1]) for entry in env.driver._array_agents.values()}
    assert {id(agent) for agent in env.driver._by_code.values()} == seated | pooled
    assert len(env.driver._by_code) <= 2 + 4  # the pool's two, and one per game at most

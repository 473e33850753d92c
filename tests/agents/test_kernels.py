"""The rule-based agents and the policy input, one implementation (the games' array kernels,
hot_envs.agents.array_luft and array_karten): a decision from a seat's view — the kernels on a
one-game record written from the view alone — is what the same kernels decide on the whole
game in arrays, and the kernels keep their contract (the agents they take, clear errors,
the same results compiled or as Python). What the agents decide is pinned by the golden
decisions (test_golden_decisions.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from hot_envs import batched
from hot_envs.agents import STYLES, array_karten, array_luft, make_agent
from hot_envs.agents.arrays import as_array_agent, fill_policy_input
from hot_envs.agents.base import observe
from hot_envs.agents.features import SPECS, policy_input
from hot_envs.agents.heuristic_karten import HeisseKartenHeuristic
from hot_envs.agents.heuristic_luft import HeisseLuftHeuristic
from hot_envs.batched.heisse_luft import ArrayHeisseLuft
from hot_envs.core.games import get_game
from hot_envs.heisse_luft import State as LuftState
from tests.agents import golden_decisions as golden
from tests.batched.helpers import compiled_and_python

KARTEN = "heisse-karten"
AGENTS = {
    game: ["heuristic", *[s for s, (owner, _, _) in STYLES.items() if owner == game]]
    for game in ("heisse-luft", KARTEN)
}
CASES = [("heisse-luft", 2), (KARTEN, 2), (KARTEN, 4), (KARTEN, 6)]


def compare(game: str, players: int, num_games: int, steps: int, seed: int, **options) -> int:
    """Play ``num_games`` games for ``steps`` steps (each game's mover by a style or the
    heuristic through ``act_arrays``, or at random) and check, at every step, each agent of
    the game (ε 0 and 0.2, seeded) deciding every game in progress in a shuffled order in
    arrays against a twin of the same seed deciding one by one from the mover's view, and
    ``policy_input`` from the view against ``fill_policy_input``'s row. Returns the decisions
    compared."""
    if game == KARTEN:
        options["num_players"] = players
    games = batched.make(game, num_games, **options)
    games.reset(seed=seed)
    engine = get_game(game).engine
    rng = np.random.default_rng(seed)
    drivers = [as_array_agent(game, make_agent(f"{s}:0.1", game, seed)) for s in AGENTS[game]]
    specs = [f"{agent}:{epsilon}" for agent in AGENTS[game] for epsilon in (0.0, 0.2)]
    mine = [as_array_agent(game, make_agent(s, game, seed + i)) for i, s in enumerate(specs)]
    twins = [make_agent(s, game, seed + i) for i, s in enumerate(specs)]
    size = SPECS[get_game(game).name].input_size
    compared = 0
    for step in range(steps):
        which = rng.permutation(np.flatnonzero(~games.done))
        if not len(which):
            games.reset_done()
            continue
        chosen = [agent.act_arrays(games, which) for agent in mine]
        rows = np.zeros((len(which), size), dtype=np.float32)
        observations = games.observe(rows=which)
        fill_policy_input(games, which, games.current_player[which], observations, rows)
        for j, g in enumerate(which.tolist()):
            state = engine.State.from_dict(games.state_dict(g))
            seat = state.current_player
            observation, view = observe(engine, state, seat), state.view(seat)
            assert np.array_equal(observation["observation"], observations[j])
            assert np.array_equal(policy_input(game, observation["observation"], view), rows[j])
            for agent, twin, spec in zip(chosen, twins, specs, strict=True):
                assert agent[j] == twin.act(observation, view), (spec, games.state_dict(g))
            compared += 1
        actions = games.sample_legal(rng)
        driven = np.sort(which[rng.random(len(which)) < 0.7])
        if len(driven):
            actions[driven] = drivers[step % len(drivers)].act_arrays(games, driven)
        games.step(actions)
        games.reset_done()
    return compared


@pytest.mark.parametrize(("game", "players"), CASES)
def test_a_decision_from_the_view_is_the_decision_in_arrays(game, players):
    assert compare(game, players, num_games=16, steps=30, seed=3) > 400


def test_a_match_of_three_rounds():
    """HK-4.4: the played cards start again each round; the view of a later round decides as
    the arrays do."""
    assert compare(KARTEN, 4, num_games=8, steps=160, seed=11, rounds=3) > 1000


@pytest.mark.slow
@pytest.mark.parametrize(("game", "players"), CASES)
def test_many_more_positions(game, players):
    assert compare(game, players, num_games=48, steps=150, seed=11) > 5_000


@pytest.mark.parametrize("game", list(AGENTS))
def test_each_agent_decides_through_its_kernels_and_only_exactly_its_class(game):
    specs = AGENTS[game]
    module = get_game(game).arrays
    for spec in specs:
        agent = make_agent(spec, game, 0)
        wrapped = as_array_agent(game, agent)
        assert type(wrapped).__module__ == module
        kind = "ArrayHeuristic" if spec == "heuristic" else "ArrayStyle"
        assert type(wrapped).__name__ == kind
        assert repr(wrapped).startswith(kind + "(")
        subclass = type("Sub", (type(agent),), {})
        with pytest.raises(TypeError):
            type(wrapped)(subclass(0))
        assert type(as_array_agent(game, subclass(0))).__name__ == "PerGameAgent"
    heuristic = type(as_array_agent(game, make_agent("heuristic", game, 0)))
    style = type(as_array_agent(game, make_agent(specs[1], game, 0)))
    with pytest.raises(TypeError):  # the heuristic is no style, a style no heuristic
        style(make_agent("heuristic", game, 0))
    with pytest.raises(TypeError):
        heuristic(make_agent(specs[1], game, 0))
    with pytest.raises(TypeError):
        heuristic(make_agent("random", game, 0))
    other = "heisse-luft" if game == KARTEN else KARTEN
    with pytest.raises(TypeError):  # another game's heuristic
        heuristic(make_agent("heuristic", other, 0))


def test_bad_karten_calls_are_value_errors():
    games = batched.make(KARTEN, 3, num_players=2)
    games.reset(seed=0)
    agent = array_karten.ArrayHeuristic(HeisseKartenHeuristic(0))
    size = array_karten.SPEC.input_size
    observations = games.observe()[:1]
    with pytest.raises(ValueError):
        array_karten.card_scores(games, np.array([3]))
    with pytest.raises(ValueError):
        array_karten.card_scores(games, np.array([0.5]))
    with pytest.raises(ValueError):
        array_karten.fill_policy_input(
            games, [0], [2], observations, np.zeros((1, size), np.float32)
        )
    with pytest.raises(ValueError):
        array_karten.fill_policy_input(games, [0], [0], observations, np.zeros((1, size)))
    with pytest.raises(ValueError):
        array_karten.fill_policy_input(
            games, [0], [0, 1], observations, np.zeros((1, size), np.float32)
        )
    rng = np.random.default_rng(0)
    while not games.done.any():
        games.step(games.sample_legal(rng))
    over = np.flatnonzero(games.done)
    assert np.isnan(array_karten.card_scores(games, over)).all()
    with pytest.raises(ValueError):
        agent.act_arrays(games, over)
    assert agent.act_arrays(games, np.array([], np.int64)).shape == (0,)


def test_the_karten_kernels_give_the_same_results_compiled_or_not():
    """The plain-Python fallback (no numba) scores, packs and chooses exactly as the compiled
    kernels, in arrays and from a view."""
    code = """if True:
        import hashlib, json
        import numpy as np
        from hot_envs import batched
        from hot_envs.agents import array_karten as ak, make_agent
        from hot_envs.agents.base import observe
        from hot_envs.agents.features import policy_input
        from hot_envs.heisse_karten import State
        import hot_envs.heisse_karten as engine
        games = batched.make("heisse-karten", 6, num_players=5)
        games.reset(seed=2)
        agent = ak.ArrayHeuristic(make_agent("heuristic:0.2", "heisse-karten", 5))
        one = make_agent("card-counter:0.2", "heisse-karten", 5)
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
            state = State.from_dict(games.state_dict(int(which[0])))
            seat = state.current_player
            observation, view = observe(engine, state, seat), state.view(seat)
            digest.update(policy_input("heisse-karten", observation["observation"], view))
            digest.update(str(one.act(observation, view)).encode())
            games.step(actions)
            games.reset_done()
        print(json.dumps([batched.COMPILED, digest.hexdigest()]))
    """
    compiled, python = compiled_and_python(code)
    assert compiled == python


def test_bad_luft_calls_are_value_errors():
    games = ArrayHeisseLuft(3)
    games.reset(seed=1)
    agent = array_luft.ArrayHeuristic(HeisseLuftHeuristic(1))
    with pytest.raises(ValueError, match="game indices"):
        array_luft.play_scores(games, [0, 3])
    with pytest.raises(ValueError, match="1-d int"):
        array_luft.play_scores(games, [[0]])
    with pytest.raises(TypeError):
        array_luft.play_scores(LuftState.new(seed=1), [0])
    out = np.zeros((2, array_luft.SPEC.input_size), np.float32)
    observations = games.observe()[:2]
    with pytest.raises(ValueError, match="seats"):
        array_luft.fill_policy_input(games, [0, 1], [0, 2], observations, out)
    with pytest.raises(ValueError, match="observations"):
        array_luft.fill_policy_input(games, [0, 1], [0, 1], observations[:1], out)
    with pytest.raises(ValueError, match="out"):
        array_luft.fill_policy_input(games, [0, 1], [0, 1], observations, out[:, 1:])
    assert agent.act_arrays(games, np.zeros(0, np.int64)).shape == (0,)
    unfinished = ArrayHeisseLuft(1)  # never dealt: over
    with pytest.raises(ValueError, match="over"):
        agent.act_arrays(unfinished, [0])
    assert np.isnan(array_luft.play_scores(unfinished, [0])).all()


@pytest.mark.slow
def test_the_luft_kernels_give_the_same_numbers_compiled_or_not():
    """The plain-Python fallback (no numba) gives the compiled kernels' scores, rows and
    actions, byte for byte, in arrays and from a view."""
    code = """if True:
        import json
        import numpy as np
        import hot_envs.heisse_luft as engine
        from hot_envs.agents import array_luft as al, make_agent
        from hot_envs.agents.base import observe
        from hot_envs.agents.features import policy_input
        from hot_envs.batched import COMPILED
        from hot_envs.batched.heisse_luft import ArrayHeisseLuft

        games = ArrayHeisseLuft(24, three_for_one=True)
        games.reset(seed=5)
        rng = np.random.default_rng(6)
        agent = al.ArrayHeuristic(make_agent("heuristic:0.2", "heisse-luft", 7))
        one = make_agent("trophy-rusher:0.2", "heisse-luft", 7)
        which = np.arange(24)
        found = []
        for step in range(160):
            if step % 20 == 19:
                rows = np.zeros((24, al.SPEC.input_size), np.float32)
                al.fill_policy_input(games, which, games.current_player, games.observe(), rows)
                found += [al.play_scores(games, which).tobytes().hex(), rows.tobytes().hex()]
                found.append(agent.act_arrays(games, which).tolist())
                state = engine.State.from_dict(games.state_dict(0))
                seat = state.current_player
                observation, view = observe(engine, state, seat), state.view(seat)
                packed = policy_input("heisse-luft", observation["observation"], view)
                found += [packed.tobytes().hex(), one.act(observation, view)]
            games.step(games.sample_legal(rng))
            games.reset_done()
        print(json.dumps([COMPILED, found]))
    """
    compiled, python = compiled_and_python(code)
    assert compiled == python


@pytest.mark.parametrize("game", list(AGENTS))
def test_threads_deciding_at_once_decide_as_one_thread_does(game):
    """Each thread writes its own one-game record (the browser table decides in several):
    four threads deciding the golden positions at once, each with its own agent, play what
    one thread plays and pack the same policy inputs."""
    engine = get_game(game).engine
    views = [engine.State.from_dict(r["state"]).view(r["seat"]) for r in golden.load(game)[:300]]

    def decide(seed: int) -> tuple[list[int], list[bytes]]:
        agent = make_agent("heuristic", game, seed)
        observation = np.zeros(SPECS[get_game(game).name].observation_size, np.float32)
        actions = [agent.act({"action_mask": None}, view) for view in views]
        packed = [policy_input(game, observation, view).tobytes() for view in views]
        return actions, packed

    alone = [decide(seed) for seed in range(4)]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(decide, range(4)))
    assert together == alone


@pytest.mark.slow
@pytest.mark.skipif(not batched.COMPILED, reason="nothing compiles with NUMBA_DISABLE_JIT")
def test_a_first_placement_from_a_view_compiles_the_placements_kernel_alone():
    """The heuristic's first decision of a game, a placement, is quick after install: it calls
    the placements' kernel from Python, and no exchange, trophy, style or batch kernel is
    compiled (or loaded) for it."""
    code = """if True:
        import json
        import hot_envs.heisse_luft as engine
        from hot_envs.agents import array_luft, make_agent
        from hot_envs.agents.base import observe
        state = engine.State.new(seed=0)
        seat = state.current_player
        assert len(state.legal_actions()) > 1
        view = state.view(seat)
        make_agent("heuristic", "heisse-luft", 0).act(observe(engine, state, seat), view)
        names = ["_placements", "_other_decision", "_decision", "_style_best", "_best", "_fill"]
        print(json.dumps({name: len(getattr(array_luft, name).signatures) for name in names}))
    """
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(found.stdout) == {
        "_placements": 1,
        "_other_decision": 0,
        "_decision": 0,
        "_style_best": 0,
        "_best": 0,
        "_fill": 0,
    }

"""The arena in batches on the array engines (hot_envs.evaluation.batch) against the same groups
played one game at a time on the per-game engine by :func:`one_game_at_a_time` (the rule book's
loop, here only): the same records — deals, seats, every action, returns, lengths — and so the
same result tables, for agents that draw numbers (ties, ``epsilon``) as well as for those that
do not, at every table size; replayable by ``records.replay``; and the agents that cannot decide
in arrays (a ``module:factory`` agent) still playing, one decision at a time, in the same
batches."""

from __future__ import annotations

import pytest

from hot_envs import batched
from hot_envs.agents.base import observe
from hot_envs.core.games import get_game
from hot_envs.evaluation import arena
from hot_envs.evaluation.arena import (
    GameRecord,
    derive_seed,
    play_match,
    play_matchups,
    round_robin,
)
from hot_envs.evaluation.records import replay

pytestmark = pytest.mark.skipif(not batched.COMPILED, reason="the arena batches with numba only")
HERE = "tests.evaluation.test_arena"  # its module:factory agents


def one_game_at_a_time(game, lineup, matchup, group, seed, options=None):
    """``arena.play_group``'s records, played by the per-game engine one game at a time: the
    deal ``State.new(seed=deal_seed)`` once per seat rotation, each agent's ``act`` on the
    state's observation and view."""
    engine = get_game(game).engine
    n = len(lineup)
    agents = [
        arena._agent(spec, game, derive_seed(seed, matchup, group, slot))
        for slot, spec in enumerate(lineup)
    ]
    records = []
    deal_seed = derive_seed(seed, group)
    for rotation in range(n):
        seats = tuple((seat + rotation) % n for seat in range(n))
        state = engine.State.new(seed=deal_seed, **(options or {}))
        for agent in agents:
            if callable(getattr(agent, "reset", None)):
                agent.reset()
        decisions, actions = [0] * n, []
        while not state.is_terminal():
            seat = state.current_player
            action = agents[seats[seat]].act(observe(engine, state, seat), state.view(seat))
            decisions[seat] += 1
            state.apply(int(action))
            actions.append(int(action))
        records.append(
            GameRecord(matchup, group * n + rotation, seats, tuple(state.returns()),
                       len(actions), (0.0,) * n, tuple(decisions), deal_seed, tuple(actions))
        )  # fmt: skip
    return records


def _one_at_a_time(tasks, on_group, on_moves=None):
    """``arena.play_batches`` with every group played by :func:`one_game_at_a_time`."""
    for position, task in enumerate(tasks):
        on_group(position, one_game_at_a_time(*task))


def both(play, monkeypatch):
    """``play()`` one game at a time on the per-game engine, then in batches; both results."""
    with monkeypatch.context() as patch:
        patch.setattr(arena, "play_batches", _one_at_a_time)
        one = play()
    return one, play()


def assert_same(one, many) -> None:
    assert [r.index for r in one.records] == [r.index for r in many.records]
    for a, b in zip(one.records, many.records, strict=True):
        assert (a.matchup, a.index, a.deal_seed, a.seats) == (
            b.matchup,
            b.index,
            b.deal_seed,
            b.seats,
        )
        assert a.actions == b.actions, (a.matchup, a.index)
        assert (a.returns, a.length) == (b.returns, b.length)
        assert a.decisions == b.decisions
    assert one.records == many.records
    strip = ("ms_per_decision",)
    table = [{k: v for k, v in row.items() if k not in strip} for row in one.summary()]
    assert table == [{k: v for k, v in row.items() if k not in strip} for row in many.summary()]


CASES = [
    ("heisse-luft", ["heuristic", "heuristic:0.2"], {}, 60),
    ("heisse-luft", ["beginner", "stage-finisher", "trophy-rusher", "high-hoarder:0.1"], {}, 12),
    ("heisse-luft", ["random", "heuristic"], {"options": {"three_for_one": False}}, 40),
    ("heisse-karten", ["heuristic", "card-counter", "trick-taker:0.1"], {"players": 2}, 24),
    ("heisse-karten", ["heuristic:0.2", "low-dumper", "trick-avoider"], {"players": 4}, 24),
    ("heisse-karten", ["heuristic", "random", "card-counter"], {"players": 6}, 24),
    ("heisse-karten", ["heuristic", "trick-taker"], {"players": 3, "options": {"rounds": 3}}, 24),
]


@pytest.mark.parametrize(("game", "specs", "kwargs", "games"), CASES)
def test_batches_play_the_games_one_at_a_time_plays(game, specs, kwargs, games, monkeypatch):
    def play():
        return round_robin(game, specs, games, seed=7, workers=1, progress=False, **kwargs)

    one, many = both(play, monkeypatch)
    assert_same(one, many)
    if game == "heisse-karten" and kwargs.get("options"):
        assert max(r.length for r in many.records) > 48  # the match dealt later rounds


def test_every_batched_game_replays_from_its_record():
    result = play_match(
        "heisse-luft", ["heuristic:0.1", "trophy-rusher"], 60, seed=3, workers=1, progress=False
    )
    reshuffled = 0
    for record in result.game_records():
        states = replay(record)
        piles = [len(s.draw_pile) for s in states]
        reshuffled += any(b > a for a, b in zip(piles, piles[1:], strict=False))  # HL-3.5
    assert reshuffled > 10  # the games' own generators reshuffled, and the records agree


def test_a_shipped_checkpoint_and_an_agent_of_the_caller_play_in_the_same_batches(monkeypatch):
    specs = ["heisse_luft_v0", f"{HERE}:seeded_random", "beginner"]

    def play():
        return round_robin("heisse-luft", specs, 12, seed=1, workers=1, progress=False)

    one, many = both(play, monkeypatch)
    assert_same(one, many)


def test_worker_processes_play_batches_too(monkeypatch):
    def play():
        return play_match(
            "heisse-karten",
            ["heuristic", "card-counter:0.3"],
            40,
            players=2,
            seed=2,
            workers=2,
            progress=False,
        )

    one, many = both(play, monkeypatch)
    assert_same(one, many)


def test_resumed_groups_and_on_group_are_kept():
    seen = []
    result = play_matchups(
        "heisse-luft",
        ["heuristic", "random"],
        [(0, 1)],
        20,
        seed=4,
        workers=1,
        progress=False,
        skip={(0, 1), (0, 3)},
        on_group=seen.append,
    )
    groups = {r.index // 2 for r in result.records}
    assert groups == set(range(10)) - {1, 3}
    assert sorted(g[0].index // 2 for g in seen) == sorted(groups)
    assert all(len(g) == 2 for g in seen)


def test_agent_objects_with_memory_play_one_game_at_a_time(monkeypatch):
    """An object without ``act_arrays`` may remember its game: each of its groups is a batch of
    its own, its games in turn, and it plays them as it would one game at a time."""
    from tests.evaluation.test_arena import FirstLegal

    assert arena._remembers(FirstLegal()) and not arena._remembers("heuristic")

    def play():
        return play_match("heisse-luft", [FirstLegal(), "random"], 6, seed=2, progress=False)

    one, many = both(play, monkeypatch)
    assert_same(one, many)


def test_a_gauntlet_in_batches_is_the_gauntlet_one_game_at_a_time(monkeypatch):
    from hot_envs.evaluation.gauntlet import gauntlet

    def play():
        return gauntlet(
            "heisse-karten", "card-counter", players=[2, 4], games=8, progress=False,
            opponents=["heuristic:0.2", "trick-avoider", "random"],
        )  # fmt: skip

    one, many = both(play, monkeypatch)
    assert one.rows == many.rows
    assert one.summary == many.summary
    assert one.ratings == many.ratings
    assert one.table() == many.table()


@pytest.mark.parametrize(
    ("game", "lineup", "options"),
    [
        ("heisse-luft", ["heuristic", "random"], {"turn_limit": 30}),  # HL-7.3 cut off
        ("heisse-luft", ["beginner", "random"], {"starting_player": "random"}),
        ("heisse-karten", ["heuristic", "random", "card-counter"], {"first_leader": "random"}),
        ("heisse-karten", ["heuristic", "random"], {"target": 40}),  # rounds to a target
        ("heisse-karten", ["heuristic", "low-dumper", "random", "trick-taker", "card-counter"],
         {"reward_mode": "score"}),
    ],
)  # fmt: skip
def test_every_option_of_the_games_plays_alike(game, lineup, options, monkeypatch):
    def play():
        return play_match(game, lineup, 20, seed=6, workers=1, progress=False, options=options)

    one, many = both(play, monkeypatch)
    assert_same(one, many)


def test_exchanges_that_run_the_draw_pile_dry_reshuffle_alike(monkeypatch):
    """HL-3.4 exchanges whose draws meet a reshuffle (HL-3.5) draw the same cards in batches."""

    def play():
        return play_match("heisse-luft", ["random", "high-hoarder:0.3"], 160, seed=9,
                          workers=1, progress=False)  # fmt: skip

    one, many = both(play, monkeypatch)
    assert_same(one, many)


class RecordingBar:
    """A progress bar that keeps what it is told."""

    def __init__(self) -> None:
        self.games = 0
        self.postfixes: list[str] = []

    def update(self, n: int) -> None:
        self.games += n

    def set_postfix_str(self, text: str) -> None:
        self.postfixes.append(text)

    def close(self) -> None:
        pass


@pytest.mark.parametrize("workers", [1, 2])
def test_the_bar_shows_the_moves_played_in_batches(workers, monkeypatch):
    # a batch's games end together, so the bar also counts moves as they are played
    bar = RecordingBar()
    monkeypatch.setattr(arena, "progress_bar", lambda total, **kwargs: bar)
    result = play_match("heisse-luft", ["heuristic", "random"], 12, seed=5, workers=workers)
    assert bar.games == len(result.records) == 12
    assert bar.postfixes[-1] == f"{sum(r.length for r in result.records):,} moves"


def test_a_gauntlet_loads_each_checkpoint_once(monkeypatch):
    """The checkpoints a gauntlet loads to check its specs are the ones its batches play."""
    from hot_envs.agents.checkpoint import CheckpointAgent
    from hot_envs.evaluation import batch
    from hot_envs.evaluation.gauntlet import gauntlet

    loads = []
    load = CheckpointAgent.load.__func__

    def counted(cls, path, *args, **kwargs):
        loads.append(str(path))
        return load(cls, path, *args, **kwargs)

    monkeypatch.setattr(CheckpointAgent, "load", classmethod(counted))
    monkeypatch.setattr(batch, "_LOADED", {})
    result = gauntlet(
        "heisse-karten",
        "heisse_karten_v0",
        opponents=["heisse_karten_v0_2026_12_01", "heuristic"],
        games=4,
        workers=1,
        progress=False,
    )
    assert [r["games"] for r in result.rows] == [4, 4]
    assert len(loads) == 2 and len(set(loads)) == 2, loads

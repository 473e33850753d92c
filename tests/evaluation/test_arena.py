"""The arena: statistics on known cases, fair seats, reproducible parallel runs; agent specs."""

from __future__ import annotations

import contextlib
import json
import os
from collections import Counter
from concurrent.futures.process import BrokenProcessPool

import pytest

from hot_envs.agents import SEARCH_PRESETS, SearchAgent, make_agent
from hot_envs.agents.heuristic_karten import HeisseKartenHeuristic
from hot_envs.agents.heuristic_luft import HeisseLuftHeuristic
from hot_envs.agents.random_agent import RandomAgent
from hot_envs.evaluation.arena import (
    AgentStats,
    play_match,
    play_matchups,
    ratings,
    round_robin,
    round_robin_lineups,
    unique_names,
    wilson_interval,
    win_matrix,
)
from hot_envs.evaluation.report import build_report, print_report, save_report


class FirstLegal:
    """Always the first legal action: a deterministic agent."""

    def act(self, observation, view):
        return view["legal_actions"][0]


class Illegal:
    def act(self, observation, view):
        return -1


def first_legal() -> FirstLegal:
    return FirstLegal()


def illegal() -> Illegal:
    return Illegal()


def not_an_agent() -> int:
    return 42


def seeded_random(game: str, seed: int | None) -> RandomAgent:
    assert game in ("heisse-luft", "heisse-karten")
    return RandomAgent(seed)


class BlasThreadsSeen(RandomAgent):
    """A random player that writes the BLAS thread counts it sees to ``$BLAS_SEEN_FILE``."""

    def act(self, observation, view=None):
        from threadpoolctl import threadpool_info

        counts = {p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"}
        with open(os.environ["BLAS_SEEN_FILE"], "a") as file:
            file.write(f"{os.getpid()} {sorted(counts)}\n")
        return super().act(observation, view)


def blas_threads_seen(game: str, seed: int | None) -> BlasThreadsSeen:
    return BlasThreadsSeen(seed)


HERE = __name__  # "tests.evaluation.test_arena": agents of this file as ``module:factory`` specs


# -- statistics ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("successes", "n", "low", "high"),
    [
        (0, 10, 0.0, 0.2775),
        (5, 10, 0.2366, 0.7634),
        (10, 10, 0.7225, 1.0),
        (50, 100, 0.4038, 0.5962),
    ],
)
def test_wilson_interval_known_values(successes, n, low, high):
    assert wilson_interval(successes, n) == pytest.approx((low, high), abs=1e-4)


def test_wilson_interval_without_games():
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_wilson_interval_holds_the_share_exactly():
    # 4 wins of 4 gave (0.51, 1 - 1e-16): the share itself outside its interval, by rounding
    for n in range(1, 60):
        for wins in [w / 2 for w in range(2 * n + 1)]:
            low, high = wilson_interval(wins, n)
            assert 0.0 <= low <= wins / n <= high <= 1.0, (wins, n)


def test_shared_wins_and_draws():
    stats = AgentStats("a")
    stats.add([1.0, -1.0], 0, 10)  # win
    stats.add([0.0, 0.0], 0, 10)  # draw: half a win
    stats.add([0.5, 0.5, -1.0], 1, 10)  # a win shared by two
    stats.add([1.0, -0.5, -0.5], 2, 10)  # loss
    assert (stats.wins, stats.draws, stats.losses) == (1, 2, 1)
    assert stats.summary()["win_share"] == pytest.approx((1 + 0.5 + 0.5) / 4)


def test_random_against_itself_is_even():
    result = play_match(
        "heisse-karten", ["random", "random"], 200, players=2, seed=3, workers=1, progress=False
    )
    rows = result.summary()
    assert [row["agent"] for row in rows] == ["random", "random#2"]
    for row in rows:
        assert row["games"] == 200
        assert row["ci_low"] <= 0.5 <= row["ci_high"]
    assert rows[0]["win_share"] + rows[1]["win_share"] == pytest.approx(1.0)
    assert rows[0]["mean_length"] == 48


def test_deterministic_agent_against_itself():
    """Both rotations of a deal are the same game with the seats swapped (duplicate deals)."""
    spec = f"{HERE}:first_legal"
    result = play_match("heisse-luft", [spec, spec], 6, seed=0, workers=1, progress=False)
    records = result.records
    assert len(records) == 6
    for first, second in zip(records[::2], records[1::2], strict=True):
        assert first.seats == (0, 1) and second.seats == (1, 0)
        assert first.returns == second.returns and first.length == second.length


# -- seats, seeds, workers -------------------------------------------------------------------


def test_seats_rotate_fairly():
    result = play_match(
        "heisse-karten", ["random", "heuristic", "random"], 7, seed=1, workers=1, progress=False
    )
    assert len(result.records) == 9  # rounded up to whole rotations
    seats = Counter((slot, seat) for r in result.records for seat, slot in enumerate(r.seats))
    assert set(seats.values()) == {3} and len(seats) == 9


@pytest.mark.slow
def test_same_seed_same_results_with_any_number_of_workers():
    kwargs = {"players": 2, "seed": 5, "progress": False}
    one = play_match("heisse-karten", ["random", "search:16"], 8, workers=1, **kwargs)
    two = play_match("heisse-karten", ["random", "search:16"], 8, workers=2, **kwargs)
    other = play_match(
        "heisse-karten", ["random", "search:16"], 8, workers=1, **{**kwargs, "seed": 6}
    )
    assert one.records == two.records
    assert one.records != other.records


@pytest.mark.parametrize("workers", [1, 2])
def test_games_play_with_numpy_blas_on_one_thread(workers, tmp_path, monkeypatch):
    from threadpoolctl import threadpool_limits

    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    monkeypatch.setenv("BLAS_SEEN_FILE", str(tmp_path / "seen"))
    with threadpool_limits(2, user_api="blas"):  # numpy's default on two cores
        lineup = [f"{HERE}:blas_threads_seen", "random"]
        play_match("heisse-luft", lineup, 4, workers=workers, seed=0, progress=False)
        seen = (tmp_path / "seen").read_text().splitlines()
        assert {line.split()[1] for line in seen} == {"[1]"}
        here = {line.split()[0] == str(os.getpid()) for line in seen}
        assert here == {workers == 1}  # played here, or in the pool's worker processes
        from threadpoolctl import threadpool_info

        assert {p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"} == {2}


def test_illegal_actions_name_the_agent():
    with pytest.raises(ValueError, match="illegal"):
        play_match("heisse-luft", ["random", f"{HERE}:illegal"], 2, workers=1, progress=False)


def test_lineup_must_fit_the_game():
    with pytest.raises(ValueError, match="2-player"):
        play_match("heisse-luft", ["random"] * 3, 3, players=3, workers=1, progress=False)


# -- round robin, ratings, report ------------------------------------------------------------


def test_round_robin_lineups():
    assert round_robin_lineups(3, 2) == [(0, 1), (0, 2), (1, 2)]
    assert round_robin_lineups(2, 4) == [(0, 1, 1, 1), (1, 0, 0, 0)]


@pytest.mark.parametrize("players", [2, 3])
def test_round_robin_report(players, tmp_path, capsys):
    result = round_robin(
        "heisse-karten",
        ["random", "heuristic", f"{HERE}:first_legal"],
        6,
        players=players,
        seed=0,
        workers=1,
        progress=False,
    )
    matrix = win_matrix(result)
    assert [matrix[i][i] for i in range(3)] == [None] * 3
    if players == 2:
        assert matrix[0][1] + matrix[1][0] == pytest.approx(1.0)
    assert matrix[1][0] > matrix[0][1]  # the heuristic beats random
    rated = ratings(result, passes=3)
    assert rated[1]["mu"] > rated[0]["mu"]
    report = build_report(result)
    print_report(report, title="test")
    assert "win share" in capsys.readouterr().out
    paths = save_report(report, tmp_path)
    assert {p.name for p in paths} == {
        "results.json",
        "results.csv",
        "results_matrix.csv",
        "results.png",
    }
    saved = json.loads((tmp_path / "results.json").read_text())
    assert saved["agents"] == ["random", "heuristic", f"{HERE}:first_legal"]
    assert len(saved["games"]) == len(result.records)


def test_round_robin_needs_two_agents():
    with pytest.raises(ValueError, match="two agents"):
        round_robin("heisse-luft", ["random"], 2)


def test_unique_names():
    assert unique_names(["random", "search", "random", "random"]) == [
        "random",
        "search",
        "random#2",
        "random#3",
    ]


# -- agent specs -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "game", "kind"),
    [
        ("random", "heisse-luft", RandomAgent),
        ("heuristic", "heisse-luft", HeisseLuftHeuristic),
        ("heuristic:0.2", "heisse-karten", HeisseKartenHeuristic),
        ("search", "heisse-karten", SearchAgent),
        ("search:50", "heisse-luft", SearchAgent),
        ("search:0.2s", "heisse-luft", SearchAgent),
        ("search:30:heuristic:0.1", "heisse-karten", SearchAgent),
        (f"{HERE}:first_legal", "heisse-luft", FirstLegal),
        (f"{HERE}:seeded_random", "heisse_karten_v0", RandomAgent),
    ],
)
def test_specs(spec, game, kind):
    assert isinstance(make_agent(spec, game, 1), kind)


def test_search_specs_use_the_game_presets():
    assert make_agent("search:50", "heisse-luft", 0).simulations == 50
    assert make_agent("search:0.2s", "heisse-luft", 0).seconds == 0.2
    luft = make_agent("search", "heisse-luft", 0)
    assert luft.simulations == SEARCH_PRESETS["heisse-luft"]["simulations"]
    assert isinstance(luft.prior, HeisseLuftHeuristic) and luft.rollout_plies == 6
    karten = make_agent("search:10:random", "heisse-karten", 0)
    assert karten.rollout is None and karten.simulations == 10


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("randm", "unknown agent spec"),
        ("search:-3", "budget"),
        ("search:lots", "budget"),
        ("heuristic:much", "not a number"),
        ("no_such_module_xyz:factory", "cannot import"),
        (f"{HERE}:no_such_factory", "has no"),
        (f"{HERE}:HERE", "not callable"),
        (f"{HERE}:not_an_agent", "without act"),
    ],
)
def test_bad_specs(spec, message):
    with pytest.raises(ValueError, match=message):
        make_agent(spec, "heisse-luft", 0)


def test_missing_checkpoint_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="not found"):
        make_agent(str(tmp_path / "nothing.npz"), "heisse-luft", 0)
    with pytest.raises(ValueError, match="checkpoint .* not found: no file"):
        make_agent(str(tmp_path / "runs" / "final"), "heisse-luft", 0)  # a stem: no suffix


# -- agent objects ---------------------------------------------------------------------------


class Counting(FirstLegal):
    """First legal action, counting its decisions; it cannot be pickled (a lambda inside)."""

    name = "counting"

    def __init__(self):
        self.decisions, self.unpicklable = 0, lambda: None

    def act(self, observation, view):
        self.decisions += 1
        return super().act(observation, view)


def test_agent_objects_play_beside_specs_in_this_process():
    """An object is used as it is (here: its counter grows in this process) and named by its
    ``name``; the games are the same as with the same agent given by spec."""
    agent = Counting()
    kwargs = {"players": 2, "seed": 3, "progress": False}
    result = round_robin("heisse-luft", [agent, "random"], 4, **kwargs)
    assert result.agents == ["counting", "random"]
    assert agent.decisions == result.stats()[0].decisions > 0
    by_spec = round_robin("heisse-luft", [f"{HERE}:first_legal", "random"], 4, workers=1, **kwargs)
    assert result.records == by_spec.records
    records = result.game_records()  # JSON-ready: the object is recorded by its name
    assert json.loads(json.dumps(records)) == records
    assert {seat for record in records for seat in record["seats"]} == {"counting", "random"}


def test_agent_objects_go_to_workers_only_if_they_pickle():
    with pytest.raises(ValueError, match="cannot be sent to worker processes.*workers=1"):
        play_match("heisse-luft", [Counting(), "random"], 2, workers=2, progress=False)
    with pytest.raises(ValueError, match="neither an agent spec"):
        play_match("heisse-luft", [42, "random"], 2, progress=False)


class DiesOnce(FirstLegal):
    """Ends its worker process abruptly at its first decision unless ``flag`` exists (as the OS
    ends a process it kills); creates ``flag`` first, so only one worker dies where it can."""

    def __init__(self, flag: str) -> None:
        self.flag = flag

    def act(self, observation, view):
        if not os.path.exists(self.flag):
            with contextlib.suppress(OSError):
                open(self.flag, "w").close()
            os._exit(1)
        return super().act(observation, view)


def test_a_dead_worker_is_replaced_and_its_groups_played_again(tmp_path):
    kwargs = {"players": 2, "seed": 4, "progress": False}
    with pytest.warns(RuntimeWarning, match="worker process died"):
        result = play_match(
            "heisse-luft", [DiesOnce(str(tmp_path / "died")), "random"], 8, workers=2, **kwargs
        )
    assert (tmp_path / "died").exists()
    alone = play_match("heisse-luft", [f"{HERE}:first_legal", "random"], 8, workers=1, **kwargs)
    assert result.records == alone.records  # every game once, the same games


def test_a_worker_that_keeps_dying_ends_the_match(tmp_path):
    """No flag can be made (its folder is missing): every worker dies; one new pool, then the
    error."""
    agent = DiesOnce(str(tmp_path / "missing" / "flag"))
    with pytest.raises(BrokenProcessPool), pytest.warns(RuntimeWarning):
        play_match("heisse-luft", [agent, "random"], 4, workers=2, progress=False)


@pytest.mark.parametrize("workers", [0, -1, True])
def test_workers_must_be_positive(workers):
    with pytest.raises(ValueError, match="workers must be a positive int"):
        play_match("heisse-luft", ["random", "random"], 2, workers=workers, progress=False)


def test_skipped_groups_are_not_played_and_finished_groups_are_reported_at_once():
    seen = []
    kwargs = {"players": 2, "workers": 1, "progress": False}
    lineup = ["random", "heuristic"]
    full = play_matchups("heisse-karten", lineup, [[0, 1]], 6, **kwargs)
    part = play_matchups(
        "heisse-karten", lineup, [[0, 1]], 6, skip={(0, 1)}, on_group=seen.append, **kwargs
    )
    assert [r.index for r in part.records] == [0, 1, 4, 5]
    assert [[r.index for r in group] for group in seen] == [[0, 1], [4, 5]]
    assert part.records == [r for r in full.records if r.index // 2 != 1]  # the same deals

"""Behaviour cloning data and DAgger (hot_envs.training.imitation)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO  # noqa: E402

from hot_envs.agents.arrays import ActionScorerInput
from hot_envs.agents.random_agent import RandomAgent  # noqa: E402
from hot_envs.envs.single_agent import SingleAgentEnv  # noqa: E402
from hot_envs.training.imitation import behaviour_cloning, collect, dagger  # noqa: E402
from hot_envs.training.policies import ActionScorerPolicy  # noqa: E402


class Lowest:
    """A deterministic teacher: the lowest legal action id."""

    def act(self, observation, view):
        return int(np.flatnonzero(observation["action_mask"])[0])


@pytest.mark.parametrize("game, counts", [("heisse-luft", [None]), ("heisse-karten", [2, 3])])
def test_with_a_learner_every_label_is_the_teachers_and_the_learner_steers_the_games(game, counts):
    # The same seed deals the same games; only the learner's moves differ between the runs.
    obedient = collect(game, counts, 300, seed=5, teacher=Lowest(), learner=Lowest())
    steered = collect(game, counts, 300, seed=5, teacher=Lowest(), learner=RandomAgent(1))
    for demos in (obedient, steered):
        lowest = np.argmax(demos.masks, axis=1)  # the first legal action of each decision
        assert np.array_equal(demos.actions, lowest)  # every label is the teacher's
        assert len(demos.actions) >= 300 and demos.masks[np.arange(len(lowest)), lowest].all()
    assert np.array_equal(obedient.observations[0], steered.observations[0])  # same first deal
    size = min(len(obedient.actions), len(steered.actions))
    assert not np.array_equal(obedient.observations[:size], steered.observations[:size])


class Recorder(Lowest):
    """:class:`Lowest`, remembering the seat of every decision it is asked for."""

    def __init__(self):
        self.seats = []

    def act(self, observation, view):
        self.seats.append(view["player"])
        return super().act(observation, view)


@pytest.mark.parametrize("players", [2, 3])
def test_with_an_opponent_only_the_learners_decisions_are_labelled(players):
    teacher, opponent = Recorder(), Recorder()
    # One decision asked for: one whole game.
    demos = collect(
        "heisse-karten", [players], 1, teacher=teacher, learner=Lowest(), opponent=opponent
    )
    learner_seat = teacher.seats[0]
    assert set(teacher.seats) == {learner_seat}  # the teacher labels the learner's seat only
    assert set(opponent.seats) == set(range(players)) - {learner_seat}  # the rest is the opponent's
    assert len(demos.actions) == len(teacher.seats) == 48 // players  # HK-3.4: every card played
    assert len(teacher.seats) + len(opponent.seats) == 48
    with pytest.raises(ValueError, match="an opponent, own_labels or improve need a learner"):
        collect("heisse-karten", [players], 1, opponent=opponent)


class Highest(Lowest):
    def act(self, observation, view):
        return int(np.flatnonzero(observation["action_mask"])[-1])


@pytest.mark.parametrize("players, own", [(2, True), (3, False)])
def test_at_the_own_label_sizes_the_learners_choice_is_the_label(players, own):
    teacher = Recorder()
    demos = collect(
        "heisse-karten",
        [players],
        200,
        teacher=teacher,
        learner=Highest(),
        opponent="random",
        own_labels=[2],
    )
    pick = -1 if own else 0  # the learner's (highest) or the teacher's (lowest) legal action
    assert [np.flatnonzero(mask)[pick] for mask in demos.masks] == demos.actions.tolist()
    assert len(teacher.seats) == (0 if own else len(demos.actions))  # asked only where it labels


@pytest.mark.slow
def test_improve_keeps_the_learners_move_unless_the_search_finds_a_better_one():
    def labels(margin):
        options = {"learner": Highest(), "opponent": "heuristic", "improve": margin}
        return collect("heisse-karten", [2], 48, seed=3, teacher="search:40", **options)

    kept, corrected = labels(100.0), labels(-100.0)  # no gain reaches 100; any gain beats -100
    assert np.array_equal(kept.masks, corrected.masks)  # the learner's games: the same positions
    highest = [np.flatnonzero(mask)[-1] for mask in kept.masks]
    assert kept.actions.tolist() == highest
    assert all(mask[a] for mask, a in zip(corrected.masks, corrected.actions, strict=True))
    changed = corrected.actions != np.array(highest)
    assert 0.2 < changed.mean() < 1  # the search replaces the worst moves, not every move
    with pytest.raises(ValueError, match="improve needs a search agent as the teacher"):
        collect("heisse-karten", [2], 1, learner=Highest(), improve=0.1)


def test_collecting_in_worker_processes_joins_the_parts_of_derived_seeds(capsys):
    parallel = collect("heisse-karten", [2, 4], 300, seed=7, workers=2, progress=True)
    assert "teacher decisions" in capsys.readouterr().err  # the bar counts the workers' decisions
    seeds = np.random.SeedSequence(7).generate_state(2)
    parts = [collect("heisse-karten", [2, 4], 150, seed=int(seed)) for seed in seeds]
    assert len(parallel.actions) == sum(len(part.actions) for part in parts) >= 300
    for name, got in vars(parallel).items():
        assert np.array_equal(got, np.concatenate([vars(part)[name] for part in parts])), name


def test_dagger_grows_the_data_and_reports_the_clones_agreement():
    model = MaskablePPO(
        "MlpPolicy", SingleAgentEnv("heisse-karten", players=[2]), policy_kwargs={"net_arch": [32]}
    )
    demos = collect("heisse-karten", [2], 400, seed=0)
    behaviour_cloning(model, demos, epochs=1)
    grown, history = dagger(
        model, demos, "heisse-karten", [2], rounds=2, decisions=200, seed=0, epochs=1
    )
    assert [entry["round"] for entry in history] == [1, 2]
    assert history[0]["decisions"] >= 600 and history[1]["decisions"] >= 800
    assert len(grown.actions) == history[-1]["decisions"]
    assert all(0.0 <= entry["agreement"] <= 1.0 for entry in history)
    assert np.array_equal(grown.actions[: len(demos.actions)], demos.actions)  # kept, then added


def test_dagger_starts_without_base_data():
    model = MaskablePPO(
        "MlpPolicy", SingleAgentEnv("heisse-karten", players=[3]), policy_kwargs={"net_arch": [16]}
    )
    empty = collect("heisse-karten", [3], 0)
    grown, history = dagger(model, empty, "heisse-karten", [3], rounds=1, decisions=100, epochs=1)
    assert len(empty.actions) == 0 and len(grown.actions) == history[0]["decisions"] >= 100
    assert grown.observations.shape == (len(grown.actions), 670)


@pytest.mark.slow  # two behaviour-cloning runs of 30 epochs
def test_label_smoothing_keeps_the_teachers_choice_but_not_its_certainty():
    demos = collect(
        "heisse-karten", [2], 300, seed=0, policy_input=ActionScorerInput("heisse-karten")
    )
    entropies, accuracies = [], []
    for smoothing in (0.0, 0.2):
        env = SingleAgentEnv(
            "heisse-karten", players=[2], policy_input=ActionScorerInput("heisse-karten")
        )
        kwargs = {"game": "heisse-karten", "state_arch": [32, 16], "scorer_arch": [32]}
        model = MaskablePPO(ActionScorerPolicy, env, policy_kwargs=kwargs, seed=0)
        history = behaviour_cloning(model, demos, 30, 64, 1e-2, label_smoothing=smoothing, seed=0)
        last = history[-1]
        entropies.append(last["entropy"])
        accuracies.append(last["accuracy"])
    assert min(accuracies) > 0.9  # the argmax is the teacher's either way
    assert entropies[0] < 0.05 and entropies[1] > 0.3


def test_a_workers_error_reaches_the_caller():
    with pytest.raises(ValueError, match="grandmaster"):
        collect("heisse-karten", [2], 100, teacher="grandmaster", workers=2)

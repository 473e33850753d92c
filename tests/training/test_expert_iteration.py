"""Expert iteration (hot_envs.training.expert_iteration, hot_envs.training.search_labels): the
search's labels of the apprentice's decisions on disk, resumed after a stop; targets over the
legal actions only; a round that trains and reports its regret; bad configs refused."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import torch  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402

from hot_envs.agents import make_agent  # noqa: E402
from hot_envs.agents.arrays import ActionScorerInput  # noqa: E402
from hot_envs.agents.base import observe  # noqa: E402
from hot_envs.agents.checkpoint import CheckpointAgent  # noqa: E402
from hot_envs.agents.search import SearchAgent  # noqa: E402
from hot_envs.core.games import get_game  # noqa: E402
from hot_envs.envs.single_agent import SingleAgentEnv  # noqa: E402
from hot_envs.training.expert_iteration import (  # noqa: E402
    Labelling,
    Targets,
    Training,
    critic_parameters,
    dense_rows,
    expert_iteration,
    judge,
    policy_targets,
    train_apprentice,
    value_targets,
)
from hot_envs.training.export import export_checkpoint  # noqa: E402
from hot_envs.training.policies import ActionScorerPolicy  # noqa: E402
from hot_envs.training.search_labels import (  # noqa: E402
    ShardJob,
    guided_search,
    load,
    write_shard,
    write_shards,
)
from hot_envs.training.settings import parse_args  # noqa: E402

GAME = "heisse-karten"  # its search is cheap: tests label at two and three players
META = {"game": GAME, "options": {"num_players": [2, 3]}}


def scorer_model(seed: int = 0) -> MaskablePPO:
    env = SingleAgentEnv(GAME, players=[2, 3], policy_input=ActionScorerInput(GAME))
    kwargs = {"game": GAME, "state_arch": [16], "scorer_arch": [16], "value_arch": [16]}
    return MaskablePPO(ActionScorerPolicy, env, policy_kwargs=kwargs, seed=seed)


@pytest.fixture(scope="module")
def apprentice(tmp_path_factory):
    """A small action-scoring network's checkpoint (untrained: it plays at random-ish)."""
    return str(export_checkpoint(scorer_model(), tmp_path_factory.mktemp("net") / "net", META))


def job(path, apprentice, labels=40, seed=1, **options) -> ShardJob:
    settings = {
        "game": GAME,
        "player_counts": (2, 3),
        "teacher": "search:40",
        "opponents": (("heuristic", 1.0), ("self", 1.0)),
    }
    return ShardJob(
        str(path), labels=labels, seed=seed, apprentice=apprentice, **settings | options
    )


def test_action_values_are_the_searchs_choice_and_every_candidates_statistics():
    description = get_game(GAME)
    state = description.engine.State.new(seed=4, **description.options(3))
    observation = observe(description.engine, state, state.current_player)
    view = state.view(state.current_player)
    twins = [SearchAgent(GAME, simulations=200, seed=9) for _ in range(2)]
    choice, values = twins[0].action_values(observation, view)
    assert choice == twins[1].act(observation, view)  # the same decision as act
    assert sorted(values) == np.flatnonzero(observation["action_mask"]).tolist()
    assert all(count >= 1 for _, count in values.values())
    assert max(values, key=lambda a: (values[a][1], values[a][0])) == choice  # the finalist


def test_a_shard_holds_the_searchs_judgement_of_every_legal_move_of_the_apprentice(
    tmp_path, apprentice
):
    written = write_shard(job(tmp_path / "shard.npz", apprentice, guide=("prior",)))
    labels = load(tmp_path / "shard.npz")
    assert written == len(labels) >= 40 and set(labels.players.tolist()) <= {2, 3}
    lengths = np.diff(labels.offsets)
    assert (lengths >= 2).all()  # only decisions with a choice are labelled
    for i in range(len(labels)):
        actions = labels.actions[labels.offsets[i] : labels.offsets[i + 1]]
        assert (np.diff(actions) > 0).all()  # each legal action once, ascending
        assert labels.choice[i] in actions and labels.played[i] in actions
    assert (labels.counts >= 1).all()
    assert labels.observations.shape == (len(labels), ActionScorerInput(GAME).size)
    # The outcome is the game's, and the seat's decisions left count down within each game.
    for game in np.unique(labels.game):
        rows = labels.game == game
        assert len(np.unique(labels.outcome[rows])) == 1
        assert (np.diff(labels.later[rows]) < 0).all()


def test_a_rerun_skips_written_shards_and_ignores_what_a_stopped_one_left(tmp_path, apprentice):
    jobs = [job(tmp_path / f"shard-{i:04d}.npz", apprentice, labels=10, seed=i) for i in range(2)]
    assert write_shards(jobs, workers=1) >= 20
    kept = os.stat(jobs[0].path).st_mtime_ns
    first = load(jobs[1].path)
    # A stop while the second shard was written: no shard, a partial temporary file.
    os.remove(jobs[1].path)
    (tmp_path / ".shard-0001.npz.999.partial").write_bytes(b"half a shard")
    again = write_shards(jobs, workers=1)
    assert again == len(load(jobs[1].path))  # the missing shard alone, written again …
    assert os.stat(jobs[0].path).st_mtime_ns == kept  # … the written one skipped
    assert np.array_equal(load(jobs[1].path).choice, first.choice)  # seeded: the same labels
    assert write_shards(jobs, workers=1) == 0  # all there: nothing to do


@pytest.mark.slow  # two worker processes, each loading the engines' compiled kernels
def test_worker_processes_write_the_same_shards_as_one_process(tmp_path, apprentice):
    jobs = {
        where: [
            job(tmp_path / where / f"shard-{i}.npz", apprentice, labels=6, seed=i) for i in (0, 1)
        ]
        for where in ("pool", "here")
    }
    for where in jobs:
        (tmp_path / where).mkdir()
    written = write_shards(jobs["pool"], workers=2, progress=True)
    assert written == write_shards(jobs["here"], workers=1)
    for pooled, here in zip(jobs["pool"], jobs["here"], strict=True):
        a, b = load(pooled.path), load(here.path)
        assert np.array_equal(a.values, b.values) and np.array_equal(a.played, b.played)


def test_an_error_while_labelling_leaves_no_shard(tmp_path, apprentice, monkeypatch):
    def broken(self, observation, view):
        raise RuntimeError("stopped")

    monkeypatch.setattr(SearchAgent, "action_values", broken)
    with pytest.raises(RuntimeError, match="stopped"):
        write_shard(job(tmp_path / "shard.npz", apprentice))
    assert list(tmp_path.iterdir()) == []  # neither the shard nor its temporary file


@pytest.mark.parametrize("guide", [(), ("prior",), ("rollout",), ("prior", "rollout")])
def test_the_apprentice_guides_the_search_as_configured_at_the_teachers_budget(apprentice, guide):
    task = job("unused.npz", apprentice, teacher="search:40", guide=guide, margin=0.3)
    model = CheckpointAgent.load(apprentice, GAME)
    teacher, preset = guided_search(task, model), make_agent("search:40", GAME)
    assert teacher.simulations == preset.simulations == 40
    assert (teacher.prior is model) == ("prior" in guide)
    assert (teacher.rollout is model) == ("rollout" in guide)
    assert teacher.margin == (0.3 if "prior" in guide else preset.margin)
    description = get_game(GAME)
    state = description.engine.State.new(seed=8, **description.options(2))
    observation = observe(description.engine, state, state.current_player)
    choice, values = teacher.action_values(observation, state.view(state.current_player))
    assert choice in values and len(values) == observation["action_mask"].sum()


@pytest.fixture(scope="module")
def shard(tmp_path_factory, apprentice):
    path = tmp_path_factory.mktemp("labels") / "shard.npz"
    write_shard(job(path, apprentice, labels=20, seed=3))
    return load(path)


@pytest.mark.parametrize(
    "targets",
    [Targets("softmax", temperature=0.05), Targets("softmax", temperature=10.0), Targets("gumbel")],
)
def test_targets_are_distributions_over_the_legal_actions_only(shard, targets):
    flat = policy_targets(shard, targets)
    rows = np.arange(len(shard))
    dense = dense_rows(shard, rows, flat)
    legal = dense_rows(shard, rows, np.ones_like(flat)) > 0
    assert (flat >= 0).all() and np.allclose(dense.sum(axis=1), 1.0, atol=1e-5)
    assert (dense[~legal] == 0).all()
    values = dense_rows(shard, rows, shard.values, fill=-np.inf)
    if targets.kind == "softmax":  # the best mean return gets the most weight
        assert (dense.argmax(axis=1) == values.argmax(axis=1)).all()


def test_a_low_temperature_is_the_argmax_and_a_high_one_near_uniform(shard):
    rows = np.arange(len(shard))
    sharp = dense_rows(shard, rows, policy_targets(shard, Targets(temperature=1e-4)))
    values = dense_rows(shard, rows, shard.values, fill=-np.inf)
    best = values == values.max(axis=1, keepdims=True)  # the best mean return, ties shared
    assert np.allclose((sharp * best).sum(axis=1), 1.0, atol=1e-3)
    flat = policy_targets(shard, Targets(temperature=1e4))
    lengths = np.diff(shard.offsets)
    assert np.allclose(flat, np.repeat(1.0 / lengths, lengths), atol=1e-3)


def test_the_value_target_discounts_the_outcome_and_mixes_in_the_search(shard):
    outcome = value_targets(shard, Targets(gamma=0.9))
    assert np.allclose(outcome, shard.outcome * 0.9**shard.later, atol=1e-6)
    search = value_targets(shard, Targets(gamma=1.0, search_share=1.0))
    chosen = dense_rows(shard, np.arange(len(shard)), shard.values)
    assert np.allclose(search, chosen[np.arange(len(shard)), shard.choice], atol=1e-6)


def test_the_regret_is_the_best_mean_return_minus_that_of_the_networks_argmax(shard):
    # An MLP whose logits are its bias alone: it always prefers the highest action id.
    env = SingleAgentEnv(GAME, players=[2, 3])
    model = MaskablePPO("MlpPolicy", env, policy_kwargs={"net_arch": [8]}, seed=0)
    with torch.no_grad():
        model.policy.action_net.weight.zero_()
        model.policy.action_net.bias.copy_(torch.arange(env.action_space.n, dtype=torch.float32))
    observation_labels = shard.rows(np.arange(len(shard)))
    observation_labels.observations = np.zeros((len(shard), 670), dtype=np.float32)
    figures = judge(model, observation_labels, Targets())
    ends = shard.offsets[1:] - 1  # each row's highest legal action
    best = np.maximum.reduceat(shard.values, shard.offsets[:-1])
    assert figures["regret"] == pytest.approx(np.mean(best - shard.values[ends]), abs=1e-6)
    assert figures["agreement"] == pytest.approx(np.mean(shard.choice == shard.actions[ends]))


def logits_and_values(model, labels):
    observations = torch.as_tensor(labels.observations)
    masks = dense_rows(labels, np.arange(len(labels)), np.ones(len(labels.actions))) > 0
    with torch.no_grad():
        logits = model.policy.get_distribution(observations, action_masks=masks)
        return logits.distribution.logits.numpy(), model.policy.predict_values(observations)


def test_the_value_warmup_trains_the_critic_alone_and_leaves_the_logits_as_they_were(shard):
    model = scorer_model()
    critic = {id(p) for p in critic_parameters(model.policy, shard)}
    heads = model.policy.mlp_extractor.critic_net, model.policy.value_net
    assert critic == {id(p) for head in heads for p in head.parameters()}
    nothing_held = shard.rows(np.arange(0))
    logits, values = logits_and_values(model, shard)
    warmup = Training(epochs=0, value_warmup_epochs=2, batch_size=8)
    history = train_apprentice(model, shard, nothing_held, Targets(), warmup)
    assert [entry["stage"] for entry in history] == ["value warm-up"] * 2
    warm_logits, warm_values = logits_and_values(model, shard)
    assert np.array_equal(warm_logits, logits)  # the actor frozen …
    assert not torch.equal(warm_values, values)  # … the critic trained
    train_apprentice(model, shard, nothing_held, Targets(), Training(epochs=1, batch_size=8))
    assert not np.array_equal(logits_and_values(model, shard)[0], logits)  # after it: both


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"value_warmup_epochs": -1}, "value_warmup_epochs must be ≥ 0, not -1"),
        ({"value_warmup_epochs": 2, "value_weight": 0.0}, "needs a value_weight > 0"),
        ({"epochs": 0}, "must not both be 0"),
        ({"learning_rate": 0.0}, "learning_rate must be > 0"),
        ({"batch_size": 0}, "batch_size must be ≥ 1"),
    ],
)
def test_bad_training_settings_are_refused(settings, message):
    with pytest.raises(ValueError, match=message):
        Training(**settings)


@pytest.mark.slow  # two rounds of labels, training and a strength match: about 6 s
def test_rounds_train_report_their_regret_and_a_rerun_goes_on_where_they_stopped(tmp_path):
    model = scorer_model()
    labelling = Labelling(
        teacher="search:40",
        opponents=(("heuristic", 1.0), ("snapshot", 1.0)),
        labels=40,
        shard_labels=20,
        guide=("prior",),
        held_out=0.4,
        strength_games=3,
    )
    options = (GAME, [2, 3])
    settings = (labelling, Targets("gumbel"), Training(epochs=3, patience=1), META)
    first = expert_iteration(model, *options, 1, tmp_path, *settings, seed=2)
    entry = first[0]
    assert entry["labels"] >= 40 and 0 < entry["held_out"] < entry["labels"]
    assert entry["regret"] >= 0 and 0 <= entry["agreement"] <= 1
    assert entry["regret"] <= entry["regret_before"] + 0.05  # trained on the search's values
    assert [row["players"] for row in entry["strength"]] == [2, 3]
    assert make_agent(str(tmp_path / "round-01" / "trained"), GAME) is not None
    shards = sorted((tmp_path / "round-01").glob("shard-*.npz"))
    stamps = [path.stat().st_mtime_ns for path in shards]
    # A second run with two rounds: round 1 is read back, not labelled or trained again.
    again = expert_iteration(scorer_model(seed=5), *options, 2, tmp_path, *settings, seed=2)
    assert again[0] == json.loads((tmp_path / "round-01" / "round.json").read_text())
    assert [path.stat().st_mtime_ns for path in shards] == stamps
    assert again[1]["labels"] == entry["labels"] + again[1]["new_labels"]  # aggregated
    # Round 2's apprentice is round 1's network, not the new model it was handed.
    rounds = tmp_path / "round-01" / "trained.npz", tmp_path / "round-02" / "apprentice.npz"
    with np.load(rounds[0]) as a, np.load(rounds[1]) as b:
        assert all(np.array_equal(a[name], b[name]) for name in a.files)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('exit_target = "best"', "exit_target must be one of"),
        ('exit_teacher = "heuristic"', "exit_teacher must be a search spec"),
        ('exit_guide = ["value"]', "exit_guide takes"),
        ("exit_held_out = 1.5", r"exit_held_out must be in \(0, 1\)"),
        ("exit_labels = 0", "exit_labels must be ≥ 1"),
        ("exit_target_temperature = 0", "exit_target_temperature must be > 0"),
        ('exit_opponents = [{ spec = "heuristic", wieght = 1 }]', "has spec and weight"),
        ('exit_opponents = [{ spec = "heuristic", weight = -1 }]', "weight must be ≥ 0"),
        ('exit_opponents = [{ spec = "nobody" }]', "unknown agent spec 'nobody'"),
        ('exit_opponents = [{ spec = "self", weight = 0 }]', "must not all be 0"),
    ],
)
def test_a_bad_expert_iteration_config_is_refused_before_anything_starts(tmp_path, text, message):
    path = tmp_path / "exit.toml"
    path.write_text(f"[expert_iteration]\nexit_rounds = 1\n{text}\n")
    with pytest.raises(ValueError, match=message):
        parse_args(["heisse-karten", "--config", str(path), "--out", str(tmp_path / "run")])
    assert not (tmp_path / "run").exists()

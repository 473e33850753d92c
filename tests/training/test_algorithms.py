"""OpenSpiel's DQN and NFSP and the Deep Monte-Carlo learner on our games
(hot_envs.training.openspiel_rl): each trains on each
game, picks only legal actions, and leaves a checkpoint that plays the learner's greedy move in
whole arena games; bad settings are refused before anything is written."""

from __future__ import annotations

import csv

import numpy as np
import pytest

pytest.importorskip("open_spiel")
pytest.importorskip("torch")

import pyspiel  # noqa: E402
from open_spiel.python import rl_environment  # noqa: E402

import hot_envs.openspiel  # noqa: E402, F401 (registers the games)
from hot_envs.agents.base import observe  # noqa: E402
from hot_envs.agents.checkpoint import CheckpointAgent  # noqa: E402
from hot_envs.core.games import get_game  # noqa: E402
from hot_envs.evaluation.arena import play_match  # noqa: E402
from hot_envs.training import openspiel_rl  # noqa: E402
from hot_envs.training.openspiel_rl import Settings, parse_args, run  # noqa: E402

TINY = {
    "steps": 150,
    "eval_every": 100,
    "eval_games": 2,
    "final_games": 4,
    "hidden": [16],
    "batch_size": 8,
    "buffer": 64,  # learning starts once 64 transitions are stored
    "learn_every": 3,
    "progress": False,
}


@pytest.fixture
def legal_only(monkeypatch):
    """Every action a training run sends to rl_environment, checked against the legal ones."""
    checked = []
    step = rl_environment.Environment.step

    def checked_step(self, actions):
        player = self.get_state.current_player()
        assert actions[0] in self.get_state.legal_actions(player), (player, actions)
        checked.append(actions[0])
        return step(self, actions)

    monkeypatch.setattr(rl_environment.Environment, "step", checked_step)
    return checked


@pytest.mark.slow  # 0.4-0.6 s each on idle cores, the first 3 s (torch); 3-16 s under load
@pytest.mark.parametrize("algorithm", ["dqn", "nfsp", "dmc"])
@pytest.mark.parametrize("game", ["heisse-luft", "heisse-karten"])
def test_each_algorithm_trains_on_each_game(algorithm, game, tmp_path, legal_only) -> None:
    rows = run(Settings(game=game, algorithm=algorithm, out=str(tmp_path), seed=3, **TINY))
    assert len(legal_only) >= TINY["steps"]  # the learners' moves, and DQN's opponent's
    # before training, after 100 steps and at the end; against random and the heuristic each
    assert [(r["steps"] >= 150, r["opponent"]) for r in rows][-2:] == [
        (True, "random"),
        (True, "heuristic"),
    ]
    assert [r["steps"] for r in rows][:4] == [0, 0, rows[2]["steps"], rows[2]["steps"]]
    assert 100 <= rows[2]["steps"] < 150 + 100
    assert all(0 <= r["ci_low"] <= r["win_share"] <= r["ci_high"] <= 1 for r in rows)
    assert rows[-1]["games"] == 4 and rows[0]["games"] == 2
    with (tmp_path / "curve.csv").open(encoding="utf-8") as file:
        saved = list(csv.DictReader(file))
    assert [int(r["steps"]) for r in saved] == [r["steps"] for r in rows]
    assert (tmp_path / "curve.png").stat().st_size > 0
    # the checkpoint is an agent spec: whole games in the arena, each action legal there too
    spec = str(tmp_path / "policy.npz")
    result = play_match(game, [spec, "random"], 4, seed=1, workers=1, progress=False)
    assert len(result.records) == 4
    assert all(max(r.returns) > min(r.returns) or r.length > 0 for r in result.records)


@pytest.mark.slow
def test_dqn_at_three_players_on_the_score(tmp_path, legal_only) -> None:
    rows = run(
        Settings(
            game="heisse-karten",
            players=3,
            opponent="heuristic",
            reward="score",  # HK-4.3's score as the learner's return; judged by wins all the same
            out=str(tmp_path),
            **TINY,
        )
    )
    assert rows[-1]["players"] == 3 and rows[-1]["games"] == 6  # 4 games: two rotations of 3
    agent = CheckpointAgent.load(tmp_path / "policy", game="heisse-karten")
    assert agent.metadata["training"]["steps"] >= 150
    assert agent.metadata["options"] == {"num_players": [3]}


@pytest.mark.parametrize("algorithm", ["dqn", "nfsp", "dmc"])
def test_the_checkpoint_plays_the_learners_greedy_move(algorithm, tmp_path) -> None:
    """The exported MLP gives the learner's own outputs on the environment's observation, which
    is OpenSpiel's information-state tensor: DQN's and DMC's greedy move, NFSP's average-policy
    logits."""
    import torch

    settings = Settings(game="heisse-karten", algorithm=algorithm, hidden=[32, 16]).check()
    game = pyspiel.load_game(openspiel_rl.pyspiel_name("heisse-karten", 2))
    env = rl_environment.Environment(game, seed=5)
    (learner, *_) = openspiel_rl.make_learners(settings, 670, 48)
    openspiel_rl.write_policy(learner, tmp_path / "policy", "heisse-karten", {})
    agent = CheckpointAgent.load(tmp_path / "policy", game="heisse-karten")
    engine = get_game("heisse-karten").engine
    rng = np.random.default_rng(0)
    time_step, compared = env.reset(), 0
    while not time_step.last():
        player = time_step.observations["current_player"]
        state = env.get_state
        legal = time_step.observations["legal_actions"][player]
        observation = observe(engine, state.engine, player)
        info_state = np.asarray(time_step.observations["info_state"][player], dtype=np.float32)
        assert np.array_equal(observation["observation"], info_state)
        net = openspiel_rl.network(learner)
        with torch.no_grad():
            outputs = net(torch.from_numpy(info_state)[None])[0].numpy()
        legal_array = np.asarray(legal)
        mine = agent.legal_logits(observation, state.engine.view(player), legal_array)
        np.testing.assert_allclose(mine, outputs[legal_array], rtol=1e-4, atol=1e-5)
        if algorithm != "nfsp" and len(legal) > 1:
            openspiel_rl.seat(learner, player)
            greedy = learner.step(time_step, is_evaluation=True).action
            assert agent.act(observation, state.engine.view(player)) == greedy
            compared += 1
        time_step = env.step([int(rng.choice(legal))])
    assert algorithm == "nfsp" or compared >= 10


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["heisse-luft", "--algorithm", "ppo"], "invalid choice: 'ppo'"),
        (["heisse-luft", "--players", "3"], "Heiße Luft has 2..2 players, not 3"),
        (["heisse-karten", "--players", "7"], "Heiße Karten has 2..6 players, not 7"),
        (["heisse-karten", "--steps", "0"], "steps must be a positive int, not 0"),
        (["heisse-karten", "--eval-games", "-5"], "eval_games must be a positive int"),
        (["heisse-karten", "--opponent", "nobody"], "unknown agent spec 'nobody'"),
        (["heisse-karten", "--hidden", "0"], "hidden must be positive layer sizes"),
        (["heisse-karten", "--anticipatory", "0"], "anticipatory must be in (0, 1]"),
        (["heisse-karten", "--learn-every", "2"], "learn_every must be at least 3, not 2"),
        (["heisse-luft", "--reward", "score"], "reward score is Heiße Karten's (HK-4.3)"),
        (["tic-tac-toe"], "tic-tac-toe"),
    ],
)
def test_bad_arguments_are_refused_with_a_clear_error(argv, message, tmp_path, capsys) -> None:
    out = tmp_path / "run"
    with pytest.raises(SystemExit) as raised:
        parse_args([*argv, "--out", str(out)])
    assert raised.value.code == 2
    assert message in capsys.readouterr().err
    assert not out.exists()  # nothing written


def test_settings_refuse_an_unknown_algorithm_before_writing(tmp_path) -> None:
    with pytest.raises(ValueError, match="algorithm must be one of dqn, nfsp, dmc, not 'cfr'"):
        run(Settings(game="heisse-luft", algorithm="cfr", out=str(tmp_path / "run")))
    assert not (tmp_path / "run").exists()

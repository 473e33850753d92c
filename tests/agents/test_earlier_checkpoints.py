"""Earlier shipped policies (checkpoints/earlier/) load by their dated names with today's loader,
their metadata names them consistently, and they play legal moves at every table size."""

from __future__ import annotations

import json

import pytest

from hot_envs.agents import SPEC_HELP, make_agent
from hot_envs.agents.checkpoint import CheckpointAgent
from hot_envs.agents.play import play_game
from hot_envs.agents.random_agent import RandomAgent
from hot_envs.agents.shipped import EARLIER, earlier_names, find_checkpoint, shipped_names
from hot_envs.core.games import get_game

EXPECTED = [
    "heisse_karten_v0_2026_11_30",
    "heisse_karten_v0_2026_12_01",
    "heisse_karten_v0_2026_12_04",
    "heisse_karten_v0_2026_12_05",
    "heisse_luft_v0_2026_11_30",
    "heisse_luft_v0_2026_12_01",
    "heisse_luft_v0_2026_12_01_1717",  # a second policy shipped that day: the time added
    "heisse_luft_v0_2026_12_05",
]


def test_the_earlier_policies_are_listed_apart_from_the_shipped_ones() -> None:
    assert earlier_names() == EXPECTED
    assert not set(earlier_names()) & set(shipped_names())
    assert all(name in SPEC_HELP for name in EXPECTED)


@pytest.mark.parametrize("name", EXPECTED)
def test_the_metadata_names_the_files_and_the_date(name: str) -> None:
    meta = json.loads((EARLIER / f"{name}.json").read_text())
    assert meta["files"] == {"npz": f"{name}.npz", "json": f"{name}.json"}  # no .zip shipped
    shipped = meta["shipped"]
    dated = f"{shipped['as']}_{shipped['date'][:10].replace('-', '_')}"
    timed = f"{dated}_{shipped['date'][11:16].replace(':', '')}"
    assert name == dated or (name == timed and dated in EXPECTED)  # the day's first has the date
    assert shipped["as"] in shipped_names()
    assert meta["game"] == get_game(shipped["as"].removesuffix("_v0")).name


@pytest.mark.parametrize("name", EXPECTED)
def test_an_earlier_policy_plays_legal_moves_at_every_table_size(
    name: str, tmp_path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)  # by name, from any folder
    meta = json.loads((EARLIER / f"{name}.json").read_text())
    game = get_game(meta["game"])
    assert find_checkpoint(name) == EARLIER / name
    agent = make_agent(name, game.name, seed=0)
    assert isinstance(agent, CheckpointAgent) and agent.game == game.name
    for n in game.players:
        env = game.env.env(**game.options(n))
        agents = {a: RandomAgent(i) for i, a in enumerate(env.possible_agents)}
        seat = f"player_{n - 1}"
        agents[seat] = agent

        def check(who, observation, view, action, seat=seat) -> None:
            if who == seat:
                assert observation["action_mask"][action] == 1

        rewards = play_game(env, agents, seed=n, on_action=check)
        assert env.unwrapped.game.is_terminal()
        assert sum(rewards.values()) == pytest.approx(0.0)


def test_a_missing_name_lists_the_earlier_ones_too(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError, match="earlier: heisse_karten_v0_2026_11_30"):
        CheckpointAgent.load("heisse_karten_v0_2026_01_01")

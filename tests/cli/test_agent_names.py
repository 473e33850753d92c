"""Your own agent (a ``package.module:factory`` spec) goes by its ``name`` in the tables of
``hot-envs evaluate`` and ``hot-envs gauntlet``; without a name, by its spec."""

from __future__ import annotations

import pytest

from hot_envs.cli import main
from hot_envs.evaluation.arena import display_name, play_match, unique_names

AGENTS = """
import numpy as np


class Lowest:
    name = "lowest-card"

    def act(self, observation, view):
        return min(view["legal_actions"])


class Nameless:
    def act(self, observation, view):
        return min(view["legal_actions"])


def make():
    return Lowest()


def nameless():
    return Nameless()
"""


@pytest.fixture
def own_agents(tmp_path, monkeypatch):
    """``my_names:make`` (named ``lowest-card``) and ``my_names:nameless``, importable from the
    current folder as a user's module is."""
    (tmp_path / "my_names.py").write_text(AGENTS)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def test_evaluate_names_your_agent_by_its_name(own_agents, capsys):
    argv = ["evaluate", "heisse-karten", "--agents", "my_names:make", "random"]
    assert main([*argv, "--players", "2", "--games", "4", "--workers", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "lowest-card" in out and "my_names:make" not in out


def test_the_records_keep_the_spec_that_replays_them(own_agents):
    result = play_match("heisse-luft", ["my_names:make", "random"], 2, progress=False)
    assert result.agents == ["lowest-card", "random"]
    record = result.game_records()[0]
    assert sorted(record["seats"]) == ["my_names:make", "random"]


def test_gauntlet_names_your_agent_by_its_name(own_agents, capsys):
    argv = ["gauntlet", "heisse-luft", "--agent", "my_names:make", "--opponents", "random"]
    assert main([*argv, "--games", "2", "--workers", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "2 players — lowest-card" in out and "my_names:make" not in out


def test_a_nameless_agent_and_our_specs_keep_their_spec(own_agents):
    result = play_match("heisse-luft", ["my_names:nameless", "heuristic:0.5"], 2, progress=False)
    assert result.agents == ["my_names:nameless", "heuristic:0.5"]
    assert display_name("heuristic:0.5") == "heuristic:0.5"


def test_two_agents_of_one_name_are_told_apart(own_agents):
    class Named:
        name = "lowest-card"

    assert unique_names(["my_names:make", "x:y"], [Named(), Named()]) == [
        "lowest-card",
        "lowest-card#2",
    ]
    assert display_name("x:y", type("N", (), {"name": ""})()) == "x:y"  # an empty name

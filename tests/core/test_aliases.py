"""The module names of earlier releases still import, as the very modules of today's layout
(hot_envs.core.aliases)."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from hot_envs.core.aliases import ALIASES


@pytest.mark.parametrize("old", sorted(ALIASES))
def test_an_old_name_is_the_module_under_its_new_name(old: str) -> None:
    assert importlib.import_module(old) is importlib.import_module(ALIASES[old])


def test_old_names_work_in_every_import_form_and_in_pickles() -> None:
    code = """if True:
        import pickle, sys
        import hot_envs.arena
        from hot_envs.single_agent import SingleAgentEnv
        from hot_envs import gauntlet, vector
        import hot_envs.evaluation.arena, hot_envs.envs.single_agent

        assert hot_envs.arena is hot_envs.evaluation.arena
        assert SingleAgentEnv is hot_envs.envs.single_agent.SingleAgentEnv
        assert gauntlet is sys.modules["hot_envs.evaluation.gauntlet"]
        assert vector.VectorSingleAgentEnv.__module__ == "hot_envs.envs.vector"
        # a pickle written when the class lived at the top level
        old = pickle.dumps(hot_envs.arena.MatchResult, protocol=0).replace(
            b"hot_envs.evaluation.arena", b"hot_envs.arena"
        )
        assert b"hot_envs.arena" in old
        assert pickle.loads(old) is hot_envs.evaluation.arena.MatchResult
    """
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_a_name_that_never_existed_still_fails_to_import() -> None:
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("hot_envs.no_such_module")

"""The policies shipped in checkpoints/ load with numpy alone, play only legal moves in every
seat, and (with sb3-contrib) their .zip gives the same actions."""

from pathlib import Path

import pytest

from hot_envs.agents.checkpoint import CheckpointAgent, read_metadata
from hot_envs.agents.play import play_game
from hot_envs.agents.random_agent import RandomAgent
from hot_envs.core.games import get_game

CHECKPOINTS = sorted(Path(__file__).resolve().parents[2].glob("checkpoints/*.npz"))


def test_checkpoints_are_shipped() -> None:
    assert CHECKPOINTS, "checkpoints/ holds no policy"


@pytest.mark.parametrize("npz", CHECKPOINTS, ids=lambda p: p.stem)
def test_shipped_checkpoint_plays_legal_moves_in_every_seat(npz: Path) -> None:
    meta = read_metadata(npz.with_suffix(".json"))
    game = get_game(meta["game"])
    agent = CheckpointAgent.load(npz.with_suffix(""))
    sb3 = None
    if _has_sb3():
        from hot_envs.training.export import SB3Agent

        sb3 = SB3Agent.load(npz.with_suffix(""))
    counts = [2] if meta["game"] == "heisse-luft" else [2, 4, 6]
    for n in counts:
        kwargs = {} if meta["game"] == "heisse-luft" else {"num_players": n}
        for seat in range(n):
            env = game.env.env(**kwargs)
            agents = {name: RandomAgent(seat) for name in env.possible_agents}
            agents[f"player_{seat}"] = agent

            def check(name, observation, view, action, seat=seat):
                if name == f"player_{seat}":
                    assert observation["action_mask"][action] == 1
                    if sb3 is not None:
                        assert sb3.act(observation, view) == action

            rewards = play_game(env, agents, seed=seat, on_action=check)
            assert env.unwrapped.game.is_terminal()
            assert sum(rewards.values()) == pytest.approx(0.0)


def _has_sb3() -> bool:
    try:
        import sb3_contrib  # noqa: F401
    except ImportError:
        return False
    return True

"""Heiße Karten ("Hot Cards"): the trick-taking game for 2 to 6 players (HK-1 … HK-5 in
docs/rules.md).

The engine (:class:`State`) is pure Python + numpy; :mod:`.encoding` turns a state into one
player's observation vector and action mask. Action ``k - 1`` plays card ``k`` (``Discrete(48)``).
"""

from hot_envs.core.errors import IllegalActionError
from hot_envs.heisse_karten.encoding import LAYOUT, action_mask, encode
from hot_envs.heisse_karten.facts import NUM_ACTIONS, action_name
from hot_envs.heisse_karten.state import State

__all__ = [
    "LAYOUT",
    "NUM_ACTIONS",
    "IllegalActionError",
    "State",
    "action_mask",
    "action_name",
    "encode",
]

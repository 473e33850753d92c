"""Heiße Luft: the rules engine (HL-1 … HL-8 in docs/rules.md), its observation encoding and
rendering.

Pure Python + numpy; no gymnasium or pettingzoo import (the environment is in
:mod:`hot_envs.heisse_luft_v0`).
"""

from hot_envs.core.errors import IllegalActionError
from hot_envs.heisse_luft.encoding import LAYOUT, action_mask, encode
from hot_envs.heisse_luft.facts import NUM_ACTIONS, action_name
from hot_envs.heisse_luft.state import State

__all__ = [
    "LAYOUT",
    "NUM_ACTIONS",
    "IllegalActionError",
    "State",
    "action_mask",
    "action_name",
    "encode",
]

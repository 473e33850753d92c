"""Heiße Luft as a PettingZoo AEC environment (like ``pettingzoo.classic.connect_four_v3``).

>>> from hot_envs import heisse_luft_v0
>>> env = heisse_luft_v0.env()
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv

from hot_envs.envs.env_base import CardGameEnv, wrap
from hot_envs.heisse_luft import LAYOUT, NUM_ACTIONS, State, action_mask, encode
from hot_envs.heisse_luft.state_encoding import STATE_LAYOUT, encode_state

__all__ = ["env", "raw_env"]

_DOC = """Heiße Luft: a two-player balloon race (a Ballon Cup adaptation for two 52-card decks).

## Description
Four stages lie between the players, each with 1–4 prize cards. For every prize both sides of a
stage need one balloon card of the prize's suit; lowland stages go to the lower sum, mountain
stages to the higher, ties to the player who placed the stage's last card. A player may place a
card on either side of a stage. Prizes buy trophies (♥7 ♦6 ♣5 ♠4, with three-for-one payments);
the first player with two trophies wins. The full rules, with ids, are in ``docs/rules.md``.

## Action Space
``Discrete(366)``: ``0–319`` place card ``c`` at stage ``s`` (1–4) on side ``d`` (0 own,
1 opponent's) as ``8 * c + 2 * (s - 1) + d``; ``320–359`` choose card ``a - 320`` for an exchange
when stuck (HL-3.4); ``360`` exchange done; ``361–364`` claim the ♥ ♦ ♣ ♠ trophy; ``365`` stop
claiming. The ``action_mask`` marks the legal ones.

## Observation Space
A dict: ``"observation"`` is ``Box(0, 1, ({size},), float32)`` from the observing player's point of
view (own side and own prizes first), ``"action_mask"`` is ``Box(0, 1, (366,), int8)``.

{table}

## State
``env.state()`` is PettingZoo's optional global state: the full game, hidden cards included, as
``Box(0, 1, ({state_size},), float32)`` (``env.state_space``), seats in seat order (``player_0``
first). It is for centralised critics in training and never part of an observation. Its pieces
are in ``docs/environments.md``, "The full state".

## Rewards
+1 for the winner, −1 for the loser, 0 each for a draw or a truncated game; given only when the
game ends (HL-7.4). With ``env()``, an illegal action ends the game with −1 for its player.

## Starting State
Terrain lowland–mountain–lowland–mountain, stages filled from the shuffled prize deck (never four
spade prizes at stage 4), eight balloon cards dealt to each player; ``player_0`` moves first
unless ``starting_player`` says otherwise.

## Episode End
Termination: a player holds two trophies, or no stage is left in play (more trophies, then more
prize cards win; else a draw). Truncation: the game reaches ``turn_limit`` turns (HL-7.3).

## Arguments
``env(render_mode=None, three_for_one=True, starting_player=0, turn_limit=2000)``:
``three_for_one`` False plays the variant without three-for-one payments (HL-6.3);
``starting_player`` is 0, 1 or ``"random"`` (drawn from the env's seeded generator);
``render_mode`` is ``"human"`` (print), ``"ansi"`` (return the text) or ``"rgb_array"`` (return
an ``H × W × 3`` ``uint8`` picture of what the seat to move sees; needs Pillow).
``env.unwrapped.game`` is the engine state, ``env.unwrapped.view(agent)`` that player's view.
"""


class raw_env(CardGameEnv):  # noqa: N801 (PettingZoo's naming)
    __doc__ = _DOC.format(size=LAYOUT.size, table=LAYOUT.table(), state_size=STATE_LAYOUT.size)
    metadata = {**CardGameEnv.metadata, "name": "heisse_luft_v0"}
    engine = State
    layout = LAYOUT
    encode = staticmethod(encode)
    action_mask = staticmethod(action_mask)
    state_layout = STATE_LAYOUT
    encode_state = staticmethod(encode_state)
    num_actions = NUM_ACTIONS


def env(**kwargs: Any) -> AECEnv:
    """The wrapped environment (``raw_env`` raises the engine's ``IllegalActionError`` instead)."""
    return wrap(raw_env(**kwargs))

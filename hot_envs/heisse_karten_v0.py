"""Heiße Karten as a PettingZoo AEC environment for 2–6 players.

>>> from hot_envs import heisse_karten_v0
>>> env = heisse_karten_v0.env(num_players=4)
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv

from hot_envs.envs.env_base import CardGameEnv, wrap
from hot_envs.heisse_karten import LAYOUT, NUM_ACTIONS, State, action_mask, encode
from hot_envs.heisse_karten.state_encoding import STATE_LAYOUT, encode_state

__all__ = ["env", "raw_env"]

_DOC = """Heiße Karten: a trick-taking game for 2–6 players with cards 1–48.

## Description
Even cards are black and count plus their value, odd cards are red and count minus their value.
Each player holds 8 cards and may play any of them; after playing, a player draws while the draw
pile lasts. A trick with a black card goes to its highest black card, otherwise to its highest
red card; the winner leads the next trick. The highest score wins. The full rules, with ids,
are in ``docs/rules.md``.

## Action Space
``Discrete(48)``: action ``k - 1`` plays card ``k``. The ``action_mask`` marks the cards in hand.

## Observation Space
A dict: ``"observation"`` is a ``Box`` of shape ``({size},)``, float32, from the observing
player's point of view with seats relative to that player (me, next, …) and padded to 6 seats, so
one shape serves every player count; ``"action_mask"`` is ``Box(0, 1, (48,), int8)``.

{table}

## State
``env.state()`` is PettingZoo's optional global state: the full game, hidden cards included, as
``Box(low, high, ({state_size},), float32)`` (``env.state_space``), seats in seat order
(``player_0`` first) and padded to 6 seats as in the observation, so one shape serves every
player count. It is for centralised critics in training and never part of an observation. Its
pieces are in ``docs/environments.md``, "The full state".

## Rewards
At the end of a game (or match): the W players with the highest score get +1/W each, the others
−1/(N−W) each; 0 for everybody if all tie (HK-4.3). ``reward_mode="score"`` gives score-based
rewards instead; ``round_rewards=True`` gives each round's reward when that round ends, in a
match of several rounds. With ``env()``, an illegal action ends the game with −1 for its player.

## Starting State
The 48 cards shuffled, 8 dealt to each player, the rest the draw pile (with 5 players 3 of it
set aside unseen); ``player_0`` leads unless ``first_leader`` says otherwise.

## Episode End
Termination when every hand is empty (the last round of a match). Never truncated.

## Arguments
``env(num_players=4, render_mode=None, first_leader=0, reward_mode="win", rounds=None,
target=None, round_rewards=False)``: ``first_leader`` a seat or ``"random"``; ``reward_mode``
``"win"`` or ``"score"``; ``rounds`` and ``target`` make a match (HK-4.4: a fixed number of
rounds, or rounds until a total reaches the target; the first leader moves one seat each round).
``render_mode`` is ``"human"`` (print), ``"ansi"`` (return the text) or ``"rgb_array"`` (return
an ``H × W × 3`` ``uint8`` picture of what the seat to move sees; needs Pillow).
``env.unwrapped.game`` is the engine state, ``env.unwrapped.view(agent)`` that player's view.
"""


class raw_env(CardGameEnv):  # noqa: N801 (PettingZoo's naming)
    __doc__ = _DOC.format(size=LAYOUT.size, table=LAYOUT.table(), state_size=STATE_LAYOUT.size)
    metadata = {**CardGameEnv.metadata, "name": "heisse_karten_v0"}
    engine = State
    layout = LAYOUT
    encode = staticmethod(encode)
    action_mask = staticmethod(action_mask)
    state_layout = STATE_LAYOUT
    encode_state = staticmethod(encode_state)
    num_actions = NUM_ACTIONS

    def __init__(
        self,
        num_players: int = 4,
        render_mode: str | None = None,
        round_rewards: bool = False,
        **options: Any,
    ) -> None:
        if not isinstance(round_rewards, bool):
            raise ValueError(f"round_rewards must be a bool, not {round_rewards!r}")
        self.round_rewards = round_rewards
        super().__init__(render_mode=render_mode, num_players=num_players, **options)

    def _step_returns(self) -> list[float] | None:
        """Per-round rewards when asked for (HK-4.4 matches), else the final returns."""
        return self.game.round_returns() if self.round_rewards else super()._step_returns()


def env(**kwargs: Any) -> AECEnv:
    """The wrapped environment (``raw_env`` raises the engine's ``IllegalActionError`` instead)."""
    return wrap(raw_env(**kwargs))

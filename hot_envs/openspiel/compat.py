"""Shimmy's way from OpenSpiel back to PettingZoo, with three of its slips put right
(docs/openspiel.md, "Through Shimmy and back", shows each with the games it breaks).

``shimmy.OpenSpielCompatibilityV0`` (Shimmy 2.0.1) turns any OpenSpiel game into a PettingZoo AEC
environment, but it counts chance outcomes (and the first node) toward ``max_game_length``, which
counts decisions only (``Game::MaxGameLength``), and truncates the game beyond it; at the end it
adds the last move's rewards a second time to the players still in the game when the first one
leaves; and its ``reset`` loads the game again by name, losing the parameters of a game passed as
``env``. :class:`OpenSpielCompatibility` is that environment with the three put right and nothing
else changed; it works for any OpenSpiel game.
"""

from __future__ import annotations

import pyspiel
import shimmy


class OpenSpielCompatibility(shimmy.OpenSpielCompatibilityV0):
    """``shimmy.OpenSpielCompatibilityV0`` (same arguments) that plays every game to its end:
    only decisions count toward ``max_game_length``, each player's rewards add up to the game's
    ``returns()``, and a game passed as ``env`` keeps its parameters."""

    def __init__(
        self,
        env: pyspiel.Game | None = None,
        game_name: str | None = None,
        render_mode: str | None = None,
        config: dict | None = None,
    ) -> None:
        if env is not None and config is None:
            config = env.get_parameters()  # reset() loads the game again by name and config
        super().__init__(env, game_name, render_mode, config)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        super().reset(seed, options)
        self.game_length = 0  # decisions so far: what max_game_length bounds

    def _execute_chance_node(self) -> None:
        decisions = self.game_length
        super()._execute_chance_node()
        self.game_length = decisions  # chance outcomes are not part of max_game_length

    def _end_routine(self) -> bool:
        ended = super()._end_routine()
        if ended:  # an agent leaves the ended game: the last move's rewards were given already
            self.rewards = dict.fromkeys(self.rewards, 0.0)
        return ended

"""Both games in OpenSpiel (docs/openspiel.md): ``import hot_envs.openspiel`` registers the pyspiel
Python games ``python_heisse_luft`` and ``python_heisse_karten``; :func:`bot` seats any agent spec
at an OpenSpiel table as a ``pyspiel.Bot``; :class:`OpenSpielCompatibility` is Shimmy's PettingZoo
environment of an OpenSpiel game that plays it to its end. Needs the ``openspiel`` extra
(``pip install hot_envs[openspiel]``).
"""

from hot_envs.openspiel.games import (
    KARTEN,
    LUFT,
    HeisseKartenGame,
    HeisseLuftGame,
    from_engine,
    game_for,
    register,
)

register()

from hot_envs.openspiel.bots import AgentBot, bot  # noqa: E402 (after the games are registered)

__all__ = [
    "KARTEN",
    "LUFT",
    "AgentBot",
    "HeisseKartenGame",
    "HeisseLuftGame",
    "OpenSpielCompatibility",
    "bot",
    "from_engine",
    "game_for",
    "register",
]


def __getattr__(name: str):
    """``OpenSpielCompatibility`` on first use: Shimmy is imported only by those who use it."""
    if name == "OpenSpielCompatibility":
        from hot_envs.openspiel.compat import OpenSpielCompatibility

        return OpenSpielCompatibility
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

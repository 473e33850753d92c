"""Both games in OpenSpiel (docs/openspiel.md): ``import hot_envs.openspiel`` registers the pyspiel
Python games ``python_heisse_luft`` and ``python_heisse_karten``; :func:`bot` seats any agent spec
at an OpenSpiel table as a ``pyspiel.Bot``. Needs the ``openspiel`` extra
(``pip install hot_envs[openspiel]``).
"""

from hot_envs.openspiel.games import KARTEN, LUFT, HeisseKartenGame, HeisseLuftGame, register

register()

__all__ = ["KARTEN", "LUFT", "HeisseKartenGame", "HeisseLuftGame", "register"]

"""hot_envs: Heiße Luft and Heiße Karten as PettingZoo AEC environments with action masks.

Importing the package registers the environments with PettingZoo's registry, so
``pettingzoo.make("aec", "hot_envs/heisse_luft-v0")`` works after ``import hot_envs``, and the
single-agent view of each game with Gymnasium's (:mod:`hot_envs.envs.registration`):
``gymnasium.make("hot_envs/HeisseLuft-v0")``, ``gymnasium.make("hot_envs/HeisseKarten-v0")``.

The modules are grouped by role: the games (``heisse_luft``, ``heisse_karten``) and their
contracts (``core``); the PettingZoo modules (``heisse_luft_v0``, ``heisse_karten_v0``) and the
single-agent environments (``envs``); ``agents`` (with the opponent pools and suite);
``evaluation`` (arena, gauntlet, reports, records); viewing and playing (``play``, ``pictures``,
``web``); the command line (``cli``); the training backends (``training``, ``rllib``).
"""

import pettingzoo

from hot_envs.core.errors import IllegalActionError
from hot_envs.envs import registration

__version__ = "0.1.0"
__all__ = ["IllegalActionError", "__version__"]

ENVIRONMENTS = {
    "hot_envs/heisse_luft-v0": "hot_envs.heisse_luft_v0:env",
    "hot_envs/heisse_karten-v0": "hot_envs.heisse_karten_v0:env",
}
for _id, _entry_point in ENVIRONMENTS.items():
    if _id not in pettingzoo.aec_registry:
        pettingzoo.register("aec", _id, entry_point=_entry_point)
registration.register()

"""hot_envs: Heiße Luft and Heiße Karten as PettingZoo AEC environments with action masks.

Importing the package registers the environments with PettingZoo's registry, so
``pettingzoo.make("aec", "hot_envs/heisse_luft-v0")`` works after ``import hot_envs``.
"""

import pettingzoo

from hot_envs.errors import IllegalActionError

__version__ = "0.1.0"
__all__ = ["IllegalActionError", "__version__"]

ENVIRONMENTS = {
    "hot_envs/heisse_luft-v0": "hot_envs.heisse_luft_v0:env",
    "hot_envs/heisse_karten-v0": "hot_envs.heisse_karten_v0:env",
}
for _id, _entry_point in ENVIRONMENTS.items():
    if _id not in pettingzoo.aec_registry:
        pettingzoo.register("aec", _id, entry_point=_entry_point)

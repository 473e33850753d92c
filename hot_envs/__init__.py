"""hot_envs: Heiße Luft and Heiße Karten as PettingZoo AEC environments with action masks."""

from hot_envs.errors import IllegalActionError

__version__ = "0.1.0"
__all__ = ["IllegalActionError", "__version__"]

"""The ``hot-envs`` command (:mod:`~hot_envs.cli.commands`) and the generator of the
documentation's observation tables (:mod:`~hot_envs.cli.docs`)."""

from hot_envs.cli.commands import main

__all__ = ["main"]

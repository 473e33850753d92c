"""Errors shared by both game engines, and the command line's usage errors."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator


class IllegalActionError(ValueError):
    """An action that is not legal in the current state; the state is left unchanged.

    The message gives the action id, its readable name and why it is illegal.
    """


class UsageError(ValueError):
    """A request that cannot be carried out as asked — bad arguments, agent specs, files — found
    while it is checked, before any work starts. The ``hot-envs`` command line prints its message
    alone; any other error keeps its traceback, so a crash an hour into a run shows its origin."""


@contextlib.contextmanager
def usage_errors() -> Iterator[None]:
    """The checks of a request: a ``ValueError`` raised inside is a :class:`UsageError`."""
    try:
        yield
    except UsageError:
        raise
    except ValueError as error:
        raise UsageError(str(error)) from error

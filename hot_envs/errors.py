"""Errors shared by both game engines."""


class IllegalActionError(ValueError):
    """An action that is not legal in the current state; the state is left unchanged.

    The message gives the action id, its readable name and why it is illegal.
    """

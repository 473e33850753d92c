"""The array engines' compiler: numba.

The kernels of :mod:`hot_envs.batched` are written once, as loops over games on numpy arrays
of scalars — the style numba compiles to machine code. :func:`kernel` compiles them on first use
and caches the machine code beside the source; with ``NUMBA_DISABLE_JIT=1`` the same functions
run as Python, for debugging and coverage: the same results from the same seeds, about a hundred
times slower (docs/benchmarks.md, "Games in arrays"). ``import hot_envs`` does not load numba:
this module is imported with the first array engine or kernel.

A first run after install compiles a game's kernels, tens of seconds of one core, and numba's
disk cache keeps them for every later run. numba's compile event (``"numba:compile"``, of
:mod:`numba.core.event`) comes only when a kernel compiles, never when it loads from that
cache: :func:`announcing` prints the one line that says why a first run waits, and
:func:`compile_groups` spreads that first compilation over the cores.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

import numba
from numba.core import event

F = TypeVar("F", bound=Callable[..., Any])

COMPILED = os.environ.get("NUMBA_DISABLE_JIT", "0") in ("", "0")
"""Whether the kernels run as machine code (not disabled by ``NUMBA_DISABLE_JIT``)."""

_PACKAGE = __name__.partition(".")[0]


def kernel(function: F) -> F:
    """``function`` compiled by numba (no Python objects, no GIL, cached on disk)."""
    return numba.njit(cache=True, nogil=True)(function)


class _FirstCompile(event.Listener):
    """Calls ``then()`` when the first of this package's kernels starts to compile in the
    process that made the listener; processes forked from it stay quiet."""

    def __init__(self, then: Callable[[], None]) -> None:
        self.then = then
        self.pid = os.getpid()
        self.heard = False

    def on_start(self, compiling: event.Event) -> None:
        module = compiling.data["dispatcher"].py_func.__module__
        if self.heard or os.getpid() != self.pid or module.partition(".")[0] != _PACKAGE:
            return
        self.heard = True
        self.then()

    def on_end(self, compiling: event.Event) -> None:
        pass


@contextmanager
def on_first_compile(then: Callable[[], None]) -> Iterator[None]:
    """While inside: ``then()`` at the first compile of one of our kernels in this process
    (:class:`_FirstCompile`) — not when kernels load from numba's disk cache."""
    with event.install_listener("numba:compile", _FirstCompile(then)):
        yield


_ANNOUNCED: set[str] = set()


def announce_compiling(what: str, seconds: int) -> None:
    """One line on stderr: ``what`` compiles now, about ``seconds`` long; at most once per
    process and ``what``."""
    if what in _ANNOUNCED:
        return
    _ANNOUNCED.add(what)
    print(f"compiling {what} (once per install, about {seconds} s)…", file=sys.stderr, flush=True)


@contextmanager
def announcing(what: str, seconds: int) -> Iterator[None]:
    """While inside: :func:`announce_compiling` at the first compile of one of our kernels in
    this process. numba then caches them, so the line comes once per install."""
    with on_first_compile(lambda: announce_compiling(what, seconds)):
        yield


Group = tuple[Any, ...]
"""A group of kernels: ``("module:function", *arguments)``, a call that compiles or loads its
kernels by calling each once; its arguments literals (str, int, bool: ``repr`` writes them as
Python reads them back)."""


def compile_groups(groups: Sequence[Group]) -> None:
    """Compile or load each group of kernels (:data:`Group`) in this process, in order — on
    every core at once where numba's disk cache lacks them.

    The groups run here one after another; while its kernels load from the disk cache, a group
    costs little more than that. When one of them compiles instead (:func:`on_first_compile`:
    the cache is cold, a first run after install), the groups after it start at once, each in a
    Python process of its own, and compile there, filling the disk cache side by side with this
    process; before its turn here this process waits for a group's process, and then loads
    what it compiled. This is numba's disk cache used as it is, shared by processes; groups
    that share no kernels (no callees either) compile nothing twice. Without the compiler
    (``NUMBA_DISABLE_JIT``) nothing compiles and nothing runs.
    """
    if not COMPILED:
        return
    started: dict[int, subprocess.Popen[bytes]] = {}
    turn = 0  # the group running here

    def start_the_rest() -> None:
        for later in range(turn + 1, len(groups)):
            process = _start(groups[later])
            if process is not None:
                started[later] = process

    with on_first_compile(start_the_rest):
        try:
            for turn, group in enumerate(groups):
                if turn in started:
                    started.pop(turn).wait()
                _call(group)
        finally:  # a group failed here: the processes of the groups after it are not needed
            for process in started.values():
                process.kill()
                process.wait()


def _call(group: Group) -> None:
    """Run ``group``'s call in this process."""
    module, _, function = group[0].partition(":")
    getattr(importlib.import_module(module), function)(*group[1:])


def _start(group: Group) -> subprocess.Popen[bytes] | None:
    """``group``'s call in a new Python process importing what this one imports (its
    ``sys.path``), quiet; ``None`` where none starts (its group then compiles here)."""
    if not sys.executable:
        return None
    module, _, function = group[0].partition(":")
    paths = [path or os.getcwd() for path in sys.path]
    code = (
        f"import sys; sys.path[:] = {paths!r}; "
        f"from {module} import {function}; {function}(*{list(group[1:])!r})"
    )
    try:
        return subprocess.Popen(
            [sys.executable, "-c", code],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    except OSError:
        return None

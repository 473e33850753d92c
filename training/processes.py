"""Processes read from ``/proc`` (Linux): those below a process, and which of them still run.
Where there is no ``/proc`` (:data:`PROC` missing) callers fall back on what they did without."""

from __future__ import annotations

from pathlib import Path

PROC = Path("/proc")


def _after_name(stat: str) -> list[str]:
    """The fields of a ``/proc/PID/stat`` line after the command name (which may hold spaces)."""
    return stat.rpartition(")")[2].split()


def descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (from the parent ids in ``/proc``)."""
    children: dict[int, list[int]] = {}
    for entry in PROC.iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:  # gone meanwhile
                continue
            children.setdefault(int(_after_name(stat)[1]), []).append(int(entry.name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def alive(pids: set[int]) -> set[int]:
    """Those of ``pids`` still running (a zombie has ended)."""
    running = set()
    for pid in pids:
        try:
            state = _after_name((PROC / str(pid) / "stat").read_text())[0]
        except OSError:  # gone
            continue
        if state != "Z":
            running.add(pid)
    return running

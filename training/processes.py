"""Processes read from ``/proc`` (Linux): those below a process, and which of them still run.
Where there is no ``/proc`` (:data:`PROC` missing) callers fall back on what they did without."""

from __future__ import annotations

from pathlib import Path

PROC = Path("/proc")


def stat_fields(pid: int | str) -> list[str] | None:
    """The fields of ``/proc/PID/stat`` after the command name (which may hold spaces): the
    state first, then the parent id …; None once the process is gone."""
    try:
        stat = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    return stat.rpartition(")")[2].split()


def descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (from the parent ids in ``/proc``)."""
    children: dict[int, list[int]] = {}
    for entry in PROC.iterdir():
        if entry.name.isdigit():
            fields = stat_fields(entry.name)
            if fields is not None:  # not gone meanwhile
                children.setdefault(int(fields[1]), []).append(int(entry.name))
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
        fields = stat_fields(pid)
        if fields is not None and fields[0] != "Z":  # neither gone nor a zombie
            running.add(pid)
    return running

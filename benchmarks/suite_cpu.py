"""Where the test suite's CPU goes: the README's ``pytest`` run once while every process started
during it is read from ``/proc`` a few times a second, its CPU time summed by kind of process.

The suite is CPU-bound on 2 cores (both workers busy to the end), so its wall time falls only as
its CPU does; this says where that CPU is. The kinds, by each process's command line, first
match first: the pytest process itself; its xdist workers (its children: the tests run in
them, and forks made by tests count here too); Ray's processes (daemons, workers, env runners);
the browser of the browser tests; training runs started as processes of their own (``hot-envs
train``, the RLlib script); multiprocessing's helpers and workers; other processes (the docs'
examples, a wheel build, ffmpeg …). Also the machine's busy and idle core-seconds over the run
(``/proc/stat``). A process that lives shorter than one reading is missed: the totals are a
little low. Linux only.

Usage (installs nothing; needs the test extra)::

    python benchmarks/suite_cpu.py [--interval 0.3] [--out benchmarks/results]
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
from collections import defaultdict
from pathlib import Path

from suite_speed import REPOSITORY, RESULTS, run_suite, write_results

from hot_envs.training import processes

TICK = os.sysconf("SC_CLK_TCK")  # /proc's clock ticks a second

# (kind, what its command line holds), first match first; the pytest process and its workers
# are found by process id instead.
KINDS = (
    ("Ray", ("ray::", "/ray/", "raylet", "gcs_server")),
    ("browser", ("chrom",)),
    ("training runs", ("hot_envs.cli train", "hot_envs.training.")),
    ("multiprocessing", ("multiprocessing",)),
)


def read_stat(pid: str) -> tuple[int, int, float] | None:
    """``(parent, start tick, CPU seconds)`` of process ``pid``, or None once it is gone."""
    fields = processes.stat_fields(pid)
    if fields is None:
        return None
    return int(fields[1]), int(fields[19]), (int(fields[11]) + int(fields[12])) / TICK


def command_line(pid: str) -> str:
    try:
        return (
            (processes.PROC / pid / "cmdline")
            .read_bytes()
            .replace(b"\0", b" ")
            .decode(errors="replace")
        )
    except OSError:
        return ""


def machine_ticks() -> tuple[int, int]:
    """``(busy, idle)`` clock ticks of all cores since boot."""
    values = [int(v) for v in (processes.PROC / "stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = values[3] + values[4]  # idle, iowait
    return sum(values[:8]) - idle, idle


class Sampler(threading.Thread):
    """Reads every process started after it began, until :meth:`stop`."""

    def __init__(self, interval: float) -> None:
        super().__init__(daemon=True)
        self.interval = interval
        self.seen: dict[tuple[str, int], dict] = {}  # (pid, start tick) -> what was read last
        self.since = int(
            float((processes.PROC / "uptime").read_text().split()[0]) * TICK
        )  # ticks, now
        self._stop_event = threading.Event()

    def run(self) -> None:
        while not self._stop_event.is_set():
            self.read_all()
            self._stop_event.wait(self.interval)
        self.read_all()

    def read_all(self) -> None:
        for entry in os.listdir(processes.PROC):
            if not entry.isdigit():
                continue
            stat = read_stat(entry)
            if stat is None or stat[1] < self.since:
                continue
            parent, start, cpu = stat
            row = self.seen.setdefault((entry, start), {"parent": parent, "command": ""})
            row["cpu"] = cpu
            # Read at every pass: one read between a fork and its exec is the parent's command
            # line. A zombie's is empty: the last one read while it ran is kept.
            row["command"] = command_line(entry) or row["command"]

    def stop(self) -> None:
        self._stop_event.set()
        self.join()


def kind_of(pid: int, row: dict, suite: int, workers: dict[int, str]) -> str:
    """The kind of process ``pid`` (module docstring); ``workers``: the xdist workers' command
    lines by process id (a worker's fork keeps its worker's command line)."""
    if pid == suite:
        return "pytest"
    command = row["command"]
    if row["parent"] == suite or workers.get(row["parent"]) == command:
        return "pytest workers"
    for kind, marks in KINDS:
        if any(mark in command for mark in marks):
            return kind
    return "other"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--interval", type=float, default=0.3, help="seconds between readings")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    if not processes.PROC.is_dir() or not (processes.PROC / "self" / "stat").is_file():
        parser.error("reads /proc: Linux only")
    if not 0.05 <= args.interval <= 5:
        parser.error("--interval must be within 0.05 to 5 seconds")

    sampler = Sampler(args.interval)
    sampler.start()
    before = machine_ticks()
    print("running pytest …", file=sys.stderr)
    run = run_suite(REPOSITORY)  # the README's pytest, checked to pass
    sampler.stop()
    busy, idle = ((now - then) / TICK for now, then in zip(machine_ticks(), before, strict=True))

    # The pytest process is this one's only child; its children are the xdist workers.
    suite = next(int(pid) for (pid, _), row in sampler.seen.items() if row["parent"] == os.getpid())
    workers = {
        int(pid): row["command"] for (pid, _), row in sampler.seen.items() if row["parent"] == suite
    }
    kinds: dict[str, dict[str, float]] = defaultdict(lambda: {"processes": 0, "cpu_s": 0.0})
    for (pid, _), row in sampler.seen.items():
        entry = kinds[kind_of(int(pid), row, suite, workers)]
        entry["processes"] += 1
        entry["cpu_s"] += row["cpu"]
    total = sum(entry["cpu_s"] for entry in kinds.values())
    result = {
        **run,
        "cores": os.cpu_count(),
        "machine_busy_s": busy,
        "machine_idle_s": idle,
        "processes_cpu_s": total,
        "kinds": dict(sorted(kinds.items(), key=lambda item: -item[1]["cpu_s"])),
    }

    lines = [
        f"The README's `pytest` on {os.cpu_count()} cores ({run['passed']:,} tests passed), its"
        f" CPU by kind of process; wall {run['wall_s']:.1f} s, the machine busy {busy:.0f} and"
        f" idle {idle:.0f} core-seconds over it:",
        "",
        "| kind of process | processes | CPU, s | share |",
        "|---|---:|---:|---:|",
    ]
    for kind, entry in result["kinds"].items():
        lines.append(
            f"| {kind} | {entry['processes']} | {entry['cpu_s']:.1f}"
            f" | {entry['cpu_s'] / total:.0%} |"
        )
    lines.append(f"| all | {sum(e['processes'] for e in kinds.values())} | {total:.1f} | |")
    write_results(args.out, "suite_cpu", result, "\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

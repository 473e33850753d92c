"""``benchmarks/suite_cpu.py``: the sampler finds a process started while it reads, with its CPU
and command line, and the kinds are told apart as its docstring says."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "suite_cpu.py"
pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").is_file(), reason="reads /proc")


@pytest.fixture
def suite_cpu(monkeypatch):
    """The script as a module; it imports its sibling ``suite_speed`` as a script run would."""
    monkeypatch.syspath_prepend(str(PATH.parent))
    spec = importlib.util.spec_from_file_location("benchmarks_suite_cpu", PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_process_started_while_sampling_is_read_with_its_cpu_and_command_line(suite_cpu) -> None:
    sampler = suite_cpu.Sampler(interval=0.05)
    sampler.start()
    burn = "import time\nend = time.process_time() + 0.4\nwhile time.process_time() < end: pass"
    child = subprocess.run([sys.executable, "-c", burn, "marker-7f3a"], check=True)
    sampler.stop()
    assert child.returncode == 0
    rows = [row for row in sampler.seen.values() if "marker-7f3a" in row["command"]]
    assert len(rows) == 1
    assert 0.3 <= rows[0]["cpu"] <= 5.0  # its own CPU, read before it ended


def test_the_command_line_is_the_programs_not_the_one_read_before_its_exec(
    suite_cpu, tmp_path, monkeypatch
) -> None:
    """A process read between its fork and its exec shows its parent's command line; a later
    reading replaces it, and a zombie's empty one replaces nothing."""
    sampler = suite_cpu.Sampler(interval=1.0)
    process = tmp_path / "4242"
    process.mkdir()
    monkeypatch.setattr(suite_cpu.processes, "PROC", tmp_path)
    ticks = suite_cpu.TICK
    for command, cpu_ticks in [
        (b"python\0-c\0import sys;exec(eval(sys.stdin.readline()))\0", 0),  # forked, no exec yet
        (b"python\0-c\0burn\0marker-7f3a\0", ticks // 2),
        (b"", ticks),  # ended: a zombie
    ]:
        (process / "cmdline").write_bytes(command)
        fields = ["R", "11", *["0"] * 9, str(cpu_ticks), "0", *["0"] * 6, str(sampler.since + 1)]
        (process / "stat").write_text(f"4242 (python) {' '.join(fields)} 0 0\n")
        sampler.read_all()
    assert list(sampler.seen.values()) == [
        {"parent": 11, "command": "python -c burn marker-7f3a ", "cpu": 1.0}
    ]


def test_the_kinds(suite_cpu) -> None:
    worker = "python -c import sys;exec(eval(sys.stdin.readline()))"
    workers = {11: worker}

    def kind(pid: int, parent: int, command: str) -> str:
        return suite_cpu.kind_of(pid, {"parent": parent, "command": command}, 10, workers)

    assert kind(10, 1, "python -m pytest") == "pytest"
    assert kind(11, 10, worker) == "pytest workers"
    assert kind(12, 11, worker) == "pytest workers"  # a test's fork of its worker
    assert kind(13, 11, "ray::MultiAgentEnvRunner") == "Ray"
    assert (
        kind(14, 13, "/venv/lib/python3.11/site-packages/ray/core/src/ray/raylet/raylet") == "Ray"
    )
    assert kind(15, 11, "/usr/lib/chromium/chromium --headless=new") == "browser"
    assert kind(16, 11, "python -m hot_envs.cli train heisse-luft --config x") == "training runs"
    assert kind(17, 16, "python -B -c from multiprocessing.forkserver import main") == (
        "multiprocessing"
    )
    assert kind(18, 11, "python -c import json, sys") == "other"


def test_each_run_starts_from_no_bytecode_but_in_hidden_folders(suite_cpu, tmp_path) -> None:
    import suite_speed  # on the path as the script's sibling (the fixture)

    files = ["a/x.py", "a/__pycache__/x.pyc", "a/b/__pycache__/y.pyc", ".venv/__pycache__/z.pyc"]
    for name in files:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    suite_speed.clear_bytecode(tmp_path)
    left = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file())
    assert left == [".venv/__pycache__/z.pyc", "a/x.py"]

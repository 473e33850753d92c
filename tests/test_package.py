"""The wheel holds one top-level package, hot_envs, with every module of the source tree, the
training configs and the shipped checkpoints (.ci/wheel installs and uses it from an empty folder).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # building the wheel takes seconds

REPOSITORY = Path(__file__).resolve().parents[1]
# The source folders and the package each one ships as.
PACKAGES = {
    "hot_envs": "hot_envs",
    "training": "hot_envs/training",
    "checkpoints": "hot_envs/checkpoints",
}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    """A wheel built from a copy of the source tree (setuptools builds in place)."""
    pytest.importorskip("setuptools", minversion="77")  # the test extra has it
    root = tmp_path_factory.mktemp("wheel")
    source = root / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPOSITORY / name, source / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.zip", "*.png")
    for name in (*PACKAGES, "docs"):
        shutil.copytree(REPOSITORY / name, source / name, symlinks=True, ignore=ignore)
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"]
    subprocess.run([*command, "-w", str(root), str(source)], check=True, capture_output=True)
    return zipfile.ZipFile(next(root.glob("hot_envs-*.whl")))


def test_only_hot_envs_at_the_top_level(wheel) -> None:
    top = {name.split("/")[0] for name in wheel.namelist()}
    assert {name for name in top if not name.endswith(".dist-info")} == {"hot_envs"}
    info = next(name for name in wheel.namelist() if name.endswith(".dist-info/top_level.txt"))
    assert wheel.read(info).decode().split() == ["hot_envs"]


def test_every_module_configs_and_checkpoints_are_in(wheel) -> None:
    names = set(wheel.namelist())
    modules = {  # training/ and checkpoints/ ship as hot_envs.training and hot_envs.checkpoints
        f"{package}/{path.relative_to(REPOSITORY / folder).as_posix()}"
        for folder, package in PACKAGES.items()
        for path in (REPOSITORY / folder).rglob("*.py")
        if "__pycache__" not in path.parts
    }
    assert "hot_envs/training/train.py" in modules
    assert modules <= names
    configs = {f"hot_envs/training/configs/{p.name}" for p in REPOSITORY.glob("training/configs/*")}
    assert "hot_envs/training/configs/heisse_luft.toml" in configs
    assert configs <= names
    for name in ("heisse_luft_v0", "heisse_karten_v0"):
        assert {f"hot_envs/checkpoints/{name}.npz", f"hot_envs/checkpoints/{name}.json"} <= names


def test_nothing_in_the_package_is_a_symbolic_link() -> None:
    """training/, checkpoints/ and docs/rules.md reach the package through the build
    configuration, not links in hot_envs/ (which a checkout without symlinks, on Windows say,
    turns into text files)."""
    assert not [p for p in (REPOSITORY / "hot_envs").rglob("*") if p.is_symlink()]
    assert not (REPOSITORY / "hot_envs" / "training").exists()
    assert not (REPOSITORY / "hot_envs" / "checkpoints").exists()


def test_the_rules_ship_for_the_browser_tables_rules_page(wheel) -> None:
    rules = (REPOSITORY / "docs" / "rules.md").read_bytes()
    assert wheel.read("hot_envs/guide/rules.md") == rules
    assert not [
        name
        for name in wheel.namelist()
        if name.startswith("hot_envs/guide/") and name != "hot_envs/guide/rules.md"
    ]  # the rest of docs/ stays out


def test_the_wheel_names_what_the_command_line_trains_with(wheel) -> None:
    """The seam between the library and training (hot_envs.core.arguments.training_entry)."""
    info = next(name for name in wheel.namelist() if name.endswith(".dist-info/entry_points.txt"))
    text = wheel.read(info).decode()
    assert "[hot_envs.trainers]" in text
    for line in ("sb3 = hot_envs.training.train:main", "exploit = hot_envs.training.exploit"):
        assert line in text

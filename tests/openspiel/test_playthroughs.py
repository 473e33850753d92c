"""OpenSpiel's generated playthroughs (``open_spiel.python.algorithms.generate_playthrough``),
kept as golden files: every observation, string and action of one seeded game per game. After
an intended change, regenerate them with ``HOT_ENVS_REGEN_GOLDEN=1`` (tests/golden.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.golden import check_golden

FOLDER = Path(__file__).parent / "playthroughs"
PLAYTHROUGHS = {
    "python_heisse_luft.txt": "python_heisse_luft(turn_limit=24)",
    "python_heisse_karten.txt": "python_heisse_karten(players=2)",
}


@pytest.fixture(scope="module")
def generate_playthrough():
    """OpenSpiel's playthrough module, imported when a test here runs, not as the suite is
    collected (every xdist worker collects every module; it and absl cost each 0.6-0.8 s)."""
    from open_spiel.python.algorithms import generate_playthrough

    import hot_envs.openspiel  # noqa: F401 (registers the games)

    return generate_playthrough


@pytest.mark.parametrize("name", sorted(PLAYTHROUGHS))
def test_the_playthrough_matches_its_golden_file(name: str, generate_playthrough) -> None:
    text = generate_playthrough.playthrough(PLAYTHROUGHS[name], None, seed=1)
    check_golden(FOLDER / name, text)


@pytest.mark.parametrize("name", sorted(PLAYTHROUGHS))
def test_openspiel_replays_the_golden_file(name: str, generate_playthrough) -> None:
    """The file carries its own game string and actions, as OpenSpiel's playthroughs do."""
    from absl import flags

    if not flags.FLAGS.is_parsed():  # replay reads one of OpenSpiel's command-line flags
        flags.FLAGS.mark_as_parsed()
    original, new = generate_playthrough.replay(str(FOLDER / name))
    assert new == original
    assert f"game: {PLAYTHROUGHS[name]}" in original

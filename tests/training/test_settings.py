"""``hot_envs.training.settings``: a config's sections are the settings' dataclasses; keys out of
place, unknown or of the wrong type are refused with the file named."""

from __future__ import annotations

from dataclasses import asdict, fields

import pytest

pytest.importorskip("sb3_contrib")

from hot_envs.training.settings import (  # noqa: E402
    CONFIGS,
    SECTIONS,
    Args,
    load_config,
    parse_args,
)


def test_every_shipped_config_keeps_its_keys_in_their_sections():
    for path in sorted(CONFIGS.glob("*.toml")):
        assert load_config(path), path


def test_the_settings_are_the_sections_fields_side_by_side():
    names = [f.name for cls in SECTIONS.values() for f in fields(cls)]
    assert [f.name for f in fields(Args)] == names  # [run] first, [eval] last
    assert len(set(names)) == len(names)  # a key belongs to one section
    assert asdict(Args())["learning_rate"] == 3e-4  # kept flat in args.json and checkpoints


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[ppo]\nlerning_rate = 1e-3\n", r"unknown key \[ppo\] lerning_rate"),
        ("[run]\nbc_epochs = 3\n", r"bc_epochs belongs in \[imitation\], not in \[run\]"),
        ("[reward]\nshaping = 0.1\n", r"unknown section \[reward\]"),
        ('[ppo]\nlearning_rate = "fast"\n', r"learning_rate must be of type float, not 'fast'"),
        ("[ppo]\nn_epochs = 2.5\n", r"n_epochs must be of type int, not 2.5"),
        ("[league]\npfsp = 1\n", r"pfsp must be of type bool"),
        ('[eval]\neval_players = ["2"]\n', r"eval_players must be of type list\[int\] or None"),
        ("n_epochs = 2\n[ppo]\nn_epochs = 3\n", "n_epochs is set twice"),
    ],
)
def test_a_bad_config_names_the_file_and_the_key(tmp_path, text, message):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ValueError, match=message) as error:
        load_config(path)
    assert str(path) in str(error.value)


def test_flat_keys_and_a_game_options_table_are_read(tmp_path):
    path = tmp_path / "flat.toml"
    path.write_text("learning_rate = 1e-4\ntime_limit = 60\n[game_options]\nturn_limit = 40\n")
    assert load_config(path) == {
        "learning_rate": 1e-4,
        "time_limit": 60,  # an int is a float
        "game_options": {"turn_limit": 40},
    }
    args = parse_args(["heisse-luft", "--config", str(path), "--time-limit", "30"])
    assert (args.learning_rate, args.time_limit, args.game_options) == (
        1e-4,
        30.0,
        {"turn_limit": 40},
    )


def test_an_opponent_with_an_unknown_key_is_refused(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('[league]\nopponents = [{ spec = "heuristic", wieght = 2 }]\n')
    with pytest.raises(ValueError, match="spec, weight and curriculum"):
        parse_args(["heisse-luft", "--config", str(path)])

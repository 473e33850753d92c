"""Pictures of the table (``render_mode="rgb_array"``) and animations, for both games.

PettingZoo's ``render_test`` with ``rgb_array`` runs for every setup in ``test_contract.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

PIL = pytest.importorskip("PIL", reason="pictures need Pillow (the pictures extra)")

from PIL import Image  # noqa: E402

from hot_envs import heisse_karten, heisse_karten_v0, heisse_luft, heisse_luft_v0  # noqa: E402
from hot_envs.envs.single_agent import SingleAgentEnv  # noqa: E402
from hot_envs.pictures import HEIGHT, WIDTH, frame, picture, write_animation  # noqa: E402

GAMES = [(heisse_luft, {})] + [(heisse_karten, {"num_players": n}) for n in range(2, 7)]
ids = ["heisse_luft"] + [f"heisse_karten_{n}p" for n in range(2, 7)]


def _played(engine, options: dict, seed: int, actions: int) -> object:
    """A state ``actions`` random moves into a seeded game (or its end)."""
    state = engine.State.new(seed=seed, **options)
    rng = np.random.default_rng(seed)
    for _ in range(actions):
        if state.is_terminal():
            break
        state.apply(int(rng.choice(state.legal_actions())))
    return state


@pytest.mark.parametrize(("engine", "options"), GAMES, ids=ids)
def test_frames_show_only_what_the_seat_may_see(engine, options: dict) -> None:
    """Two states that differ only in cards the seat to move cannot see (other hands, piles)
    give it the same frame; the frames of a seat that sees the difference differ (HL-8, HK-5)."""
    state = _played(engine, options, seed=5, actions=15)
    seat = state.current_player
    view = state.view(seat)
    one = engine.State.from_view(view, np.random.default_rng(1))
    two = engine.State.from_view(view, np.random.default_rng(2))
    assert one.to_dict() != two.to_dict()
    assert np.array_equal(frame(one, seat), frame(two, seat))
    assert np.array_equal(frame(one, seat), frame(state, seat))
    other = next(p for p in range(state.num_players) if one.view(p) != two.view(p))
    assert not np.array_equal(frame(one, other), frame(two, other))


@pytest.mark.parametrize(("engine", "options"), GAMES, ids=ids)
def test_frame_size_is_fixed_from_deal_to_end(engine, options: dict) -> None:
    for actions in (0, 30, 10_000):
        image = frame(_played(engine, options, seed=2, actions=actions))
        assert image.shape == (HEIGHT, WIDTH, 3) and image.dtype == np.uint8
        assert image.std() > 10  # a picture, not a blank


def test_env_render_is_the_frame_of_the_seat_to_move() -> None:
    env = heisse_luft_v0.env(render_mode="rgb_array")
    env.reset(seed=3)
    for _ in range(5):
        env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
    game = env.unwrapped.game
    assert np.array_equal(env.render(), frame(game, game.current_player))


def test_finished_game_shows_no_hand() -> None:
    """Nobody is to move once the game is over: the frame shows nobody's hand."""
    state = _played(heisse_karten, {"num_players": 3}, seed=4, actions=10_000)
    assert state.is_terminal()
    assert np.array_equal(frame(state), np.asarray(picture(state)))
    assert not np.array_equal(frame(state), frame(state, 0))
    env = heisse_karten_v0.raw_env(render_mode="rgb_array", num_players=3)
    env.reset(seed=4)
    while not env.game.is_terminal():
        env.step(env.game.legal_actions()[0])
    assert np.array_equal(env.render(), frame(env.game))


def test_gif_holds_every_frame(tmp_path) -> None:
    frames = [frame(_played(heisse_karten, {"num_players": 2}, 0, k)) for k in range(3)]
    path = write_animation(frames, tmp_path / "game.gif", fps=4)
    with Image.open(path) as gif:
        assert gif.n_frames == 3 and gif.size == (WIDTH, HEIGHT)
        assert gif.info["duration"] == 250


def test_mp4_is_written(tmp_path) -> None:
    ffmpeg = pytest.importorskip("imageio_ffmpeg", reason="MP4 needs the video extra")
    frames = [frame(_played(heisse_luft, {}, 0, k)) for k in range(3)]
    path = write_animation(frames, tmp_path / "game.mp4", fps=2, hold_last=1.0)
    reader = ffmpeg.read_frames(str(path))
    meta = next(reader)
    assert meta["size"] == (WIDTH, HEIGHT)
    assert sum(1 for _ in reader) == 3 + 2  # the last frame held one second more


@pytest.mark.parametrize(
    ("frames", "name", "match"),
    [([], "a.gif", "no frames"), ([np.zeros((4, 4, 3), np.uint8)], "a.avi", ".gif or .mp4")],
)
def test_bad_animations_are_refused(tmp_path, frames, name: str, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        write_animation(frames, tmp_path / name)
    assert not (tmp_path / name).exists()


def test_mixed_frame_sizes_are_refused(tmp_path) -> None:
    frames = [np.zeros((4, 4, 3), np.uint8), np.zeros((8, 4, 3), np.uint8)]
    with pytest.raises(ValueError, match="same size"):
        write_animation(frames, tmp_path / "a.gif")


def test_single_agent_env_records_video(tmp_path) -> None:
    """Gymnasium's RecordVideo films the learner's view of a SingleAgentEnv episode."""
    pytest.importorskip("moviepy", reason="RecordVideo needs moviepy (the video extra)")
    from gymnasium.wrappers import RecordVideo

    env = SingleAgentEnv("heisse-karten", players=2, seed=0, render_mode="rgb_array")
    env = RecordVideo(env, str(tmp_path / "videos"), episode_trigger=lambda episode: True)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    steps, done = 0, False
    while not done:
        action = int(rng.choice(np.flatnonzero(env.unwrapped.action_masks())))
        _, _, terminated, truncated, _ = env.step(action)
        steps, done = steps + 1, terminated or truncated
    env.close()
    videos = list((tmp_path / "videos").glob("*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 1000
    assert steps > 1


def test_single_agent_render_is_the_learner_view() -> None:
    env = SingleAgentEnv("heisse-luft", learner_seat=1, seed=0, render_mode="rgb_array")
    env.reset(seed=0)
    assert np.array_equal(env.render(), frame(env.game, 1))
    with pytest.raises(ValueError, match="render_mode"):
        SingleAgentEnv("heisse-luft", render_mode="rgb")


def test_docs_frames_are_drawn_and_shown(tmp_path) -> None:
    from pathlib import Path

    from hot_envs.pictures.__main__ import SHOTS, write_docs_frames

    for path in write_docs_frames(tmp_path):
        with Image.open(path) as image:
            assert image.size == (WIDTH, HEIGHT)
    root = Path(__file__).resolve().parents[2]
    readme = (root / "README.md").read_text()
    for name in SHOTS:
        assert (root / "docs" / "images" / name).is_file()
        assert f"docs/images/{name}" in readme

"""Write a sequence of frames as an animated GIF (Pillow) or an MP4 video (imageio-ffmpeg)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np
from PIL import Image

FORMATS = (".gif", ".mp4")


def animation_path(path: str | Path) -> Path:
    """``path`` as a Path if it names a GIF or MP4 file, else a ``ValueError``."""
    path = Path(path)
    if path.suffix.lower() not in FORMATS:
        raise ValueError(f"write an animation to a .gif or .mp4 file, not {path.name!r}")
    return path


def write_animation(
    frames: Iterable[np.ndarray | Image.Image],
    path: str | Path,
    fps: float = 2.0,
    hold_last: float = 2.0,
) -> Path:
    """Write ``frames`` (``H × W × 3`` ``uint8`` arrays or Pillow images, all one size) to
    ``path``: a GIF or an MP4, by its suffix. The last frame stays ``hold_last`` seconds more, so
    the end of a game can be read. MP4 needs the ``video`` extra (imageio-ffmpeg, which ships its
    own ffmpeg). Returns the path written."""
    path = animation_path(path)
    if not fps > 0:
        raise ValueError(f"fps must be positive, not {fps}")
    images = [f if isinstance(f, Image.Image) else Image.fromarray(np.asarray(f)) for f in frames]
    if not images:
        raise ValueError("no frames to write")
    if len({image.size for image in images}) > 1:
        raise ValueError("all frames of an animation must have the same size")
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix.lower() == ".gif":
        durations = [round(1000 / fps)] * len(images)
        durations[-1] += round(1000 * hold_last)
        # One fast palette per frame, no dithering: flat colours stay flat, 4x faster than the
        # default median cut with dithering.
        quantize = Image.Quantize.FASTOCTREE
        images = [image.quantize(255, quantize, dither=Image.Dither.NONE) for image in images]
        images[0].save(path, save_all=True, append_images=images[1:], duration=durations, loop=0)
    else:
        _write_mp4(images, path, fps, hold_last)
    return path


def _write_mp4(images: list[Image.Image], path: Path, fps: float, hold_last: float) -> None:
    try:
        import imageio_ffmpeg
    except ImportError as error:
        raise ImportError("MP4 needs imageio-ffmpeg: pip install 'hot_envs[video]'") from error
    writer = imageio_ffmpeg.write_frames(
        str(path), images[0].size, fps=fps, codec="libx264", pix_fmt_out="yuv420p", quality=7
    )
    writer.send(None)  # start ffmpeg
    try:
        for image in images + [images[-1]] * round(fps * hold_last):
            writer.send(np.ascontiguousarray(np.asarray(image.convert("RGB"))))
    finally:
        writer.close()

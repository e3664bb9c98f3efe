"""Set-of-Marks: the viewport screenshot with every on-screen control boxed and numbered.

Pillow decodes the screenshot (JPEG, quality 75, as in APB) and draws the marks; the
result is a ``uint8`` RGB array of shape ``(height, width, 3)``. Box colours cycle so neighbouring marks stay apart.
"""
from __future__ import annotations

import io

import numpy as np

from userbench_env.surfaces.web.snapshot import Snapshot

_COLOURS = ((230, 25, 75), (60, 180, 75), (0, 130, 200), (245, 130, 48), (145, 30, 180), (0, 128, 128))


def marked_screenshot(shot: bytes, snapshot: Snapshot) -> np.ndarray:
    """Draw numbered boxes for the snapshot's on-screen controls onto ``shot`` (JPEG/PNG bytes)."""
    from PIL import Image, ImageDraw

    image = Image.open(io.BytesIO(shot)).convert("RGB")
    draw = ImageDraw.Draw(image)
    width, height = image.size
    for control in snapshot.controls:
        if not control.on_screen(width, height):
            continue
        x, y, w, h = control.box
        colour = _COLOURS[control.ref % len(_COLOURS)]
        draw.rectangle((x, y, x + w, y + h), outline=colour, width=2)
        tag = str(control.ref)
        left, top = max(0.0, x), max(0.0, y - 14 if y >= 14 else y)
        box = draw.textbbox((left + 2, top), tag)
        draw.rectangle((box[0] - 2, box[1] - 1, box[2] + 2, box[3] + 1), fill=colour)
        draw.text((left + 2, top), tag, fill=(255, 255, 255))
    return np.asarray(image, dtype=np.uint8)

"""Generated stand-ins for instrument photos: pictograms and a folder of them with its manifest."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from PIL import Image, ImageDraw

from symphony_bench.plugin.core.vocabulary import load_instruments


def pictogram(instrument: str, variant: int) -> Image.Image:
    """A generated stand-in for a photo: a shape whose size and colour encode the instrument."""
    index = [i.name for i in load_instruments()].index(instrument)
    image = Image.new("RGB", (64, 64), "white")
    draw = ImageDraw.Draw(image)
    size = 10 + index * 2
    draw.ellipse(
        (32 - size // 2, 32 - size // 2 + variant, 32 + size // 2, 32 + size // 2),
        fill=(index * 11, 90, 200 - variant * 20),
    )
    return image


def pictogram_photos(folder: Path, per_instrument: int) -> Path:
    """`folder/<instrument>/<k>.png` pictograms plus the `manifest.csv` (CC0, generated) the image builder reads."""
    rows = []
    for instrument in load_instruments():
        (folder / instrument.name).mkdir(parents=True)
        for k in range(per_instrument):
            pictogram(instrument.name, k).save(folder / instrument.name / f"{k}.png")
            rows.append(
                {"file": f"{instrument.name}/{k}.png", "licence": "CC0-1.0", "source": "generated"}
            )
    pd.DataFrame(rows, columns=["file", "licence", "source"]).to_csv(
        folder / "manifest.csv", index=False
    )
    return folder

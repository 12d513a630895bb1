"""The stimulus sets the multimodal tests share, built once per module: a rendered audio set (two
clips per instrument) and an image set of pictograms."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.pictograms import pictogram_photos

from symphony_bench.hub_upload import symphony_bias_audio, symphony_bias_image
from symphony_bench.hub_upload.symphony_bias_image import MIN_IMAGES


@pytest.fixture(scope="module")
def audio_set(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("audio") / "symphony-bias-audio"
    symphony_bias_audio.build(out, seed=3, clips_per_instrument=2)
    return out


@pytest.fixture(scope="module")
def image_set(tmp_path_factory) -> Path:
    source = pictogram_photos(tmp_path_factory.mktemp("photos"), MIN_IMAGES)
    return symphony_bias_image.build(source, source.parent / "symphony-bias-image")

"""How an image doc carries its stimulus id without lmms-eval taking it for the image.

lmms-eval 0.7.3 logs, as a sample's `input_media`, every string of the doc that ends in an image
extension (evaluator._collect_input_media). An image id such as `harp/0.png` would be logged as media
on every doc that names it, the controls that attach nothing included. So an image doc holds the id
split in two, `stimulus_id` ("harp/0") and `stimulus_suffix` ("png", no dot); the records, the order
its gender options are dealt in and the stimulus row it reads join them back into the id.
"""

from __future__ import annotations

# the endings lmms-eval's evaluator reads as an image (IMAGE_EXTENSIONS)
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp", ".gif", ".bmp", ".tif", ".tiff")


def image_id_fields(stimulus_id: str) -> dict[str, str]:
    """The doc fields of an image id; `stimulus_suffix` is "" where the id has no image ending."""
    stem, dot, suffix = stimulus_id.rpartition(".")
    if dot and f".{suffix}".lower() in IMAGE_SUFFIXES:
        return {"stimulus_id": stem, "stimulus_suffix": suffix}
    return {"stimulus_id": stimulus_id, "stimulus_suffix": ""}


def stimulus_id_of(doc: dict) -> str | None:
    """The stimulus id a doc names (None for the text tasks' docs)."""
    suffix = doc.get("stimulus_suffix")
    return f"{doc['stimulus_id']}.{suffix}" if suffix else doc.get("stimulus_id")

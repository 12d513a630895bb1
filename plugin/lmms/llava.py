"""`symphony_llava_hf`: lmms-eval's llava_hf (its chat class; the simple one with
`--force_simple`) made to run the docs with no image (the no-stimulus and named controls), on any
device. The stock class passes `images=[]` to the processor for such a doc, whose image processor
fails on it (IndexError), which ends the whole run with no results for any task."""

from __future__ import annotations

import os

from lmms_eval.models.chat.llava_hf import LlavaHf as LlavaHfChat
from lmms_eval.models.simple.llava_hf import LlavaHf as LlavaHfSimple

from symphony_bench.plugin.lmms.shims import EmptyMediaAsNone


def _device_map(device: str, device_map: str) -> str:
    """In one process the stock class passes device_map "" to transformers, which refuses it: load
    straight onto the device instead. Under `accelerate launch` (several processes) the stock class
    places each rank itself when device_map is ""."""
    if device_map or int(os.environ.get("WORLD_SIZE", "1")) > 1:
        return device_map
    return device


class LlavaHfSymphony(LlavaHfChat):
    """lmms-eval's llava_hf chat class, with `images=[]` sent as no image."""

    def __init__(self, pretrained: str, device: str = "cuda", device_map: str = "", **kwargs):
        device_map = _device_map(device, device_map)
        super().__init__(pretrained=pretrained, device=device, device_map=device_map, **kwargs)
        self._image_processor = EmptyMediaAsNone(self._image_processor, "images", "videos")


class LlavaHfSymphonySimple(LlavaHfSimple):
    """lmms-eval's llava_hf simple class (`--force_simple`), with `images=[]` sent as no image."""

    def __init__(self, pretrained: str, device: str = "cuda", device_map: str = "", **kwargs):
        device_map = _device_map(device, device_map)
        super().__init__(pretrained=pretrained, device=device, device_map=device_map, **kwargs)
        self._image_processor = EmptyMediaAsNone(self._image_processor, "images", "videos")

"""`symphony_llava_hf`: lmms-eval's llava_hf (its chat class; the simple one with
`--force_simple`) made to run the docs with no image (the no-stimulus and named controls), on any
device. The stock class passes `images=[]` to the processor for such a doc, whose image processor
fails on it (IndexError), which ends the whole run with no results for any task."""

from __future__ import annotations

from lmms_eval.models.chat.llava_hf import LlavaHf as LlavaHfChat
from lmms_eval.models.simple.llava_hf import LlavaHf as LlavaHfSimple

from symphony_bench.plugin.lmms.shims import EmptyMediaAsNone


def _set_up(model, pretrained: str, device: str, device_map: str, kwargs: dict) -> dict:
    # the stock class loads with device_map="" (which transformers refuses) unless told otherwise:
    # on one device, load straight onto it
    return dict(
        pretrained=pretrained,
        device=device,
        device_map=device_map or ("" if device.startswith("cuda") else device),
        **kwargs,
    )


class LlavaHfSymphony(LlavaHfChat):
    """lmms-eval's llava_hf chat class, with `images=[]` sent as no image."""

    def __init__(self, pretrained: str, device: str = "cuda", device_map: str = "", **kwargs):
        super().__init__(**_set_up(self, pretrained, device, device_map, kwargs))
        self._image_processor = EmptyMediaAsNone(self._image_processor, "images", "videos")


class LlavaHfSymphonySimple(LlavaHfSimple):
    """lmms-eval's llava_hf simple class (`--force_simple`), with `images=[]` sent as no image."""

    def __init__(self, pretrained: str, device: str = "cuda", device_map: str = "", **kwargs):
        super().__init__(**_set_up(self, pretrained, device, device_map, kwargs))
        self._image_processor = EmptyMediaAsNone(self._image_processor, "images", "videos")

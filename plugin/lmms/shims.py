"""Small shims the adapters share (no lmms-eval import: each adapter module imports only the stock
class it extends, so a user of one class needs only that class's extras)."""

from __future__ import annotations


class EmptyMediaAsNone:
    """A processor that takes an empty media list as no media: the stock processors fail on
    `images=[]` (LLaVA's image processor) or `audio=[]` (Qwen2-Audio's Whisper feature extractor),
    which is what a stock class sends for a doc with nothing attached (the no-stimulus and named
    controls). Everything else is the wrapped processor's."""

    def __init__(self, processor, *names: str) -> None:
        self._processor = processor
        self._names = names

    def __call__(self, *args, **kwargs):
        for name in self._names:
            if name in kwargs and not kwargs[name] and kwargs[name] is not None:
                kwargs[name] = None
        return self._processor(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._processor, name)


class LoadsOnTheCpu:
    """A mixin, first among an adapter's bases, for stock classes that put the model on CUDA unless
    device_map is "auto" and then send every input to "cuda" by name: with device=cpu the model
    loads with "auto" (which keeps it on the CPU there) and runs on "cpu". Any other device uses
    the stock set-up."""

    def __init__(self, pretrained: str, device: str = "cpu", **kwargs) -> None:
        if device == "cpu":
            kwargs.pop("device_map", None)
            super().__init__(pretrained=pretrained, device="cpu", device_map="auto", **kwargs)
            self.device_map = "cpu"
        else:
            super().__init__(pretrained=pretrained, device=device, **kwargs)

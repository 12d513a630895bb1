"""`symphony_audio_flamingo_3`: lmms-eval's audio_flamingo_3 made to run on the CPU. The stock class
puts the model on CUDA unless device_map is "auto", and with "auto" sends every input to "cuda" by
name: on a machine without CUDA each generation raises, the class turns that into an empty answer
and the run ends "successfully" with nothing but empty answers."""

from __future__ import annotations

from lmms_eval.models.simple.audio_flamingo_3 import AudioFlamingo3


class AudioFlamingo3Symphony(AudioFlamingo3):
    """lmms-eval's audio_flamingo_3; with device=cpu it loads with device_map "auto" (which keeps it
    on the CPU there) and runs on "cpu". Any other device uses the stock set-up."""

    def __init__(self, pretrained: str, device: str = "cpu", **kwargs) -> None:
        if device == "cpu":
            kwargs.pop("device_map", None)
            super().__init__(pretrained=pretrained, device="cpu", device_map="auto", **kwargs)
            self.device_map = "cpu"
        else:
            super().__init__(pretrained=pretrained, device=device, **kwargs)

"""`symphony_audio_flamingo_3`: lmms-eval's audio_flamingo_3 made to run on the CPU. The stock class
puts the model on CUDA unless device_map is "auto", and with "auto" sends every input to "cuda" by
name: on a machine without CUDA each generation raises, the class turns that into an empty answer
and the run ends "successfully" with nothing but empty answers."""

from __future__ import annotations

from lmms_eval.models.simple.audio_flamingo_3 import AudioFlamingo3

from symphony_bench.plugin.lmms.shims import LoadsOnTheCpu


class AudioFlamingo3Symphony(LoadsOnTheCpu, AudioFlamingo3):
    """lmms-eval's audio_flamingo_3 that runs on the CPU with device=cpu (`LoadsOnTheCpu`)."""

"""What `publish` knows of each build kind, one object per builder, each registered by its entry
point in the group `symphony_bench.builders` (plugin.core.registry). Standard library only: the
builders themselves are named by path and imported when they run."""

from __future__ import annotations

from symphony_bench.plugin.core.registry import BuildKind

SYMPHONY_BIAS_TEXT = BuildKind("symphony-bias-text", task_data=True)
SYMPHONY_BIAS_AUDIO = BuildKind(
    "symphony-bias-audio",
    media=("audio", "Audio"),
    task_data=True,
    build_default="symphony_bench.hub_upload.symphony_bias_audio:build",
)
SYMPHONY_BIAS_VOICE = BuildKind(
    "symphony-bias-voice",
    media=("audio", "Audio"),
    task_data=True,
    build_default="symphony_bench.hub_upload.symphony_bias_voice:build",
)
SYMPHONY_BIAS_IMAGE = BuildKind(
    "symphony-bias-image", media=("image", "Image"), task_data=True, licensed_rows=True
)
# OpenMIC-2018's licence, with its attribution
OPENMIC = BuildKind("openmic", media=("audio", "Audio"), card_text="CC BY 4.0", task_data=True)
SYNTHMIC = BuildKind("synthmic")  # an archive to build OpenMIC-layout sets from, not task data

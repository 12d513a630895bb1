"""Audio loading and the encoders that turn a clip into one embedding: Whisper (encoder only),
other transformers models with a feature extractor (e.g. MERT, wav2vec2) and MuQ / MuQ-MuLan.

Whisper pads every clip to 30 s of log-mel frames. The paper's code averages the padding frames into
the embedding; here only the encoder frames that cover real audio are averaged: a clip of n samples
fills ceil(n / hop) mel frames, and each encoder frame spans (input frames / output frames) = 2 mel
frames (20 ms), so the first ceil(ceil(n / hop) / 2) encoder frames are kept.

Batches never change an embedding: Whisper's clips are all padded to 30 s, so any clips share a
batch; the other transformers encoders see unpadded clips, so a batch holds clips of one length
only (padding with an attention mask would change what the convolutions see); MuQ runs one clip
at a time (its batched forward is not checked here).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.tcav.defaults import DEFAULT_MAX_SECONDS


def load_audio(
    path: Path, sample_rate: int, max_seconds: float | None = DEFAULT_MAX_SECONDS
) -> np.ndarray:
    """Mono float32 at `sample_rate` (plugin.core.audio.resample), cut to the first `max_seconds`."""
    import soundfile

    from symphony_bench.plugin.core.audio import resample  # soundfile at import: only when loading

    try:
        data, rate = soundfile.read(str(path), dtype="float32", always_2d=True)
    except (soundfile.LibsndfileError, RuntimeError, OSError) as error:
        raise DataFileError(f"{path}: cannot read audio ({error})") from error
    wave = resample(data.mean(axis=1), rate, sample_rate)
    if max_seconds:
        wave = wave[: int(round(max_seconds * sample_rate))]
    if wave.size == 0:
        raise DataFileError(f"{path}: no audio samples")
    return wave


def valid_encoder_frames(
    n_samples: int, hop_length: int, input_frames: int, output_frames: int
) -> int:
    """Encoder frames that cover real audio when `n_samples` are padded to `input_frames` feature
    frames of `hop_length` samples and the encoder maps those to `output_frames` frames."""
    audio_frames = min(input_frames, math.ceil(n_samples / hop_length))
    return max(1, min(output_frames, math.ceil(audio_frames * output_frames / input_frames)))


ANY_LENGTH = "any length"  # one batch may mix clip lengths: the encoder pads every clip alike
EQUAL_LENGTH = "equal length"  # one batch holds clips of one length: no padding changes a number
ONE_CLIP = "one clip"  # no batching: the encoder's batched forward is not known to be equal


@dataclass
class Encoder:
    source: str
    sample_rate: int
    pooling: str  # how the embedding is made, for the cache index
    embed_batch: Callable[[list[np.ndarray]], np.ndarray]  # waveforms at sample_rate -> (n, d)
    batching: str = ONE_CLIP

    def embed(self, wave: np.ndarray) -> np.ndarray:
        return self.embed_batch([wave])[0]


def embed_group(encoder: Encoder, waves: list[np.ndarray]) -> list[np.ndarray]:
    """The embeddings of `waves`, in their order, in as few batches as `encoder.batching` allows
    while every embedding stays the one its clip gets alone."""
    if encoder.batching == ANY_LENGTH:
        batches = [list(range(len(waves)))]
    elif encoder.batching == EQUAL_LENGTH:
        by_length: dict[int, list[int]] = {}
        for position, wave in enumerate(waves):
            by_length.setdefault(wave.size, []).append(position)
        batches = list(by_length.values())
    else:
        batches = [[position] for position in range(len(waves))]
    rows: list[np.ndarray] = [np.empty(0)] * len(waves)
    for batch in batches:
        for position, row in zip(
            batch, encoder.embed_batch([waves[p] for p in batch]), strict=True
        ):
            rows[position] = row
    return rows


def load_encoder(source: str, device: str = "cpu", trust_remote_code: bool = False) -> Encoder:
    """A transformers folder or Hub id (Whisper: encoder only, padding frames dropped; anything else
    that AutoModel loads with a feature extractor, e.g. MERT with trust_remote_code), or
    muq:REPO / muq-mulan:REPO through the `muq` package."""
    if source.startswith(("muq:", "muq-mulan:")):
        return _muq_encoder(source, device)
    from transformers import AutoConfig

    config = AutoConfig.from_pretrained(source, trust_remote_code=trust_remote_code)
    if config.model_type == "whisper":
        return _whisper_encoder(source, device)
    return _hidden_state_encoder(source, device, trust_remote_code)


def _whisper_encoder(source: str, device: str) -> Encoder:
    import torch
    from transformers import WhisperFeatureExtractor, WhisperModel

    extractor = WhisperFeatureExtractor.from_pretrained(source)
    encoder = WhisperModel.from_pretrained(source).get_encoder().to(device).eval()

    def embed_batch(waves: list[np.ndarray]) -> np.ndarray:
        features = extractor(
            waves, sampling_rate=extractor.sampling_rate, return_tensors="pt"
        ).input_features
        with torch.inference_mode():
            hidden = encoder(features.to(device)).last_hidden_state
        pooled = [
            frames[
                : valid_encoder_frames(
                    wave.size, extractor.hop_length, features.shape[-1], hidden.shape[1]
                )
            ].mean(dim=0)
            for wave, frames in zip(waves, hidden, strict=True)
        ]
        return torch.stack(pooled).float().cpu().numpy()

    pooling = "mean of the encoder's last hidden state over the frames covering audio"
    return Encoder(source, extractor.sampling_rate, pooling, embed_batch, ANY_LENGTH)


def _hidden_state_encoder(source: str, device: str, trust_remote_code: bool) -> Encoder:
    import torch
    from transformers import AutoFeatureExtractor, AutoModel

    extractor = AutoFeatureExtractor.from_pretrained(source, trust_remote_code=trust_remote_code)
    model = AutoModel.from_pretrained(source, trust_remote_code=trust_remote_code).to(device).eval()

    def embed_batch(waves: list[np.ndarray]) -> np.ndarray:
        inputs = extractor(waves, sampling_rate=extractor.sampling_rate, return_tensors="pt")
        with torch.inference_mode():
            hidden = model(**{k: v.to(device) for k, v in inputs.items()}).last_hidden_state
        return hidden.mean(dim=1).float().cpu().numpy()

    pooling = "mean of the last hidden state over time (one unpadded clip)"
    return Encoder(source, extractor.sampling_rate, pooling, embed_batch, EQUAL_LENGTH)


def _muq_encoder(source: str, device: str) -> Encoder:
    kind, _, repo = source.partition(":")
    try:
        import muq
        import torch
    except ImportError as error:
        raise ValueError(
            f"encoder {source!r} needs the 'muq' package (pip install muq), which is not installed"
        ) from error
    mulan = kind == "muq-mulan"
    model = (muq.MuQMuLan if mulan else muq.MuQ).from_pretrained(repo).to(device).eval()

    def embed_batch(waves: list[np.ndarray]) -> np.ndarray:
        (wave,) = waves
        wavs = torch.from_numpy(wave).unsqueeze(0).to(device)
        with torch.inference_mode():
            if mulan:
                output = model(wavs=wavs)[0]
            else:
                output = model(wavs, output_hidden_states=False).last_hidden_state[0].mean(dim=0)
        return output.float().cpu().numpy()[None]

    pooling = "MuQ-MuLan audio embedding" if mulan else "mean of MuQ's last hidden state over time"
    return Encoder(source, 24_000, pooling, embed_batch, ONE_CLIP)


def encoder_name(source: str) -> str:
    """A file-safe name: the last path or repository component, e.g. 'whisper-large-v2'."""
    tail = source.rstrip("/").split(":")[-1].replace("\\", "/").split("/")[-1]
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", tail).strip("._")
    if not name:
        raise ValueError(f"cannot derive a name from encoder {source!r}; pass --name")
    return name

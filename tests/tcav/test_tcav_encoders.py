"""Encoders: Whisper embeddings pool only the frames that cover audio, other transformers encoders
mean their last hidden state, audio is loaded mono and resampled, MuQ needs its package."""

from __future__ import annotations

import json

import numpy as np
import pytest
import soundfile
from support.tcav import cli, tiny_whisper, tone, write_tracks

from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.tcav import encoders


@pytest.mark.e2e
def test_whisper_embeddings_pool_only_frames_that_cover_audio(tmp_path):
    import torch
    from transformers import WhisperFeatureExtractor, WhisperModel

    model_dir = tiny_whisper(tmp_path / "tiny-whisper")
    (tmp_path / "audio").mkdir()
    soundfile.write(tmp_path / "audio" / "one_second.wav", tone(1.0, 16_000, 440.0), 16_000)
    soundfile.write(
        tmp_path / "audio" / "stereo.flac", tone(2.5, 22_050, 660.0, channels=2), 22_050
    )
    metadata = write_tracks(
        tmp_path,
        [
            ("a", "audio/one_second.wav", "pop", "female", "en"),
            ("b", "audio/stereo.flac", "rock", "male", ""),
        ],
    )
    cache = tmp_path / "cache"
    cli(
        [
            "tcav",
            "embed",
            "--metadata",
            str(metadata),
            "--encoder",
            str(model_dir),
            "--cache",
            str(cache),
            "--device",
            "cpu",
        ]
    )
    index = json.loads((cache / "index.json").read_text())
    assert index["track_ids"] == ["a", "b"] and list(index["encoders"]) == ["tiny-whisper"]
    embeddings = np.load(cache / "tiny-whisper.npy")
    assert embeddings.shape == (2, 16) and embeddings.dtype == np.float32

    extractor = WhisperFeatureExtractor.from_pretrained(model_dir)
    encoder = WhisperModel.from_pretrained(model_dir).get_encoder().eval()
    features = extractor(
        tone(1.0, 16_000, 440.0), sampling_rate=16_000, return_tensors="pt"
    ).input_features
    with torch.no_grad():
        hidden = encoder(features).last_hidden_state[0].numpy()
    assert hidden.shape[0] == 1500  # 30 s of 20 ms frames; 1 s of audio fills the first 50
    np.testing.assert_allclose(embeddings[0], hidden[:50].mean(axis=0), rtol=1e-5, atol=1e-6)
    assert not np.allclose(embeddings[0], hidden.mean(axis=0), rtol=1e-3, atol=1e-4)
    assert not np.allclose(embeddings[0], hidden[:51].mean(axis=0), rtol=1e-5, atol=1e-6)

    wave = encoders.load_audio(
        tmp_path / "audio" / "stereo.flac", 16_000
    )  # mono, resampled: 2.5 s -> 125 frames
    features = extractor(wave, sampling_rate=16_000, return_tensors="pt").input_features
    with torch.no_grad():
        hidden = encoder(features).last_hidden_state[0].numpy()
    assert wave.size == 40_000
    np.testing.assert_allclose(embeddings[1], hidden[:125].mean(axis=0), rtol=1e-5, atol=1e-6)


@pytest.mark.e2e
def test_other_transformers_encoders_mean_their_last_hidden_state(tmp_path):
    import torch
    from transformers import Wav2Vec2Config, Wav2Vec2FeatureExtractor, Wav2Vec2Model

    folder = tmp_path / "tiny-wav2vec2"
    config = Wav2Vec2Config(
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        conv_dim=(8, 8),
        conv_stride=(5, 4),
        conv_kernel=(10, 4),
        num_conv_pos_embeddings=8,
        num_conv_pos_embedding_groups=2,
        vocab_size=8,
    )
    Wav2Vec2Model(config).save_pretrained(folder)
    Wav2Vec2FeatureExtractor().save_pretrained(folder)
    encoder = encoders.load_encoder(str(folder))
    wave = tone(0.5, 16_000, 500.0)
    inputs = Wav2Vec2FeatureExtractor.from_pretrained(folder)(
        wave, sampling_rate=16_000, return_tensors="pt"
    )
    with torch.no_grad():
        expected = (
            Wav2Vec2Model.from_pretrained(folder)
            .eval()(**inputs)
            .last_hidden_state[0]
            .mean(0)
            .numpy()
        )
    np.testing.assert_allclose(encoder.embed(wave), expected, rtol=1e-5, atol=1e-6)


def test_load_audio_is_mono_resampled_and_cut(tmp_path):
    soundfile.write(tmp_path / "stereo.flac", tone(2.5, 22_050, 660.0, channels=2), 22_050)
    wave = encoders.load_audio(tmp_path / "stereo.flac", 16_000)
    assert wave.shape == (40_000,) and wave.dtype == np.float32
    assert encoders.load_audio(tmp_path / "stereo.flac", 16_000, max_seconds=1.0).size == 16_000
    (tmp_path / "bad.wav").write_bytes(b"not audio")
    with pytest.raises(DataFileError, match=r"bad\.wav: cannot read audio"):
        encoders.load_audio(tmp_path / "bad.wav", 16_000)


def test_valid_encoder_frames():
    assert encoders.valid_encoder_frames(16_000, 160, 3000, 1500) == 50
    assert encoders.valid_encoder_frames(16_001, 160, 3000, 1500) == 51
    assert encoders.valid_encoder_frames(480_000, 160, 3000, 1500) == 1500
    assert encoders.valid_encoder_frames(10 * 480_000, 160, 3000, 1500) == 1500
    assert encoders.valid_encoder_frames(1, 160, 3000, 1500) == 1


def test_muq_needs_its_package():
    pytest.importorskip("transformers")
    try:
        import muq  # noqa: F401
    except ImportError:
        with pytest.raises(ValueError, match="needs the 'muq' package"):
            encoders.load_encoder("muq:OpenMuQ/MuQ-large-msd-iter")
    else:
        pytest.skip("muq is installed")

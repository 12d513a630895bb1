"""`tcav embed` in batches: every embedding equals the one its clip gets alone, batches hold only
clips the encoder may share a batch with, the cache ignores the batch size and the progress bar
counts tracks."""

from __future__ import annotations

import argparse

import numpy as np
import pytest
import soundfile
from support.tcav import tiny_whisper, tone, write_tracks

from symphony_bench.plugin.tcav import cache, command, encoders
from symphony_bench.plugin.tcav.encoders import Encoder
from symphony_bench.plugin.tcav.metadata import read_metadata

# (seconds, sample rate): repeated lengths, lengths that differ by one sample after resampling,
# and a clip longer than Whisper's 30 s window before the cut.
CLIPS = [(1.0, 16_000), (2.5, 22_050), (1.0, 16_000), (0.5, 16_000), (2.5, 22_050), (1.0, 8_000)]


def tracks(tmp_path, clips=CLIPS):
    (tmp_path / "audio").mkdir()
    rows = []
    for k, (seconds, rate) in enumerate(clips):
        soundfile.write(tmp_path / "audio" / f"{k}.wav", tone(seconds, rate, 200.0 + 70 * k), rate)
        rows.append((f"t{k}", f"audio/{k}.wav", "pop", "female", "en"))
    return read_metadata(write_tracks(tmp_path, rows), audio_column="audio_path")


def recording_batches(monkeypatch):
    """Wraps the real encoder loader; returns the list the size of every batch is appended to."""
    sizes = []
    load = encoders.load_encoder

    def recorded(source, device, trust_remote_code):
        encoder = load(source, device, trust_remote_code)
        embed_batch = encoder.embed_batch

        def counted(waves):
            sizes.append(len(waves))
            return embed_batch(waves)

        encoder.embed_batch = counted
        return encoder

    monkeypatch.setattr(cache, "load_encoder", recorded)
    return sizes


def one_at_a_time_and_batched(tmp_path, monkeypatch, model, batch_size):
    metadata = tracks(tmp_path)
    sizes = recording_batches(monkeypatch)
    alone = np.load(
        cache.embed_tracks(metadata, str(model), tmp_path / "one", log=print, batch_size=1)
    )
    assert sizes == [1] * len(CLIPS)
    sizes.clear()
    batched = cache.embed_tracks(
        metadata, str(model), tmp_path / "batched", log=print, batch_size=batch_size
    )
    return alone, np.load(batched), sizes


@pytest.mark.slow  # ~10 s on a loaded 2-core machine: six clips padded to 30 s, twice
def test_whisper_batches_any_lengths_and_gives_the_one_at_a_time_embeddings(tmp_path, monkeypatch):
    model = tiny_whisper(tmp_path / "tiny-whisper")
    alone, batched, sizes = one_at_a_time_and_batched(tmp_path, monkeypatch, model, 4)
    assert sizes == [4, 2]
    np.testing.assert_allclose(batched, alone, rtol=1e-5, atol=1e-6)
    assert len({row.tobytes() for row in alone}) == len(CLIPS)  # the clips differ


@pytest.mark.slow  # ~10 s: importing wav2vec2 from transformers
def test_unpadded_encoders_batch_equal_lengths_only_and_give_the_same_embeddings(
    tmp_path, monkeypatch
):
    from transformers import Wav2Vec2Config, Wav2Vec2FeatureExtractor, Wav2Vec2Model

    model = tmp_path / "tiny-wav2vec2"
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
    Wav2Vec2Model(config).save_pretrained(model)
    Wav2Vec2FeatureExtractor(do_normalize=True).save_pretrained(model)
    alone, batched, sizes = one_at_a_time_and_batched(tmp_path, monkeypatch, model, 6)
    # 16 kHz: 1 s (x3: the 8 kHz clip resampled), 2.5 s (x2), 0.5 s
    assert sorted(sizes) == [1, 2, 3]
    np.testing.assert_allclose(batched, alone, rtol=1e-5, atol=1e-6)


def test_embed_group_keeps_order_and_the_encoder_s_batching():
    waves = [np.full(n, float(k), dtype=np.float32) for k, n in enumerate([3, 5, 3, 5, 4])]
    seen = []

    def embed_batch(batch):
        seen.append([int(w[0]) for w in batch])
        return np.array([[w[0], w.size] for w in batch])

    expected = [[k, w.size] for k, w in enumerate(waves)]
    for batching, batches in [
        (encoders.ANY_LENGTH, [[0, 1, 2, 3, 4]]),
        (encoders.EQUAL_LENGTH, [[0, 2], [1, 3], [4]]),
        (encoders.ONE_CLIP, [[0], [1], [2], [3], [4]]),
    ]:
        seen.clear()
        rows = encoders.embed_group(Encoder("s", 16_000, "p", embed_batch, batching), waves)
        assert seen == batches
        np.testing.assert_array_equal(np.array(rows), expected)


class Counter:
    """Stands in for plugin.core.progress.progress: records its total and every update."""

    def __init__(self, total, what):
        self.total, self.what, self.updates = total, what, []
        counters.append(self)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def update(self, n=1):
        self.updates.append(n)


counters: list[Counter] = []


@pytest.mark.parametrize(("batch_size", "updates"), [(1, [1] * 6), (4, [4, 2]), (8, [6])])
def test_progress_counts_tracks_and_the_cache_ignores_the_batch_size(
    tmp_path, monkeypatch, batch_size, updates
):
    embedded = []

    def stand_in(source, device, trust_remote_code):
        def embed_batch(waves):
            embedded.extend(wave.size for wave in waves)
            return np.array([[np.abs(wave).max(), wave.size] for wave in waves])

        return Encoder(source, 16_000, "peak and length", embed_batch, encoders.EQUAL_LENGTH)

    monkeypatch.setattr(cache, "load_encoder", stand_in)
    monkeypatch.setattr(cache, "progress", Counter)
    counters.clear()
    metadata = tracks(tmp_path)
    folder = tmp_path / "c"
    path = cache.embed_tracks(metadata, "org/e", folder, log=print, batch_size=batch_size)
    (counter,) = counters
    assert (counter.total, counter.what, counter.updates) == (6, "embedding tracks", updates)
    assert len(embedded) == 6
    np.testing.assert_array_equal(
        np.load(path)[:, 1], [16_000, 40_000, 16_000, 8_000, 40_000, 16_000]
    )
    for other in (1, 3, 8):
        cache.embed_tracks(metadata, "org/e", folder, log=print, batch_size=other)
    assert len(embedded) == 6 and len(counters) == 1


def test_batch_size_defaults_to_eight_and_must_be_positive(capsys):
    embed = ["tcav", "embed", "--metadata", "m.csv", "--encoder", "e", "--cache", "c"]
    root = argparse.ArgumentParser(prog="symphony-bench")
    command.add_commands(root.add_subparsers(dest="command", required=True))
    assert root.parse_args(embed).batch_size == 8
    assert root.parse_args([*embed, "--batch-size", "32"]).batch_size == 32
    with pytest.raises(SystemExit):
        root.parse_args([*embed, "--batch-size", "0"])
    assert "argument --batch-size: expected a whole number >= 1" in capsys.readouterr().err

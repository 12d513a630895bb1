"""The embedding cache of `tcav embed`: CACHE/<name>.npy per encoder (float32, rows in the metadata's
order) and CACHE/index.json (track ids; per encoder its file, source, pooling and a fingerprint of the
audio), rewritten atomically; and the alignment of cached or precomputed embeddings to the metadata."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np

from symphony_bench.plugin.core.atomic import refuse_overlap, staged_directory
from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.core.progress import progress
from symphony_bench.plugin.tcav.defaults import DEFAULT_BATCH_SIZE, DEFAULT_MAX_SECONDS
from symphony_bench.plugin.tcav.encoders import (
    Encoder,
    embed_group,
    encoder_name,
    load_audio,
    load_encoder,
)
from symphony_bench.plugin.tcav.metadata import Metadata

INDEX_FILE = "index.json"


def _check_audio(metadata: Metadata) -> None:
    """Every audio file exists and has a readable header, before any model is loaded."""
    import soundfile

    if metadata.audio is None:
        raise ValueError("the metadata has no audio column")
    missing = [str(p) for p in metadata.audio if not p.is_file()]
    if missing:
        raise DataFileError(
            f"{metadata.path}: audio file {missing[0]} does not exist"
            + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else "")
        )
    for path in metadata.audio:
        try:
            soundfile.info(str(path))
        except (soundfile.LibsndfileError, RuntimeError) as error:
            raise DataFileError(f"{path}: cannot read audio ({error})") from error


def audio_fingerprint(metadata: Metadata, source: str, max_seconds: float | None) -> str:
    """Changes when the encoder, the cut, a track id or an audio file (path, size, mtime) changes."""
    tracks = [
        [i, str(p), p.stat().st_size, p.stat().st_mtime_ns]
        for i, p in zip(metadata.track_ids, metadata.audio, strict=True)
    ]
    payload = json.dumps({"source": source, "max_seconds": max_seconds, "tracks": tracks})
    return hashlib.sha256(payload.encode()).hexdigest()


def read_index(cache: Path) -> dict:
    path = Path(cache) / INDEX_FILE
    try:
        index = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(index.get("track_ids"), list) or not isinstance(
            index.get("encoders"), dict
        ):
            raise ValueError("no track_ids list or encoders mapping")
        return index
    except (OSError, ValueError) as error:
        raise DataFileError(f"{path}: not an embedding cache index ({error})") from error


def embed_tracks(
    metadata: Metadata,
    source: str,
    cache: Path,
    name: str | None = None,
    device: str = "cpu",
    trust_remote_code: bool = False,
    max_seconds: float | None = DEFAULT_MAX_SECONDS,
    force: bool = False,
    log=print,
    batch_size: int = DEFAULT_BATCH_SIZE,
) -> Path:
    """Embed every track into CACHE/<name>.npy (float32, rows in metadata order) unless the cache
    already holds this encoder for the same tracks and audio files. Returns the .npy path.
    `batch_size` tracks are loaded at a time and embedded in as few batches as the encoder allows
    (encoders.embed_group); it changes no embedding, so it is not part of the cache's fingerprint."""
    _check_audio(metadata)
    name = name or encoder_name(source)
    cache = Path(cache)
    refuse_overlap(cache, [metadata.path, *metadata.audio])  # before the encoder loads
    fingerprint = audio_fingerprint(metadata, source, max_seconds)
    index = (
        read_index(cache) if (cache / INDEX_FILE).is_file() else {"track_ids": [], "encoders": {}}
    )
    same_tracks = index["track_ids"] == list(metadata.track_ids)
    if (
        same_tracks
        and not force
        and index["encoders"].get(name, {}).get("fingerprint") == fingerprint
    ):
        log(
            f"{cache / index['encoders'][name]['file']}: cached, not recomputed (--force recomputes)"
        )
        return cache / index["encoders"][name]["file"]
    encoder = load_encoder(source, device, trust_remote_code)
    matrix = _embed_all(metadata, encoder, max_seconds, batch_size)
    kept = {k: v for k, v in index["encoders"].items() if k != name} if same_tracks else {}
    if index["encoders"] and not same_tracks:
        log(
            f"{cache}: the track list changed; dropping cached encoders {sorted(index['encoders'])}"
        )
    entry = {
        "file": f"{name}.npy",
        "source": source,
        "dim": int(matrix.shape[1]),
        "pooling": encoder.pooling,
        "sample_rate": encoder.sample_rate,
        "max_seconds": max_seconds,
        "fingerprint": fingerprint,
    }
    with staged_directory(
        cache, kind=CACHE_KIND, inputs=[metadata.path, *metadata.audio]
    ) as staging:
        for other in kept.values():
            shutil.copy2(cache / other["file"], staging / other["file"])
        np.save(staging / entry["file"], matrix)
        index = {
            "metadata": str(metadata.path),
            "track_ids": list(metadata.track_ids),
            "encoders": {**kept, name: entry},
        }
        (staging / INDEX_FILE).write_text(json.dumps(index, indent=2) + "\n", encoding="utf-8")
    return cache / entry["file"]


def _embed_all(metadata: Metadata, encoder: Encoder, max_seconds, batch_size: int) -> np.ndarray:
    rows = []
    paths = list(metadata.audio)
    with progress(len(paths), "embedding tracks") as counter:
        for start in range(0, len(paths), batch_size):
            waves = [
                load_audio(path, encoder.sample_rate, max_seconds)
                for path in paths[start : start + batch_size]
            ]
            rows.extend(embed_group(encoder, waves))
            counter.update(len(waves))
    matrix = np.stack(rows).astype(np.float32)
    if not np.all(np.isfinite(matrix)):
        raise ValueError(f"encoder {encoder.source!r} produced NaN or infinite embeddings")
    return matrix


CACHE_KIND = "tcav-cache"  # the kind in the cache folder's build marker


def cached_embeddings(
    metadata: Metadata, cache: Path, name: str | None = None
) -> tuple[np.ndarray, str]:
    """(embeddings in metadata order, encoder name) from an `embed` cache."""
    cache = Path(cache)
    index = read_index(cache)
    names = sorted(index["encoders"])
    if name is None and len(names) != 1:
        raise ValueError(f"{cache}: holds encoders {names}; choose one with --encoder")
    name = name or names[0]
    if name not in index["encoders"]:
        raise DataFileError(f"{cache}: no encoder {name!r}; it holds {names}")
    matrix = _load_matrix(cache / index["encoders"][name]["file"])
    return align_embeddings(metadata, matrix, index["track_ids"], cache / INDEX_FILE), name


def precomputed_embeddings(metadata: Metadata, npy: Path, ids: Path) -> np.ndarray:
    """Rows of `npy` matched to the metadata by the track ids in `ids` (one per line, in row order)."""
    try:
        lines = [line.strip() for line in Path(ids).read_text(encoding="utf-8-sig").splitlines()]
    except (OSError, UnicodeDecodeError) as error:
        raise DataFileError(f"{ids}: cannot read ({error})") from error
    return align_embeddings(
        metadata, _load_matrix(npy), [line for line in lines if line], Path(ids)
    )


def _load_matrix(path: Path) -> np.ndarray:
    try:
        matrix = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as error:
        raise DataFileError(f"{path}: cannot read embeddings ({error})") from error
    real = np.issubdtype(matrix.dtype, np.floating) or np.issubdtype(matrix.dtype, np.integer)
    if matrix.ndim != 2 or not real:
        raise DataFileError(
            f"{path}: embeddings must be a 2-D array of real numbers, got {matrix.dtype} of shape {matrix.shape}"
        )
    if not np.all(np.isfinite(matrix)):
        raise DataFileError(f"{path}: embeddings contain NaN or infinite values")
    return matrix


def align_embeddings(metadata: Metadata, matrix: np.ndarray, ids, source: Path) -> np.ndarray:
    ids = list(ids)
    if len(ids) != matrix.shape[0]:
        raise DataFileError(f"{source}: {len(ids)} track ids for {matrix.shape[0]} embedding rows")
    if len(set(ids)) != len(ids):
        raise DataFileError(f"{source}: duplicate track ids")
    position = {track: row for row, track in enumerate(ids)}
    missing = [t for t in metadata.track_ids if t not in position]
    if missing:
        raise DataFileError(
            f"{source}: no embedding for {len(missing)} tracks of {metadata.path}, e.g. {missing[:3]}"
        )
    return matrix[[position[t] for t in metadata.track_ids]]

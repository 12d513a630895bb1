"""`symphony-bench tcav`: is an audio encoder's genre representation entangled with singer gender or
language? (TCAV probe after "Beyond Genre", Gebhardt et al., ISMIR 2025.)

    symphony-bench tcav embed   --metadata tracks.csv --encoder openai/whisper-large-v2 --cache emb/
    symphony-bench tcav analyse --metadata tracks.csv --cache emb/ --out runs/tcav-whisper

`embed` caches one mean-pooled last-hidden-state embedding per track (EMB/<name>.npy plus
EMB/index.json); `analyse` runs the CAV/TCAV analysis of `symphony_bench.metrics.tcav` on them (or on
precomputed `--embeddings X.npy --ids ids.txt`) and writes JSON and CSV tables and violin plots.

Whisper pads every clip to 30 s of log-mel frames. The paper's code averages the padding frames into
the embedding; here only the encoder frames that cover real audio are averaged: a clip of n samples
fills ceil(n / hop) mel frames, and each encoder frame spans (input frames / output frames) = 2 mel
frames (20 ms), so the first ceil(ceil(n / hop) / 2) encoder frames are kept.
"""

from __future__ import annotations

import argparse
import collections
import csv
import hashlib
import json
import math
import re
import shutil
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from symphony_bench.metrics import tcav
from symphony_bench.plugin.atomic import staged_directory
from symphony_bench.plugin.scenarios import DataFileError

INDEX_FILE = "index.json"
DEFAULT_CONCEPT_COLUMNS = ("gender", "language")
DEFAULT_MAX_SECONDS = 30.0
COLOURS = {"positive": "#1f77b4", "negative": "#ff7f0e", "none": "#b0b0b0"}  # as the paper's Figure 1


# ----------------------------------------------------------------------------- metadata


@dataclass(frozen=True)
class Metadata:
    path: Path
    track_ids: tuple[str, ...]
    genres: np.ndarray  # (n,) str
    attributes: dict  # concept column -> (n,) str, "" where unknown
    audio: tuple[Path, ...] | None  # resolved against the CSV's folder; None without an audio column


def read_metadata(path: Path, id_column: str = "track_id", genre_column: str = "genre",
                  concept_columns=DEFAULT_CONCEPT_COLUMNS, audio_column: str | None = None) -> Metadata:
    """One row per track. Track ids must be unique and every row needs a genre (and an audio path
    when `audio_column` is given); an empty concept value means unknown."""
    path = Path(path)
    columns = [id_column, genre_column, *concept_columns] + ([audio_column] if audio_column else [])
    rows = _read_rows(path, columns)
    ids = [row[id_column] for row in rows]
    for line, row in enumerate(rows, start=2):
        for column in [id_column, genre_column] + ([audio_column] if audio_column else []):
            if not row[column]:
                raise DataFileError(f"{path}, line {line}: empty {column!r}")
    duplicates = sorted(i for i, count in collections.Counter(ids).items() if count > 1)
    if duplicates:
        raise DataFileError(f"{path}: duplicate track ids {duplicates[:5]}")
    audio = tuple((path.parent / row[audio_column]).resolve() for row in rows) if audio_column else None
    return Metadata(path, tuple(ids), np.array([row[genre_column] for row in rows], dtype=str),
                    {c: np.array([row[c] for row in rows], dtype=str) for c in concept_columns}, audio)


def _read_rows(path: Path, columns) -> list[dict]:
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            present = reader.fieldnames or []
            for column in columns:
                if column not in present:
                    raise DataFileError(f"{path}: no column {column!r}; the columns are {present}")
            rows = [{c: (row[c] or "").strip() for c in columns} for row in reader]
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise DataFileError(f"{path}: cannot read ({error})") from error
    if not rows:
        raise DataFileError(f"{path}: no tracks")
    return rows


def parse_concepts(specs, metadata: Metadata) -> list[tuple[str, str]]:
    """COLUMN=VALUE strings -> (column, value); none given: every value of every concept column."""
    if not specs:
        return [(c, v) for c, values in metadata.attributes.items() for v in sorted(set(values) - {""})]
    concepts = []
    for spec in specs:
        column, sep, value = spec.partition("=")
        if not sep or column not in metadata.attributes:
            columns = sorted(metadata.attributes)
            raise ValueError(f"concept {spec!r}: expected COLUMN=VALUE with COLUMN one of {columns}")
        if value not in set(metadata.attributes[column]):
            raise DataFileError(f"{metadata.path}: no track has {column}={value!r}")
        concepts.append((column, value))
    return concepts


# ----------------------------------------------------------------------------- audio and encoders


def load_audio(path: Path, sample_rate: int, max_seconds: float | None = DEFAULT_MAX_SECONDS) -> np.ndarray:
    """Mono float32 at `sample_rate` (polyphase resampling), cut to the first `max_seconds`."""
    import soundfile
    from scipy.signal import resample_poly

    try:
        data, rate = soundfile.read(str(path), dtype="float32", always_2d=True)
    except (soundfile.LibsndfileError, RuntimeError, OSError) as error:
        raise DataFileError(f"{path}: cannot read audio ({error})") from error
    wave = data.mean(axis=1)
    if rate != sample_rate:
        common = math.gcd(int(rate), int(sample_rate))
        wave = resample_poly(wave, sample_rate // common, rate // common).astype(np.float32)
    if max_seconds:
        wave = wave[: int(round(max_seconds * sample_rate))]
    if wave.size == 0:
        raise DataFileError(f"{path}: no audio samples")
    return wave


def valid_encoder_frames(n_samples: int, hop_length: int, input_frames: int, output_frames: int) -> int:
    """Encoder frames that cover real audio when `n_samples` are padded to `input_frames` feature
    frames of `hop_length` samples and the encoder maps those to `output_frames` frames."""
    audio_frames = min(input_frames, math.ceil(n_samples / hop_length))
    return max(1, min(output_frames, math.ceil(audio_frames * output_frames / input_frames)))


@dataclass
class Encoder:
    source: str
    sample_rate: int
    pooling: str  # how the embedding is made, for the cache index
    embed: Callable[[np.ndarray], np.ndarray]  # mono waveform at sample_rate -> (d,)


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

    def embed(wave: np.ndarray) -> np.ndarray:
        features = extractor(wave, sampling_rate=extractor.sampling_rate, return_tensors="pt").input_features
        with torch.inference_mode():
            hidden = encoder(features.to(device)).last_hidden_state[0]
        valid = valid_encoder_frames(wave.size, extractor.hop_length, features.shape[-1], hidden.shape[0])
        return hidden[:valid].mean(dim=0).float().cpu().numpy()

    pooling = "mean of the encoder's last hidden state over the frames covering audio"
    return Encoder(source, extractor.sampling_rate, pooling, embed)


def _hidden_state_encoder(source: str, device: str, trust_remote_code: bool) -> Encoder:
    import torch
    from transformers import AutoFeatureExtractor, AutoModel

    extractor = AutoFeatureExtractor.from_pretrained(source, trust_remote_code=trust_remote_code)
    model = AutoModel.from_pretrained(source, trust_remote_code=trust_remote_code).to(device).eval()

    def embed(wave: np.ndarray) -> np.ndarray:
        inputs = extractor(wave, sampling_rate=extractor.sampling_rate, return_tensors="pt")
        with torch.inference_mode():
            hidden = model(**{k: v.to(device) for k, v in inputs.items()}).last_hidden_state[0]
        return hidden.mean(dim=0).float().cpu().numpy()

    pooling = "mean of the last hidden state over time (one unpadded clip)"
    return Encoder(source, extractor.sampling_rate, pooling, embed)


def _muq_encoder(source: str, device: str) -> Encoder:
    kind, _, repo = source.partition(":")
    try:
        import muq
        import torch
    except ImportError as error:
        raise ValueError(f"encoder {source!r} needs the 'muq' package (pip install muq), "
                         "which is not installed") from error
    mulan = kind == "muq-mulan"
    model = (muq.MuQMuLan if mulan else muq.MuQ).from_pretrained(repo).to(device).eval()

    def embed(wave: np.ndarray) -> np.ndarray:
        wavs = torch.from_numpy(wave).unsqueeze(0).to(device)
        with torch.inference_mode():
            if mulan:
                output = model(wavs=wavs)[0]
            else:
                output = model(wavs, output_hidden_states=False).last_hidden_state[0].mean(dim=0)
        return output.float().cpu().numpy()

    pooling = "MuQ-MuLan audio embedding" if mulan else "mean of MuQ's last hidden state over time"
    return Encoder(source, 24_000, pooling, embed)


def encoder_name(source: str) -> str:
    """A file-safe name: the last path or repository component, e.g. 'whisper-large-v2'."""
    tail = source.rstrip("/").split(":")[-1].replace("\\", "/").split("/")[-1]
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", tail).strip("._")
    if not name:
        raise ValueError(f"cannot derive a name from encoder {source!r}; pass --name")
    return name


# ----------------------------------------------------------------------------- embedding cache


def _check_audio(metadata: Metadata) -> None:
    """Every audio file exists and has a readable header, before any model is loaded."""
    import soundfile

    if metadata.audio is None:
        raise ValueError("the metadata has no audio column")
    missing = [str(p) for p in metadata.audio if not p.is_file()]
    if missing:
        raise DataFileError(f"{metadata.path}: audio file {missing[0]} does not exist"
                            + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""))
    for path in metadata.audio:
        try:
            soundfile.info(str(path))
        except (soundfile.LibsndfileError, RuntimeError) as error:
            raise DataFileError(f"{path}: cannot read audio ({error})") from error


def audio_fingerprint(metadata: Metadata, source: str, max_seconds: float | None) -> str:
    """Changes when the encoder, the cut, a track id or an audio file (path, size, mtime) changes."""
    tracks = [[i, str(p), p.stat().st_size, p.stat().st_mtime_ns] for i, p in zip(metadata.track_ids, metadata.audio)]
    payload = json.dumps({"source": source, "max_seconds": max_seconds, "tracks": tracks})
    return hashlib.sha256(payload.encode()).hexdigest()


def read_index(cache: Path) -> dict:
    path = Path(cache) / INDEX_FILE
    try:
        index = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(index.get("track_ids"), list) or not isinstance(index.get("encoders"), dict):
            raise ValueError("no track_ids list or encoders mapping")
        return index
    except (OSError, ValueError) as error:
        raise DataFileError(f"{path}: not an embedding cache index ({error})") from error


def embed_tracks(metadata: Metadata, source: str, cache: Path, name: str | None = None, device: str = "cpu",
                 trust_remote_code: bool = False, max_seconds: float | None = DEFAULT_MAX_SECONDS,
                 force: bool = False, log=print) -> Path:
    """Embed every track into CACHE/<name>.npy (float32, rows in metadata order) unless the cache
    already holds this encoder for the same tracks and audio files. Returns the .npy path."""
    _check_audio(metadata)
    name = name or encoder_name(source)
    cache = Path(cache)
    fingerprint = audio_fingerprint(metadata, source, max_seconds)
    index = read_index(cache) if (cache / INDEX_FILE).is_file() else {"track_ids": [], "encoders": {}}
    same_tracks = index["track_ids"] == list(metadata.track_ids)
    if same_tracks and not force and index["encoders"].get(name, {}).get("fingerprint") == fingerprint:
        log(f"{cache / index['encoders'][name]['file']}: cached, not recomputed (--force recomputes)")
        return cache / index["encoders"][name]["file"]
    encoder = load_encoder(source, device, trust_remote_code)
    matrix = _embed_all(metadata, encoder, max_seconds, log)
    kept = {k: v for k, v in index["encoders"].items() if k != name} if same_tracks else {}
    if index["encoders"] and not same_tracks:
        log(f"{cache}: the track list changed; dropping cached encoders {sorted(index['encoders'])}")
    entry = {"file": f"{name}.npy", "source": source, "dim": int(matrix.shape[1]), "pooling": encoder.pooling,
             "sample_rate": encoder.sample_rate, "max_seconds": max_seconds, "fingerprint": fingerprint}
    with staged_directory(cache) as staging:
        for other in kept.values():
            shutil.copy2(cache / other["file"], staging / other["file"])
        np.save(staging / entry["file"], matrix)
        index = {"metadata": str(metadata.path), "track_ids": list(metadata.track_ids),
                 "encoders": {**kept, name: entry}}
        (staging / INDEX_FILE).write_text(json.dumps(index, indent=2) + "\n", encoding="utf-8")
    return cache / entry["file"]


def _embed_all(metadata: Metadata, encoder: Encoder, max_seconds, log) -> np.ndarray:
    rows = []
    for k, path in enumerate(metadata.audio, start=1):
        rows.append(encoder.embed(load_audio(path, encoder.sample_rate, max_seconds)))
        if k % 100 == 0 or k == len(metadata.audio):
            log(f"embedded {k}/{len(metadata.audio)} tracks")
    matrix = np.stack(rows).astype(np.float32)
    if not np.all(np.isfinite(matrix)):
        raise ValueError(f"encoder {encoder.source!r} produced NaN or infinite embeddings")
    return matrix


def cached_embeddings(metadata: Metadata, cache: Path, name: str | None = None) -> tuple[np.ndarray, str]:
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
    return align_embeddings(metadata, _load_matrix(npy), [line for line in lines if line], Path(ids))


def _load_matrix(path: Path) -> np.ndarray:
    try:
        matrix = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as error:
        raise DataFileError(f"{path}: cannot read embeddings ({error})") from error
    if matrix.ndim != 2 or not np.issubdtype(matrix.dtype, np.number):
        raise DataFileError(f"{path}: embeddings must be a 2-D numeric array, got shape {matrix.shape}")
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
        raise DataFileError(f"{source}: no embedding for {len(missing)} tracks of {metadata.path}, e.g. {missing[:3]}")
    return matrix[[position[t] for t in metadata.track_ids]]


# ----------------------------------------------------------------------------- analysis and outputs


@dataclass(frozen=True)
class DebiasRequest:
    genre: str
    column: str = "gender"
    toward: str = "female"
    away: str = "male"
    steps: int = 101


def run_analysis(metadata: Metadata, embeddings: np.ndarray, concepts, settings: tcav.Settings, out: Path,
                 encoder: str = "", debias: DebiasRequest | None = None) -> dict:
    """Analyse, then write OUT/ (atomically): tcav.json, tcav_scores.csv, concepts.csv,
    run_scores.npz, plots/tcav_<concept>.png and, with `debias`, debias.csv and plots/debias.png."""
    results, tests = tcav.analyse(embeddings, metadata.genres, metadata.attributes, concepts, settings)
    curve = None
    if debias is not None:
        _check_debias_request(metadata, debias)
        curve = tcav.debias(embeddings, metadata.genres, metadata.attributes[debias.column], debias.genre,
                            debias.column, debias.toward, debias.away, settings, np.linspace(0.0, 1.0, debias.steps))
    report = build_report(metadata, embeddings, encoder, settings, results, tests, curve)
    with staged_directory(out) as staging:
        _write_outputs(staging, report, results, tests, curve)
    return report


def _check_debias_request(metadata: Metadata, debias: DebiasRequest) -> None:
    if debias.column not in metadata.attributes:
        raise ValueError(f"debias column {debias.column!r} is not a concept column {sorted(metadata.attributes)}")
    if debias.genre not in set(metadata.genres):
        raise DataFileError(f"{metadata.path}: no track has genre {debias.genre!r}")
    for value in (debias.toward, debias.away):
        if value not in set(metadata.attributes[debias.column]):
            raise DataFileError(f"{metadata.path}: no track has {debias.column}={value!r}")
    if debias.steps < 2:
        raise ValueError(f"--debias-steps must be at least 2, got {debias.steps}")


def _direction(mean: float, significant: bool) -> str:
    return "none" if not significant else ("positive" if mean > 0.5 else "negative")


def build_report(metadata, embeddings, encoder, settings, results, tests, curve) -> dict:
    reliable = {r.name: r.reliable for r in results}
    sizes = {(r.name, g): int(n) for r in results for g, n in zip(r.split.strata, r.genre_test_sizes)}
    rows = [
        {"concept": c, "genre": g, "n_test_tracks": sizes[(c, g)], "score_mean": tests.mean[j],
         "score_sd": float(np.std(tests.scores[:, j], ddof=1)), "standard_error": tests.standard_error[j],
         "ci_low": tests.ci[j, 0], "ci_high": tests.ci[j, 1], "p_value": tests.p_value[j],
         "p_bonferroni": tests.p_bonferroni[j], "p_calibrated": tests.p_calibrated[j],
         "p_paper_ttest": tests.p_paper[j], "significant": bool(tests.significant[j]),
         "direction": _direction(tests.mean[j], tests.significant[j]), "reliable_cav": reliable[c]}
        for j, (c, g) in enumerate(zip(tests.concepts, tests.genres))
    ]
    concepts = [
        {"concept": r.name, "column": r.column, "value": r.value, "n_train": int(r.split.train.size),
         "n_test": int(r.split.test.size), "tracks_per_run": r.subset_size, "accuracy_mean": r.accuracy.mean(),
         "accuracy_sd": float(np.std(r.accuracy, ddof=1)), "reliable": r.reliable, "genres": list(r.split.strata),
         "skipped_genres": list(r.split.skipped)}
        for r in results
    ]
    return _finite_or_none({
        "encoder": encoder, "metadata": str(metadata.path), "n_tracks": len(metadata.track_ids),
        "embedding_dim": int(embeddings.shape[1]), "settings": asdict(settings), "n_tests": tests.n_tests,
        "bonferroni_level": settings.alpha / tests.n_tests, "concepts": concepts, "tests": rows,
        "debias": None if curve is None else _debias_report(curve),
    })


def _debias_report(curve: tcav.DebiasResult) -> dict:
    return {"genre": curve.genre, "column": curve.column, "groups": list(curve.groups), "n_ranked": curve.n_ranked,
            "lambdas": curve.lambdas.tolist(),
            "top_half_shares": {label: {g: shares[:, k].tolist() for k, g in enumerate(curve.groups)}
                                for label, shares in curve.curves.items()}}


def _finite_or_none(value):
    """JSON-safe: numpy scalars to Python, NaN and infinities to None."""
    if isinstance(value, dict):
        return {k: _finite_or_none(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite_or_none(v) for v in value]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value) if math.isfinite(value) else None
    return value


def _write_outputs(folder: Path, report: dict, results, tests: tcav.TcavTests, curve) -> None:
    (folder / "tcav.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    _write_csv(folder / "tcav_scores.csv", report["tests"])
    _write_csv(folder / "concepts.csv", [
        {**c, "genres": ";".join(c["genres"]), "skipped_genres": ";".join(c["skipped_genres"])}
        for c in report["concepts"]
    ])
    np.savez(folder / "run_scores.npz", scores=tests.scores, concepts=np.array(tests.concepts),
             genres=np.array(tests.genres))
    plots = folder / "plots"
    plots.mkdir()
    for result in results:
        plot_concept(plots / f"tcav_{_slug(result.name)}.png", result, tests, report["bonferroni_level"])
    if curve is not None:
        _write_csv(folder / "debias.csv", _debias_rows(curve))
        plot_debias(plots / "debias.png", curve)


def _write_csv(path: Path, rows: list[dict]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows({k: ("" if v is None else v) for k, v in row.items()} for row in rows)


def _debias_rows(curve: tcav.DebiasResult) -> list[dict]:
    rows = []
    for label, shares in curve.curves.items():
        for lam, row in zip(curve.lambdas, shares):
            rows.append({"operation": label, "lambda": float(lam), **{f"share_{g}": float(v) for g, v in zip(curve.groups, row)}})
    return rows


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text)


def plot_concept(path: Path, result: tcav.ConceptResult, tests: tcav.TcavTests, level: float) -> None:
    """Horizontal violins of the runs' TCAV scores per genre (sorted by mean), the Bonferroni CI as a
    box, blue / orange for a significant positive / negative association, grey otherwise."""
    from matplotlib.figure import Figure

    columns = [j for j, c in enumerate(tests.concepts) if c == result.name]
    columns.sort(key=lambda j: tests.mean[j])
    figure = Figure(figsize=(6.5, 1.2 + 0.42 * len(columns)))
    axes = figure.subplots()
    positions = np.arange(1, len(columns) + 1)
    violins = axes.violinplot([tests.scores[:, j] for j in columns], positions, orientation="horizontal",
                              showextrema=False, widths=0.8)
    for body, j in zip(violins["bodies"], columns):
        body.set_facecolor(COLOURS[_direction(tests.mean[j], tests.significant[j])])
        body.set_alpha(0.6)
    for y, j in zip(positions, columns):
        low, high = tests.ci[j]
        axes.add_patch(_ci_box(low, high, y))
        axes.plot(tests.mean[j], y, "k|", markersize=10)
    axes.axvline(0.5, color="black", linewidth=0.8)
    axes.set_yticks(positions, [tests.genres[j] for j in columns])
    axes.set_xlim(0.0, 1.0)
    axes.set_xlabel(f"TCAV score ({len(tests.scores)} runs); box: {100 * (1 - level):.2f}% CI (Bonferroni)")
    flag = "" if result.reliable else "  [unreliable CAV]"
    axes.set_title(f"{result.name}: CAV accuracy {result.accuracy.mean():.2f}{flag}", fontsize=10)
    figure.tight_layout()
    figure.savefig(path, dpi=120)


def _ci_box(low: float, high: float, y: float):
    from matplotlib.patches import Rectangle

    return Rectangle((low, y - 0.12), high - low, 0.24, fill=False, edgecolor="black", linewidth=0.8)


def plot_debias(path: Path, curve: tcav.DebiasResult) -> None:
    from matplotlib.figure import Figure

    figure = Figure(figsize=(5.5, 3.8))
    axes = figure.subplots()
    away = curve.groups[1]
    for label, shares in curve.curves.items():
        axes.plot(curve.lambdas, shares[:, 1], label=label)
    axes.axhline(0.5, color="grey", linewidth=0.8, linestyle="--")
    axes.set_xlabel("adjustment weight λ")
    axes.set_ylabel(f"share of {curve.column}={away} in the top half")
    axes.set_ylim(0.0, 1.0)
    axes.set_title(f"{curve.genre} CAV, {curve.n_ranked} balanced held-out tracks", fontsize=10)
    axes.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=120)


# ----------------------------------------------------------------------------- command line


def add_tcav_command(subparsers) -> None:
    """Adds `tcav embed` and `tcav analyse` to an argparse subparsers object."""
    command = subparsers.add_parser("tcav", help="TCAV probe: are an audio encoder's genre representations "
                                                 "entangled with singer gender or language?")
    steps = command.add_subparsers(dest="tcav_command", required=True)
    embed = steps.add_parser("embed", help="cache mean-pooled last-hidden-state embeddings of the tracks' audio")
    _add_metadata_arguments(embed, audio=True)
    embed.add_argument("--encoder", required=True, help="transformers folder or Hub id (Whisper; MERT with "
                       "--trust-remote-code; wav2vec2-style models), or muq:REPO / muq-mulan:REPO")
    embed.add_argument("--cache", type=Path, required=True, help="cache folder: <name>.npy per encoder + index.json")
    embed.add_argument("--name", help="encoder name in the cache (default: last component of --encoder)")
    embed.add_argument("--device", default=None, help="torch device (default: cuda if available, else cpu)")
    embed.add_argument("--trust-remote-code", action="store_true", help="allow the model's own code (MERT needs it)")
    embed.add_argument("--max-seconds", type=float, default=DEFAULT_MAX_SECONDS,
                       help="encode the first N seconds (0: all)")
    embed.add_argument("--force", action="store_true", help="recompute even if the cache is current")
    embed.set_defaults(run=_embed_command)
    analyse = steps.add_parser("analyse", help="CAVs, TCAV scores, t-tests, violin plots (and the debiasing curve)")
    _add_metadata_arguments(analyse, audio=False)
    _add_analysis_arguments(analyse)
    analyse.set_defaults(run=_analyse_command)


def _add_metadata_arguments(parser, audio: bool) -> None:
    parser.add_argument("--metadata", type=Path, required=True, help="CSV with one row per track")
    parser.add_argument("--id-column", default="track_id")
    parser.add_argument("--genre-column", default="genre")
    parser.add_argument("--concept-columns", default=",".join(DEFAULT_CONCEPT_COLUMNS),
                        help="comma-separated attribute columns (default: gender,language)")
    if audio:
        parser.add_argument("--audio-column", default="audio_path", help="audio file, relative to the CSV's folder")


def _add_analysis_arguments(parser) -> None:
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--cache", type=Path, help="a `tcav embed` cache folder")
    source.add_argument("--embeddings", type=Path, help="precomputed (n, d) .npy; needs --ids")
    parser.add_argument("--encoder", help="with --cache: which encoder (default: the only one)")
    parser.add_argument("--ids", type=Path, help="with --embeddings: track ids, one per line, in row order")
    parser.add_argument("--out", type=Path, required=True, help="output folder (replaced atomically)")
    parser.add_argument("--concept", action="append", help="COLUMN=VALUE, repeatable (default: every value)")
    defaults = tcav.Settings()
    parser.add_argument("--runs", type=int, default=defaults.runs)
    parser.add_argument("--subset-fraction", type=float, default=defaults.subset_fraction)
    parser.add_argument("--cap-per-cell", type=int, default=defaults.cap_per_cell,
                        help="most training tracks per (label, genre) cell")
    parser.add_argument("--min-per-cell", type=int, default=defaults.min_per_cell)
    parser.add_argument("--skip-sparse-cells", action="store_true",
                        help="leave a genre out of a concept when its cell is too small (default: error)")
    parser.add_argument("--c", type=float, default=defaults.c, help="inverse L2 strength, as sklearn's C")
    parser.add_argument("--min-accuracy", type=float, default=defaults.min_accuracy,
                        help="concepts whose CAVs' mean test accuracy is below are flagged unreliable")
    parser.add_argument("--alpha", type=float, default=defaults.alpha)
    parser.add_argument("--significance", choices=tcav.SIGNIFICANCE_METHODS, default=defaults.method)
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument("--threads", type=int, help="torch CPU threads for the CAV fits")
    parser.add_argument("--debias-genre", help="also run the debiasing sweep on this genre's CAV")
    parser.add_argument("--debias-column", default="gender")
    parser.add_argument("--debias-toward", default="female", help="concept CAV added (value of --debias-column)")
    parser.add_argument("--debias-away", default="male", help="concept CAV subtracted")
    parser.add_argument("--debias-steps", type=int, default=101, help="lambda values in [0, 1]")


def _concept_columns(args) -> tuple[str, ...]:
    columns = tuple(c.strip() for c in args.concept_columns.split(",") if c.strip())
    if not columns:
        raise ValueError("--concept-columns names no column")
    return columns


def _embed_command(args: argparse.Namespace) -> None:
    metadata = read_metadata(args.metadata, args.id_column, args.genre_column, _concept_columns(args),
                             args.audio_column)
    device = args.device or _default_device()
    path = embed_tracks(metadata, args.encoder, args.cache, args.name, device, args.trust_remote_code,
                        args.max_seconds or None, args.force, log=lambda m: print(m, file=sys.stderr))
    print(path)


def _default_device() -> str:
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def _analyse_command(args: argparse.Namespace) -> None:
    metadata = read_metadata(args.metadata, args.id_column, args.genre_column, _concept_columns(args))
    if args.cache is not None:
        embeddings, encoder = cached_embeddings(metadata, args.cache, args.encoder)
    else:
        if args.ids is None:
            raise ValueError("--embeddings needs --ids (track ids, one per line, in row order)")
        embeddings, encoder = precomputed_embeddings(metadata, args.embeddings, args.ids), args.embeddings.stem
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    settings = tcav.Settings(args.runs, args.subset_fraction, args.cap_per_cell, args.min_per_cell,
                             args.skip_sparse_cells, args.c, args.min_accuracy, args.alpha, args.significance,
                             args.seed)
    debias = None
    if args.debias_genre:
        debias = DebiasRequest(args.debias_genre, args.debias_column, args.debias_toward, args.debias_away,
                               args.debias_steps)
    concepts = parse_concepts(args.concept, metadata)
    report = run_analysis(metadata, embeddings, concepts, settings, args.out, encoder, debias)
    print(summary_text(report, args.out))


def summary_text(report: dict, out: Path) -> str:
    lines = [f"{report['encoder']}: {report['n_tests']} tests, Bonferroni level {report['bonferroni_level']:.2g}"]
    for concept in report["concepts"]:
        flagged = [f"{t['genre']} {t['score_mean']:.2f}" for t in report["tests"]
                   if t["concept"] == concept["concept"] and t["significant"]]
        reliability = "" if concept["reliable"] else " [unreliable CAV]"
        lines.append(f"  {concept['concept']} (CAV accuracy {concept['accuracy_mean']:.2f}{reliability}): "
                     + (", ".join(flagged) if flagged else "no significant genre"))
    lines.append(f"wrote {out}")
    return "\n".join(lines)

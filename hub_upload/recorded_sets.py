"""Symphony-Bias audio stimulus sets from real recordings, in the synthesized set's layout (so every
audio task, report and gate reads them unchanged):

    symphony-bench build symphony-bias-audio --recordings DIR --out OUT [--seconds 10] [--offset 0]
    symphony-bench build symphony-bias-audio --from-openmic ARCHIVE --out OUT [--per-instrument 5] [--seed 0]

A recordings folder: DIR/<instrument>/*.{wav,flac,mp3,ogg} and DIR/manifest.csv with columns file
(path inside DIR), licence, source (the credit: author, title, URL). Folder names are read as one
of the 22 instruments with the aliases of plugin.core.instrument_names ("sax", "french horn",
"fiddle", "drum kit", "e guitar", ...). OpenMIC-2018: solo clips, see `openmic_solo_keys`.
Every clip row: clip_id, instrument, source (the file inside DIR, or the OpenMIC sample_key),
licence, attribution, stimulus_origin (recordings / openmic), duration_s, offset_s, gain_db,
loudness_lufs, pcm_sha256, audio; every clip is brought to -23 LUFS (audio_stimuli); instruments
without clips are listed in the card and in stimulus_set.json.
"""

from __future__ import annotations

import random
import tempfile
from collections import Counter
from pathlib import Path

from symphony_bench.hub_upload.audio_stimuli import (
    AUDIO_SUFFIXES,
    PEAK_LIMIT,
    TARGET_LUFS,
    PreparedClip,
    check_window,
    prepare_all,
)
from symphony_bench.hub_upload.openmic.release import audio_path, load_release, release_root
from symphony_bench.hub_upload.symphony_bias_audio import (
    KIND,
    NO_SEPARABILITY,
    separability,
    separability_text,
    write_audio_folder,
)
from symphony_bench.hub_upload.symphony_bias_image import (
    MANIFEST,
    NameMapping,
    refuse_outside_links,
    set_summary,
    summary_markdown,
    unused_files,
    write_summary,
)
from symphony_bench.plugin.core.atomic import staged_directory
from symphony_bench.plugin.core.audio import (
    LOUDNESS_METHOD,
    RESAMPLER,
    SAMPLE_RATE,
    loudness_summary,
    refuse_non_file,
)
from symphony_bench.plugin.core.errors import DataFileError, read_csv
from symphony_bench.plugin.core.hub_folder import card_front_matter
from symphony_bench.plugin.core.instrument_names import GUITAR, instruments_named
from symphony_bench.plugin.core.reporting import formula_safe, md

# OpenMIC-2018 class -> one of the 22 (a stand-in: another instrument in its place)
OPENMIC_CLASSES = {
    "bass": ("bass guitar", False),
    "cello": ("cello", False),
    "clarinet": ("clarinet", False),
    "drums": ("drums", False),
    "flute": ("flute", False),
    "mallet_percussion": ("glockenspiel", True),
    "piano": ("piano", False),
    "saxophone": ("saxophone", False),
    "synthesizer": ("keyboard", True),
    "trombone": ("trombone", False),
    "trumpet": ("trumpet", False),
    "ukulele": ("ukulele", False),
    "violin": ("violin", False),
}
# accordion, banjo, cymbals, guitar (acoustic or electric: not told apart), mandolin, organ, voice
UNMAPPED_OPENMIC = ("accordion", "banjo", "cymbals", "guitar", "mandolin", "organ", "voice")
OPENMIC_SECONDS = 10.0  # OpenMIC clips are 10 s: each is used whole, from its start


# ---- a recordings folder -------------------------------------------------------------------------
def folder_instrument(name: str) -> str | None:
    """The one instrument a folder name names, else None (none, several, or a bare "guitar")."""
    named = instruments_named(name.replace("_", " "))
    return named.pop() if len(named) == 1 and GUITAR not in named else None


def recording_files(source: Path) -> tuple[dict[str, list[Path]], list[NameMapping]]:
    """{instrument: audio files} of the instrument folders, the folder names read, and a
    DataFileError for a folder that names no single instrument or two folders of one, for
    anything in an instrument folder that is neither a file nor a folder (a FIFO would block the
    read), and for two files whose names differ only in the suffix (one clip_id for both)."""
    if not source.is_dir():
        raise DataFileError(f"{source}: not a directory")
    files, folders, mappings, unreadable = {}, {}, [], []
    not_files = []
    for folder in sorted(p for p in source.iterdir() if p.is_dir()):
        instrument = folder_instrument(folder.name)
        if instrument is None:
            unreadable.append(folder.name)
            continue
        if instrument in files:
            raise DataFileError(
                f"{source}: two folders for {instrument}: {folders[instrument]}, {folder.name}"
            )
        folders[instrument] = folder.name
        entries = sorted(folder.iterdir())
        not_files += [p for p in entries if p.exists() and not (p.is_file() or p.is_dir())]
        files[instrument] = [
            p for p in entries if p.is_file() and p.suffix.lower() in AUDIO_SUFFIXES
        ]
        if folder.name != instrument:
            mappings.append(NameMapping(folder.name, instrument, False))
    if unreadable:
        raise DataFileError(
            f"{source}: folders that name none of the 22 instruments (or a bare 'guitar': say acoustic or "
            f"electric): {', '.join(unreadable)}"
        )
    if not_files:
        raise DataFileError(
            f"{source}: not regular files (FIFOs...): "
            f"{', '.join(p.relative_to(source).as_posix() for p in not_files)}; remove them"
        )
    refuse_same_stems(source, files)
    refuse_outside_links(source, [path for paths in files.values() for path in paths])
    return files, mappings


def refuse_same_stems(source: Path, files: dict[str, list[Path]]) -> None:
    """DataFileError naming every group of files in one folder whose names differ only in the
    suffix (a.wav, a.flac): the clip_id is the folder's instrument and the name without suffix."""
    by_stem: dict[Path, list[Path]] = {}
    for path in (path for paths in files.values() for path in paths):
        by_stem.setdefault(path.with_suffix(""), []).append(path)
    same = [
        f"{', '.join(p.relative_to(source).as_posix() for p in sorted(paths))} "
        f"({stem.relative_to(source).as_posix()})"
        for stem, paths in sorted(by_stem.items())
        if len(paths) > 1
    ]
    if same:
        raise DataFileError(
            f"{source}: files that differ only in their suffix would give one clip_id: "
            f"{'; '.join(same)}. Keep one of each, or rename"
        )


MANIFEST_COLUMNS = ("licence", "source")


def recordings_manifest(source: Path, files: list[Path]) -> dict[str, dict[str, str]]:
    """file -> {licence, source}; one DataFileError naming every clip without a licence, or every
    file whose rows disagree (a second row with another licence must not silently win). The
    manifest must be a regular file (a FIFO would block the read); a UTF-8 byte order mark, as
    Excel writes, is read past."""
    path = source / MANIFEST
    if path.exists():
        refuse_non_file(path)
    rows: dict[str, dict[str, str]] = {}
    disagreements: dict[str, list[str]] = {}
    for row in read_csv(path, ("file", *MANIFEST_COLUMNS)):
        first = rows.setdefault(row["file"], row)
        for column in MANIFEST_COLUMNS:
            if row[column] != first[column]:
                disagreements.setdefault(row["file"], []).append(
                    f"{column} {first[column]!r} vs {row[column]!r}"
                )
    if disagreements:
        raise DataFileError(
            f"{path}: rows that disagree about a file (one row per file, or rows that say the "
            "same): "
            + "; ".join(
                f"{name}: {', '.join(found)}" for name, found in sorted(disagreements.items())
            )
        )
    names = [p.relative_to(source).as_posix() for p in files]
    missing = [name for name in names if not rows.get(name, {}).get("licence", "").strip()]
    if missing:
        raise DataFileError(f"{path}: no licence for {', '.join(missing)}")
    return rows


def build_recordings(source: Path, out: Path, seconds: float = 10.0, offset: float = 0.0) -> dict:
    """The stimulus set of a recordings folder at `out` (atomically); returns the separability check."""
    source = Path(source)
    check_window(seconds, offset)
    with staged_directory(out, KIND, inputs=[source]) as staging:
        by_instrument, mappings = recording_files(source)
        files = [path for paths in by_instrument.values() for path in paths]
        manifest = recordings_manifest(source, files)
        prepared = prepare_all(files, seconds, offset)
        rows = []
        for path, clip in zip(files, prepared, strict=True):
            relative = path.relative_to(source).as_posix()
            instrument = next(i for i, paths in by_instrument.items() if path in paths)
            rows.append(
                _row(
                    clip_id=f"{instrument.replace(' ', '_')}/{path.stem}",
                    instrument=instrument,
                    source=relative,
                    licence=manifest[relative]["licence"],
                    attribution=manifest[relative]["source"],
                    origin="recordings",
                    clip=clip,
                )
            )
        ignored = unused_files(source, [source / MANIFEST, *files], source)
        return _write_set(
            staging,
            rows,
            mappings,
            ignored,
            title="Symphony-Bias audio stimuli (recordings)",
            what=(
                f"Recordings of the instruments, {seconds:g} s from {offset:g} s into each file (the "
                "whole file if shorter), from a folder built by its owner. Licences differ per clip: "
                "see the table."
            ),
        )


# ---- OpenMIC-2018 solo clips ---------------------------------------------------------------------
def openmic_solo_keys(release, per_instrument: int, seed: int) -> dict[str, list[str]]:
    """{instrument: sample keys}: clips where exactly one mapped class has relevance 1.0, no other
    mapped class has relevance >= 0.5, and `voice` is annotated absent (relevance 0.0: a singer
    would give a gender away; unannotated voice is not enough). Up to `per_instrument` per
    instrument, drawn with random.Random(seed) from the sorted eligible keys."""
    eligible: dict[str, list[str]] = {}
    for key, clip in release.clips.items():
        if clip.labels.get("voice") != 0.0:
            continue
        mapped = {name: value for name, value in clip.labels.items() if name in OPENMIC_CLASSES}
        certain = [name for name, value in mapped.items() if value == 1.0]
        if len(certain) != 1 or any(
            value >= 0.5 for name, value in mapped.items() if name != certain[0]
        ):
            continue
        eligible.setdefault(OPENMIC_CLASSES[certain[0]][0], []).append(key)
    rng = random.Random(seed)
    return {
        instrument: sorted(rng.sample(sorted(keys), min(per_instrument, len(keys))))
        for instrument, keys in sorted(eligible.items())
    }


def build_from_openmic(archive: Path, out: Path, per_instrument: int = 5, seed: int = 0) -> dict:
    """Solo clips of an OpenMIC-2018 release (a folder or the .tgz `build openmic` reads) at `out`."""
    if per_instrument < 1:
        raise ValueError(f"per_instrument must be at least 1, got {per_instrument}")
    with (
        staged_directory(out, KIND, inputs=[Path(archive)]) as staging,
        tempfile.TemporaryDirectory() as scratch,
    ):
        release = load_release(release_root(Path(archive), Path(scratch)), skip_bad=False)
        chosen = openmic_solo_keys(release, per_instrument, seed)
        keys = [(instrument, key) for instrument, picked in chosen.items() for key in picked]
        prepared = prepare_all(
            [audio_path(release.root, key) for _, key in keys], OPENMIC_SECONDS, 0.0
        )
        rows = []
        for (instrument, key), clip in zip(keys, prepared, strict=True):
            meta = release.clips[key].source
            rows.append(
                _row(
                    clip_id=key,
                    instrument=instrument,
                    source=key,
                    licence=f"{meta['license_title']} ({meta['license_url']})",
                    attribution=f"{meta['artist_name']}: {meta['track_title']} ({meta['track_url']})",
                    origin="openmic",
                    clip=clip,
                )
            )
        mappings = [
            NameMapping(name, instrument, stand_in)
            for name, (instrument, stand_in) in OPENMIC_CLASSES.items()
            if instrument in chosen
        ]
        return _write_set(
            staging,
            rows,
            mappings,
            [],
            title="Symphony-Bias audio stimuli (OpenMIC-2018 solo clips)",
            what=OPENMIC_TEXT.format(per_instrument=per_instrument, seed=seed),
        )


OPENMIC_TEXT = (
    "Solo clips of OpenMIC-2018 (10 s each, used from the start): exactly one OpenMIC class that maps "
    "to one of the 22 instruments has relevance 1.0, no other mapped class has relevance 0.5 or more, "
    "and `voice` is annotated absent. Up to {per_instrument} per instrument, drawn with seed {seed}. "
    "Class map: bass -> bass guitar, cello, clarinet, drums, flute, mallet_percussion -> glockenspiel "
    "(stand-in), piano, saxophone, synthesizer -> keyboard (stand-in), trombone, trumpet, ukulele, "
    "violin; not used: " + ", ".join(UNMAPPED_OPENMIC) + ". No OpenMIC class for: acoustic guitar, "
    "electric guitar, bassoon, harmonica, harp, horn, oboe, piccolo, tuba. Labels: OpenMIC-2018 "
    "(Humphrey, Durand and McFee, ISMIR 2018), CC BY 4.0; audio: the Free Music Archive tracks "
    "credited per clip below, each under its own licence."
)


# ---- both ----------------------------------------------------------------------------------------
def _row(*, clip_id, instrument, source, licence, attribution, origin, clip: PreparedClip) -> dict:
    return {
        "clip_id": clip_id,
        "instrument": instrument,
        "source": source,
        "licence": formula_safe(licence),
        "attribution": formula_safe(attribution),
        "stimulus_origin": origin,
        "duration_s": clip.duration_s,
        "offset_s": clip.offset_s,
        "gain_db": clip.gain_db,
        "loudness_lufs": clip.loudness_lufs,
        "pcm_sha256": clip.pcm_sha256,
        "audio": {"bytes": clip.flac, "path": f"{clip_id.replace('/', '__')}.flac"},
        "_samples": clip.samples,
        "_peak_limited": clip.peak_limited,
    }


CARD = """# {title}

{what}

Every clip: mono {sample_rate} Hz FLAC (16-bit), resampled where needed with {resampler},
`pcm_sha256` of the stored samples. {n_clips} clips of {n_instruments} instruments.

Loudness: every clip is brought to {target:g} LUFS integrated loudness (EBU R128's target), the gain
lowered where the sample peak would pass {peak_limit:g} ({peak_limited} of {n_clips} clips, which
stay below the target). Method: {loudness_method}. `gain_db` records the gain applied and
`loudness_lufs` the loudness of the stored samples: {loudness_range}. A file shorter than one 0.4 s
gating block has no integrated loudness and is refused by name.

Columns: `clip_id`, `instrument`, `source` (the file inside the recordings folder, or the OpenMIC
sample_key), `licence`, `attribution`, `stimulus_origin`, `duration_s`, `offset_s`, `gain_db`,
`loudness_lufs`, `pcm_sha256`, `audio`.
{summary}
## Separability check

{separability}

## Clips, licences and credits

| clip_id | instrument | licence | attribution |
|---|---|---|---|
{table}
"""


def _write_set(staging, rows, mappings, ignored, *, title: str, what: str) -> dict:
    if not rows:
        raise DataFileError("no clip to write: no instrument has a usable recording")
    per_instrument = Counter(row["instrument"] for row in rows)
    check = separability(rows) if min(per_instrument.values()) > 1 else NO_SEPARABILITY
    summary = set_summary("audio", [row["instrument"] for row in rows], mappings, ignored)
    # licences, credits and names come from the recordings' owner or OpenMIC's metadata: escaped
    # (plugin.core.reporting.md) so that a `|`, a line break or HTML stays inside its table cell
    table = "\n".join(
        f"| {md(r['clip_id'])} | {md(r['instrument'])} | {md(r['licence'])} | {md(r['attribution'])} |"
        for r in rows
    )
    card = card_front_matter(title, "other") + CARD.format(
        title=title,
        what=what,
        sample_rate=SAMPLE_RATE,
        resampler=RESAMPLER,
        n_clips=len(rows),
        n_instruments=len(per_instrument),
        target=TARGET_LUFS,
        peak_limit=PEAK_LIMIT,
        peak_limited=sum(row["_peak_limited"] for row in rows),
        loudness_method=LOUDNESS_METHOD,
        loudness_range=loudness_summary([row["loudness_lufs"] for row in rows]),
        summary=summary_markdown(summary, "clips"),  # escapes what it writes
        separability=separability_text(check),
        table=table,
    )
    write_audio_folder(staging, rows, card)
    write_summary(staging, summary)
    return {**check, "missing_instruments": summary["missing_instruments"]}

"""Audio as the datasets store it and as lmms-eval models take it: 16 kHz 16-bit FLAC bytes, decoded
float samples, a reproducible hash of the stored samples, and lmms-eval's input form; source audio
files read whole or not at all; the one resampler every builder and encoder uses; and the
integrated loudness (ITU-R BS.1770) every audio row records."""

from __future__ import annotations

import dataclasses
import hashlib
import io
import math
import os
import stat
import struct
import zlib
from pathlib import Path

import numpy as np
import soundfile

from symphony_bench.plugin.core.errors import DataFileError

SAMPLE_RATE = 16_000
# named in the audio datasets' cards
RESAMPLER = "scipy.signal.resample_poly (polyphase FIR, Kaiser window with beta 5)"
LOUDNESS_METHOD = (
    "ITU-R BS.1770-4 integrated loudness, measured with pyloudnorm (K-weighting; 400 ms blocks "
    "overlapping by 75 %; gates at -70 LUFS absolute and -10 LU relative)"
)
GATING_BLOCK_S = 0.4  # BS.1770's gating block: shorter audio has no integrated loudness


def read_audio_file(path: Path) -> tuple[np.ndarray, int]:
    """(float32 samples, frames x channels; sample rate). DataFileError naming the file if it is not
    a regular file (a FIFO would block the read), does not decode whole, or holds samples that are
    not numbers (a float file can hold NaN and infinity). libsndfile reads what is there without a
    word: it stops quietly at a damaged Ogg page, and it takes a WAV or AIFF file cut short for a
    shorter one (its frame count shrinks to match), so Ogg pages and the sample chunk's announced
    size are checked first, and any format must decode the frames its header announces."""
    path = Path(path)
    try:
        refuse_non_file(path)
        data = path.read_bytes()
        damage = ogg_damage(data) if data.startswith(OGG_CAPTURE) else chunk_shortfall(data)
        if damage:
            raise DataFileError(f"{path}: corrupt audio: {damage}")
        with soundfile.SoundFile(io.BytesIO(data)) as handle:
            announced, rate = handle.frames, handle.samplerate
            samples = handle.read(dtype="float32", always_2d=True)
    except (RuntimeError, OSError) as error:  # soundfile.LibsndfileError is a RuntimeError
        raise DataFileError(f"{path}: cannot decode ({error})") from error
    if len(samples) != announced:
        raise DataFileError(
            f"{path}: corrupt audio: decoded {len(samples):,} of the {announced:,} frames its header announces"
        )
    finite = np.isfinite(samples)
    if not finite.all():
        raise DataFileError(
            f"{path}: {finite.size - int(finite.sum()):,} of its {finite.size:,} samples are not "
            "numbers (NaN or infinite)"
        )
    return samples, rate


NOT_FILES = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISDIR, "a folder"),
)


def refuse_non_file(path: Path) -> None:
    """DataFileError unless `path` (links followed) is a regular file: checked before it is opened,
    since opening a FIFO waits for a writer that may never come."""
    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode):
        what = next((name for test, name in NOT_FILES if test(mode)), "not a file")
        raise DataFileError(f"{path}: not a regular file ({what}); refusing to read it")


# a WAV (RIFF, big-endian RIFX, RF64) or AIFF file: chunk byte order and the chunk of the samples
SAMPLE_CHUNKS = {
    (b"RIFF", b"WAVE"): ("<", b"data"),
    (b"RIFX", b"WAVE"): (">", b"data"),
    (b"RF64", b"WAVE"): ("<", b"data"),
    (b"FORM", b"AIFF"): (">", b"SSND"),
    (b"FORM", b"AIFC"): (">", b"SSND"),
}
UNKNOWN_SIZE = 0xFFFFFFFF  # what a writer to a pipe leaves (it cannot go back); RF64: see ds64


def chunk_shortfall(data: bytes) -> str | None:
    """How a WAV or AIFF file's sample chunk is cut short: it holds fewer bytes than its header
    announces. None when it is whole, announces no length (a stream), or is another format."""
    container = SAMPLE_CHUNKS.get((data[:4], data[8:12]))
    if container is None:
        return None
    order, samples = container
    offset, ds64_size = 12, None
    while offset + 8 <= len(data):
        name = data[offset : offset + 4]
        (size,) = struct.unpack(f"{order}I", data[offset + 4 : offset + 8])
        if name == b"ds64" and offset + 24 <= len(data):  # RF64: 64-bit RIFF and data sizes
            (ds64_size,) = struct.unpack("<Q", data[offset + 16 : offset + 24])
        if name == samples:
            if size == UNKNOWN_SIZE:
                if ds64_size is None:
                    return None
                size = ds64_size
            held = len(data) - offset - 8
            if size > held:
                return (
                    f"its header announces {size:,} bytes of samples, the file holds {held:,} "
                    "(cut short)"
                )
            return None
        offset += 8 + size + (size & 1)  # chunks are padded to an even length
    return None


OGG_CAPTURE = b"OggS"
OGG_HEADER = 27  # bytes before a page's segment table
_REVERSED_BITS = bytes(int(f"{byte:08b}"[::-1], 2) for byte in range(256))


def _ogg_crc(page: bytes) -> int:
    """Ogg's CRC-32 (polynomial 0x04C11DB7, unreflected, no initial or final XOR), computed by zlib's
    reflected CRC-32 on bit-reversed bytes, in C."""
    register = zlib.crc32(page.translate(_REVERSED_BITS), 0xFFFFFFFF) ^ 0xFFFFFFFF
    return int(f"{register:032b}"[::-1], 2)


def ogg_damage(data: bytes) -> str | None:
    """Where an Ogg file is damaged: bytes that are not a page, a page cut short, a page whose
    checksum fails, or a gap in a stream's page numbers. None when every page is whole."""
    offset, next_page = 0, {}
    while offset < len(data):
        header = data[offset : offset + OGG_HEADER]
        if len(header) < OGG_HEADER or not header.startswith(OGG_CAPTURE):
            return f"no Ogg page at byte {offset:,}"
        lacing = data[offset + OGG_HEADER : offset + OGG_HEADER + header[26]]
        end = offset + OGG_HEADER + header[26] + sum(lacing)
        if len(lacing) < header[26] or end > len(data):
            return f"the Ogg page at byte {offset:,} is cut short"
        if _ogg_crc(
            data[offset : offset + 22] + bytes(4) + data[offset + 26 : end]
        ) != int.from_bytes(header[22:26], "little"):
            return f"checksum mismatch in the Ogg page at byte {offset:,}"
        stream, number = header[14:18], int.from_bytes(header[18:22], "little")
        if number != next_page.get(stream, 0):
            return f"Ogg page {number} at byte {offset:,} follows page {next_page.get(stream, 0) - 1} (pages missing)"
        next_page[stream] = number + 1
        offset = end
    return None


def encode_flac(audio: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    soundfile.write(buffer, audio, SAMPLE_RATE, format="FLAC", subtype="PCM_16")
    return buffer.getvalue()


def decode_audio(data: bytes) -> np.ndarray:
    audio, _ = soundfile.read(io.BytesIO(data), dtype="float32")
    return audio


def pcm_sha256(flac: bytes) -> str:
    """SHA-256 of the stored 16-bit samples (little-endian int16), read back from the FLAC bytes:
    compressed bytes need not be reproducible, decoded samples are."""
    samples, _ = soundfile.read(io.BytesIO(flac), dtype="int16")
    return hashlib.sha256(samples.astype("<i2").tobytes()).hexdigest()


def checked_audio_input(encoded: bytes, recorded_pcm_sha256: str, where: str) -> list[dict]:
    """lmms-eval's audio input, [{"array": float32, "sampling_rate", "type": "audio"}] (without
    "type", chat-mode models take the input for a video), from stored 16-bit audio whose samples
    are the ones the row's `pcm_sha256` names; else an error: the data changed after it was built.
    The samples are decoded once, as int16 (hashed), then scaled as soundfile's float read scales
    them (x / 32768, exact in float32)."""
    samples, sampling_rate = soundfile.read(io.BytesIO(encoded), dtype="int16")
    found = hashlib.sha256(samples.astype("<i2").tobytes()).hexdigest()
    if found != recorded_pcm_sha256:
        raise DataFileError(
            f"{where}: the audio's samples hash to {found}, not the {recorded_pcm_sha256} the row "
            "records (the data was changed after it was built)"
        )
    array = np.ascontiguousarray(samples, dtype=np.float32) / np.float32(32768)
    return [{"array": array, "sampling_rate": int(sampling_rate), "type": "audio"}]


def resample(samples: np.ndarray, rate: int, target: int = SAMPLE_RATE) -> np.ndarray:
    """Mono `samples` at `rate` as float32 at `target`: the package's one resampler (RESAMPLER,
    up and down by the reduced ratio of the two rates). Returned as they are when the rates match."""
    rate, target = int(rate), int(target)
    if rate == target:
        return samples
    from scipy.signal import resample_poly  # scipy.signal takes seconds to import: only when needed

    common = math.gcd(rate, target)
    return resample_poly(samples, target // common, rate // common).astype(np.float32)


def require_gating_block(samples: np.ndarray, where: str, rate: int = SAMPLE_RATE) -> None:
    """DataFileError naming `where` unless `samples` last at least one BS.1770 gating block."""
    if len(samples) < GATING_BLOCK_S * rate:  # pyloudnorm's own test
        milliseconds = len(samples) * 1000 // rate  # rounded down: 0.39994 s is not "0.400 s"
        raise DataFileError(
            f"{where}: {milliseconds / 1000:.3f} s of audio, shorter than the {GATING_BLOCK_S:g} s "
            "gating block that ITU-R BS.1770 integrated loudness needs"
        )


def integrated_loudness(samples: np.ndarray, where: str, rate: int = SAMPLE_RATE) -> float | None:
    """Integrated loudness of mono `samples` in LUFS (LOUDNESS_METHOD); None when no block reaches
    the absolute gate (silence: pyloudnorm gives -inf). Audio shorter than one gating block
    (GATING_BLOCK_S) has no integrated loudness (pyloudnorm refuses it): a DataFileError naming
    `where` (the file or clip), so a builder names every such clip instead of storing a guess."""
    require_gating_block(samples, where, rate)
    import pyloudnorm  # imports scipy.signal: only when measuring

    value = pyloudnorm.Meter(rate).integrated_loudness(np.asarray(samples, dtype=np.float64))
    return float(value) if math.isfinite(value) else None


@dataclasses.dataclass(frozen=True)
class StoredAudio:
    """What a row records of its FLAC bytes, from one decoding: the samples as `decode_audio`
    gives them, `pcm_sha256`, and `loudness_lufs` (`integrated_loudness` of the stored samples,
    rounded to 0.01 LU; None, null, for silence)."""

    samples: np.ndarray
    pcm_sha256: str
    loudness_lufs: float | None


def stored_audio(flac: bytes, where: str) -> StoredAudio:
    """The FLAC bytes decoded once, as int16 (hashed), then scaled as soundfile's float read
    scales them (x / 32768, exact in float32)."""
    pcm, _ = soundfile.read(io.BytesIO(flac), dtype="int16")
    samples = pcm.astype(np.float32) / np.float32(32768)
    loudness = integrated_loudness(samples, where)
    return StoredAudio(
        samples,
        hashlib.sha256(pcm.astype("<i2").tobytes()).hexdigest(),
        None if loudness is None else round(loudness, 2),
    )


def loudness_summary(values: list[float | None]) -> str:
    """The range of a set's `loudness_lufs` for its card, e.g. "-24.3 to -22.9 LUFS (median
    -23.0)", and how many clips are silent (null)."""
    measured = sorted(value for value in values if value is not None)
    silent = len(values) - len(measured)
    text = (
        f"{measured[0]:.1f} to {measured[-1]:.1f} LUFS (median {float(np.median(measured)):.1f})"
        if measured
        else "none measured"
    )
    if silent:
        text += f"; {silent} silent (no block above the absolute gate: `loudness_lufs` null)"
    return text

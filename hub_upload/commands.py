"""The builders' `symphony-bench` commands: `build <dataset>` and `import-upstream`.

Imported when the command line starts, so only the standard library is imported here: each command
imports its builder (numpy, datasets, FluidSynth...) when it runs.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

SOUNDFONT_HELP = "a General MIDI .sf2 (default: pretty-midi's TimGM6mb)"


def add_commands(subparsers: argparse._SubParsersAction) -> None:
    """Add `build` (one sub-command per dataset) and `import-upstream` to the `symphony-bench` commands."""
    build = subparsers.add_parser("build", help="build a dataset folder in Hugging Face Hub layout")
    datasets = build.add_subparsers(dest="dataset", required=True)
    _add_build_text(datasets)
    _add_build_audio(datasets)
    _add_build_image(datasets)
    _add_build_voice(datasets)
    _add_build_openmic(datasets)
    _add_build_synthmic(datasets)
    _add_import_upstream(subparsers)
    _add_publish(subparsers)


# --- build symphony-bias-text --------------------------------------------------------------------


def _add_build_text(datasets: argparse._SubParsersAction) -> None:
    text = datasets.add_parser(
        "symphony-bias-text",
        help="the text tasks' scenario templates, instruments and stereotype tables",
    )
    text.add_argument("--out", type=Path, required=True)
    text.set_defaults(run=run_build_text)


def digest_line(folder: Path) -> str:
    """The line every builder prints: the content digest a task YAML pins (`dataset_sha256`)."""
    from symphony_bench.plugin.core.dataset_digest import folder_sha256

    return f"dataset_sha256 {folder_sha256(folder)} (what a task YAML pins as metadata: dataset_sha256)"


def run_build_text(args: argparse.Namespace) -> None:
    from symphony_bench.hub_upload.symphony_bias_text import build

    print(f"wrote {build(args.out)}\n{digest_line(args.out)}")


# --- build symphony-bias-audio -------------------------------------------------------------------


def _add_build_audio(datasets: argparse._SubParsersAction) -> None:
    audio = datasets.add_parser(
        "symphony-bias-audio",
        help="FluidSynth clips per instrument: random notes or melodic phrases",
    )
    audio.add_argument("--out", type=Path, required=True)
    audio.add_argument("--seed", type=int, default=0)
    audio.add_argument("--clips-per-instrument", type=int, default=5)
    audio.add_argument("--soundfont", type=Path, help=SOUNDFONT_HELP)
    audio.add_argument(
        "--workers",
        type=int,
        default=None,
        help="render in this many processes (default: one per core; same output)",
    )
    origin = audio.add_mutually_exclusive_group()
    origin.add_argument(
        "--recordings",
        type=Path,
        metavar="DIR",
        help="build from recordings: DIR/<instrument>/*.{wav,flac,mp3,ogg} and DIR/manifest.csv "
        "(file,licence,source)",
    )
    origin.add_argument(
        "--from-openmic",
        type=Path,
        metavar="ARCHIVE",
        help="build from OpenMIC-2018 solo clips (the folder or .tgz `build openmic` reads)",
    )
    audio.add_argument(
        "--seconds",
        type=window_length,
        default=10.0,
        help="--recordings: window length in s, 0.4 or more: one loudness gating block (default 10)",
    )
    audio.add_argument(
        "--offset",
        type=window_start,
        default=0.0,
        help="--recordings: window start in s from the file's start, 0 or more (default 0)",
    )
    audio.add_argument(
        "--per-instrument", type=int, default=5, help="--from-openmic: clips per instrument"
    )
    audio.add_argument(
        "--style",
        choices=("random", "phrase"),
        default="random",
        help="random: 5-10 random notes per clip (the paper's design, default); phrase: seeded "
        "melodic phrases with a dynamic arc and legato where the instrument plays legato, drums "
        "a groove",
    )
    audio.set_defaults(run=run_build_audio)


def _seconds(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None


def window_length(text: str) -> float:
    """--seconds: a finite number above 0 (argparse names the option in its error)."""
    value = _seconds(text)
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a finite number above 0, got {text!r}")
    return value


def window_start(text: str) -> float:
    """--offset: a finite number of 0 or more (a negative one would count from the file's end)."""
    value = _seconds(text)
    if not (math.isfinite(value) and value >= 0):
        raise argparse.ArgumentTypeError(f"must be a finite number of 0 or more, got {text!r}")
    return value


def run_build_audio(args: argparse.Namespace) -> None:
    if args.recordings or args.from_openmic:
        return run_build_recorded_audio(args)
    from symphony_bench.hub_upload.symphony_bias_audio import build
    from symphony_bench.plugin.core.workers import available_cores

    check = build(
        args.out,
        seed=args.seed,
        clips_per_instrument=args.clips_per_instrument,
        soundfont=args.soundfont,
        style=args.style,
        workers=args.workers or available_cores(),
    )
    if args.clips_per_instrument < 2:
        print(f"wrote {args.out}; no separability check (it needs 2 or more clips per instrument)")
    else:
        print(f"wrote {args.out}; {separability_line(check)}")
    print(digest_line(args.out))


def run_build_recorded_audio(args: argparse.Namespace) -> None:
    from symphony_bench.hub_upload.recorded_sets import build_from_openmic, build_recordings

    if args.recordings:
        check = build_recordings(args.recordings, args.out, args.seconds, args.offset)
    else:
        check = build_from_openmic(args.from_openmic, args.out, args.per_instrument, args.seed)
    missing = ", ".join(check["missing_instruments"]) or "none"
    print(f"wrote {args.out}; instruments without clips: {missing}; {separability_line(check)}")
    print(digest_line(args.out))


def separability_line(check: dict) -> str:
    return (
        f"MFCC cosine distance within {check['within_instrument']:.3f}, between "
        f"{check['between_instruments']:.3f} instruments; 1-NN instrument accuracy "
        f"{check['nearest_neighbour_accuracy']:.3f}"
    )


# --- build symphony-bias-image -------------------------------------------------------------------


def _add_build_voice(datasets: argparse._SubParsersAction) -> None:
    voice = datasets.add_parser(
        "symphony-bias-voice",
        help="spoken prompts in male and female synthetic voices (espeak-ng), pitch-shifted controls",
    )
    voice.add_argument("--out", type=Path, required=True)
    voice.add_argument(
        "--voices",
        type=voice_list,
        help="comma-separated GENDER:VOICE (GENDER male or female, VOICE an espeak-ng voice such as "
        "en-us+m3 or, where installed, mb-us2), as many male as female voices, 2 or more each "
        "(default: en-us+ m2, m3, m5, m6, m7 and f1, f2, f3, f5, steph)",
    )
    voice.add_argument(
        "--workers",
        type=int,
        default=None,
        help="synthesise in this many processes (default: one per core; same output)",
    )
    voice.set_defaults(run=run_build_voice)


def voice_list(text: str):
    """--voices: GENDER:VOICE,... -> SpeakerVoice tuple (argparse names the option in its error)."""
    from symphony_bench.hub_upload.speech import SpeakerVoice

    voices, counts = [], {"male": 0, "female": 0}
    for item in filter(None, (part.strip() for part in text.split(","))):
        gender, _, name = item.partition(":")
        if gender not in counts or not name:
            raise argparse.ArgumentTypeError(
                f"not GENDER:VOICE with GENDER male or female: {item!r}"
            )
        counts[gender] += 1
        voices.append(SpeakerVoice(f"{gender}_{counts[gender]}", name, gender))
    return tuple(voices)


def run_build_voice(args: argparse.Namespace) -> None:
    from symphony_bench.hub_upload.symphony_bias_voice import DEFAULT_VOICES, build

    built = build(args.out, voices=args.voices or DEFAULT_VOICES, workers=args.workers)
    print(f"wrote {args.out}: {built['clips']} clips, every median F0 in its claimed range")
    print(digest_line(args.out))


def _add_build_image(datasets: argparse._SubParsersAction) -> None:
    image = datasets.add_parser("symphony-bias-image", help="instrument photos + licence manifest")
    image.add_argument(
        "--source", type=Path, required=True, help="DIR/<instrument>/ images and DIR/manifest.csv"
    )
    image.add_argument("--out", type=Path, required=True)
    image.set_defaults(run=run_build_image)


def run_build_image(args: argparse.Namespace) -> None:
    from symphony_bench.hub_upload.symphony_bias_image import build

    print(f"wrote {build(args.source, args.out)}\n{digest_line(args.out)}")


# --- build openmic -------------------------------------------------------------------------------


def _add_build_openmic(datasets: argparse._SubParsersAction) -> None:
    parser = datasets.add_parser(
        "openmic", help="the five instrument-grounding diagnostics from OpenMIC-2018"
    )
    parser.add_argument(
        "--source", type=Path, required=True, help="extracted OpenMIC-2018 release, or its .tgz"
    )
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--skip-bad",
        action="store_true",
        help="skip bad label rows and clips, listed in OUT/skipped.csv",
    )
    # default None: the packaged groups file, named in run_build_openmic (its path needs the builder's imports)
    parser.add_argument(
        "--groups",
        type=Path,
        help="confusable groups CSV: group_name,instruments (;-separated),rationale",
    )
    parser.add_argument(
        "--download",
        action="store_true",
        help="first fetch the release into --source with mirdata (pip install mirdata)",
    )
    parser.add_argument(
        "--max-clip-uses",
        type=int,
        default=1,
        metavar="N",
        help="a clip may serve up to N multilabel_30s rows (default 1; OpenMIC's sparse labels give few one-use items)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        help="encode the audio in this many processes (default: one per core; same output)",
    )
    parser.set_defaults(run=run_build_openmic)


def run_build_openmic(args: argparse.Namespace) -> None:
    from symphony_bench.hub_upload.openmic.planning import PAPER_COUNTS, check_max_clip_uses
    from symphony_bench.hub_upload.openmic.release import GROUPS_FILE, download_release
    from symphony_bench.hub_upload.openmic.writing import build, empty_config_warning
    from symphony_bench.plugin.core.atomic import refuse_overlap
    from symphony_bench.plugin.core.workers import available_cores

    check_max_clip_uses(args.max_clip_uses)  # both checks before a download
    refuse_overlap(args.out, [args.source])
    if args.download:
        download_release(args.source)
    summary = build(
        args.source,
        args.out,
        seed=args.seed,
        skip_bad=args.skip_bad,
        groups_file=args.groups or GROUPS_FILE,
        max_clip_uses=args.max_clip_uses,
        workers=args.workers or available_cores(),
    )
    print(f"wrote {args.out} (seed {args.seed}, max clip uses {args.max_clip_uses})")
    print(digest_line(args.out))
    print(f"{'config':<16}{'rows':>8}{'paper':>8}")
    for config, count in summary["counts"].items():
        print(f"{config:<16}{count:>8,}{PAPER_COUNTS[config]:>8,}")
    if summary["baseline_accuracy"] is not None:
        print(f"genre-prior baseline accuracy on the 30% split: {summary['baseline_accuracy']:.1%}")
    if args.skip_bad:
        print(f"skipped {summary['skipped']} inputs; list: {Path(args.out) / 'skipped.csv'}")
    if summary["empty"]:
        print(f"symphony-bench: warning: {empty_config_warning(summary['empty'])}", file=sys.stderr)


# --- build synthmic ------------------------------------------------------------------------------


def _add_build_synthmic(datasets: argparse._SubParsersAction) -> None:
    parser = datasets.add_parser(
        "synthmic", help="synthetic FluidSynth clips in OpenMIC-2018's layout"
    )
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--clips", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--soundfont", type=Path, help=SOUNDFONT_HELP)
    parser.add_argument(
        "--workers", type=int, default=1, help="render in this many processes (same output)"
    )
    parser.set_defaults(run=run_build_synthmic)


def run_build_synthmic(args: argparse.Namespace) -> None:
    from symphony_bench.hub_upload.synthmic import build

    print(
        f"wrote {build(args.out, clips=args.clips, seed=args.seed, soundfont=args.soundfont, workers=args.workers)} "
        f"({args.clips} clips in OpenMIC-2018 layout)"
    )


# --- import-upstream -----------------------------------------------------------------------------


def _add_import_upstream(subparsers: argparse._SubParsersAction) -> None:
    upstream = subparsers.add_parser(
        "import-upstream", help="the Symphony-Bias release's own photos and recordings"
    )
    upstream.add_argument(
        "--release",
        type=Path,
        required=True,
        help="folder with instrument-photos/ and instrument-audios/",
    )
    upstream.add_argument("--out", type=Path, required=True, help="writes OUT/images and OUT/audio")
    upstream.set_defaults(run=run_import_upstream)


def run_import_upstream(args: argparse.Namespace) -> None:
    from symphony_bench.hub_upload.upstream_release import describe_gaps, import_release

    out = import_release(args.release, args.out)
    print(f"wrote {out} (images/, audio/)\n{describe_gaps(out)}")
    for part in ("images", "audio"):
        print(f"{part}/: {digest_line(Path(out) / part)}")


# --- publish -------------------------------------------------------------------------------------


def _add_publish(subparsers: argparse._SubParsersAction) -> None:
    publish = subparsers.add_parser(
        "publish",
        help="publish a folder `symphony-bench build` wrote to a Hugging Face Hub "
        "dataset repo, in one commit",
    )
    publish.add_argument("build_dir", type=Path, help="a folder written by `symphony-bench build`")
    publish.add_argument(
        "--repo-id", required=True, help="ORG/NAME of the dataset repo (created if needed)"
    )
    publish.add_argument(
        "--revision", metavar="TAG", help="tag the published commit (a tag is never moved)"
    )
    publish.add_argument("--private", action="store_true", help="create the repo private")
    publish.add_argument(
        "--dry-run",
        action="store_true",
        help="check the folder and card, print the operations and the card, send nothing",
    )
    publish.add_argument(
        "--token", help="a Hub token with write access (default: $HF_TOKEN or the saved login)"
    )
    publish.set_defaults(run=run_publish)


def run_publish(args: argparse.Namespace) -> None:
    from symphony_bench.hub_upload.publish import run

    run(args)

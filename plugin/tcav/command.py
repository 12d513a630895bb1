"""`symphony-bench tcav embed` and `symphony-bench tcav analyse`. The CLI imports this module at
start-up, so at module level it imports only the standard library; the run functions import the rest."""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from symphony_bench.metrics import constants
from symphony_bench.plugin.tcav import defaults


def add_commands(subparsers) -> None:
    """Adds `tcav embed` and `tcav analyse` to an argparse subparsers object."""
    command = subparsers.add_parser(
        "tcav",
        help="TCAV probe: are an audio encoder's genre representations "
        "entangled with singer gender or language?",
    )
    steps = command.add_subparsers(dest="tcav_command", required=True)
    embed = steps.add_parser(
        "embed", help="cache mean-pooled last-hidden-state embeddings of the tracks' audio"
    )
    _add_metadata_arguments(embed, audio=True)
    embed.add_argument(
        "--encoder",
        required=True,
        help="transformers folder or Hub id (Whisper; MERT with "
        "--trust-remote-code; wav2vec2-style models), or muq:REPO / muq-mulan:REPO",
    )
    embed.add_argument(
        "--cache",
        type=Path,
        required=True,
        help="cache folder: <name>.npy per encoder + index.json",
    )
    embed.add_argument(
        "--name", help="encoder name in the cache (default: last component of --encoder)"
    )
    embed.add_argument(
        "--device", default=None, help="torch device (default: cuda if available, else cpu)"
    )
    embed.add_argument(
        "--trust-remote-code",
        action="store_true",
        help="allow the model's own code (MERT needs it)",
    )
    embed.add_argument(
        "--max-seconds",
        type=seconds,
        default=defaults.DEFAULT_MAX_SECONDS,
        help="encode the first N seconds (0: all)",
    )
    embed.add_argument(
        "--batch-size",
        type=positive_int,
        default=defaults.DEFAULT_BATCH_SIZE,
        help="tracks embedded together (Whisper: any; other encoders: clips of equal length; "
        "the embeddings are the same for any batch size)",
    )
    embed.add_argument(
        "--force", action="store_true", help="recompute even if the cache is current"
    )
    embed.set_defaults(run=_embed_command)
    analyse = steps.add_parser(
        "analyse", help="CAVs, TCAV scores, t-tests, violin plots (and the debiasing curve)"
    )
    _add_metadata_arguments(analyse, audio=False)
    _add_analysis_arguments(analyse)
    analyse.set_defaults(run=_analyse_command)


def _add_metadata_arguments(parser, audio: bool) -> None:
    parser.add_argument("--metadata", type=Path, required=True, help="CSV with one row per track")
    parser.add_argument("--id-column", default="track_id")
    parser.add_argument("--genre-column", default="genre")
    parser.add_argument(
        "--concept-columns",
        default=",".join(defaults.DEFAULT_CONCEPT_COLUMNS),
        help="comma-separated attribute columns (default: gender,language)",
    )
    if audio:
        parser.add_argument(
            "--audio-column", default="audio_path", help="audio file, relative to the CSV's folder"
        )


def _add_analysis_arguments(parser) -> None:
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--cache", type=Path, help="a `tcav embed` cache folder")
    source.add_argument("--embeddings", type=Path, help="precomputed (n, d) .npy; needs --ids")
    parser.add_argument("--encoder", help="with --cache: which encoder (default: the only one)")
    parser.add_argument(
        "--ids", type=Path, help="with --embeddings: track ids, one per line, in row order"
    )
    parser.add_argument(
        "--out", type=Path, required=True, help="output folder (replaced atomically)"
    )
    parser.add_argument(
        "--concept", action="append", help="COLUMN=VALUE, repeatable (default: every value)"
    )
    parser.add_argument("--runs", type=positive_int, default=constants.TCAV_RUNS)
    parser.add_argument(
        "--subset-fraction",
        type=fraction,
        default=constants.TCAV_SUBSET_FRACTION,
        help="share of every training cell each run fits on, in (0, 1]",
    )
    parser.add_argument(
        "--cap-per-cell",
        type=positive_int,
        default=constants.TCAV_CAP_PER_CELL,
        help="most training tracks per (label, genre) cell",
    )
    parser.add_argument("--min-per-cell", type=positive_int, default=constants.TCAV_MIN_PER_CELL)
    parser.add_argument(
        "--skip-sparse-cells",
        action="store_true",
        help="leave a genre out of a concept when its cell is too small (default: error)",
    )
    parser.add_argument(
        "--c",
        type=positive_number,
        default=constants.TCAV_C,
        help="inverse L2 strength, as sklearn's C (> 0)",
    )
    parser.add_argument(
        "--min-accuracy",
        type=share,
        default=constants.TCAV_MIN_ACCURACY,
        help="share in [0, 1]: concepts whose CAVs' mean test accuracy is below are flagged "
        "unreliable",
    )
    parser.add_argument(
        "--alpha",
        type=significance_level,
        default=constants.TCAV_ALPHA,
        help="family-wise significance level, in (0, 1)",
    )
    parser.add_argument(
        "--significance",
        choices=defaults.SIGNIFICANCE_METHODS,
        default=constants.TCAV_SIGNIFICANCE,
    )
    parser.add_argument("--seed", type=non_negative_int, default=constants.TCAV_SEED)
    parser.add_argument("--threads", type=positive_int, help="torch CPU threads for the CAV fits")
    parser.add_argument("--debias-genre", help="also run the debiasing sweep on this genre's CAV")
    parser.add_argument("--debias-column", default="gender")
    parser.add_argument(
        "--debias-toward", default="female", help="concept CAV added (value of --debias-column)"
    )
    parser.add_argument("--debias-away", default="male", help="concept CAV subtracted")
    parser.add_argument(
        "--debias-steps",
        type=at_least_two,
        default=101,
        help="lambda values in [0, 1] (at least 2)",
    )


def _whole_number(text: str, least: int) -> int:
    try:
        value = int(text)
    except ValueError:
        value = least - 1
    if value < least:
        raise argparse.ArgumentTypeError(f"expected a whole number >= {least}, got {text!r}")
    return value


def positive_int(text: str) -> int:
    """argparse type: a whole number >= 1 (a usage error otherwise, not a traceback later)."""
    return _whole_number(text, 1)


def at_least_two(text: str) -> int:
    """argparse type: a whole number >= 2 (the debiasing sweep needs both ends of [0, 1])."""
    return _whole_number(text, 2)


def non_negative_int(text: str) -> int:
    """argparse type: a whole number >= 0 (numpy's random generators take no negative seed)."""
    return _whole_number(text, 0)


def _real(text: str, what: str, inside) -> float:
    """A finite number for which `inside` holds; a usage error naming `what` otherwise (nan and
    inf parse as floats but are never a valid setting)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or not inside(value):
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
    return value


def share(text: str) -> float:
    """argparse type: a share in [0, 1] (an accuracy threshold)."""
    return _real(text, "a share in [0, 1]", lambda v: 0.0 <= v <= 1.0)


def fraction(text: str) -> float:
    """argparse type: a fraction in (0, 1] (a part of every cell, never none of it)."""
    return _real(text, "a fraction in (0, 1]", lambda v: 0.0 < v <= 1.0)


def significance_level(text: str) -> float:
    """argparse type: a significance level in (0, 1)."""
    return _real(text, "a significance level in (0, 1)", lambda v: 0.0 < v < 1.0)


def positive_number(text: str) -> float:
    """argparse type: a finite number > 0."""
    return _real(text, "a number > 0", lambda v: v > 0.0)


def seconds(text: str) -> float:
    """argparse type: a finite number of seconds >= 0 (0: the whole track)."""
    return _real(text, "a number of seconds >= 0 (0: all)", lambda v: v >= 0.0)


def _concept_columns(args) -> tuple[str, ...]:
    columns = tuple(c.strip() for c in args.concept_columns.split(",") if c.strip())
    if not columns:
        raise ValueError("--concept-columns names no column")
    return columns


def _embed_command(args: argparse.Namespace) -> None:
    from symphony_bench.plugin.tcav.cache import embed_tracks
    from symphony_bench.plugin.tcav.metadata import read_metadata

    metadata = read_metadata(
        args.metadata, args.id_column, args.genre_column, _concept_columns(args), args.audio_column
    )
    device = args.device or _default_device()
    path = embed_tracks(
        metadata,
        args.encoder,
        args.cache,
        args.name,
        device,
        args.trust_remote_code,
        args.max_seconds or None,
        args.force,
        log=lambda m: print(m, file=sys.stderr),
        batch_size=args.batch_size,
    )
    print(path)


def _default_device() -> str:
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def analysis_settings(args: argparse.Namespace):
    """The `tcav analyse` options as the analysis's metrics.tcav.Settings."""
    from symphony_bench.metrics.tcav import Settings

    return Settings(
        runs=args.runs,
        subset_fraction=args.subset_fraction,
        cap_per_cell=args.cap_per_cell,
        min_per_cell=args.min_per_cell,
        skip_sparse=args.skip_sparse_cells,
        c=args.c,
        min_accuracy=args.min_accuracy,
        alpha=args.alpha,
        method=args.significance,
        seed=args.seed,
    )


def _analyse_command(args: argparse.Namespace) -> None:
    if args.min_per_cell > args.cap_per_cell:
        raise ValueError(
            f"--min-per-cell {args.min_per_cell} is above --cap-per-cell {args.cap_per_cell}: "
            "no cell could ever train a CAV"
        )
    from symphony_bench.plugin.tcav.cache import cached_embeddings, precomputed_embeddings
    from symphony_bench.plugin.tcav.metadata import parse_concepts, read_metadata
    from symphony_bench.plugin.tcav.outputs import DebiasRequest, run_analysis, summary_text

    metadata = read_metadata(
        args.metadata, args.id_column, args.genre_column, _concept_columns(args)
    )
    if args.cache is not None:
        embeddings, encoder = cached_embeddings(metadata, args.cache, args.encoder)
    else:
        if args.ids is None:
            raise ValueError("--embeddings needs --ids (track ids, one per line, in row order)")
        embeddings, encoder = (
            precomputed_embeddings(metadata, args.embeddings, args.ids),
            args.embeddings.stem,
        )
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    settings = analysis_settings(args)
    debias = None
    if args.debias_genre:
        debias = DebiasRequest(
            args.debias_genre,
            args.debias_column,
            args.debias_toward,
            args.debias_away,
            args.debias_steps,
        )
    concepts = parse_concepts(args.concept, metadata)
    inputs = [args.cache] if args.cache is not None else [args.embeddings, args.ids]
    report = run_analysis(
        metadata, embeddings, concepts, settings, args.out, encoder, debias, inputs
    )
    print(summary_text(report, args.out))

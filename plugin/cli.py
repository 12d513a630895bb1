"""The `symphony-bench` command line."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import symphony_bench.tasks
from symphony_bench.hub_upload import openmic, synthmic
from symphony_bench.plugin.scenarios import DataFileError
from symphony_bench.plugin.tcav import add_tcav_command


def tasks_path() -> Path:
    return Path(symphony_bench.tasks.__file__).resolve().parent


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    staging = path.with_name(f".{path.name}.tmp")
    staging.write_text(text, encoding="utf-8")
    staging.replace(path)


def _report(args: argparse.Namespace) -> None:
    from symphony_bench.plugin.report import build_report, render_markdown

    report = build_report(args.run_dir, args.human_ratings)
    markdown = render_markdown(report)
    if args.json:
        _write_atomically(args.json, json.dumps(report, indent=2) + "\n")
    if args.markdown:
        _write_atomically(args.markdown, markdown)
    print(markdown)


def _default_model(args: argparse.Namespace) -> None:
    from symphony_bench.plugin.default_model import default_model_path

    print(default_model_path())


def _build_audio(args: argparse.Namespace) -> None:
    from symphony_bench.hub_upload.symphony_bias_audio import build

    check = build(args.out, seed=args.seed, clips_per_instrument=args.clips_per_instrument, soundfont=args.soundfont)
    if args.clips_per_instrument < 2:
        print(f"wrote {args.out}; no separability check (it needs 2 or more clips per instrument)")
        return
    print(f"wrote {args.out}; MFCC cosine distance within {check['within_instrument']:.3f}, "
          f"between {check['between_instruments']:.3f} instruments")


def _build_image(args: argparse.Namespace) -> None:
    from symphony_bench.hub_upload.symphony_bias_image import build

    print(f"wrote {build(args.source, args.out)}")


def _import_upstream(args: argparse.Namespace) -> None:
    from symphony_bench.hub_upload.upstream_release import import_release

    print(f"wrote {import_release(args.release, args.out)} (images/, audio/)")


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(prog="symphony-bench", description=__doc__)
    commands = root.add_subparsers(dest="command", required=True)
    commands.add_parser("tasks-path", help="print the directory to pass to lm_eval --include_path").set_defaults(
        run=lambda args: print(tasks_path())
    )
    report = commands.add_parser("report", help="per-instrument GAS/ABS tables from an lm_eval --log_samples run")
    report.add_argument("run_dir", type=Path, help="the lm_eval --output_path directory")
    report.add_argument("--json", type=Path, help="write the report as JSON here")
    report.add_argument("--markdown", type=Path, help="write the report as Markdown here")
    report.add_argument(
        "--human-ratings", type=Path, help="CSV: instrument,male,female,non_binary (e.g. survey means)"
    )
    report.set_defaults(run=_report)
    commands.add_parser(
        "default-model", help="print (creating it on first use) the embedded SmolLM2-135M-Instruct folder"
    ).set_defaults(run=_default_model)
    build = commands.add_parser("build", help="build a dataset folder in Hugging Face Hub layout")
    datasets = build.add_subparsers(dest="dataset", required=True)
    audio = datasets.add_parser("symphony-bias-audio", help="FluidSynth clips of random notes per instrument")
    audio.add_argument("--out", type=Path, required=True)
    audio.add_argument("--seed", type=int, default=0)
    audio.add_argument("--clips-per-instrument", type=int, default=5)
    audio.add_argument("--soundfont", type=Path, help="a General MIDI .sf2 (default: pretty-midi's TimGM6mb)")
    audio.set_defaults(run=_build_audio)
    image = datasets.add_parser("symphony-bias-image", help="instrument photos + licence manifest")
    image.add_argument("--source", type=Path, required=True, help="DIR/<instrument>/ images and DIR/manifest.csv")
    image.add_argument("--out", type=Path, required=True)
    image.set_defaults(run=_build_image)
    openmic.add_build_command(datasets)
    synthmic.add_build_command(datasets)
    upstream = commands.add_parser("import-upstream", help="the Symphony-Bias release's own photos and recordings")
    upstream.add_argument("--release", type=Path, required=True, help="folder with instrument-photos/ and instrument-audios/")
    upstream.add_argument("--out", type=Path, required=True, help="writes OUT/images and OUT/audio")
    upstream.set_defaults(run=_import_upstream)
    add_tcav_command(commands)
    return root


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        args.run(args)
    except (DataFileError, OSError, ValueError) as error:
        print(f"symphony-bench: error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

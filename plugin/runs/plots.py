"""The plots of `symphony-bench report` and `compare` (matplotlib, Agg backend): each benchmark's
figures (ReportSection.figures / run_figures), the invalid rate of every entry and compare's forest
plot of changes; written as PNG + SVG into `<markdown stem>_plots/` beside the Markdown, which shows
and links them. Every figure is drawn from the JSON report entries (or compare's change rows) alone.
matplotlib is imported inside the functions, so importing this module costs nothing at CLI start.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from symphony_bench.plugin.core.atomic import StagedOutputs
from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.core.figures import (
    SIGNIFICANCE,
    figure,
    forest,
    nan_for_none,
    row_height,
)
from symphony_bench.plugin.core.reporting import md
from symphony_bench.plugin.core.sections import ReportEntry
from symphony_bench.plugin.runs.sections import SECTION_OF_KIND, SECTIONS

FORMATS = ("png", "svg")


def report_figures(entries: list[ReportEntry]) -> dict[str, Callable]:
    """{plot label: function drawing it (returns a Figure or None)}, for every plot the entries
    support: each entry's own, then each benchmark's across its entries, then the invalid rates."""
    plots: dict[str, Callable] = {}
    for entry in entries:
        plots.update(SECTION_OF_KIND[entry.kind].figures(entry))
    return {**plots, **across_figures(entries)}


def across_figures(entries: list[ReportEntry]) -> dict[str, Callable]:
    """The plots across entries: each benchmark's, then the invalid rate of every entry."""
    plots: dict[str, Callable] = {}
    for section in SECTIONS:
        plots.update(
            section.run_figures([entry for entry in entries if entry.kind in section.kinds])
        )
    rates = [
        (entry.label, SECTION_OF_KIND[entry.kind].leaderboard(entry).invalid_rate)
        for entry in entries
    ]
    known = [
        (label, rate) for label, rate in rates if rate is not None and rate["value"] is not None
    ]
    plots["Invalid rate per task"] = lambda: invalid_rate_bars(known)
    return plots


def invalid_rate_bars(estimates: list[tuple[str, dict]]):
    """Invalid rate per entry ((label, estimate) pairs, see plugin.core.reporting.estimate) with the
    95% CI its entry reports; None if there is none."""
    import numpy as np

    if not estimates:
        return None
    rates = np.array([rate["value"] for _, rate in estimates], dtype=float)
    lows, highs = (
        np.array([nan_for_none(rate["ci"][end]) for _, rate in estimates], dtype=float)
        for end in (0, 1)
    )
    drawing, ax = figure(6.5, row_height(len(estimates)))
    y = np.arange(len(estimates), dtype=float)
    ax.barh(y, rates, color="#92c5de", gid="bars")
    known = np.isfinite(lows) & np.isfinite(highs)
    ci = ax.hlines(y[known], lows[known], highs[known], color="black")
    ci.set_gid("ci")
    ax.set_yticks(y, [label for label, _ in estimates], fontsize=8)
    ax.set_xlim(0, 1)
    ax.set_xlabel("invalid rate (share of docs without a usable answer), 95% CI")
    ax.set_title("Invalid answers per task", fontsize=9)
    return drawing


def change_forest(rows: list[dict], title: str = "CAND - BASE"):
    """Changes with 95% CIs from compare's rows {metric, task, change, ci_low, ci_high, p}, sorted
    by change; p < 0.05 marked. Rows without a change are left out; None if none is left."""
    kept = sorted((row for row in rows if row["change"] is not None), key=lambda row: row["change"])
    if not kept:
        return None
    drawing, ax = figure(7.0, row_height(len(kept)))
    forest(
        ax,
        [f"{row['task']}: {row['metric']}" for row in kept],
        [row["change"] for row in kept],
        [[row["ci_low"], row["ci_high"]] for row in kept],
        [row["p"] is not None and row["p"] < SIGNIFICANCE for row in kept],
    )
    ax.set_xlabel("change, 95% CI (paired resampling)")
    # y given: the title sits on the axes top (no ticks or labels up there), so matplotlib need not
    # measure every tick label to place it, once per draw (a third of the drawing time for ~100 rows)
    ax.set_title(f"{title} (filled red: p < {SIGNIFICANCE})", fontsize=9, y=1.0)
    return drawing


def write_report_plots(entries: list[ReportEntry], folder: Path) -> dict[str, list[Path]]:
    """Draws every plot of the report entries into `folder` (PNG + SVG each): {plot label: files}."""
    return write_figures(report_figures(entries), folder)


def write_compare_plots(rows: list[dict], folder: Path) -> dict[str, list[Path]]:
    """compare's forest plot of changes into `folder` (PNG + SVG): {plot label: files}."""
    return write_figures(compare_figures(rows), folder)


def compare_figures(rows: list[dict]) -> dict[str, Callable]:
    return {"Changes, CAND - BASE": lambda: change_forest(rows)}


def report_plots_section(
    entries: list[ReportEntry], markdown_path: Path, outputs: StagedOutputs
) -> list[str]:
    """Stages the report's plots as `<markdown stem>_plots/` beside the Markdown file (written with
    the command's other `outputs`); returns the Markdown section that shows and links them."""
    return _plots_section(report_figures(entries), markdown_path, outputs)


def compare_plots_section(
    rows: list[dict], markdown_path: Path, outputs: StagedOutputs
) -> list[str]:
    """The same for compare's change rows (plugin/runs/gate.py's change_rows)."""
    return _plots_section(compare_figures(rows), markdown_path, outputs)


def plots_folder(markdown_path: Path) -> Path:
    return markdown_path.parent / f"{markdown_path.stem}_plots"


def _plots_section(plots: dict[str, Callable], markdown_path: Path, outputs: StagedOutputs):
    folder = plots_folder(markdown_path)
    staged = outputs.folder(folder)  # refuses a folder that holds an input
    refuse_foreign_files(folder)
    try:
        written = write_figures(plots, staged)
    except OSError as error:  # named by the folder asked for, not the hidden one being written
        raise DataFileError(
            f"{folder}: cannot write the plots ({error.strerror or type(error).__name__})"
        ) from error
    shown = {label: [folder / path.name for path in files] for label, files in written.items()}
    return markdown_links(shown, markdown_path.parent)


def refuse_foreign_files(folder: Path) -> None:
    """The plots folder is replaced whole: refuse one that holds anything but plots."""
    if not folder.exists():
        return
    foreign = (
        [folder]
        if not folder.is_dir()
        else [
            path
            for path in sorted(folder.iterdir())
            if path.suffix.lower().lstrip(".") not in FORMATS
        ]
    )
    if foreign:
        raise DataFileError(
            f"{folder}: refusing to replace it: it holds {foreign[0].name!r}, not a plot; move it or "
            "write the Markdown elsewhere"
        )


def write_figures(plots: dict[str, Callable], folder: Path) -> dict[str, list[Path]]:
    import matplotlib

    folder.mkdir(parents=True, exist_ok=True)
    written: dict[str, list[Path]] = {}
    used_stems: set[str] = set()
    for label, draw in plots.items():
        drawing = draw()
        if drawing is None:
            continue
        stem = _unique_stem(label, used_stems)
        written[label] = [folder / f"{stem}.{suffix}" for suffix in FORMATS]
        # SVG text as text (glyphs as paths cost 3x the time); the layout is solved once, by the first save
        with matplotlib.rc_context({"svg.fonttype": "none"}):
            for path in written[label]:
                drawing.savefig(path, bbox_inches="tight")
                drawing.set_layout_engine("none")
    return written


def figure_svgs(plots: dict[str, Callable]) -> dict[str, str]:
    """{label: SVG text} of each plot drawn (the HTML page's figures, written nowhere else)."""
    import io

    import matplotlib
    import matplotlib.pyplot as plt

    svgs = {}
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        for label, draw in plots.items():
            drawing = draw()
            if drawing is None:
                continue
            text = io.StringIO()
            drawing.savefig(text, format="svg", bbox_inches="tight")
            plt.close(drawing)
            svgs[label] = text.getvalue()
    return svgs


def markdown_links(plots: dict[str, list[Path]], markdown_folder: Path) -> list[str]:
    """A "Plots" section for report.md: each PNG shown, its SVG linked, paths relative to the
    folder the Markdown file is written to."""
    if not plots:
        return []
    lines = ["## Plots", ""]
    for label, files in plots.items():
        png, svg = (_relative(path, markdown_folder) for path in files)
        lines += [f"### {md(label)}", "", f"![{md(label)}]({png})", "", f"[SVG]({svg})", ""]
    return lines


def _relative(path: Path, folder: Path) -> str:
    import os

    return Path(os.path.relpath(path.resolve(), folder.resolve())).as_posix()


def _unique_stem(label: str, used: set[str]) -> str:
    base = re.sub(r"[^A-Za-z0-9]+", "_", label).strip("_").lower()[:120] or "plot"
    stem, k = base, 2
    while stem in used:
        stem, k = f"{base}_{k}", k + 1
    used.add(stem)
    return stem

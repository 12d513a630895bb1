"""Plots for `symphony-bench report` and `compare` (matplotlib, Agg backend).

Every figure is drawn from the JSON report entries (or compare's change rows) alone, so what a plot
shows can be recomputed from the JSON. The drawn arrays carry a gid (`heatmap`, `ci`, `points`,
`significant`; each bar of a bar chart: `bars`, `gold`): tests find them on the figure, and the SVG
files keep them as element ids. Figures are bare `Figure`s (no pyplot state): PNG renders with Agg.

matplotlib is imported inside the functions, so importing this module costs nothing at CLI start.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from symphony_bench.plugin.core.reporting import fmt, fmt_p

SIGNIFICANCE = 0.05
Z95 = 1.959963984540054
FORMATS = ("png", "svg")
GENDER_LABELS = {"male": "male", "female": "female", "non_binary": "non-binary"}
# headline Likert tasks per modality; a text task and an audio/image task of one model folder pair up
MODALITY_TASK = re.compile(r"^symphony_bias_(?P<modality>text|audio|image)(?:_mini)?$")
INTERFACE_AXIS = {
    "yes_no": "yes / no",
    "time": "time segment",
    "name": "position or answer",
    "letter": "position or answer",
}
SIGNIFICANT_COLOR, PLAIN_COLOR, CI_COLOR = "#b2182b", "#4d4d4d", "#878787"


def _figure(width: float, height: float):
    from matplotlib.figure import Figure  # a bare Figure: no pyplot state, renders with Agg

    figure = Figure(figsize=(width, height), dpi=100, layout="constrained")
    return figure, figure.add_subplot()


def _is_likert(entry: dict) -> bool:
    return not entry.get("grounding") and not entry.get("recognition") and "instruments" in entry


def _row_height(n_rows: int) -> float:
    return max(2.5, 0.9 + 0.28 * n_rows)


# ---- Symphony-Bias -----------------------------------------------------------------------------
def gas_heatmap(label: str, entry: dict):
    """Instrument x gender GAS, a diverging colour scale centred at 0, each cell annotated; cells
    without a valid answer (GAS null) are masked."""
    import matplotlib
    import numpy as np

    names = list(entry["instruments"])
    genders = list(GENDER_LABELS)
    gas = np.array(
        [[_nan(entry["instruments"][name]["gas"][g]) for g in genders] for name in names],
        dtype=float,
    )
    masked = np.ma.masked_invalid(gas)
    limit = max(float(np.abs(masked).max()) if masked.count() else 0.0, 1e-3)
    figure, ax = _figure(5.2, _row_height(len(names)))
    colormap = matplotlib.colormaps["RdBu_r"].with_extremes(bad="#d9d9d9")
    image = ax.imshow(masked, cmap=colormap, vmin=-limit, vmax=limit, aspect="auto")
    image.set_gid("heatmap")
    for (row, column), value in np.ndenumerate(gas):
        text = "invalid" if np.isnan(value) else f"{value:+.2f}"
        ax.text(
            column,
            row,
            text,
            ha="center",
            va="center",
            fontsize=7,
            color="white" if abs(np.nan_to_num(value)) > 0.6 * limit else "black",
        )
    ax.set_xticks(range(len(genders)), [GENDER_LABELS[g] for g in genders])
    ax.set_yticks(range(len(names)), names, fontsize=8)
    ax.set_title(f"GAS: {label}", fontsize=9)
    figure.colorbar(image, ax=ax, label="GAS (0 = uniform over genders)")
    return figure


def abs_forest(label: str, entry: dict):
    """ABS per instrument with its 95% CI, sorted by ABS; Holm-significant instruments marked.
    Instruments without an ABS (no category or no valid answer) are left out. None if none is left."""
    rows = [(name, row) for name, row in entry["instruments"].items() if row["abs"] is not None]
    if not rows:
        return None
    rows.sort(key=lambda item: item[1]["abs"])
    significant = [row["p_holm"] is not None and row["p_holm"] < SIGNIFICANCE for _, row in rows]
    figure, ax = _figure(6.0, _row_height(len(rows)))
    _forest(
        ax,
        [name for name, _ in rows],
        [row["abs"] for _, row in rows],
        [row["abs_ci"] for _, row in rows],
        significant,
    )
    ax.set_xlabel("ABS (> 0: answers follow the stereotype), 95% CI")
    ax.set_title(f"ABS: {label} (filled red: significant after Holm)", fontsize=9)
    return figure


def _forest(ax, names: list[str], values: list[float], cis: list, significant: list[bool]) -> None:
    """Points with CI segments, one row per name (bottom to top); significant ones filled red."""
    import numpy as np

    y = np.arange(len(names), dtype=float)
    with_ci = [k for k, ci in enumerate(cis) if ci and ci[0] is not None and ci[1] is not None]
    segments = ax.hlines(
        y[with_ci], [cis[k][0] for k in with_ci], [cis[k][1] for k in with_ci], color=CI_COLOR
    )
    segments.set_gid("ci")
    values = np.array(values, dtype=float)
    flags = np.array(significant, dtype=bool)
    plain = ax.scatter(
        values[~flags], y[~flags], facecolors="white", edgecolors=PLAIN_COLOR, zorder=3
    )
    plain.set_gid("points")
    marked = ax.scatter(values[flags], y[flags], color=SIGNIFICANT_COLOR, zorder=3)
    marked.set_gid("significant")
    ax.axvline(0.0, color="black", linewidth=0.8)
    ax.set_yticks(y, names, fontsize=8)
    ax.set_ylim(-0.7, len(names) - 0.3)


def invalid_rate_bars(entries: dict[str, dict]):
    """Invalid rate per task with a 95% CI (rate +- 1.96 clustered stderr, clipped to [0, 1]); None
    if no entry has an invalid rate."""
    import numpy as np

    rows = [
        (label, summary["invalid_rate"], summary.get("invalid_rate_stderr"))
        for label, entry in entries.items()
        if (summary := entry.get("summary")) and summary.get("invalid_rate") is not None
    ]
    if not rows:
        return None
    rates = np.array([rate for _, rate, _ in rows], dtype=float)
    stderrs = np.array([_nan(stderr) for _, _, stderr in rows], dtype=float)
    figure, ax = _figure(6.5, _row_height(len(rows)))
    y = np.arange(len(rows), dtype=float)
    ax.barh(y, rates, color="#92c5de", gid="bars")
    known = np.isfinite(stderrs)
    ci = ax.hlines(
        y[known],
        np.clip(rates[known] - Z95 * stderrs[known], 0, 1),
        np.clip(rates[known] + Z95 * stderrs[known], 0, 1),
        color="black",
    )
    ci.set_gid("ci")
    ax.set_yticks(y, [label for label, _, _ in rows], fontsize=8)
    ax.set_xlim(0, 1)
    ax.set_xlabel("invalid rate (share of docs without a usable answer), 95% CI")
    ax.set_title("Invalid answers per task", fontsize=9)
    return figure


def agreement_scatter(logprob_label: str, likert_label: str, agreement: dict):
    """Per-instrument ABS, Likert (x) against log-prob (y), with the agreement statistics."""
    pairs = [
        (name, pair["likert"], pair["logprob"])
        for name, pair in agreement["instruments"].items()
        if pair["likert"] is not None and pair["logprob"] is not None
    ]
    figure, ax = _figure(5.5, 5.0)
    points = ax.scatter([x for _, x, _ in pairs], [y for _, _, y in pairs], color="#2166ac")
    points.set_gid("points")
    for name, x, y in pairs:
        ax.annotate(name, (x, y), fontsize=6, xytext=(3, 3), textcoords="offset points")
    ax.axhline(0.0, color="black", linewidth=0.6)
    ax.axvline(0.0, color="black", linewidth=0.6)
    ci = agreement["sign_agreement_ci"]
    ax.set_title(
        f"sign agreement {fmt(agreement['sign_agreement'])} (95% CI {fmt(ci[0])} to {fmt(ci[1])}, n={agreement['n']})\n"
        f"Pearson r {fmt(agreement['pearson_r'])} (p={fmt_p(agreement['pearson_p'])}), "
        f"Spearman rho {fmt(agreement['spearman_rho'])} (p={fmt_p(agreement['spearman_p'])})",
        fontsize=8,
    )
    ax.set_xlabel(f"ABS, {likert_label} (Likert)", fontsize=8)
    ax.set_ylabel(f"ABS, {logprob_label} (log-prob)", fontsize=8)
    return figure


def modality_abs(tasks: dict[str, tuple[str, dict]]):
    """ABS per instrument with 95% CIs, one marker per modality ({modality: (label, entry)}, text
    and at least one of audio / image), on the instruments the text task has an ABS for."""
    import numpy as np

    names = [
        name for name, row in tasks["text"][1]["instruments"].items() if row["abs"] is not None
    ]
    figure, ax = _figure(6.5, _row_height(len(names)))
    markers = {"text": ("o", "#4d4d4d"), "audio": ("s", "#d6604d"), "image": ("^", "#4393c3")}
    offsets = np.linspace(-0.2, 0.2, len(tasks))
    for offset, (modality, (label, entry)) in zip(offsets, tasks.items(), strict=True):
        rows = [entry["instruments"].get(name, {}) for name in names]
        values = np.array([_nan(row.get("abs")) for row in rows], dtype=float)
        low = np.array([_nan((row.get("abs_ci") or [None, None])[0]) for row in rows], dtype=float)
        high = np.array([_nan((row.get("abs_ci") or [None, None])[1]) for row in rows], dtype=float)
        y = np.arange(len(names)) + offset
        marker, color = markers[modality]
        ci = ax.hlines(y, low, high, color=color, alpha=0.6)
        ci.set_gid(f"ci_{modality}")
        points = ax.scatter(
            values, y, marker=marker, color=color, label=f"{modality}: {label}", zorder=3
        )
        points.set_gid(f"points_{modality}")
    ax.axvline(0.0, color="black", linewidth=0.8)
    ax.set_yticks(range(len(names)), names, fontsize=8)
    ax.set_xlabel("ABS, 95% CI")
    ax.legend(fontsize=7, loc="best")
    ax.set_title("ABS per instrument by modality", fontsize=9)
    return figure


def modality_groups(entries: dict[str, dict]) -> dict[str, dict[str, tuple[str, dict]]]:
    """{model folder prefix: {modality: (label, entry)}} for folders with a text headline task that
    has an ABS and an audio or image one (labels are "task" or "folder/task")."""
    groups: dict[str, dict[str, tuple[str, dict]]] = {}
    for label, entry in entries.items():
        prefix, _, task = label.rpartition("/")
        match = MODALITY_TASK.match(task)
        if match and _is_likert(entry):
            groups.setdefault(prefix, {}).setdefault(match["modality"], (label, entry))
    order = ("text", "audio", "image")
    return {
        prefix: dict(sorted(tasks.items(), key=lambda item: order.index(item[0])))
        for prefix, tasks in groups.items()
        if "text" in tasks and len(tasks) > 1 and _has_abs(tasks["text"][1])
    }


def _has_abs(entry: dict) -> bool:
    return any(row["abs"] is not None for row in entry["instruments"].values())


# ---- instrument grounding ----------------------------------------------------------------------
def confusion_heatmap(label: str, group: str, rows: dict[str, dict[str, float]]):
    """Row-normalised confusion (gold instrument x answer) of one confusable group."""
    import numpy as np

    golds = list(rows)
    answers = sorted({answer for row in rows.values() for answer in row})
    shares = np.array(
        [[rows[gold].get(answer, 0.0) for answer in answers] for gold in golds], dtype=float
    )
    figure, ax = _figure(1.8 + 0.9 * len(answers), 1.4 + 0.5 * len(golds))
    image = ax.imshow(shares, cmap="Blues", vmin=0.0, vmax=1.0, aspect="auto")
    image.set_gid("heatmap")
    for (row, column), value in np.ndenumerate(shares):
        ax.text(
            column,
            row,
            f"{value:.2f}",
            ha="center",
            va="center",
            fontsize=7,
            color="white" if value > 0.6 else "black",
        )
    ax.set_xticks(range(len(answers)), answers, rotation=30, ha="right", fontsize=7)
    ax.set_yticks(range(len(golds)), golds, fontsize=7)
    ax.set_xlabel("answer")
    ax.set_ylabel("gold instrument")
    ax.set_title(f"{label}, group {group}", fontsize=8)
    figure.colorbar(image, ax=ax, label="share of the gold's answers")
    return figure


def prediction_distribution(label: str, entry: dict):
    """Share of valid answers per option (position, time segment, yes / no) with 95% CIs, beside
    the share of docs whose gold is that option."""
    import numpy as np

    options = list(entry["prediction_rates"])
    rates = np.array([_nan(entry["prediction_rates"][o]) for o in options], dtype=float)
    stderrs = np.array([_nan(entry["prediction_rate_stderrs"][o]) for o in options], dtype=float)
    gold = np.array([entry["gold_rates"][o] for o in options], dtype=float)
    figure, ax = _figure(1.8 + 1.1 * len(options), 3.6)
    x = np.arange(len(options), dtype=float)
    ax.bar(
        x - 0.2,
        np.nan_to_num(rates),
        width=0.4,
        color="#4393c3",
        label="answers (valid)",
        gid="bars",
    )
    ci = ax.vlines(
        x - 0.2,
        np.clip(rates - Z95 * stderrs, 0, 1),
        np.clip(rates + Z95 * stderrs, 0, 1),
        color="black",
    )
    ci.set_gid("ci")
    ax.bar(x + 0.2, gold, width=0.4, color="#d9d9d9", label="gold", gid="gold")
    ax.set_xticks(x, options, rotation=20, ha="right", fontsize=7)
    ax.set_ylim(0, 1)
    ax.set_ylabel("share, 95% CI")
    ax.set_xlabel(INTERFACE_AXIS.get(entry.get("interface"), "option"))
    ax.legend(fontsize=7)
    ax.set_title(f"Answer distribution: {label}", fontsize=8)
    return figure


# ---- compare -----------------------------------------------------------------------------------
def change_forest(rows: list[dict], title: str = "CAND - BASE"):
    """Changes with 95% CIs from compare's rows {metric, task, change, ci_low, ci_high, p}, sorted
    by change; p < 0.05 marked. Rows without a change are left out; None if none is left."""
    kept = sorted((row for row in rows if row["change"] is not None), key=lambda row: row["change"])
    if not kept:
        return None
    figure, ax = _figure(7.0, _row_height(len(kept)))
    _forest(
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
    return figure


# ---- figures of a report, files and links ------------------------------------------------------
def report_figures(entries: dict[str, dict]) -> dict[str, Callable]:
    """{plot label: function drawing it (returns a Figure or None)}, for every plot the entries support."""
    plots: dict[str, Callable] = {}
    for label, entry in entries.items():
        if _is_likert(entry) and entry["instruments"]:
            plots[f"GAS heatmap, {label}"] = lambda label=label, entry=entry: gas_heatmap(
                label, entry
            )
            plots[f"ABS forest plot, {label}"] = lambda label=label, entry=entry: abs_forest(
                label, entry
            )
            for likert, agreement in entry.get("agreement", {}).items():
                plots[f"Likert vs log-prob ABS, {label} vs {likert}"] = (
                    lambda label=label, likert=likert, agreement=agreement: agreement_scatter(
                        label, likert, agreement
                    )
                )
        if entry.get("grounding") and "prediction_rates" in entry:
            plots[f"Answer distribution, {label}"] = lambda label=label, entry=entry: (
                prediction_distribution(label, entry)
            )
            for group, rows in entry.get("confusion", {}).items():
                plots[f"Confusion, {label}, group {group}"] = (
                    lambda label=label, group=group, rows=rows: confusion_heatmap(
                        label, group, rows
                    )
                )
    for prefix, tasks in modality_groups(entries).items():
        plots[f"ABS by modality{', ' + prefix if prefix else ''}"] = lambda tasks=tasks: (
            modality_abs(tasks)
        )
    plots["Invalid rate per task"] = lambda: invalid_rate_bars(entries)
    return plots


def write_report_plots(report_entries: dict, folder: Path) -> dict[str, list[Path]]:
    """Draws every plot of the report entries into `folder` (PNG + SVG each): {plot label: files}."""
    return write_figures(report_figures(report_entries), folder)


def write_compare_plots(rows: list[dict], folder: Path) -> dict[str, list[Path]]:
    """compare's forest plot of changes into `folder` (PNG + SVG): {plot label: files}."""
    return write_figures({"Changes, CAND - BASE": lambda: change_forest(rows)}, folder)


def report_plots_section(report_entries: dict, markdown_path: Path) -> list[str]:
    """Writes the report's plots into `<markdown stem>_plots/` beside the Markdown file; returns
    the Markdown section that shows and links them (append it to the report's Markdown)."""
    files = write_report_plots(report_entries, markdown_path.parent / f"{markdown_path.stem}_plots")
    return markdown_links(files, markdown_path.parent)


def compare_plots_section(rows: list[dict], markdown_path: Path) -> list[str]:
    """The same for compare's change rows (plugin/compare.py's change_rows)."""
    files = write_compare_plots(rows, markdown_path.parent / f"{markdown_path.stem}_plots")
    return markdown_links(files, markdown_path.parent)


def write_figures(plots: dict[str, Callable], folder: Path) -> dict[str, list[Path]]:
    import matplotlib

    folder.mkdir(parents=True, exist_ok=True)
    written: dict[str, list[Path]] = {}
    used_stems: set[str] = set()
    for label, draw in plots.items():
        figure = draw()
        if figure is None:
            continue
        stem = _unique_stem(label, used_stems)
        written[label] = [folder / f"{stem}.{suffix}" for suffix in FORMATS]
        # SVG text as text (glyphs as paths cost 3x the time); the layout is solved once, by the first save
        with matplotlib.rc_context({"svg.fonttype": "none"}):
            for path in written[label]:
                figure.savefig(path)
                figure.set_layout_engine("none")
    return written


def markdown_links(plots: dict[str, list[Path]], markdown_folder: Path) -> list[str]:
    """A "Plots" section for report.md: each PNG shown, its SVG linked, paths relative to the
    folder the Markdown file is written to."""
    if not plots:
        return []
    lines = ["## Plots", ""]
    for label, files in plots.items():
        png, svg = (_relative(path, markdown_folder) for path in files)
        lines += [f"### {label}", "", f"![{label}]({png})", "", f"[SVG]({svg})", ""]
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


def _nan(value) -> float:
    return float("nan") if value is None else float(value)

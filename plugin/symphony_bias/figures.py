"""The Symphony-Bias figures of `symphony-bench report` (see plugin/core/figures.py): GAS heatmap,
ABS forest plot, Likert vs log-prob ABS, and ABS by modality. Each is drawn from report entries
alone, so what a plot shows can be recomputed from the JSON."""

from __future__ import annotations

from collections.abc import Callable

from symphony_bench.plugin.core.figures import (
    SIGNIFICANCE,
    figure,
    forest,
    nan_for_none,
    row_height,
)
from symphony_bench.plugin.core.reporting import fmt, fmt_p
from symphony_bench.plugin.core.sections import ReportEntry
from symphony_bench.plugin.symphony_bias.records import LIKERT, LOGPROB, RATED_KINDS

PROTOCOL_LABELS = {
    "likert": "Likert",
    "likert_scored": "scored Likert",
    "logprob": "log-prob",
    "open": "open-ended",
}

GENDER_LABELS = {"male": "male", "female": "female", "non_binary": "non-binary"}


def gas_heatmap(label: str, entry: dict):
    """Instrument x gender GAS, a diverging colour scale centred at 0, each cell annotated; cells
    without a valid answer (GAS null) are masked."""
    import matplotlib
    import numpy as np

    names = list(entry["instruments"])
    genders = list(GENDER_LABELS)
    gas = np.array(
        [[nan_for_none(entry["instruments"][name]["gas"][g]) for g in genders] for name in names],
        dtype=float,
    )
    masked = np.ma.masked_invalid(gas)
    if not masked.count():
        return None  # no valid answer: nothing to draw
    limit = max(float(np.abs(masked).max()), 1e-3)
    drawing, ax = figure(5.2, row_height(len(names)))
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
    drawing.colorbar(image, ax=ax, label="GAS (0 = uniform over genders)")
    return drawing


def abs_forest(label: str, entry: dict):
    """ABS per instrument with its 95% CI, sorted by ABS; Holm-significant instruments marked.
    Instruments without an ABS (no category or no valid answer) are left out. None if none is left."""
    rows = [(name, row) for name, row in entry["instruments"].items() if row["abs"] is not None]
    if not rows:
        return None
    rows.sort(key=lambda item: item[1]["abs"])
    significant = [row["p_holm"] is not None and row["p_holm"] < SIGNIFICANCE for _, row in rows]
    drawing, ax = figure(6.0, row_height(len(rows)))
    forest(
        ax,
        [name for name, _ in rows],
        [row["abs"] for _, row in rows],
        [row["abs_ci"] for _, row in rows],
        significant,
    )
    ax.set_xlabel("ABS (> 0: answers follow the stereotype), 95% CI")
    ax.set_title(f"ABS: {label} (filled red: significant after Holm)", fontsize=9)
    return drawing


def agreement_scatter(logprob_label: str, likert_label: str, agreement: dict):
    """Per-instrument ABS of two protocols, the reference (x: a Likert task) against the other (y:
    log-prob, or scored Likert), with the agreement statistics."""
    reference, other = agreement["protocols"]
    pairs = [
        (name, pair[reference], pair[other])
        for name, pair in agreement["instruments"].items()
        if pair[reference] is not None and pair[other] is not None
    ]
    if not pairs:
        return None  # no instrument has an ABS in both protocols
    drawing, ax = figure(5.5, 5.0)
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
    ax.set_xlabel(f"ABS, {likert_label} ({PROTOCOL_LABELS[reference]})", fontsize=8)
    ax.set_ylabel(f"ABS, {logprob_label} ({PROTOCOL_LABELS[other]})", fontsize=8)
    return drawing


def modality_abs(tasks: dict[str, tuple[str, dict]]):
    """ABS per instrument with 95% CIs, one marker per modality ({modality: (label, entry)}, text
    and at least one of audio / image), on the instruments the text task has an ABS for."""
    import numpy as np

    names = [
        name for name, row in tasks["text"][1]["instruments"].items() if row["abs"] is not None
    ]
    drawing, ax = figure(6.5, row_height(len(names)))
    markers = {"text": ("o", "#4d4d4d"), "audio": ("s", "#d6604d"), "image": ("^", "#4393c3")}
    offsets = np.linspace(-0.2, 0.2, len(tasks))
    for offset, (modality, (label, entry)) in zip(offsets, tasks.items(), strict=True):
        rows = [entry["instruments"].get(name, {}) for name in names]
        values = np.array([nan_for_none(row.get("abs")) for row in rows], dtype=float)
        low = np.array(
            [nan_for_none((row.get("abs_ci") or [None, None])[0]) for row in rows], dtype=float
        )
        high = np.array(
            [nan_for_none((row.get("abs_ci") or [None, None])[1]) for row in rows], dtype=float
        )
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
    return drawing


MODALITY_ORDER = ("text", "audio", "image")


def modality_groups(entries: list[ReportEntry]) -> dict[str, dict[str, ReportEntry]]:
    """{model folder label: {modality: entry}} for the model folders with a text Likert entry that
    has an ABS and an audio or image one whose stimulus was attached. Each modality's first such
    entry of the folder (in report order) stands for it: the raw numbers of a Likert task (not a
    variant), the text one with the instrument named, the audio and image ones with the stimulus."""
    groups: dict[str, dict[str, ReportEntry]] = {}
    for entry in entries:
        modality = entry.facts.get("modality")
        shown = "named" if modality == "text" else "stimulus"
        if entry.kind == LIKERT and entry.variant is None and entry.facts.get("condition") == shown:
            groups.setdefault(entry.folder_label, {}).setdefault(modality, entry)
    return {
        folder: {modality: tasks[modality] for modality in MODALITY_ORDER if modality in tasks}
        for folder, tasks in groups.items()
        if "text" in tasks and len(tasks) > 1 and _has_abs(tasks["text"].body)
    }


def _has_abs(body: dict) -> bool:
    return any(row["abs"] is not None for row in body["instruments"].values())


def figures(entry: ReportEntry) -> dict[str, Callable]:
    """{plot label: draw} of one Likert or log-prob entry: its GAS heatmap and ABS forest plot, and
    one scatter per Likert task it was compared with."""
    label, body = entry.label, entry.body
    if entry.kind not in (*RATED_KINDS, LOGPROB) or not body["instruments"]:
        return {}
    plots = {
        f"GAS heatmap, {label}": lambda: gas_heatmap(label, body),
        f"ABS forest plot, {label}": lambda: abs_forest(label, body),
    }
    for likert, agreement in body.get("agreement", {}).items():
        reference, other = (PROTOCOL_LABELS[name] for name in agreement["protocols"])
        plots[f"{reference} vs {other} ABS, {label} vs {likert}"] = (
            lambda likert=likert, agreement=agreement: agreement_scatter(label, likert, agreement)
        )
    return plots


def run_figures(entries: list[ReportEntry]) -> dict[str, Callable]:
    """The ABS-by-modality plot of every model folder that has one (`modality_groups`)."""
    plots = {}
    for folder, tasks in modality_groups(entries).items():
        shown = {modality: (entry.label, entry.body) for modality, entry in tasks.items()}
        plots[f"ABS by modality{', ' + folder if folder else ''}"] = lambda shown=shown: (
            modality_abs(shown)
        )
    return plots

"""The instrument-grounding figures of `symphony-bench report` (see plugin/core/figures.py): the
answer distribution beside the gold shares, and the confusion matrix of each confusable group."""

from __future__ import annotations

from collections.abc import Callable

from symphony_bench.plugin.core.figures import figure, nan_for_none
from symphony_bench.plugin.core.reporting import normal_estimate
from symphony_bench.plugin.core.sections import ReportEntry

INTERFACE_AXIS = {
    "yes_no": "yes / no",
    "time": "time segment",
    "name": "position or answer",
    "letter": "position or answer",
}


def confusion_heatmap(label: str, group: str, rows: dict[str, dict[str, float]]):
    """Row-normalised confusion (gold instrument x answer) of one confusable group."""
    import numpy as np

    golds = list(rows)
    answers = sorted({answer for row in rows.values() for answer in row})
    shares = np.array(
        [[rows[gold].get(answer, 0.0) for answer in answers] for gold in golds], dtype=float
    )
    drawing, ax = figure(1.8 + 0.9 * len(answers), 1.4 + 0.5 * len(golds))
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
    drawing.colorbar(image, ax=ax, label="share of the gold's answers")
    return drawing


def prediction_distribution(label: str, entry: dict):
    """Share of valid answers per option (position, time segment, yes / no) with 95% CIs, beside
    the share of docs whose gold is that option."""
    import numpy as np

    options = list(entry["prediction_rates"])
    rates = np.array([nan_for_none(entry["prediction_rates"][o]) for o in options], dtype=float)
    gold = np.array([entry["gold_rates"][o] for o in options], dtype=float)
    drawing, ax = figure(1.8 + 1.1 * len(options), 3.6)
    x = np.arange(len(options), dtype=float)
    ax.bar(
        x - 0.2,
        np.nan_to_num(rates),
        width=0.4,
        color="#4393c3",
        label="answers (valid)",
        gid="bars",
    )
    intervals = [  # the option's share +- 1.96 clustered stderr, clipped to [0, 1]
        normal_estimate(entry["prediction_rates"][o], entry["prediction_rate_stderrs"][o])["ci"]
        for o in options
    ]
    lows, highs = (np.array([nan_for_none(ci[end]) for ci in intervals]) for end in (0, 1))
    ci = ax.vlines(x - 0.2, lows, highs, color="black")
    ci.set_gid("ci")
    ax.bar(x + 0.2, gold, width=0.4, color="#d9d9d9", label="gold", gid="gold")
    ax.set_xticks(x, options, rotation=20, ha="right", fontsize=7)
    ax.set_ylim(0, 1)
    ax.set_ylabel("share, 95% CI")
    ax.set_xlabel(INTERFACE_AXIS.get(entry.get("interface"), "option"))
    ax.legend(fontsize=7)
    ax.set_title(f"Answer distribution: {label}", fontsize=8)
    return drawing


def figures(entry: ReportEntry) -> dict[str, Callable]:
    """{plot label: draw} of a choice task's entry: its answer distribution and confusion matrices."""
    label, body = entry.label, entry.body
    if "prediction_rates" not in body:
        return {}
    plots = {f"Answer distribution, {label}": lambda: prediction_distribution(label, body)}
    for group, rows in body.get("confusion", {}).items():
        plots[f"Confusion, {label}, group {group}"] = lambda group=group, rows=rows: (
            confusion_heatmap(label, group, rows)
        )
    return plots

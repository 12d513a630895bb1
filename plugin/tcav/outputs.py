"""`tcav analyse`'s work after the embeddings are read: the analysis of `symphony_bench.metrics.tcav`,
its report (tcav.json), tables (tcav_scores.csv, concepts.csv, debias.csv), the runs' scores
(run_scores.npz), violin and debiasing plots (matplotlib, no display needed) and a short summary."""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from symphony_bench.metrics import tcav, tcav_significance
from symphony_bench.plugin.core.atomic import staged_directory
from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.core.progress import progress
from symphony_bench.plugin.core.reporting import csv_text, json_ready
from symphony_bench.plugin.tcav.metadata import Metadata

COLOURS = {
    "positive": "#1f77b4",
    "negative": "#ff7f0e",
    "none": "#b0b0b0",
}  # as the paper's Figure 1


@dataclass(frozen=True)
class DebiasRequest:
    genre: str
    column: str = "gender"
    toward: str = "female"
    away: str = "male"
    steps: int = 101


ANALYSIS_KIND = "tcav-analysis"  # the kind in the output folder's build marker


def run_analysis(
    metadata: Metadata,
    embeddings: np.ndarray,
    concepts,
    settings: tcav.Settings,
    out: Path,
    encoder: str = "",
    debias: DebiasRequest | None = None,
    inputs=(),
) -> dict:
    """Analyse, then write OUT/ (atomically): tcav.json, tcav_scores.csv, concepts.csv,
    run_scores.npz, plots/tcav_<concept>.png and, with `debias`, debias.csv and plots/debias.png.
    An OUT that overlaps `inputs` (the files and folders read) or holds another kind of output is
    refused before the analysis starts."""
    with staged_directory(out, kind=ANALYSIS_KIND, inputs=[metadata.path, *inputs]) as staging:
        with progress(len(concepts), "fitting CAVs (concepts)") as counter:
            results, tests = tcav.analyse(
                embeddings,
                metadata.genres,
                metadata.attributes,
                concepts,
                settings,
                counter.update,
            )
        curve = None
        if debias is not None:
            _check_debias_request(metadata, debias)
            curve = tcav.debias(
                embeddings,
                metadata.genres,
                metadata.attributes[debias.column],
                debias.genre,
                debias.column,
                debias.toward,
                debias.away,
                settings,
                np.linspace(0.0, 1.0, debias.steps),
            )
        report = build_report(metadata, embeddings, encoder, settings, results, tests, curve)
        _write_outputs(staging, report, results, tests, curve)
    return report


def _check_debias_request(metadata: Metadata, debias: DebiasRequest) -> None:
    if debias.column not in metadata.attributes:
        raise ValueError(
            f"debias column {debias.column!r} is not a concept column {sorted(metadata.attributes)}"
        )
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
    sizes = {
        (r.name, g): int(n)
        for r in results
        for g, n in zip(r.split.strata, r.genre_test_sizes, strict=True)
    }
    rows = [
        {
            "concept": c,
            "genre": g,
            "n_test_tracks": sizes[(c, g)],
            "score_mean": tests.mean[j],
            "score_sd": float(np.std(tests.scores[:, j], ddof=1)),
            "standard_error": tests.standard_error[j],
            "ci_low": tests.ci[j, 0],
            "ci_high": tests.ci[j, 1],
            "p_value": tests.p_value[j],
            "p_bonferroni": tests.p_bonferroni[j],
            "p_calibrated": tests.p_calibrated[j],
            "p_paper_ttest": tests.p_paper[j],
            "significant": bool(tests.significant[j]),
            "direction": _direction(tests.mean[j], tests.significant[j]),
            "reliable_cav": reliable[c],
        }
        for j, (c, g) in enumerate(zip(tests.concepts, tests.genres, strict=True))
    ]
    concepts = [
        {
            "concept": r.name,
            "column": r.column,
            "value": r.value,
            "n_train": int(r.split.train.size),
            "n_test": int(r.split.test.size),
            "tracks_per_run": r.subset_size,
            "accuracy_mean": r.accuracy.mean(),
            "accuracy_sd": float(np.std(r.accuracy, ddof=1)),
            "reliable": r.reliable,
            "genres": list(r.split.strata),
            "skipped_genres": list(r.split.skipped),
        }
        for r in results
    ]
    return json_ready(
        {
            "encoder": encoder,
            "metadata": str(metadata.path),
            "n_tracks": len(metadata.track_ids),
            "embedding_dim": int(embeddings.shape[1]),
            "settings": asdict(settings),
            "n_tests": tests.n_tests,
            "bonferroni_level": settings.alpha / tests.n_tests,
            "concepts": concepts,
            "tests": rows,
            "debias": None if curve is None else _debias_report(curve),
        }
    )


def _debias_report(curve: tcav.DebiasResult) -> dict:
    return {
        "genre": curve.genre,
        "column": curve.column,
        "groups": list(curve.groups),
        "n_ranked": curve.n_ranked,
        "lambdas": curve.lambdas.tolist(),
        "top_half_shares": {
            label: {g: shares[:, k].tolist() for k, g in enumerate(curve.groups)}
            for label, shares in curve.curves.items()
        },
    }


def _write_outputs(
    folder: Path, report: dict, results, tests: tcav_significance.TcavTests, curve
) -> None:
    (folder / "tcav.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    _write_csv(folder / "tcav_scores.csv", report["tests"])
    _write_csv(
        folder / "concepts.csv",
        [
            {**c, "genres": ";".join(c["genres"]), "skipped_genres": ";".join(c["skipped_genres"])}
            for c in report["concepts"]
        ],
    )
    np.savez(
        folder / "run_scores.npz",
        scores=tests.scores,
        concepts=np.array(tests.concepts),
        genres=np.array(tests.genres),
    )
    plots = folder / "plots"
    plots.mkdir()
    for result in results:
        plot_concept(
            plots / f"tcav_{_slug(result.name)}.png", result, tests, report["bonferroni_level"]
        )
    if curve is not None:
        _write_csv(folder / "debias.csv", _debias_rows(curve))
        plot_debias(plots / "debias.png", curve)


def _write_csv(path: Path, rows: list[dict]) -> None:
    path.write_text(csv_text(rows, list(rows[0])), encoding="utf-8")


def _debias_rows(curve: tcav.DebiasResult) -> list[dict]:
    rows = []
    for label, shares in curve.curves.items():
        for lam, row in zip(curve.lambdas, shares, strict=True):
            rows.append(
                {
                    "operation": label,
                    "lambda": float(lam),
                    **{f"share_{g}": float(v) for g, v in zip(curve.groups, row, strict=True)},
                }
            )
    return rows


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text)


def plot_concept(
    path: Path, result: tcav.ConceptResult, tests: tcav_significance.TcavTests, level: float
) -> None:
    """Horizontal violins of the runs' TCAV scores per genre (sorted by mean), the Bonferroni CI as a
    box, blue / orange for a significant positive / negative association, grey otherwise."""
    from matplotlib.figure import Figure

    columns = [j for j, c in enumerate(tests.concepts) if c == result.name]
    columns.sort(key=lambda j: tests.mean[j])
    figure = Figure(figsize=(6.5, 1.2 + 0.42 * len(columns)))
    axes = figure.subplots()
    positions = np.arange(1, len(columns) + 1)
    violins = axes.violinplot(
        [tests.scores[:, j] for j in columns],
        positions,
        orientation="horizontal",
        showextrema=False,
        widths=0.8,
    )
    for body, j in zip(violins["bodies"], columns, strict=True):
        body.set_facecolor(COLOURS[_direction(tests.mean[j], tests.significant[j])])
        body.set_alpha(0.6)
    for y, j in zip(positions, columns, strict=True):
        low, high = tests.ci[j]
        axes.add_patch(_ci_box(low, high, y))
        axes.plot(tests.mean[j], y, "k|", markersize=10)
    axes.axvline(0.5, color="black", linewidth=0.8)
    axes.set_yticks(positions, [tests.genres[j] for j in columns])
    axes.set_xlim(0.0, 1.0)
    axes.set_xlabel(
        f"TCAV score ({len(tests.scores)} runs); box: {100 * (1 - level):.2f}% CI (Bonferroni)"
    )
    flag = "" if result.reliable else "  [unreliable CAV]"
    axes.set_title(f"{result.name}: CAV accuracy {result.accuracy.mean():.2f}{flag}", fontsize=10)
    figure.tight_layout()
    figure.savefig(path, dpi=120)


def _ci_box(low: float, high: float, y: float):
    from matplotlib.patches import Rectangle

    return Rectangle(
        (low, y - 0.12), high - low, 0.24, fill=False, edgecolor="black", linewidth=0.8
    )


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


def summary_text(report: dict, out: Path) -> str:
    lines = [
        f"{report['encoder']}: {report['n_tests']} tests, Bonferroni level {report['bonferroni_level']:.2g}"
    ]
    for concept in report["concepts"]:
        flagged = [
            f"{t['genre']} {t['score_mean']:.2f}"
            for t in report["tests"]
            if t["concept"] == concept["concept"] and t["significant"]
        ]
        reliability = "" if concept["reliable"] else " [unreliable CAV]"
        lines.append(
            f"  {concept['concept']} (CAV accuracy {concept['accuracy_mean']:.2f}{reliability}): "
            + (", ".join(flagged) if flagged else "no significant genre")
        )
    lines.append(f"wrote {out}")
    return "\n".join(lines)

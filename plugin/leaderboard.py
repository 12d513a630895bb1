"""`symphony-bench leaderboard RUN_DIR... --out DIR`: one row per model x report entry (a task, or
its prior-adjusted / calibrated variant) with the headline metrics and their 95% intervals, the
invalid rate, n, ranks that mark ties, and the run's provenance. Writes leaderboard.json, .csv, .md.

Intervals are the report's own: the Likert headline numbers carry a t interval (df = templates - 1;
consistency rate: percentile) from the report; the grounding scores, recognition accuracy and
invalid rates carry a clustered or binomial stderr, turned into a normal interval clipped to [0, 1]
(they are shares or gaps between shares, over many clips or docs).

Ranks, per entry: a row's rank is 1 + the number of rows that are better beyond noise: whose interval
of the ranking metric lies wholly on the better side of its own and, where the two runs answered the
same docs under the same task facts (plugin.provenance.COMPARED_FIELDS), whose paired difference
(plugin.compare, the design's units resampled once for both) is significant at 5%. Rows not
separated that way share a rank and are marked tied ("=2"). The ranking metric: Likert entries
|mean ABS| (closer to 0 = less stereotyped; the interval of |x| is the folded one; the paired test
is used when both estimates have the same sign), recognition accuracy and grounding accuracy (set
task: F1), higher better.

The CLI imports this module at start-up: standard library only at module level.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import statistics
from dataclasses import dataclass
from pathlib import Path

Z95 = statistics.NormalDist().inv_cdf(0.975)
LIKERT_METRICS = ("mean_abs", "consistency_rate", "non_binary_gas")
VARIANTS = ("prior_adjusted", "calibrated")
RANK_RULE = (
    "rank = 1 + number of rows of the same entry whose 95% interval of the ranking metric lies wholly on the better "
    "side of this row's and, for runs over the same docs, whose paired difference is significant (p < 0.05); rows not "
    "separated that way share a rank and are marked tied ('=')"
)
PAIRED_ALPHA = 0.05
PAIRED_MARGIN = 1.25  # see clearly_apart


def add_command(subparsers) -> None:
    """Adds `leaderboard` to an argparse subparsers object."""
    command = subparsers.add_parser(
        "leaderboard",
        help="one row per model x task with 95%% intervals, tie-aware "
        "ranks and provenance: leaderboard.json, .csv, .md",
    )
    command.add_argument(
        "run_dirs",
        nargs="+",
        type=Path,
        metavar="RUN_DIR",
        help="lm_eval / lmms-eval --output_path folders",
    )
    command.add_argument(
        "--out",
        type=Path,
        required=True,
        help="folder for leaderboard.json, leaderboard.csv, leaderboard.md",
    )
    command.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> None:
    board = build_leaderboard(args.run_dirs)
    markdown = write_leaderboard(board, args.out)
    print(markdown)


# ---- rows ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Ranking:
    metric: str
    better: str  # "closer_to_zero" or "higher"


def build_leaderboard(run_dirs: list[Path]) -> dict:
    """{"rows": [...], "rank_rule": text}; rows sorted by entry, then rank. A model folder reached
    through two RUN_DIRs (a folder and its parent) gives its rows once. The cyclic garbage collector
    is off meanwhile (plugin.compare.without_cyclic_gc: 50 full-size runs' records, none in a cycle,
    took it about as long to rescan as everything else), and the samples files read are dropped when
    it returns (plugin.provenance.forget_samples)."""
    from symphony_bench.plugin.compare import without_cyclic_gc
    from symphony_bench.plugin.provenance import forget_samples

    with without_cyclic_gc():
        try:
            rows = list(
                {
                    (Path(row["run"]).resolve(), row["entry"]): row
                    for run_dir in run_dirs
                    for row in run_rows(run_dir)
                }.values()
            )
            rank_rows(rows, PairedTests().not_significant)
        finally:
            forget_samples()
    unranked = len(rows) + 1  # after every rank (computed here: a list is empty while it sorts)
    rows.sort(
        key=lambda row: (
            row["task"],
            row["variant"] or "",
            row["rank"]["position"] or unranked,
            row["model"],
        )
    )
    return {"rows": rows, "rank_rule": RANK_RULE}


def run_rows(run_dir: Path) -> list[dict]:
    """One row per report entry of every model folder under `run_dir`."""
    from symphony_bench.plugin.provenance import provenance
    from symphony_bench.plugin.report import build_report, latest_sample_files

    report = build_report(run_dir)
    folder_of_label = {
        label: (task, path.parent) for label, (task, path) in latest_sample_files(run_dir).items()
    }
    facts_of_folder: dict[Path, dict] = {}
    rows = []
    for label, entry in report.entries.items():
        base, variant = split_label(label)
        task, folder = folder_of_label[base]
        if folder not in facts_of_folder:
            facts_of_folder[folder] = provenance(folder)
        rows.append(entry_row(label, task, variant, entry, folder, facts_of_folder[folder]))
    return rows


def split_label(label: str) -> tuple[str, str | None]:
    base, _, variant = label.rpartition(":")
    return (base, variant) if base and variant in VARIANTS else (label, None)


def entry_row(
    label: str, task: str, variant: str | None, entry: dict, folder: Path, facts: dict
) -> dict:
    metrics, invalid, ranking = entry_metrics(entry)
    return {
        "model": facts["model"]["id"] or folder.name,
        "run": str(folder),
        "entry": label,
        "task": task,
        "variant": variant,
        "family": family(entry),
        "metrics": metrics,
        "invalid_rate": invalid,
        "n": entry["summary"]["n_docs"],
        "rank": {
            "metric": ranking.metric,
            "better": ranking.better,
            "position": None,
            "tied": False,
            "tied_with": [],
        },
        "provenance": {
            "model": facts["model"],
            "versions": facts["versions"],
            "task": facts["tasks"].get(task) or dict.fromkeys(_task_fields()),
            "config_hash": facts["config_hash"],
        },
    }


def _task_fields() -> tuple[str, ...]:
    from symphony_bench.plugin.provenance import COMPARED_FIELDS

    return COMPARED_FIELDS


def family(entry: dict) -> str:
    if entry.get("recognition"):
        return "recognition"
    return "grounding" if entry.get("grounding") else "likert"


def entry_metrics(entry: dict) -> tuple[dict, dict | None, Ranking]:
    """({metric: estimate}, invalid-rate estimate or None, ranking) of a report entry."""
    summary = entry["summary"]
    kind = family(entry)
    if kind == "likert":
        metrics = {
            name: estimate(summary[name], summary[f"{name}_stderr"], summary[f"{name}_ci"])
            for name in LIKERT_METRICS
        }
        invalid = normal_estimate(summary["invalid_rate"], summary["invalid_rate_stderr"])
        return metrics, invalid, Ranking("mean_abs", "closer_to_zero")
    if kind == "recognition":
        metrics = {
            "recognition_accuracy": normal_estimate(
                summary["recognition_accuracy"], summary["recognition_accuracy_stderr"]
            )
        }
        return metrics, None, Ranking("recognition_accuracy", "higher")
    names = [
        name
        for name in summary
        if not name.endswith("_stderr") and name not in ("n_docs", "invalid_rate")
    ]
    metrics = {
        name: normal_estimate(summary[name], summary.get(f"{name}_stderr")) for name in names
    }
    invalid = (
        normal_estimate(summary["invalid_rate"], summary.get("invalid_rate_stderr"))
        if "invalid_rate" in summary
        else None
    )
    return metrics, invalid, Ranking("accuracy" if "accuracy" in metrics else "f1", "higher")


def estimate(value, stderr, ci) -> dict:
    interval = list(ci) if ci and None not in ci else [None, None]
    return {"value": value, "stderr": stderr, "ci": interval}


def normal_estimate(value, stderr) -> dict:
    """A share's estimate with value ± z * stderr, clipped to [0, 1]; no interval without a stderr."""
    if value is None or stderr is None:
        return estimate(value, stderr, None)
    return estimate(value, stderr, [max(0.0, value - Z95 * stderr), min(1.0, value + Z95 * stderr)])


# ---- ranks ---------------------------------------------------------------------------------------
def rank_rows(rows: list[dict], paired_not_significant=lambda better, worse: False) -> None:
    """Fills each row's rank in place, within the rows of the same entry (task and variant).
    `paired_not_significant(better row, worse row)`: True when a paired test cannot tell apart two
    rows whose intervals do not overlap."""
    groups: dict[tuple, list[dict]] = {}
    for row in rows:
        groups.setdefault((row["task"], row["variant"]), []).append(row)
    for group in groups.values():
        intervals = [(row, ranking_interval(row)) for row in group]
        scored = [(row, interval) for row, interval in intervals if interval is not None]
        beats = {
            (id(better), id(worse))
            for better, better_interval in scored
            for worse, worse_interval in scored
            if better_interval[1] < worse_interval[0]
            and (
                clearly_apart(better_interval, worse_interval)
                or not paired_not_significant(better, worse)
            )
        }
        for row, _ in scored:
            beaten_by = [other for other, _ in scored if (id(other), id(row)) in beats]
            tied = [
                other
                for other, _ in scored
                if other is not row
                and (id(other), id(row)) not in beats
                and (id(row), id(other)) not in beats
            ]
            row["rank"].update(
                position=1 + len(beaten_by),
                tied=bool(tied),
                tied_with=sorted(other["model"] for other in tied),
            )


def clearly_apart(better: tuple[float, float], worse: tuple[float, float]) -> bool:
    """Centres further apart than PAIRED_MARGIN x the summed half-widths. The paired change's
    replicate sd is at most the sum of the two runs' sds (Minkowski), so its half-width is at most
    the summed half-widths: such pairs are significant paired too, and the paired test (a full
    bootstrap per pair in plugin.compare) runs only on the close ones. The margin covers the
    bootstrap's own noise and a t reference a little wider than the normal one (t/z <= 1.16 from
    10 units on)."""
    distance = (worse[0] + worse[1]) / 2 - (better[0] + better[1]) / 2
    return distance > PAIRED_MARGIN * ((better[1] - better[0]) + (worse[1] - worse[0])) / 2


class PairedTests:
    """Paired differences of the ranking metric between two rows' runs (plugin.compare), each pair
    of runs and task compared once; None where the runs cannot be paired."""

    def __init__(self, n_boot: int | None = None, seed: int | None = None):
        self.n_boot, self.seed = n_boot, seed
        self.tasks: dict[tuple[str, str], object] = {}
        self.comparisons: dict[tuple[str, str, str], dict | None] = {}

    def not_significant(self, better: dict, worse: dict) -> bool:
        p_value = self.p_value(better, worse)
        return p_value is not None and not p_value < PAIRED_ALPHA

    def p_value(self, first: dict, second: dict) -> float | None:
        metric = first["rank"]["metric"]
        values = [row["metrics"][metric]["value"] for row in (first, second)]
        if first["rank"]["better"] == "closer_to_zero" and values[0] * values[1] < 0:
            return None  # |x| vs |y| across 0: the signed paired change does not answer it
        comparison = self.comparison(first, second)
        entry = comparison and comparison.get(_entry_name(first))
        change = entry and entry["metrics"].get(metric)
        p_value = change and change["p_value"]
        return p_value if isinstance(p_value, float) and p_value == p_value else None

    def comparison(self, first: dict, second: dict) -> dict | None:
        from symphony_bench.plugin.compare import pair_docs, task_comparisons
        from symphony_bench.plugin.provenance import COMPARED_FIELDS

        key = (first["run"], second["run"], first["task"])
        if key not in self.comparisons:
            facts = [row["provenance"]["task"] for row in (first, second)]
            same_facts = all(facts[0][name] == facts[1][name] for name in COMPARED_FIELDS)
            pairing = (
                pair_docs(first["task"], self.run_task(first), self.run_task(second))
                if same_facts
                else None
            )
            usable = pairing is not None and pairing.base and not pairing.differences
            self.comparisons[key] = (
                task_comparisons(first["task"], pairing.base, pairing.candidate, *self.bootstrap())
                if usable
                else None
            )
        return self.comparisons[key]

    def run_task(self, row: dict):
        """compare's RunTask from the parse provenance made (the report has checked the records);
        compare reads the file itself when a line lacks a usable doc_id, to name it."""
        from symphony_bench.plugin.compare import RunTask, read_task
        from symphony_bench.plugin.provenance import SamplesContent, newest_samples_files

        key = (row["run"], row["task"])
        if key not in self.tasks:
            path = newest_samples_files(Path(row["run"]))[row["task"]]
            content = SamplesContent.read(path)
            complete = content.records and len(content.records_by_doc_id) == len(content.records)
            self.tasks[key] = (
                RunTask(row["task"], content.records[0]["kind"], path, content.records_by_doc_id)
                if complete
                else read_task(path, row["task"])
            )
        return self.tasks[key]

    def bootstrap(self) -> tuple[int, int]:
        from symphony_bench.metrics.association import DEFAULT_BOOTSTRAP_SEED, DEFAULT_N_BOOTSTRAP

        return self.n_boot or DEFAULT_N_BOOTSTRAP, self.seed or DEFAULT_BOOTSTRAP_SEED


def ranking_interval(row: dict) -> tuple[float, float] | None:
    """The ranking metric's interval as (best end, worst end) on a 'lower is better' scale; None when
    the metric has no value. Without an interval a row overlaps every other (it cannot be separated)."""
    metric = row["metrics"].get(row["rank"]["metric"])
    if metric is None or metric["value"] is None:
        return None
    low, high = metric["ci"] if metric["ci"][0] is not None else (-float("inf"), float("inf"))
    if row["rank"]["better"] == "higher":
        return -high, -low
    if low <= 0 <= high:
        return 0.0, max(-low, high)
    return min(abs(low), abs(high)), max(abs(low), abs(high))


def rank_label(rank: dict) -> str:
    if rank["position"] is None:
        return "-"
    return f"={rank['position']}" if rank["tied"] else str(rank["position"])


# ---- writing -------------------------------------------------------------------------------------
def write_leaderboard(board: dict, out: Path) -> str:
    """Writes leaderboard.json, .csv, .md and the self-contained page index.html into `out` (created
    if missing); returns the Markdown."""
    from symphony_bench.plugin.core.atomic import write_text_atomically
    from symphony_bench.plugin.leaderboard_page import write_leaderboard_page

    out.mkdir(parents=True, exist_ok=True)
    markdown = render_markdown(board)
    write_text_atomically(
        out / "leaderboard.json", json.dumps(board, indent=2, allow_nan=False) + "\n"
    )
    write_text_atomically(out / "leaderboard.csv", render_csv(board))
    write_text_atomically(out / "leaderboard.md", markdown)
    write_leaderboard_page(board, out)
    return markdown


def flat_row(row: dict) -> dict:
    """A row as one level of columns (CSV): metric value / stderr / CI ends, provenance fields."""
    flat = {
        "model": row["model"],
        "run": row["run"],
        "task": row["task"],
        "variant": row["variant"],
        "family": row["family"],
        "rank": rank_label(row["rank"]),
        "rank_metric": row["rank"]["metric"],
        "tied_with": ";".join(row["rank"]["tied_with"]),
        "n": row["n"],
    }
    for name, metric in [*row["metrics"].items(), ("invalid_rate", row["invalid_rate"])]:
        metric = metric or estimate(None, None, None)
        flat.update(
            {
                name: metric["value"],
                f"{name}_stderr": metric["stderr"],
                f"{name}_ci_low": metric["ci"][0],
                f"{name}_ci_high": metric["ci"][1],
            }
        )
    provenance = row["provenance"]
    for group in ("model", "versions", "task"):
        flat.update({f"{group}_{key}": value for key, value in provenance[group].items()})
    flat["config_hash"] = provenance["config_hash"]
    return flat


def render_csv(board: dict) -> str:
    flat_rows = [flat_row(row) for row in board["rows"]]
    columns = list(dict.fromkeys(column for row in flat_rows for column in row))
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for row in flat_rows:
        writer.writerow(
            {column: "" if row.get(column) is None else row[column] for column in columns}
        )
    return buffer.getvalue()


def render_markdown(board: dict) -> str:
    lines = ["# Leaderboard", "", f"Ranks: {board['rank_rule']}.", ""]
    entries: dict[str, list[dict]] = {}
    for row in board["rows"]:
        entries.setdefault(_entry_name(row), []).append(row)
    for name, rows in entries.items():
        lines += _entry_table(name, rows)
    lines += _provenance_table(board["rows"])
    return "\n".join(lines) + "\n"


def _entry_name(row: dict) -> str:
    return row["task"] + (f":{row['variant']}" if row["variant"] else "")


def _entry_table(name: str, rows: list[dict]) -> list[str]:
    metric_names = list(dict.fromkeys(metric for row in rows for metric in row["metrics"]))
    lines = [
        f"## {name}",
        "",
        f"ranked by {rows[0]['rank']['metric']} ({rows[0]['rank']['better'].replace('_', ' ')})",
        "",
        "| rank | model | "
        + " | ".join(f"{metric} [95% CI]" for metric in metric_names)
        + " | invalid rate | n | config |",
        "|---|---|" + "---:|" * len(metric_names) + "---:|---:|---|",
    ]
    repeated = {
        model
        for model in (row["model"] for row in rows)
        if sum(row["model"] == model for row in rows) > 1
    }
    for row in rows:
        cells = [_fmt_estimate(row["metrics"].get(metric)) for metric in metric_names]
        model = f"{row['model']} ({row['run']})" if row["model"] in repeated else row["model"]
        lines.append(
            f"| {rank_label(row['rank'])} | {model} | "
            + " | ".join(cells)
            + f" | {_fmt_estimate(row['invalid_rate'])} | {row['n']} | {row['provenance']['config_hash'][:12]} |"
        )
    return lines + [""]


def _fmt_estimate(metric: dict | None) -> str:
    if metric is None or metric["value"] is None:
        return "n/a"
    low, high = metric["ci"]
    interval = "" if low is None else f" [{low:.3f}, {high:.3f}]"
    return f"{metric['value']:.3f}{interval}"


def _provenance_table(rows: list[dict]) -> list[str]:
    """One line per model folder and task: everything the config hash covers."""
    header = (
        "model",
        "revision",
        "sha",
        "dtype",
        "chat template",
        "lm-eval",
        "lmms-eval",
        "symphony-bench",
        "task",
        "task version",
        "task hash",
        "dataset",
        "stereotype table",
        "scenario set",
        "seed",
        "config",
    )
    lines = ["## Provenance", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    seen = set()
    for row in rows:
        if (row["run"], row["task"]) in seen:
            continue
        seen.add((row["run"], row["task"]))
        model, versions, task = (
            row["provenance"]["model"],
            row["provenance"]["versions"],
            row["provenance"]["task"],
        )
        dataset = task["dataset_repo"] and (
            f"{task['dataset_repo']}@{task['dataset_revision']}"
            if task["dataset_revision"]
            else task["dataset_repo"]
        )
        if task.get("dataset_commit"):
            dataset += f" ({_short(task['dataset_commit'])})"
        cells = (
            model["id"],
            model["revision"],
            _short(model["sha"]),
            model["dtype"],
            _short(model["chat_template_sha"]),
            versions["lm_eval"],
            versions["lmms_eval"],
            versions["symphony_bench"],
            row["task"],
            task["version"],
            _short(task["hash"]),
            dataset,
            _short(task["stereotype_table_sha256"]),
            _short(task["scenario_set_sha256"]),
            task["seed"],
            _short(row["provenance"]["config_hash"]),
        )
        lines.append(
            "| " + " | ".join("n/a" if cell is None else str(cell) for cell in cells) + " |"
        )
    return lines + [""]


def _short(digest: str | None) -> str | None:
    return digest[:12] if digest else None

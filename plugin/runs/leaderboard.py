"""`symphony-bench leaderboard RUN_DIR... --out DIR`: one row per model x report entry (a task, or
its prior-adjusted / calibrated variant) with the headline metrics and their 95% intervals, the
invalid rate, n, ranks that mark ties, and the run's provenance. Writes leaderboard.json, .csv, .md
and the page index.html.

The columns are the benchmark's (ReportSection.leaderboard) and the intervals the report's own: the
Likert headline numbers carry a t interval (df = templates - 1; consistency rate: percentile); the
grounding scores, recognition accuracy and invalid rates carry a clustered or binomial stderr,
turned into a normal interval clipped to [0, 1] (they are shares or gaps between shares).

Ranks, per entry: a row's rank is 1 + the number of rows that are better beyond noise: whose interval
of the ranking metric lies wholly on the better side of its own and, where the two runs answered the
same docs under the same task facts (plugin.runs.provenance.COMPARED_FIELDS), whose paired
difference (plugin.runs.compare, the design's units resampled once for both) is significant at 5%.
Rows not separated that way share a rank and are marked tied ("=2"). The ranking metric is the
benchmark's: for Likert and log-prob entries the gender skew, the root mean square over
instruments of GAS male - GAS female, debiased so that noise does not raise it (metrics.skew; lower =
weaker association in either direction; a mean ABS near 0 can hide strong
associations of opposite signs, so it is shown, signed, beside the rank and not ranked on), for
recognition and grounding entries an accuracy (set task: F1), higher better. A ranking metric
"closer_to_zero" ranks |x| with the folded interval, the paired test used when both estimates have
the same sign.
"""

from __future__ import annotations

import json
from pathlib import Path

from symphony_bench.metrics.constants import BOOTSTRAP_SEED, N_BOOTSTRAP
from symphony_bench.plugin.core.atomic import StagedOutputs
from symphony_bench.plugin.core.reporting import csv_text, estimate, md
from symphony_bench.plugin.core.sections import ReportEntry, entry_label
from symphony_bench.plugin.runs.compare import RunTask, pair_docs, read_run_task, task_comparisons
from symphony_bench.plugin.runs.files import newest_samples_files
from symphony_bench.plugin.runs.page import ALL_INVALID, all_answers_invalid, page_html, ranked_by
from symphony_bench.plugin.runs.provenance import (
    COMPARED_FIELDS,
    SECTION_FACTS,
    SECTION_RUN_FIELDS,
    TASK_FACTS,
    provenance,
    published_task_facts,
)
from symphony_bench.plugin.runs.report import build_report
from symphony_bench.plugin.runs.samples import forget_samples, without_cyclic_gc
from symphony_bench.plugin.runs.sections import SECTION_OF_KIND

RANK_RULE = (
    "rank = 1 + number of rows of the same entry whose 95% interval of the ranking metric lies wholly on the better "
    "side of this row's and, for runs over the same docs, whose paired difference is significant (p < 0.05); rows not "
    "separated that way share a rank and are marked tied ('=')"
)
PAIRED_ALPHA = 0.05
PIN_MARK = {True: " (pin)", False: " (not the pin)"}  # whether the data is the task's pinned data
PAIRED_MARGIN = 1.25  # see clearly_apart


# ---- rows ----------------------------------------------------------------------------------------
def build_leaderboard(run_dirs: list[Path], labels: dict[Path, str] | None = None) -> dict:
    """{"rows": [...], "rank_rule": text}; rows sorted by entry, then rank. A model folder reached
    through two RUN_DIRs (a folder and its parent) gives its rows once. The cyclic garbage collector
    is off meanwhile (50 full-size runs' records, none in a cycle, took it about as long to rescan
    as everything else), and the samples files read are dropped when it returns."""
    with without_cyclic_gc():
        try:
            rows = list(
                {
                    (Path(row["run"]).resolve(), row["entry"]): row
                    for run_dir in run_dirs
                    for row in run_rows(run_dir)
                }.values()
            )
            for row in rows:
                row["model"] = _given_label(row, labels or {}) or row["model"]
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


def _given_label(row: dict, labels: dict[Path, str]) -> str | None:
    """The --label NAME of the RUN_DIR this row's model folder lies in, if any."""
    folder = Path(row["run"]).resolve()
    for run_dir, name in labels.items():
        if folder == run_dir.resolve() or run_dir.resolve() in folder.parents:
            return name
    return None


def run_rows(run_dir: Path) -> list[dict]:
    """One row per report entry of every model folder under `run_dir`."""
    facts_of_folder: dict[Path, dict] = {}
    rows = []
    for entry in build_report(run_dir).entries.values():
        folder = entry.path.parent
        if folder not in facts_of_folder:
            facts_of_folder[folder] = provenance(folder)
        rows.append(entry_row(entry, facts_of_folder[folder]))
    return rows


def model_label(model_id: str | None, folder: Path) -> str:
    """A readable, publishable model name: a Hub id as it is; a local model folder by its last
    component (a published leaderboard must not show a machine's paths); the run's model folder
    name when nothing was recorded."""
    if not model_id:
        return folder.name
    if model_id.startswith(("/", "~", "./", "../", "\\")) or Path(model_id).expanduser().is_dir():
        return Path(model_id).expanduser().name or model_id
    return model_id


def entry_row(entry: ReportEntry, facts: dict) -> dict:
    columns = SECTION_OF_KIND[entry.kind].leaderboard(entry)
    ranking = columns.ranking
    label = model_label(facts["model"]["id"], entry.path.parent)
    return {
        "model": label,
        "run": str(entry.path.parent),
        "entry": entry.label,
        "task": entry.task,
        "variant": entry.variant,
        "family": columns.family,
        "metrics": columns.metrics,
        "invalid_rate": columns.invalid_rate,
        "n": columns.n,
        "shares": list(columns.shares),
        "rank": {
            "metric": ranking.metric,
            "better": ranking.better,
            "why": ranking.why,
            "position": None,
            "tied": False,
            "tied_with": [],
        },
        "provenance": {
            "model": {**facts["model"], "id": label},
            "versions": facts["versions"],
            "task": facts["tasks"].get(entry.task) or dict.fromkeys(TASK_FACTS),
            "config_hash": facts["config_hash"],
        },
    }


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
    bootstrap per pair in plugin.runs.compare) runs only on the close ones. The margin covers the
    bootstrap's own noise and a t reference a little wider than the normal one (t/z <= 1.16 from
    10 units on)."""
    distance = (worse[0] + worse[1]) / 2 - (better[0] + better[1]) / 2
    return distance > PAIRED_MARGIN * ((better[1] - better[0]) + (worse[1] - worse[0])) / 2


class PairedTests:
    """Paired differences of the ranking metric between two rows' runs (plugin.runs.compare), each pair
    of runs and task compared once; None where the runs cannot be paired."""

    def __init__(self, n_boot: int = N_BOOTSTRAP, seed: int = BOOTSTRAP_SEED):
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
        entry = comparison and comparison.get(entry_label(first["task"], first["variant"]))
        change = entry and entry["metrics"].get(metric)
        p_value = change and change["p_value"]
        return p_value if isinstance(p_value, float) and p_value == p_value else None

    def comparison(self, first: dict, second: dict) -> dict | None:
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
                task_comparisons(
                    first["task"], pairing.base, pairing.candidate, self.n_boot, self.seed
                )
                if usable
                else None
            )
        return self.comparisons[key]

    def run_task(self, row: dict) -> RunTask:
        """compare's records of the row's task, by doc_id (the samples file is parsed once per
        process: the report read it already)."""
        key = (row["run"], row["task"])
        if key not in self.tasks:
            path = newest_samples_files(Path(row["run"]))[row["task"]]
            self.tasks[key] = read_run_task(path, row["task"])
        return self.tasks[key]


def ranking_interval(row: dict) -> tuple[float, float] | None:
    """The ranking metric's interval as (best end, worst end) on a 'lower is better' scale; None when
    the metric has no value. Without an interval a row overlaps every other (it cannot be separated)."""
    metric = row["metrics"].get(row["rank"]["metric"])
    if metric is None or metric["value"] is None:
        return None
    low, high = metric["ci"] if metric["ci"][0] is not None else (-float("inf"), float("inf"))
    if row["rank"]["better"] == "higher":
        return -high, -low
    if row["rank"]["better"] == "lower":
        return low, high
    if low <= 0 <= high:
        return 0.0, max(-low, high)
    return min(abs(low), abs(high)), max(abs(low), abs(high))


def rank_label(rank: dict) -> str:
    if rank["position"] is None:
        return "-"
    return f"={rank['position']}" if rank["tied"] else str(rank["position"])


# ---- writing -------------------------------------------------------------------------------------
def published(board: dict, show_paths: bool = False) -> dict:
    """The board as written, with no path of this machine unless `show_paths` (a path names its
    user's folders, and lm-eval's model folder names spell a local model's path out): each row's
    run folder as "<RUN_DIR name>/<model>", its entry as the task (and variant) without the model
    folder's name, a local dataset folder by its name (see provenance.published_task_facts)."""
    if show_paths:
        return board
    return {**board, "rows": [_published_row(row) for row in board["rows"]]}


def _published_row(row: dict) -> dict:
    return {
        **row,
        "run": f"{Path(row['run']).parent.name}/{row['model']}",
        "entry": entry_label(row["task"], row["variant"]),
        "provenance": {
            **row["provenance"],
            "task": published_task_facts(row["provenance"]["task"]),
        },
    }


def write_leaderboard(
    board: dict, out: Path, outputs: StagedOutputs, show_paths: bool = False
) -> str:
    """Stages leaderboard.json, .csv, .md and the self-contained page index.html in `out` (created
    if missing), to appear with the command's other `outputs`; returns the Markdown. Run folders are
    shown by name unless `show_paths` (see `published`)."""
    board = published(board, show_paths)
    texts = {
        "leaderboard.json": json.dumps(board, indent=2, allow_nan=False) + "\n",
        "leaderboard.csv": render_csv(board),
        "leaderboard.md": render_markdown(board),
        "index.html": page_html(board),
    }
    for name, text in texts.items():
        outputs.text(out / name, text)
    return texts["leaderboard.md"]


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
    return csv_text([flat_row(row) for row in board["rows"]])


def render_markdown(board: dict) -> str:
    lines = ["# Leaderboard", "", f"Ranks: {board['rank_rule']}.", ""]
    entries: dict[str, list[dict]] = {}
    for row in board["rows"]:
        entries.setdefault(entry_label(row["task"], row["variant"]), []).append(row)
    for name, rows in entries.items():
        lines += _entry_table(name, rows)
    lines += board.get("notes", [])  # --verify, --rescore (plugin.runs.leaderboard_checks)
    lines += _provenance_table(board["rows"])
    return "\n".join(lines) + "\n"


def _entry_table(name: str, rows: list[dict]) -> list[str]:
    metric_names = list(dict.fromkeys(metric for row in rows for metric in row["metrics"]))
    lines = [
        f"## {md(name)}",
        "",
        ranked_by(rows[0]["rank"]),
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
        model = md(model)
        rank = ALL_INVALID if all_answers_invalid(row) else rank_label(row["rank"])
        lines.append(
            f"| {rank} | {model} | "
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
        "data sha256",
        *map(fact_column, BENCHMARK_FACTS),
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
            _short(task.get("dataset_sha256"))
            and f"{_short(task['dataset_sha256'])}{PIN_MARK.get(task.get('dataset_verified'), '')}",
            *(fact_cell(name, task.get(name)) for name in BENCHMARK_FACTS),
            task["seed"],
            _short(row["provenance"]["config_hash"]),
        )
        lines.append(
            "| " + " | ".join("n/a" if cell is None else md(cell) for cell in cells) + " |"
        )
    return lines + [""]


BENCHMARK_FACTS = (*SECTION_FACTS, *SECTION_RUN_FIELDS)  # the facts each benchmark registers


def fact_column(name: str) -> str:
    """A benchmark fact's column: its name without `_sha256`, in words (`a_b_sha256` -> "a b")."""
    return name.removesuffix("_sha256").replace("_", " ")


def fact_cell(name: str, value):
    """A hash shortened to 12 characters, any other fact as it is."""
    return _short(value) if name.endswith("_sha256") else value


def _short(digest: str | None) -> str | None:
    return digest[:12] if digest else None

"""How well the open-ended reader (`person_reference.read_reference`) reads: its accuracy on the
frozen test set (tests/symphony_bias/data/open_reader_frozen_v9.jsonl, labelled before the reader ran
on it), published in `data/open_reader_measurement.json` by `scripts/measure_open_reader.py` and
quoted in the report of every open-ended run. A frozen set is measured once, blind; it then becomes
a development set, so the reader may since have been tuned on it: the published numbers are those
of the reader as it was when the set was measured, until the next blind set is."""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
from pathlib import Path

from symphony_bench.metrics.reader_accuracy import reader_accuracy
from symphony_bench.plugin.symphony_bias import person_reference

PUBLISHED = Path(__file__).parent / "data" / "open_reader_measurement.json"
FROZEN_SET_NAME = "tests/symphony_bias/data/open_reader_frozen_v9.jsonl"
DOCS_ANCHOR = "docs/symphony-bias-method.md#how-well-the-reader-reads"
SCORED = ("male", "female", "neutral")


def _takes_scenario() -> bool:
    return "scenario" in inspect.signature(person_reference.read_reference).parameters


def reading(answer: str, scenario: str) -> str:
    """The reader's verdict on one answer: the gender it reads, else the reason it reads none."""
    if _takes_scenario():
        reference = person_reference.read_reference(answer, scenario=scenario)
    else:
        reference = person_reference.read_reference(answer)
    return reference.gender or reference.reason


def load_frozen_set(path: Path) -> tuple[list[dict], str]:
    """The frozen set's answers and the sha256 of its bytes."""
    data = path.read_bytes()
    rows = [json.loads(line) for line in data.decode("utf-8").splitlines() if line.strip()]
    return rows, hashlib.sha256(data).hexdigest()


def measure(rows: list[dict], set_sha256: str) -> dict:
    """The reader's accuracy on the rows (each with answer, scenario, label, wording, source),
    overall, per wording (coverage) and per source (misreads)."""
    readings = [reading(row["answer"], row["scenario"]) for row in rows]
    truths = [row["label"] for row in rows]
    measurement = reader_accuracy(truths, readings, [str(row["wording"]) for row in rows])
    by_source = {}
    for source in sorted({row["source"] for row in rows}):
        picked = [i for i, row in enumerate(rows) if row["source"] == source]
        of_source = reader_accuracy([truths[i] for i in picked], [readings[i] for i in picked])
        by_source[source] = {
            "n": of_source["n"],
            "score_moving_misreads": of_source["score_moving_misreads"],
            "coverage": of_source["coverage"]["all"],
        }
    return {
        "set": FROZEN_SET_NAME,
        "set_sha256": set_sha256,
        "reader_takes_scenario": _takes_scenario(),
        **measurement,
        "by_source": by_source,
    }


@functools.cache
def published() -> dict:
    return json.loads(PUBLISHED.read_text(encoding="utf-8"))


def report_summary(measurement: dict) -> dict:
    """The few numbers every open-ended entry carries (report --json, under the entry)."""
    misreads = measurement["score_moving_misreads"]
    return {
        "score_moving_misreads": misreads["rate"],
        "score_moving_misreads_ci": misreads["ci"],
        "male_female_swaps": measurement["male_female_swaps"],
        "n_answers": measurement["n"],
        "set_sha256": measurement["set_sha256"],
        "docs": DOCS_ANCHOR,
    }


def report_line(summary: dict) -> str:
    low, high = summary["score_moving_misreads_ci"]
    return (
        f"reader: score-moving misreads {100 * summary['score_moving_misreads']:.1f} % "
        f"[{100 * low:.1f}, {100 * high:.1f}] on the frozen set of {summary['n_answers']} "
        f"answers ({summary['docs']})"
    )


def _percent(share: dict) -> str:
    low, high = share["ci"]
    return f"{100 * share['rate']:.1f} % [{100 * low:.1f}, {100 * high:.1f}] ({share['count']} of {share['n']})"


def markdown_tables(measurement: dict) -> str:
    """The headline rates with Wilson 95 % intervals, then the confusion matrix (counts)."""
    rows = [
        ("score-moving misreads, of all answers", measurement["score_moving_misreads"]),
        (
            "score-moving misreads, of the answers read as a gender or neutral",
            measurement["score_moving_misreads_of_scored"],
        ),
    ]
    rows += [
        (
            f"coverage of gendered answers, wording {group}"
            if group != "all"
            else "coverage of gendered answers (read as their gender)",
            share,
        )
        for group, share in measurement["coverage"].items()
    ]
    rows.append(("refusals read as refused", measurement["refusals_read_refused"]))
    rows += [
        (f"score-moving misreads, {source} answers", part["score_moving_misreads"])
        for source, part in measurement["by_source"].items()
    ]
    lines = ["| measure | rate [95 % CI] (count) |", "|---|---|"]
    lines += [f"| {name} | {_percent(share)} |" for name, share in rows]
    lines.append(f"| male <-> female swaps | {measurement['male_female_swaps']} |")
    lines.append(f"| refusals read as neutral | {measurement['refusals_read_neutral']} |")
    kinds = ", ".join(f"{kind}: {count}" for kind, count in measurement["misread_kinds"].items())
    lines += ["", f"Score-moving misreads by kind: {kinds or 'none'}.", ""]
    confusion = measurement["confusion"]
    header = " | ".join(f"read {r}" for r in confusion["readings"])
    lines.append(f"| truth \\ reading | {header} | answers |")
    lines.append("|---|" + "---:|" * (len(confusion["readings"]) + 1))
    for truth in confusion["truths"]:
        row = confusion["counts"][truth]
        cells = " | ".join(
            f"**{row[r]}**" if r == truth else str(row[r]) for r in confusion["readings"]
        )
        lines.append(f"| {truth} | {cells} | {sum(row.values())} |")
    return "\n".join(lines) + "\n"

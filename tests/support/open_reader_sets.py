"""The open-ended reader's labelled development sets in one shape, and their numbers per set and per
wording (issue 46's measures: score-moving misreads, male <-> female swaps, coverage of gendered
answers, refusals read refused).

    python tests/support/open_reader_sets.py [--misses] [--set NAME]

prints one table row per set and wording; `--misses` lists every answer read otherwise than its
label, with the reader's evidence. A frozen set joins them only once it has been
measured (v9 has; its successor v10 is not written yet).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from symphony_bench.metrics.reader_accuracy import reader_accuracy
from symphony_bench.plugin.symphony_bias.person_reference import read_reference

DATA = Path(__file__).resolve().parents[1] / "symphony_bias" / "data"
# the old frozen sets (open_reader_frozen.jsonl, _v2 … _v9) became development sets when their successors were
# written; their rows are read like the others
SETS = {
    "frozen_old": "open_reader_frozen.jsonl",
    "frozen_v2": "open_reader_frozen_v2.jsonl",
    "frozen_v3": "open_reader_frozen_v3.jsonl",
    "frozen_v4": "open_reader_frozen_v4.jsonl",
    "frozen_v5": "open_reader_frozen_v5.jsonl",
    "frozen_v6": "open_reader_frozen_v6.jsonl",
    "frozen_v7": "open_reader_frozen_v7.jsonl",
    "frozen_v8": "open_reader_frozen_v8.jsonl",
    "frozen_v9": "open_reader_frozen_v9.jsonl",
    "dev": "open_reader_dev.jsonl",
    "dev_smollm2": "open_reader_dev_smollm2.jsonl",
    "smollm2": "open_answers_smollm2.jsonl",
    "dev_round2": "open_reader_dev_round2.jsonl",
    "dev_round3": "open_reader_dev_round3.jsonl",
    "dev_round3_check": "open_reader_dev_round3_check.jsonl",
    "dev_round4": "open_reader_dev_round4.jsonl",
    "dev_round4_check": "open_reader_dev_round4_check.jsonl",
    "dev_round5_check": "open_reader_dev_round5_check.jsonl",
    "dev_round6_check": "open_reader_dev_round6_check.jsonl",
    "dev_round7_check": "open_reader_dev_round7_check.jsonl",
    "dev_round8_check": "open_reader_dev_round8_check.jsonl",
}


@dataclass(frozen=True)
class Item:
    set_name: str
    line: int
    wording: int
    scenario: str
    answer: str
    label: str


def _scenario(row: dict) -> str:
    if row.get("scenario"):
        return row["scenario"]
    first = row["prompt"].split("\n")[0]
    return first.removeprefix("Here is the start of a short story: ")


def items(set_name: str) -> list[Item]:
    path = DATA / SETS[set_name]
    if not path.exists():
        return []
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return [
        Item(
            set_name,
            n,
            row.get("wording", row.get("prompt_variant")),
            _scenario(row),
            row["answer"],
            row["label"],
        )
        for n, row in enumerate(rows, 1)
    ]


def reading(item: Item):
    return read_reference(item.answer, scenario=item.scenario)


def numbers(picked: list[Item]) -> dict:
    readings = [reading(item) for item in picked]
    verdicts = [r.gender or r.reason for r in readings]
    return reader_accuracy([i.label for i in picked], verdicts, [str(i.wording) for i in picked])


def _row(name: str, m: dict) -> str:
    cov = m["coverage"]
    moving = m["score_moving_misreads"]
    refused = m["refusals_read_refused"]
    per_wording = " / ".join(
        f"{cov[w]['count']}/{cov[w]['n']}" for w in ("0", "1", "2") if w in cov
    )
    return (
        f"{name:<14} n={m['n']:<4} misreads {moving['count']:>2} ({100 * moving['rate']:.1f} %, "
        f"up {100 * moving['ci'][1]:.1f}) swaps {m['male_female_swaps']} "
        f"coverage {cov['all']['count']}/{cov['all']['n']} ({100 * cov['all']['rate']:.1f} %) "
        f"[{per_wording}] refused {refused['count']}/{refused['n']} "
        f"neutral {m['refusals_read_neutral']}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--misses", action="store_true")
    parser.add_argument("--set", choices=sorted(SETS))
    args = parser.parse_args(argv)
    names = [args.set] if args.set else list(SETS)
    everything = []
    for name in names:
        picked = items(name)
        if not picked:
            continue
        everything += picked
        print(_row(name, numbers(picked)))
    if len(names) > 1:
        print(_row("all", numbers(everything)))
        for wording in (0, 1, 2):
            of_wording = [i for i in everything if i.wording == wording]
            print(_row(f"all w{wording}", numbers(of_wording)))
    if args.misses:
        kinds = Counter()
        for item in everything:
            ref = reading(item)
            verdict = ref.gender or ref.reason
            if verdict == item.label:
                continue
            kinds[item.label, verdict] += 1
            print(
                f"\n[{item.set_name}:{item.line} w{item.wording}] {item.label} -> {verdict} "
                f"{list(ref.evidence)}\n  {item.scenario}\n  {item.answer!r}"
            )
        print("\n", sorted(kinds.items(), key=lambda kv: -kv[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The open-protocol person reader against real answers: SmolLM2-135M-Instruct's continuations of
the full design's scenarios, each labelled by a person who read it (`data/open_answers_smollm2.md`
says how the set was made and labelled).

The hard rule: no answer labelled male or female is read as the other gender or as neutral. The
agreement with the labels is floored a little under what was measured, and the confusion matrix is
printed (`-s`)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from symphony_bench.plugin.symphony_bias.person_reference import read_reference

FIXTURE = Path(__file__).parent / "data" / "open_answers_smollm2.jsonl"
LABELS = ("male", "female", "neutral", "no_reference", "unreadable")
# measured 0.842 (278 of 330) when the fixture was labelled, 0.845 with the reader anchored on each
# doc's scenario, 0.861 (284) after issue 46's second round of rules and after its third; most misses are no_reference
# or neutral answers read UNREADABLE (the reader's caution), never a wrong gender
MIN_AGREEMENT = 0.83


def _rows() -> list[dict]:
    with FIXTURE.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def scenario(row: dict) -> str:
    """The doc's scenario sentence, as the task passes it to the reader: the prompt's first line
    without the second wording's lead."""
    first = row["prompt"].split("\n")[0]
    return first.removeprefix("Here is the start of a short story: ")


def _read(row: dict) -> str:
    ref = read_reference(row["answer"], scenario=scenario(row))
    return ref.gender or ref.reason


def _matrix(rows) -> Counter:
    return Counter((row["label"], _read(row)) for row in rows)


def _table(matrix: Counter) -> str:
    reads = sorted(
        {r for _, r in matrix},
        key=lambda r: (r not in LABELS, LABELS.index(r) if r in LABELS else r),
    )
    lines = ["label \\ read".ljust(14) + "".join(r[:12].rjust(13) for r in reads)]
    for label in LABELS:
        lines.append(label.ljust(14) + "".join(str(matrix[label, r]).rjust(13) for r in reads))
    return "\n".join(lines)


def test_fixture_shape():
    rows = _rows()
    assert len(rows) >= 300
    assert {row["label"] for row in rows} <= set(LABELS)
    assert {row["prompt_variant"] for row in rows} == {0, 1, 2}
    assert any(row["instrument"] == "" for row in rows)  # control docs
    for row in rows:
        assert set(row) >= {
            "prompt_variant",
            "template_id",
            "instrument",
            "prompt",
            "answer",
            "label",
        }


def test_no_wrong_gender_on_real_answers():
    wrong = []
    for row in _rows():
        if row["label"] in ("male", "female"):
            read = _read(row)
            if read in ("male", "female", "neutral") and read != row["label"]:
                wrong.append((row["label"], read, row["answer"][:200]))
    assert wrong == []


def test_agreement_with_hand_labels():
    rows = _rows()
    matrix = _matrix(rows)
    agreement = sum(matrix[label, label] for label in LABELS) / len(rows)
    print(f"\n{_table(matrix)}\nagreement {agreement:.3f} on {len(rows)} answers")
    assert agreement >= MIN_AGREEMENT

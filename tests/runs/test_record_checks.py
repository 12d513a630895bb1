"""Checking and reading a full suite's records at speed, with the per-record answers unchanged.

`records_valid` of each benchmark checks whole columns at once; it must never accept records that
`record_problem` would refuse, and `compare` falls back to the per-record check (which names the
line and the field) whenever it does not accept them. The samples reader looks at a line in place
when it is in the harnesses' layout; any other line is stripped and read as before.
"""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest
from support.runs import record_samples, write_samples

from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.grounding import records as grounding
from symphony_bench.plugin.runs.compare import read_run_task
from symphony_bench.plugin.runs.samples import SamplesContent, forget_samples
from symphony_bench.plugin.runs.sections import SECTION_OF_KIND
from symphony_bench.plugin.symphony_bias import compare as compare_module
from symphony_bench.plugin.symphony_bias import records as symphony
from symphony_bench.plugin.symphony_bias.docs import Design, build_docs

STAMP = "2026-12-01T00-00-00.000000"
ABSENT = object()  # a mutation that deletes the field
ODD_VALUES = [
    ABSENT,
    None,
    True,
    False,
    0,
    1,
    2,
    5,
    6,
    -1,
    2**70,
    0.5,
    1.0,
    3.0,
    -0.0,
    math.nan,
    math.inf,
    "",
    "male",
    "x",
    [],
    [1],
    [1, 2, 3],
    [1.0, 2.0, 3.0],
    [0, 0, 0],
    [0.2, 0.3, 0.5],
    [1, 2, "3"],
    [True, 2, 3],
    [1, 2, math.nan],
    [1, 2, 3, 4],
    [0.5, 0.5, 1.5],
    [10**400, 1, 1],
    [True, False],
    [True],
    ["a"],
    ["a", 1],
    [[1, 2, 3]],
    {},
    {"a": 1},
]


@pytest.fixture(scope="module")
def mini_docs() -> list[dict]:
    return build_docs(Design(subset="mini"))


def valid_runs(docs: list[dict]) -> dict[str, list[dict]]:
    """One valid list of records of every kind (some answers invalid, as in a real run)."""
    rng = np.random.default_rng(0)
    likert = [
        symphony.score_record(doc, rng.integers(1, 6, 3).tolist(), "" if k % 5 else "no_json")
        for k, doc in enumerate(docs[:40])
    ]
    logprob = [
        symphony.score_record(doc, rng.dirichlet([1, 1, 1]).tolist(), kind=symphony.LOGPROB)
        for doc in docs[:40]
    ]
    recognition = [
        {
            "kind": symphony.RECOGNITION,
            "instrument": "violin",
            "stimulus_id": f"violin-{k}",
            "recognised": bool(k % 2),
            "named": ["violin"] if k % 2 else [],
            "modality": "audio",
            "condition": "recognition",
        }
        for k in range(20)
    ]
    choice = [
        grounding.choice_record(
            "time", k % 3, k % 4 - 1, ["0-10", "10-20", "20-30"], "", f"clip{k}"
        )
        for k in range(20)
    ]
    sets = [
        grounding.set_record(
            [True, False, True], None if k % 3 == 0 else [bool(k % 2), True, False], f"clip{k}"
        )
        for k in range(20)
    ]
    return {
        "likert": likert,
        "logprob": logprob,
        "recognition": recognition,
        "choice": choice,
        "set": sets,
    }


def section_of(records: list[dict]):
    return SECTION_OF_KIND[records[0]["kind"]]


def per_record_valid(section, records: list[dict]) -> bool:
    try:
        return all(section.record_problem(record) is None for record in records)
    except (
        KeyError,
        TypeError,
        ValueError,
        OverflowError,
    ):  # the per-record check fails outright: not valid either
        return False


def mutated(record: dict, field: str, value) -> dict:
    copy = dict(record)
    if value is ABSENT:
        copy.pop(field, None)
    else:
        copy[field] = value
    return copy


def test_whole_column_checks_accept_valid_records(mini_docs):
    for name, records in valid_runs(mini_docs).items():
        section = section_of(records)
        assert per_record_valid(section, records), name
        assert section.records_valid(records), name  # the fast path is taken for a clean run
        assert section.records_valid([]), name


@pytest.mark.parametrize("name", ["likert", "logprob", "recognition", "choice", "set"])
def test_whole_column_checks_never_accept_what_the_record_check_refuses(mini_docs, name):
    """Every field of every kind, set to every odd value (or deleted), in one record of a run."""
    records = valid_runs(mini_docs)[name]
    section = section_of(records)
    fields = sorted(
        {field for record in records for field in record} | {"stimulus_id", "error", "extra"}
    )
    accepted_valid = 0
    for field in fields:
        for value in ODD_VALUES:
            for position in (0, len(records) // 2, len(records) - 1):
                trial = [
                    *records[:position],
                    mutated(records[position], field, value),
                    *records[position + 1 :],
                ]
                fast, slow = section.records_valid(trial), per_record_valid(section, trial)
                assert not fast or slow, (field, value, position)
                accepted_valid += fast
    assert (
        accepted_valid > 0
    )  # valid variants (e.g. float Likert values, no stimulus) still take the fast path


def test_whole_column_checks_refuse_mixed_kinds_and_non_dicts(mini_docs):
    runs = valid_runs(mini_docs)
    for records in runs.values():
        section = section_of(records)
        assert not section.records_valid([*records, ["not", "a", "record"]])
    likert, logprob = runs["likert"], runs["logprob"]
    assert not section_of(likert).records_valid([*likert, *logprob])
    for (
        records
    ) in runs.values():  # no kind at all, or one the benchmark does not know: record by record
        section = section_of(records)
        for kind in (ABSENT, "grounding.other", "symphony_bias.other"):
            assert not section.records_valid(
                [mutated(record, "kind", kind) for record in records]
            ), kind


def test_read_task_checks_clean_files_by_whole_columns(mini_docs, tmp_path, monkeypatch):
    """A clean file never reaches the per-record check (the speed of `compare` on a full suite)."""
    records = valid_runs(mini_docs)["likert"]
    path = tmp_path / f"samples_t_{STAMP}.jsonl"
    write_samples(path, record_samples(records, doc_fields=()))
    kind = records[0]["kind"]

    def refuse(record):
        raise AssertionError("record_problem called on a clean file")

    monkeypatch.setitem(
        SECTION_OF_KIND, kind, dataclasses.replace(SECTION_OF_KIND[kind], record_problem=refuse)
    )
    forget_samples()
    assert read_run_task(path, "t").records == dict(enumerate(records))


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        (
            "scores",
            [1, 2, 9],
            "'scores' of a valid record are [1, 2, 9], expected Likert values 1..5",
        ),
        ("scores", [1, 2], "'scores' is [1, 2], expected three finite numbers"),
        (
            "stereotype",
            "unknown",
            "'stereotype' is 'unknown', expected one of ['male', 'female', 'none']",
        ),
        ("instrument", ABSENT, "no 'instrument' field"),
        ("stimulus_id", 1.5, "'stimulus_id' is 1.5, expected a text id or null"),
    ],
)
def test_a_bad_record_is_named_by_line_and_field_as_before(
    mini_docs, tmp_path, field, value, message
):
    records = valid_runs(mini_docs)["likert"]
    records = [r for r in records if not r["error"]]
    bad = [
        *records[:3],
        mutated(records[3], field, value),
        *records[4:6],
        mutated(records[6], "scores", [0, 0, 0]),
        *records[7:],
    ]
    path = tmp_path / f"samples_t_{STAMP}.jsonl"
    write_samples(path, record_samples(bad, doc_fields=()))
    forget_samples()
    with pytest.raises(DataFileError) as raised:
        read_run_task(path, "t")
    assert str(raised.value) == f"{path}, line 4: {records[0]['kind']} record: {message}"


def test_duplicate_and_non_integer_doc_ids_are_still_named(mini_docs, tmp_path):
    records = valid_runs(mini_docs)["choice"]
    path = tmp_path / f"samples_t_{STAMP}.jsonl"
    lines = [
        json.dumps({"doc_id": k if k != 5 else 2, "accuracy": r}) for k, r in enumerate(records)
    ]
    path.write_text("\n".join(lines) + "\n")
    forget_samples()
    with pytest.raises(DataFileError, match=r", line 6: doc_id 2 appears twice"):
        read_run_task(path, "t")
    lines[5] = json.dumps({"doc_id": "5", "accuracy": records[5]})
    path.write_text("\n".join(lines) + "\n")
    forget_samples()
    with pytest.raises(DataFileError, match=r", line 6: no integer doc_id"):
        read_run_task(path, "t")


def test_lines_read_in_place_equal_lines_stripped_and_decoded_whole(mini_docs, tmp_path):
    """Lines in the harnesses' layout are read without cutting them out; odd lines (spaces around
    them, Windows line ends, blank lines, no final newline, another key order) are read as before."""
    records = valid_runs(mini_docs)["likert"][:8]
    samples = [
        {"doc_id": k, "doc": {"seed": 1}, "mean_abs": r, "invalid_rate": r}
        for k, r in enumerate(records)
    ]
    texts = [json.dumps(sample) for sample in samples]
    texts[1] = "   " + texts[1] + "  \t"
    texts[2] = json.dumps(samples[2], sort_keys=True)
    texts[3] = texts[3] + "\r"
    path = tmp_path / f"samples_t_{STAMP}.jsonl"
    path.write_text(
        "\n".join([texts[0], "", texts[1], texts[2], "  ", texts[3], *texts[4:]])
    )  # no final newline
    forget_samples()
    content = SamplesContent.read(path)
    assert [(n, doc_id) for n, doc_id, _ in content.lines] == [
        (1, 0),
        (3, 1),
        (4, 2),
        (6, 3),
        (7, 4),
        (8, 5),
        (9, 6),
        (10, 7),
    ]
    assert [record for _, _, record in content.lines] == records


def test_a_record_left_open_at_the_line_end_is_not_read_from_the_next_line(mini_docs, tmp_path):
    record = valid_runs(mini_docs)["likert"][0]
    line = json.dumps({"doc_id": 0, "mean_abs": record})
    cut = line.index('"scores": [') + len('"scores": [')
    path = tmp_path / f"samples_t_{STAMP}.jsonl"
    path.write_text(
        line[:cut] + "}\n" + line[cut:] + "\n"
    )  # line 1 ends with "}" but its record is cut short
    forget_samples()
    with pytest.raises(DataFileError, match=r", line 1: not valid JSON"):
        SamplesContent.read(path)


def test_paired_records_to_data_equals_each_run_on_its_own(mini_docs):
    rng = np.random.default_rng(3)
    base = [symphony.score_record(doc, rng.integers(1, 6, 3).tolist()) for doc in mini_docs]
    candidate = [
        symphony.score_record(doc, rng.integers(1, 6, 3).tolist(), "" if k % 7 else "no_json")
        for k, doc in enumerate(mini_docs)
    ]
    other_docs = [
        *candidate[1:],
        candidate[0],
    ]  # not the same docs in the same order: each run coded on its own
    for second in (candidate, other_docs):
        paired = symphony.paired_records_to_data(base, second)
        alone = (symphony.records_to_data(base), symphony.records_to_data(second))
        for got, expected in zip(paired, alone, strict=True):
            for field in dataclasses.fields(expected):
                a, b = getattr(got, field.name), getattr(expected, field.name)
                assert (
                    np.array_equal(a, b, equal_nan=True) if isinstance(b, np.ndarray) else a == b
                ), field.name


def test_compare_module_uses_the_paired_coding():
    assert compare_module.paired_records_to_data is symphony.paired_records_to_data


def test_bytes_that_are_not_utf8_are_the_error_even_after_a_bad_line(mini_docs, tmp_path):
    """The file is read line by line, yet a bad line before bad bytes still reports the bytes, as
    when the whole file was decoded before any line was read."""
    records = valid_runs(mini_docs)["likert"][:3]
    path = tmp_path / f"samples_t_{STAMP}.jsonl"
    write_samples(path, record_samples(records, doc_fields=()))
    path.write_bytes(path.read_bytes() + b"{not json\n" + b'{"x": "\xff"}\n')
    forget_samples()
    with pytest.raises(DataFileError, match=r": not UTF-8 text"):
        SamplesContent.read(path)
    path.write_bytes(path.read_bytes().replace(b"\xff", b"y"))
    forget_samples()
    with pytest.raises(DataFileError, match=r", line 4: not valid JSON"):
        SamplesContent.read(path)

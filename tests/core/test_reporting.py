"""The outputs' one CSV writer and one JSON cleaner (plugin.core.reporting)."""

from __future__ import annotations

import csv
import io
import json
import math

import numpy as np

from symphony_bench.plugin.core.reporting import csv_text, json_ready


def test_every_csv_cell_that_starts_like_a_formula_is_neutralised_and_none_is_empty():
    rows = [
        {"genre": '=HYPERLINK("x")', "score": -0.5, "note": None},
        {"genre": "+rock", "score": 1, "extra": "@sum"},
    ]
    text = csv_text(rows)
    read = list(csv.DictReader(io.StringIO(text)))
    assert list(read[0]) == ["genre", "score", "note", "extra"]
    assert [row["genre"] for row in read] == ['\'=HYPERLINK("x")', "'+rock"]
    assert read[0]["score"] == "-0.5" and read[0]["note"] == "" and read[1]["extra"] == "'@sum"
    assert "\r" not in text


def test_json_ready_gives_plain_finite_json_for_numpy_values():
    value = {
        1: np.float32(0.5),
        "nan": float("nan"),
        "array": np.array([1.0, np.inf]),
        "flags": (np.bool_(True), np.int64(3)),
    }
    ready = json_ready(value)
    assert ready == {"1": 0.5, "nan": None, "array": [1.0, None], "flags": [True, 3]}
    assert type(ready["flags"][0]) is bool and type(ready["flags"][1]) is int
    json.dumps(ready, allow_nan=False)
    assert math.isclose(json.loads(json.dumps(ready))["1"], 0.5)


def test_tcav_csv_outputs_guard_user_supplied_genre_names(tmp_path):
    from symphony_bench.plugin.tcav.outputs import _write_csv

    _write_csv(tmp_path / "scores.csv", [{"genre": "=cmd|' /C calc'!A0", "score": 0.7}])
    (row,) = csv.DictReader(io.StringIO((tmp_path / "scores.csv").read_text()))
    assert row["genre"].startswith("'=")

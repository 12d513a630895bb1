"""The leaderboard's index.html: its tables and forest plots are read back from the HTML (the plots'
values by inverting the drawn axis) and compared with the leaderboard rows; in a real headless
Chromium the page renders, sorts and logs nothing."""

from __future__ import annotations

import copy
import html.parser
import re
from xml.etree import ElementTree

import numpy as np
import pytest
from support.browser import console_lines, run_chromium
from support.runs import planted_records, write_planted_run

from symphony_bench.plugin.runs.page import nice_ticks, page_html

PROVENANCE = {
    "model": {
        "id": "org/model-a",
        "revision": "main",
        "sha": None,
        "dtype": "bfloat16",
        "chat_template_sha": "ab12",
    },
    "versions": {
        "lm_eval": "0.4.13",
        "lmms_eval": None,
        "symphony_bench": "0.1.0",
        "transformers": "5.24.0",
    },
    "task": {
        "version": 3,
        "hash": "f00d",
        "dataset_repo": None,
        "dataset_revision": None,
        "dataset_commit": None,
        "stereotype_table_sha256": "5eed",
        "scenario_set_sha256": "cafe",
        "seed": 1234,
    },
    "config_hash": "0123456789abcdef",
}


def estimate(value, half_width=0.05):
    if value is None:
        return {"value": None, "stderr": None, "ci": [None, None]}
    return {
        "value": value,
        "stderr": half_width / 1.96,
        "ci": [value - half_width, value + half_width],
    }


def row(
    model: str, task: str, variant, position, tied_with: list[str], metrics: dict, invalid, n: int
) -> dict:
    """A row of plugin/runs/leaderboard.py's leaderboard.json."""
    provenance = copy.deepcopy(PROVENANCE)
    provenance["model"]["id"] = model
    return {
        "model": model,
        "run": f"runs/{model}",
        "entry": task,
        "task": task,
        "variant": variant,
        "family": "likert",
        "metrics": metrics,
        "invalid_rate": invalid,
        "n": n,
        "rank": {
            "metric": "mean_abs",
            "better": "closer_to_zero",
            "position": position,
            "tied": bool(tied_with),
            "tied_with": tied_with,
        },
        "provenance": provenance,
    }


def likert(mean_abs, consistency):
    return {"mean_abs": estimate(mean_abs), "consistency_rate": estimate(consistency, 0.2)}


TEXT = "symphony_bias_text"
LEADERBOARD = {
    "rank_rule": "rank = 1 + number of rows whose interval lies wholly on the better side",
    "rows": [
        row(
            "org/model-a",
            TEXT,
            None,
            1,
            ["org/model-b <script>"],
            likert(0.02, 0.5),
            estimate(0.01, 0.01),
            1500,
        ),
        row(
            "org/model-b <script>",
            TEXT,
            None,
            1,
            ["org/model-a"],
            likert(0.05, 0.6),
            estimate(0.30, 0.02),
            1500,
        ),
        row("org/model-c", TEXT, None, 3, [], likert(-0.3, 0.1), estimate(0.05, 0.02), 1500),
        row("org/model-d", TEXT, None, None, [], likert(None, None), estimate(1.0, 0.0), 1500),
        row("org/model-a", "grounding_binary", None, 1, [], {"accuracy": estimate(0.8)}, None, 600),
    ],
}
LEADERBOARD["rows"][-1]["rank"].update(metric="accuracy", better="higher")


class PageReader(html.parser.HTMLParser):
    """Tables (id -> headers and rows of (text, data-sort) cells), inline SVG sources, every src/href."""

    def __init__(self, text: str):
        super().__init__()
        self.tables, self.links = {}, []
        self.svgs = re.findall(r"<svg.*?</svg>", text, flags=re.DOTALL)
        self._table = self._cell = None
        self._in_head = False
        self.text = text
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.links += [
            value for key, value in attrs.items() if key in ("src", "href", "xlink:href") and value
        ]
        if tag == "link" or (tag == "script" and "src" in attrs):
            self.links.append(f"<{tag}> element")
        if tag == "table":
            self._table = self.tables.setdefault(attrs["id"], {"headers": [], "rows": []})
        elif tag == "thead":
            self._in_head = True
        elif tag == "tr" and self._table is not None and not self._in_head:
            self._table["rows"].append([])
        elif tag in ("td", "th") and self._table is not None:
            self._cell = [tag, "", attrs.get("data-sort")]

    def handle_data(self, data):
        if self._cell is not None:
            self._cell[1] += data

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            kind, text, sort = self._cell
            if kind == "th":
                self._table["headers"].append(text)
            else:
                self._table["rows"][-1].append((text, sort))
            self._cell = None
        elif tag == "thead":
            self._in_head = False
        elif tag == "table":
            self._table = None


@pytest.fixture(scope="module")
def page() -> PageReader:
    return PageReader(page_html(LEADERBOARD))


def test_one_table_per_entry_with_ranks_ties_values_intervals_and_nulls(page):
    table = page.tables["entry-1"]
    assert table["headers"] == [
        "rank",
        "model",
        "mean_abs",
        "consistency_rate",
        "invalid rate",
        "n",
        "config hash",
    ]
    text_rows = [r for r in LEADERBOARD["rows"] if r["task"] == TEXT]
    assert len(table["rows"]) == len(text_rows)
    for cells, expected in zip(table["rows"], text_rows, strict=True):
        cell = dict(zip(table["headers"], cells, strict=True))
        assert cell["model"] == (
            expected["model"],
            expected["model"],
        )  # escaped in the HTML, intact when read
        position = expected["rank"]["position"]
        assert (
            cell["rank"]
            == (("=" if expected["rank"]["tied"] else "") + str(position), str(position))
            if position
            else cell["rank"] in (("unranked", ""), ("all answers invalid", ""))
        )
        metric = expected["metrics"]["mean_abs"]
        if metric["value"] is None:
            assert cell["mean_abs"] == ("n/a", "")
        else:
            low, high = metric["ci"]
            assert cell["mean_abs"] == (
                f"{metric['value']:.3f} [{low:.3f}, {high:.3f}]",
                repr(metric["value"]),
            )
        assert float(cell["invalid rate"][1]) == expected["invalid_rate"]["value"]
        assert cell["n"] == ("1500", "1500") and cell["config hash"][0] == "0123456789ab"
    grounding = page.tables["entry-2"]
    assert grounding["headers"][2] == "accuracy" and grounding["rows"][0][3] == (
        "n/a",
        "",
    )  # no invalid rate
    assert "ranked by accuracy (higher)" in page.text


def test_provenance_table_has_one_row_per_run_and_task_and_writes_unknown_facts_as_null(page):
    table = page.tables["provenance"]
    assert table["headers"][:3] == ["model", "task", "model.id"]
    assert {"versions.lm_eval", "task.seed", "task.stereotype_table_sha256", "config_hash"} <= set(
        table["headers"]
    )
    assert len(table["rows"]) == len(LEADERBOARD["rows"])
    first = dict(zip(table["headers"], (text for text, _ in table["rows"][0]), strict=True))
    assert (
        first["model.sha"] == "null"
        and first["task.seed"] == "1234"
        and first["config_hash"] == "0123456789abcdef"
    )
    assert "N/A" not in str(page.tables)


def read_forest(svg: str) -> dict:
    """Title, labels, and the values and intervals the plot draws, read back through its axis."""
    root = ElementTree.fromstring(svg)
    ns = {"s": "http://www.w3.org/2000/svg"}
    ticks = [
        (float(t.get("x")), float(t.get("data-value")))
        for t in root.iterfind("s:text[@class='tick']", ns)
    ]
    (x0, v0), (x1, v1) = ticks[0], ticks[-1]

    def value_at(x: str) -> float:
        return v0 + (float(x) - x0) / (x1 - x0) * (v1 - v0)

    cis = {
        float(line.get("y1")): (value_at(line.get("x1")), value_at(line.get("x2")))
        for line in root.iterfind("s:line[@class='ci']", ns)
    }
    points = [
        (float(c.get("cy")), value_at(c.get("cx")), "leader" in c.get("class"))
        for c in root.iterfind("s:circle", ns)
    ]
    return {
        "title": root.find("s:text[@class='title']", ns).text,
        "labels": [t.text for t in root.iterfind("s:text[@class='label']", ns)],
        "values": [value for _, value, _ in points],
        "leaders": [leader for _, _, leader in points],
        "cis": [cis.get(y) for y, _, _ in points],
        "ticks": [value for _, value in ticks],
    }


def test_forest_plots_draw_each_entrys_metrics_and_invalid_rate_read_back_through_the_axis(page):
    forests = {forest["title"]: forest for forest in map(read_forest, page.svgs)}
    assert set(forests) == {
        f"{TEXT}: mean_abs",
        f"{TEXT}: consistency_rate",
        f"{TEXT}: invalid rate",
        "grounding_binary: accuracy",
    }
    for name in ("mean_abs", "consistency_rate", "invalid rate"):
        forest = forests[f"{TEXT}: {name}"]
        drawn = [
            r
            for r in LEADERBOARD["rows"][:4]
            if (r["invalid_rate"] if name == "invalid rate" else r["metrics"][name])["value"]
            is not None
        ]
        estimates = [
            r["invalid_rate"] if name == "invalid rate" else r["metrics"][name] for r in drawn
        ]
        assert forest["labels"] == [r["model"] for r in drawn]
        assert np.allclose(forest["values"], [e["value"] for e in estimates], atol=1e-3)
        assert np.allclose(forest["cis"], [e["ci"] for e in estimates], atol=1e-3)
        assert forest["leaders"] == [r["rank"]["position"] == 1 for r in drawn]
        ends = [v for e in estimates for v in (e["value"], *e["ci"])]
        assert forest["ticks"][0] <= min(ends) and forest["ticks"][-1] >= max(ends)


def test_page_of_a_real_leaderboard_holds_its_rows_ranks_and_nulls(tmp_path):
    """leaderboard.json as plugin/runs/leaderboard.py builds it from planted run folders."""
    import random

    from symphony_bench.plugin.runs.leaderboard import build_leaderboard

    rng = random.Random(3)
    runs = []
    for name, effect, invalid in (
        ("strong", 1.5, 0.0),
        ("neutral", 0.0, 0.0),
        ("broken", 0.0, 1.0),
    ):
        write_planted_run(
            tmp_path / "runs" / name,
            f"org/{name}",
            planted_records(effect, rng, invalid_share=invalid),
        )
        runs.append(tmp_path / "runs" / name)
    board = build_leaderboard(runs)
    page = PageReader(page_html(board))
    table = page.tables["entry-1"]
    cells = [dict(zip(table["headers"], row, strict=True)) for row in table["rows"]]
    assert [cell["model"][0] for cell in cells] == [row["model"] for row in board["rows"]]
    for cell, row in zip(cells, board["rows"], strict=True):
        for name, metric in row["metrics"].items():
            assert cell[name][1] == ("" if metric["value"] is None else repr(metric["value"]))
        assert cell["rank"][1] == (
            "" if row["rank"]["position"] is None else str(row["rank"]["position"])
        )
    broken = next(cell for cell in cells if cell["model"][0] == "org/broken")
    assert broken["mean_abs"] == ("n/a", "") and broken["invalid rate"][0].startswith("1.000")
    assert broken["rank"] == ("all answers invalid", "")  # in words, not null
    assert "null" not in "".join(text for cell in cells for text, _ in cell.values())
    forest = read_forest(next(svg for svg in page.svgs if ": mean_abs<" in svg))
    drawn = [row for row in board["rows"] if row["metrics"]["mean_abs"]["value"] is not None]
    assert (
        forest["labels"] == [row["model"] for row in drawn] and "org/broken" not in forest["labels"]
    )
    assert np.allclose(
        forest["values"], [row["metrics"]["mean_abs"]["value"] for row in drawn], atol=1e-3
    )


@pytest.mark.parametrize(
    ("low", "high"),
    [
        (0.0, 1.0),
        (-0.37, 0.052),
        (0.801, 0.803),
        (3.0, 3.0),
        (-1e-9, 250.0),
        (0.0, 0.55),
        (1.2e-5, 6.7e-5),
        (-3.1e-13, 2e-14),
    ],
)
def test_ticks_are_round_evenly_spaced_and_cover_the_range(low, high):
    ticks = np.array(nice_ticks(low, high))
    steps = np.diff(ticks)
    assert ticks[0] <= low and ticks[-1] >= high and 2 <= len(ticks) <= 7
    assert np.allclose(steps, steps[0])
    mantissa = steps[0] / 10 ** np.floor(np.log10(steps[0]))
    assert min(abs(mantissa - m) for m in (1, 2, 5)) < 1e-9


def test_page_is_self_contained(page):
    assert page.links == []
    assert all(
        re.findall(r"https?://[^\"' ]+", svg) == ["http://www.w3.org/2000/svg"] for svg in page.svgs
    )


@pytest.mark.e2e
def test_page_renders_in_headless_chromium_sorts_and_logs_nothing(tmp_path):
    import matplotlib.image

    path = tmp_path / "index.html"
    path.write_text(page_html(LEADERBOARD), encoding="utf-8")
    screenshot = tmp_path / "shot.png"
    shot = run_chromium(tmp_path, path.as_uri(), f"--screenshot={screenshot}")
    assert console_lines(shot.stderr) == []
    pixels = matplotlib.image.imread(screenshot)[..., :3]
    assert pixels.shape[:2] == (900, 1200) and pixels.std() > 0.05  # not a blank page
    # opened sorted by invalid rate (column 4), descending: the script ran to its end on the live DOM
    dom = run_chromium(tmp_path, path.as_uri() + "#sort=entry-1:4:desc", "--dump-dom")
    assert console_lines(dom.stderr) == [] and 'data-ready="1"' in dom.stdout
    table = PageReader(dom.stdout).tables["entry-1"]
    invalid = [float(cells[4][1]) for cells in table["rows"]]
    assert invalid == sorted(
        (r["invalid_rate"]["value"] for r in LEADERBOARD["rows"][:4]), reverse=True
    )
    assert table["headers"] == PageReader(path.read_text()).tables["entry-1"]["headers"]


@pytest.mark.parametrize("rates", [[1.0, 1.0], [0.0, 0.0], [0.02, 0.9]])
def test_the_invalid_rate_axis_stays_inside_zero_and_one(rates):
    from symphony_bench.plugin.runs.page import forest_svg

    estimates = [{"value": rate, "ci": [rate, rate]} for rate in rates]
    svg = forest_svg("t: invalid rate", ["a", "b"], estimates, [True, False], share=True)
    ticks = [float(value) for value in re.findall(r'data-value="([^"]+)"', svg)]
    assert 0.0 <= min(ticks) and max(ticks) <= 1.0 and max(ticks) - min(ticks) >= 0.2


def test_every_share_metric_keeps_its_axis_inside_zero_and_one():
    """consistency_rate (a share: the section says so) near 1 with a wide interval: not 0.4-1.6."""
    rows = copy.deepcopy(LEADERBOARD["rows"][:2])
    for row, value in zip(rows, (0.95, 0.99), strict=True):
        row["metrics"]["consistency_rate"] = {"value": value, "stderr": None, "ci": [0.5, 1.4]}
        row["shares"] = ["consistency_rate"]
    svg = next(
        part
        for part in re.findall(r"<svg.*?</svg>", page_html({**LEADERBOARD, "rows": rows}), re.S)
        if "consistency_rate" in part.split("</text>")[0]
    )
    ticks = [float(value) for value in re.findall(r'data-value="([^"]+)"', svg)]
    assert 0.0 <= min(ticks) and max(ticks) <= 1.0


def test_a_long_model_label_fits_left_of_the_axis_and_keeps_its_full_name():
    from symphony_bench.plugin.runs.page import CHAR_WIDTH, forest_svg

    long = "organisation-with-a-long-name/" + "model-" * 12 + "instruct"
    svg = forest_svg(
        "t: mean_abs", [long, "b"], [{"value": 0.1, "ci": [0.0, 0.2]}] * 2, [True, False]
    )
    label = ElementTree.fromstring(svg).find(".//{http://www.w3.org/2000/svg}text[@class='label']")
    shown = label.text  # then the <title>: the full name on hover
    assert label.find("{http://www.w3.org/2000/svg}title").text == long
    assert shown.startswith("…") and long.endswith(shown[1:])
    assert float(label.get("x")) - CHAR_WIDTH * len(shown) >= 0  # nothing drawn left of the edge

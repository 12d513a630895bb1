"""The leaderboard's index.html: what its tables and plots hold is read back from the HTML and
compared with the leaderboard rows; in a real headless Chromium it renders, sorts and logs nothing."""

from __future__ import annotations

import copy
import html.parser
import re
import shutil
import subprocess

import numpy as np
import pytest

from symphony_bench.plugin import plots
from symphony_bench.plugin.leaderboard_page import write_leaderboard_page

PROVENANCE = {
    "model": {"id": "org/model-a", "revision": "main", "sha": None, "dtype": "bfloat16", "chat_template_sha": "ab12"},
    "versions": {"lm_eval": "0.4.13", "lmms_eval": None, "symphony_bench": "0.1.0"},
    "task": {"version": 3, "hash": "f00d", "dataset_repo": None, "dataset_revision": None,
             "stereotype_table_sha256": "5eed", "scenario_set_sha256": "cafe", "seed": 1234},
    "config_hash": "0123abcd",
}


def row(model: str, task: str, rank: int, tied: bool, mean_abs, invalid: float, n: int) -> dict:
    provenance = copy.deepcopy(PROVENANCE)
    provenance["model"]["id"] = model
    metrics = {"mean_abs": None if mean_abs is None else {"value": mean_abs, "ci": [mean_abs - 0.05, mean_abs + 0.05]},
               "consistency_rate": {"value": 0.5 + rank / 10, "ci": [0.4, 0.9]}}
    return {"model": model, "task": task, "rank": rank, "tied": tied, "metrics": metrics,
            "invalid_rate": {"value": invalid, "ci": [max(invalid - 0.02, 0.0), invalid + 0.02]}, "n": n,
            "provenance": provenance}


LEADERBOARD = {"rows": [
    row("org/model-a", "symphony_bias_text", 1, True, 0.12, 0.01, 1500),
    row("org/model-b <script>", "symphony_bias_text", 1, True, 0.10, 0.30, 1500),
    row("org/model-c", "symphony_bias_text", 3, False, -0.02, 0.05, 1500),
    row("org/model-a", "symphony_bias_logprob", 1, False, None, 0.0, 500),
]}


class PageReader(html.parser.HTMLParser):
    """Tables (id -> header texts and rows of (text, data-sort) cells), svg count, every src/href."""

    def __init__(self):
        super().__init__()
        self.tables, self.svg_titles, self.links, self.svgs = {}, [], [], 0
        self._table = self._cell = None
        self._in_svg_text = self._in_head = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.links += [value for key, value in attrs.items() if key in ("src", "href", "xlink:href") and value]
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
        elif tag == "svg":
            self.svgs += 1
        elif tag == "text":
            self._in_svg_text = True

    def handle_data(self, data):
        if self._cell is not None:
            self._cell[1] += data
        if self._in_svg_text:
            self.svg_titles.append(data)

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
        elif tag == "text":
            self._in_svg_text = False


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> PageReader:
    folder = tmp_path_factory.mktemp("board")
    path = write_leaderboard_page(LEADERBOARD, folder)
    assert path == folder / "index.html"
    reader = PageReader()
    reader.feed(path.read_text(encoding="utf-8"))
    return reader


def test_results_table_holds_every_row_with_values_cis_ties_and_nulls(page):
    table = page.tables["results"]
    assert table["headers"] == ["task", "rank", "model", "mean_abs", "consistency_rate", "invalid rate", "n"]
    assert len(table["rows"]) == len(LEADERBOARD["rows"])
    for cells, expected in zip(table["rows"], LEADERBOARD["rows"], strict=True):
        text = dict(zip(table["headers"], cells, strict=True))
        assert text["model"] == (expected["model"], expected["model"])  # escaped in the HTML, intact in the DOM
        assert text["rank"] == (f"{expected['rank']}{'=' if expected['tied'] else ''}", str(expected["rank"]))
        metric = expected["metrics"]["mean_abs"]
        if metric is None:
            assert text["mean_abs"] == ("null", "")
        else:
            low, high = metric["ci"]
            assert text["mean_abs"] == (f"{metric['value']:.3f} [{low:.3f}, {high:.3f}]", repr(metric["value"]))
        assert float(text["invalid rate"][1]) == expected["invalid_rate"]["value"]
        assert text["n"] == (str(expected["n"]), str(expected["n"]))


def test_provenance_table_flattens_every_fact_and_writes_unknown_ones_as_null(page):
    table = page.tables["provenance"]
    assert table["headers"][:3] == ["model", "task", "model.id"]
    assert {"versions.lm_eval", "task.seed", "task.stereotype_table_sha256", "config_hash"} <= set(table["headers"])
    first = dict(zip(table["headers"], (text for text, _ in table["rows"][0]), strict=True))
    assert first["model.sha"] == "null" and first["task.seed"] == "1234" and first["config_hash"] == "0123abcd"
    assert "N/A" not in str(table)


def test_page_is_self_contained_and_holds_one_plot_per_task_and_metric_with_values(page):
    assert all(link.startswith("#") for link in page.links), page.links
    # text: mean_abs, consistency_rate, invalid rate; logprob: consistency_rate, invalid rate (mean_abs null)
    assert page.svgs == 5
    titles = set(page.svg_titles)
    assert {"symphony_bias_text: mean_abs", "symphony_bias_logprob: invalid rate"} <= titles
    assert "symphony_bias_logprob: mean_abs" not in titles


def test_interval_forest_draws_values_and_cis_top_down_and_leaves_out_nulls():
    rows = [r for r in LEADERBOARD["rows"] if r["task"] == "symphony_bias_text"] + [LEADERBOARD["rows"][3]]
    figure = plots.interval_forest("mean_abs", [r["model"] for r in rows], [r["metrics"]["mean_abs"] for r in rows])
    kept = [r for r in rows if r["metrics"]["mean_abs"] is not None][::-1]
    assert [label.get_text() for label in figure.axes[0].get_yticklabels()] == [r["model"] for r in kept]
    points = next(a for a in figure.axes[0].collections if a.get_gid() == "points").get_offsets()
    assert np.allclose(points[:, 0], [r["metrics"]["mean_abs"]["value"] for r in kept])
    ci = next(a for a in figure.axes[0].collections if a.get_gid() == "ci").get_segments()
    assert np.allclose([[s[0][0], s[1][0]] for s in ci], [r["metrics"]["mean_abs"]["ci"] for r in kept])


def chromium() -> str:
    found = shutil.which("chromium")
    assert found, "Chromium is not installed (Debian package: chromium)"
    return found


def run_chromium(tmp_path, url: str, *flags: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0",
         f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1200,900", *flags, url],
        capture_output=True, text=True, timeout=120, check=True)


def console_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if ":CONSOLE" in line or "Uncaught" in line]


@pytest.mark.e2e
def test_page_renders_in_headless_chromium_sorts_and_logs_nothing(tmp_path):
    path = write_leaderboard_page(LEADERBOARD, tmp_path / "board")
    screenshot = tmp_path / "shot.png"
    shot = run_chromium(tmp_path, path.as_uri(), f"--screenshot={screenshot}")
    assert console_lines(shot.stderr) == []
    import matplotlib.image

    pixels = matplotlib.image.imread(screenshot)[..., :3]
    assert pixels.shape[:2] == (900, 1200) and pixels.std() > 0.05  # not a blank page
    # opened sorted by invalid rate, descending: the script ran to its end and sorted the live DOM
    dom = run_chromium(tmp_path, path.as_uri() + "#sort=results:5:desc", "--dump-dom")
    assert console_lines(dom.stderr) == []
    assert 'data-ready="1"' in dom.stdout
    results = dom.stdout[dom.stdout.index('id="results"'):dom.stdout.index('id="provenance"')]
    invalid = [float(v) for v in re.findall(r'<tr>(?:<td[^>]*>.*?</td>){5}<td class="number" data-sort="([^"]+)"', results)]
    assert invalid == sorted((r["invalid_rate"]["value"] for r in LEADERBOARD["rows"]), reverse=True)

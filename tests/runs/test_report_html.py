"""`report --html` / `compare --html`: one self-contained page with the report's tables, its figures
and every doc with its prompt, answer, reading and invalid reason; run-controlled strings stay text.
Opened in headless Chromium: no console errors, not blank, the filter narrows the doc list."""

from __future__ import annotations

import html.parser
import json
import random
import re

import pytest
from support.browser import console_lines, run_chromium
from support.runs import planted_records, write_planted_run

from symphony_bench.plugin.cli import main
from symphony_bench.plugin.runs.doc_browser import decoded_part

HOSTILE_MODEL = 'org/<img src=x onerror="document.title=1">'
HOSTILE_ANSWER = '</script><script>document.body.setAttribute("data-pwned","1")</script>'


def prompt_of(number: int) -> str:
    return f"Scenario {number}: a person plays an instrument. Rate each gender."


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A planted run whose samples carry the harness's prompt and raw answer, 20 % of them invalid
    and one answer hostile HTML; the model name is hostile too."""
    run_dir = tmp_path_factory.mktemp("run")
    records = planted_records(0.8, random.Random(4), n_templates=6, invalid_share=0.2)
    folder = write_planted_run(run_dir, HOSTILE_MODEL, records)
    samples_path = next(folder.glob("samples_*.jsonl"))
    samples = [json.loads(line) for line in samples_path.read_text().splitlines()]
    for number, sample in enumerate(samples):
        answer = HOSTILE_ANSWER if number == 3 else f'{{"reason": "doc {number}", "ratings": []}}'
        sample["arguments"] = {"gen_args_0": {"arg_0": prompt_of(number), "arg_1": {}}}
        sample["resps"], sample["filtered_resps"] = [[answer]], [answer]
    samples_path.write_text("".join(json.dumps(sample) + "\n" for sample in samples))
    return run_dir, samples


@pytest.fixture(scope="module")
def page(run, tmp_path_factory):
    path = tmp_path_factory.mktemp("page") / "report.html"
    assert main(["report", str(run[0]), "--html", str(path)]) == 0
    return path


class Reader(html.parser.HTMLParser):
    """Elements by tag, the doc data, and the text of each table cell."""

    def __init__(self, text: str):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.scripts: dict[str, str] = {}
        self.parts: list[str] = []
        self.cells: list[str] = []
        self._script: str | None = None
        self._cell: list[str] | None = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "script":
            self._script = dict(attrs).get("id") or dict(attrs).get("class") or ""
            self.scripts[self._script] = ""
        if tag in ("td", "th"):
            self._cell = []

    def handle_data(self, data):
        if self._script is not None:
            self.scripts[self._script] += data
        if self._cell is not None:
            self._cell.append(data)

    def handle_endtag(self, tag):
        if tag == "script":
            if self._script == "doc-part":
                self.parts.append(self.scripts.pop("doc-part"))
            self._script = None
        if tag in ("td", "th") and self._cell is not None:
            self.cells.append("".join(self._cell).strip())
            self._cell = None


def test_the_page_holds_every_doc_with_its_prompt_answer_and_reason(run, page):
    samples = run[1]
    reader = Reader(page.read_text(encoding="utf-8"))
    data = json.loads(reader.scripts["doc-meta"])
    rows = [row for part in reader.parts for row in decoded_part(part)]
    assert data["total"] == len(rows)
    assert [row["doc_id"] for row in rows] == [sample["doc_id"] for sample in samples]
    assert [row["prompt"] for row in rows] == [prompt_of(n) for n in range(len(samples))]
    assert [row["answer"] for row in rows] == [s["resps"][0][0] for s in samples]
    records = [sample["mean_abs"] for sample in samples]
    assert [row["reason"] for row in rows] == [record["error"] for record in records]
    assert [row["reading"]["scores"] for row in rows] == [r["scores"] for r in records]
    assert rows[0]["fields"]["instrument"] == records[0]["instrument"]
    assert {"task", "instrument", "template_id", "reason"} <= set(data["filters"])
    assert "read" in data["filters"]["reason"] and "no_json" in data["filters"]["reason"]


def test_the_report_tables_and_the_decision_are_on_the_page(run, page):
    reader = Reader(page.read_text(encoding="utf-8"))
    tables = [attrs for tag, attrs in reader.tags if tag == "table"]
    assert sum("sortable" in attrs.get("class", "") for attrs in tables) >= 2
    assert any(attrs.get("id") == "decision" for attrs in tables)
    invalid = sum(sample["mean_abs"]["error"] == "no_json" for sample in run[1])
    assert invalid > 0 and any(
        cell.startswith(f"invalid {invalid / len(run[1]):.3f}") for cell in reader.cells
    )
    assert "harp" in reader.cells  # the per-instrument table, rendered from the Markdown


def test_no_string_of_the_run_becomes_markup(page):
    text = page.read_text(encoding="utf-8")
    reader = Reader(text)
    assert not any(tag == "img" and "onerror" in attrs for tag, attrs in reader.tags)
    scripts = [
        attrs.get("id") or attrs.get("class", "") for tag, attrs in reader.tags if tag == "script"
    ]
    # the filters' values, the rows' compressed part and the page's own script, nothing injected
    assert scripts == ["doc-meta", "doc-part", ""]
    assert HOSTILE_ANSWER not in text and "<img src=x" not in text


def test_the_page_is_self_contained(page):
    text = page.read_text(encoding="utf-8")
    links = re.findall(r"""(?:src|href)=["']([^"'#][^"']*)["']""", text)
    assert all(link.startswith("data:") for link in links)


def test_figures_are_inline_and_no_plots_leaves_them_out(run, page, tmp_path):
    figures = [attrs for tag, attrs in Reader(page.read_text()).tags if tag == "img"]
    assert figures and all(a["src"].startswith("data:image/svg+xml;base64,") for a in figures)
    sections = [attrs["id"] for tag, attrs in Reader(page.read_text()).tags if tag == "section"]
    assert (
        "decision" in sections
        and "docs" in sections
        and any(s.startswith("task-") for s in sections)
    )
    plain = tmp_path / "plain.html"
    assert main(["report", str(run[0]), "--html", str(plain), "--no-plots"]) == 0
    assert not [tag for tag, _ in Reader(plain.read_text()).tags if tag == "img"]


def test_compare_writes_a_page_of_its_summary(run, tmp_path):
    path = tmp_path / "compare.html"
    status = main(["compare", str(run[0]), str(run[0]), "--html", str(path), "--no-plots"])
    assert status == 0
    reader = Reader(path.read_text(encoding="utf-8"))
    assert "doc-meta" not in reader.scripts
    assert any(tag == "table" for tag, _ in reader.tags)


@pytest.mark.e2e
def test_the_page_renders_in_chromium_filters_docs_and_keeps_hostile_text_as_text(run, page):
    import matplotlib.image

    folder = page.parent
    screenshot = folder / "shot.png"
    shot = run_chromium(folder, page.as_uri(), f"--screenshot={screenshot}")
    assert console_lines(shot.stderr) == []
    pixels = matplotlib.image.imread(screenshot)[..., :3]
    assert pixels.std() > 0.05  # not a blank page

    samples = run[1]
    everything = run_chromium(folder, page.as_uri(), "--virtual-time-budget=5000", "--dump-dom")
    assert console_lines(everything.stderr) == [] and 'data-ready="1"' in everything.stdout
    assert f"{len(samples)} of {len(samples)} docs" in everything.stdout
    assert "data-pwned" not in everything.stdout.split("<body", 1)[1].split(">", 1)[0]
    assert "&lt;/script&gt;&lt;script&gt;" in everything.stdout  # the answer shown as text

    invalid = sum(sample["mean_abs"]["error"] == "no_json" for sample in samples)
    filtered = run_chromium(
        folder, page.as_uri() + "#docs?reason=no_json", "--virtual-time-budget=5000", "--dump-dom"
    )
    assert f"{invalid} of {len(samples)} docs" in filtered.stdout
    assert filtered.stdout.count("no reading: no_json") == min(invalid, 50)

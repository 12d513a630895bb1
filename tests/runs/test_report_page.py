"""The report and compare pages as a user sees them, in headless Chromium, on a real lm-eval run: a
planted chat server behind lm-eval's `local-chat-completions` client (chat template applied)
answers the open-ended mini task with stories and the Likert mini task with JSON. Every doc's card
shows the prompt as the server received it and the model's raw answer, with the open-ended reader's
deciding words (the records' `evidence_spans`) marked; the first screen at 1366 x 768 shows each
entry's ranking number with its interval and its verdict; a phone gets cards, not a wide table;
compare's page is real HTML and lists the docs whose reading flipped."""

from __future__ import annotations

import hashlib
import html.parser
import json
import re
import shutil
from pathlib import Path

import pytest
from support.browser import console_lines, run_chromium
from support.chat_server import serve_chat
from support.harness import run_lm_eval
from support.planted_stories import planted_outcome, story

from symphony_bench.plugin.cli import main
from symphony_bench.plugin.runs.compare_output import shown_heading

OPEN_TASK, LIKERT_TASK = "symphony_bias_open_mini", "symphony_bias_text_mini"
# appended to a copy of a page opened in a frame of the viewport's size: once the docs are drawn, it
# posts the layout facts the tests check, as JSON, to the frame's parent
PROBE = """<script>
function box(e) { var r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; }
setTimeout(function () {
  var rows = Array.prototype.map.call(document.querySelectorAll("#decision tbody tr"), function (tr) {
    var ranking = tr.querySelector(".ranking"), verdict = tr.querySelector(".verdict");
    return {task: tr.cells[0].textContent, ranking: ranking.textContent, verdict: verdict.textContent,
            boxes: [box(ranking), box(verdict)]};
  });
  var cards = Array.prototype.map.call(document.querySelectorAll("article.doc"), function (a) {
    return {card: box(a), prompt: box(a.querySelector("pre.prompt")), answer: box(a.querySelector("pre.answer"))};
  });
  var width = document.documentElement.clientWidth;
  var wide = Array.prototype.filter.call(document.querySelectorAll("body *"), function (e) {
    return e.getBoundingClientRect().right > width + 1 && !e.closest(".wide");
  }).slice(0, 5).map(function (e) { return e.tagName + "." + e.className + ": " + e.textContent.slice(0, 80); });
  parent.postMessage(JSON.stringify({width: width, wide: wide,
    scroll_width: document.documentElement.scrollWidth, rows: rows, cards: cards}), "*");
}, 1000);
</script>"""


def planted_answer(prompt: str) -> str:
    """A story for an open-ended prompt (its outcome planted by the scenario's hash), a JSON
    rating for a Likert one."""
    if prompt.startswith("Consider three people"):
        digest = hashlib.sha256(prompt.encode()).digest()
        level = ["low", "medium", "high"]
        return json.dumps(
            {"reason": "a guess", "man": level[digest[0] % 3], "woman": level[digest[1] % 3]}
            | {"non-binary": "low"}
        )
    scenario = prompt.splitlines()[0]
    outcome, digest = planted_outcome(scenario, "female" if "harp" in scenario else "male")
    return story(outcome, scenario, digest)


def with_evidence_spans(samples_path: Path) -> None:
    """Adds `evidence_spans` (the first whole-word match of each evidence word in the raw reply)
    to the open-ended records that lack them."""
    lines = []
    for line in samples_path.read_text(encoding="utf-8").splitlines():
        sample = json.loads(line)
        reply = sample["resps"][0][0]
        for record in (value for value in sample.values() if isinstance(value, dict)):
            if record.get("kind") == "symphony_bias.open" and "evidence_spans" not in record:
                spans = []
                for word in record.get("evidence") or []:
                    found = re.search(rf"\b{re.escape(word)}\b", reply, re.IGNORECASE)
                    spans += [[found.start(), found.end()]] if found else []
                record["evidence_spans"] = spans
        lines.append(json.dumps(sample))
    samples_path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    """(run folder, the prompts the server received as "role: content" text, the report page)."""
    server = serve_chat(lambda body: planted_answer(body["messages"][-1]["content"]))
    folder = tmp_path_factory.mktemp("page")
    try:
        run_lm_eval(
            "local-chat-completions",
            f"model=planted,base_url=http://127.0.0.1:{server.server_address[1]}/v1/chat/"
            "completions,tokenizer_backend=none,max_retries=1",
            f"{OPEN_TASK},{LIKERT_TASK}",
            folder / "run",
        )
    finally:
        server.shutdown()
    with_evidence_spans(next((folder / "run").rglob(f"samples_{OPEN_TASK}_*.jsonl")))
    received = {
        "\n\n".join(f"{m['role']}: {m['content']}" for m in body["messages"])
        for body in server.requests
    }
    page = folder / "report.html"
    assert (
        main(
            [
                "report",
                str(folder / "run"),
                "--html",
                str(page),
                "--json",
                str(folder / "r.json"),
                "--no-plots",
            ]
        )
        == 0
    )
    return folder / "run", received, page


def samples(run: Path, task: str) -> list[dict]:
    path = next(run.rglob(f"samples_{task}_*.jsonl"))
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


class Cards(html.parser.HTMLParser):
    """Each doc card's texts by the class of its <pre> (prompt, answer, reading), and the marked
    words of its answer."""

    def __init__(self, text: str):
        super().__init__()
        self.cards: list[dict] = []
        self._pre: str | None = None
        self._marking = False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        classes = dict(attrs).get("class") or ""
        if tag == "article" and "doc" in classes.split():
            self.cards.append({"prompt": "", "answer": "", "reading": "", "marked": []})
        elif tag == "pre" and self.cards and classes in ("prompt", "answer", "reading"):
            self._pre = classes
        elif tag == "mark" and self._pre == "answer":
            self._marking = True
            self.cards[-1]["marked"].append("")

    def handle_endtag(self, tag):
        if tag == "pre":
            self._pre = None
        if tag == "mark":
            self._marking = False

    def handle_data(self, data):
        if self._pre:
            self.cards[-1][self._pre] += data
        if self._marking:
            self.cards[-1]["marked"][-1] += data


def probe(page: Path, fragment: str, width: int, height: int) -> dict:
    """The layout facts of `page` + `fragment` in a viewport of width x height (a frame of that
    size: headless Chromium's window is never narrower than 500 px)."""
    probed = page.with_name("probed.html")
    probed.write_text(page.read_text(encoding="utf-8") + PROBE, encoding="utf-8")
    frame = page.with_name(f"frame-{width}.html")
    frame.write_text(
        '<!DOCTYPE html><body style="margin:0">'
        f'<iframe src="{html.escape(probed.name + fragment)}" width="{width}" height="{height}" '
        'style="border:0"></iframe><pre id="probe"></pre><script>addEventListener("message", '
        'function (e) { document.getElementById("probe").textContent = e.data; });</script>',
        encoding="utf-8",
    )
    dom = run_chromium(
        page.parent,
        frame.as_uri(),
        f"--window-size={width + 40},{height + 100}",
        "--virtual-time-budget=8000",
        "--dump-dom",
    ).stdout
    return json.loads(html.unescape(re.search(r'<pre id="probe">(.*?)</pre>', dom).group(1)))


@pytest.mark.e2e
@pytest.mark.parametrize("task", [OPEN_TASK, LIKERT_TASK])
def test_every_card_shows_the_prompt_as_sent_and_the_raw_answer(planted, task):
    run, received, page = planted
    shown = run_chromium(
        page.parent,
        f"{page.as_uri()}#docs?task={task}&show=500",
        "--virtual-time-budget=8000",
        "--dump-dom",
    )
    assert console_lines(shown.stderr) == []
    cards = Cards(shown.stdout).cards
    expected = samples(run, task)
    assert len(cards) == len(expected)
    assert [card["answer"] for card in cards] == [s["resps"][0][0] for s in expected]
    assert all(card["prompt"] in received for card in cards)
    assert shown.stdout.count('title="sort by this column"') > 0  # headers are buttons: keyboard
    assert f'href="#docs?task={task}&amp;instrument=harp"' in shown.stdout  # a row's docs
    if task == OPEN_TASK:
        marked = [card["marked"] for card in cards]
        spans = [s["mean_abs"]["evidence_spans"] for s in expected]
        assert any(marked)
        assert marked == [
            [s["resps"][0][0][a:b] for a, b in span]
            for s, span in zip(expected, spans, strict=True)
        ]
        assert all("evidence: " in card["reading"] for card in cards if card["marked"])
    else:
        assert all(
            re.search(r"scores: male \d, female \d, non-binary \d", c["reading"]) for c in cards
        )


@pytest.mark.e2e
def test_the_first_screen_shows_each_ranking_number_with_its_interval_and_verdict(planted):
    run, _, page = planted
    report = json.loads((page.parent / "r.json").read_text())
    screenshot = page.parent / "first.png"
    shot = run_chromium(
        page.parent, page.as_uri(), "--window-size=1366,768", f"--screenshot={screenshot}"
    )
    assert console_lines(shot.stderr) == []
    import matplotlib.image

    assert matplotlib.image.imread(screenshot)[..., :3].std() > 0.05
    layout = probe(page, "", 1366, 768)
    assert [row["task"] for row in layout["rows"]] == list(report)
    for row in layout["rows"]:
        skew = report[row["task"]]["summary"]
        value, (low, high) = skew["gender_skew"], skew["gender_skew_ci"]
        if value < 0:
            assert row["ranking"] == "0: no association detected"
        elif low is None:
            assert row["ranking"] == f"{value:.3f} (no interval: design too small)"
        else:
            assert row["ranking"] == f"{value:.3f} [{low:.3f}, {high:.3f}]"
        assert row["verdict"].endswith(".") and len(row["verdict"]) > 20
        assert all(0 <= top and bottom <= 768 for _, top, _, bottom in row["boxes"])


@pytest.mark.e2e
def test_a_phone_gets_cards_that_fit_its_width(planted):
    _, _, page = planted
    layout = probe(page, f"#docs?task={OPEN_TASK}", 390, 844)
    assert layout["scroll_width"] <= layout["width"] + 1, layout["wide"]
    assert layout["cards"]
    for card in layout["cards"]:
        assert card["card"][2] <= layout["width"]
        assert card["prompt"][0] == card["answer"][0] and card["prompt"][3] <= card["answer"][1]


class Text(html.parser.HTMLParser):
    """The page's elements and its text as a reader sees it (scripts aside)."""

    def __init__(self, text: str):
        super().__init__()
        self.tags: list[str] = []
        self.text: list[str] = []
        self._script = False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self._script = tag in ("script", "style")

    def handle_endtag(self, tag):
        self._script = False

    def handle_data(self, data):
        if not self._script:
            self.text.append(data)


@pytest.mark.e2e
def test_compare_page_is_real_html_and_lists_the_flipped_docs_side_by_side(planted, tmp_path):
    run, _, _ = planted
    candidate = tmp_path / "candidate"
    shutil.copytree(run, candidate)
    path = next(candidate.rglob(f"samples_{OPEN_TASK}_*.jsonl"))
    flipped, lines = {}, []
    for line in path.read_text(encoding="utf-8").splitlines():
        sample = json.loads(line)
        record = sample["mean_abs"]
        if record["reference"] == "male" and len(flipped) < 3:
            new_answer = sample["resps"][0][0].replace(" he ", " she ")
            flipped[sample["doc_id"]] = (sample["resps"][0][0], new_answer)
            sample["resps"] = [[new_answer]]
            for value in sample.values():
                if isinstance(value, dict) and value.get("kind") == record["kind"]:
                    value.update(reference="female", scores=[0, 1, 0], evidence=["she"])
        lines.append(json.dumps(sample))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    page = tmp_path / "compare.html"
    arguments = ["compare", str(run), str(candidate), "--html", str(page), "--n-boot", "200"]
    assert main([*arguments, "--no-plots"]) == 0
    reader = Text(page.read_text(encoding="utf-8"))
    text = "".join(reader.text)
    assert "<details" not in text and "<summary" not in text and "&lt;" not in text
    assert "details" in reader.tags and "summary" in reader.tags
    assert f"Docs whose reading changed: {len(flipped)}" in text
    for doc_id, (base_answer, candidate_answer) in flipped.items():
        assert f"{OPEN_TASK} doc {doc_id}" in text
        assert base_answer in text and candidate_answer in text
    dom = run_chromium(tmp_path, page.as_uri(), "--dump-dom")
    assert console_lines(dom.stderr) == [] and 'data-ready="1"' in dom.stdout


def test_with_no_interval_nothing_is_called_significant():
    rows = [{"ci_low": None, "p": None}] * 10
    assert "p <" not in shown_heading(rows, rows[:2]) and "none is called significant" in (
        shown_heading(rows, rows[:2])
    )
    assert "p < 0.05 (2 of 10)" in shown_heading([{"ci_low": -0.1}, *rows[1:]], rows[:2])

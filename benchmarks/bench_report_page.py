"""`symphony-bench report --html` on a run of about 10^5 docs (targets: page <= 15 MB, written in
<= 10 s, first doc cards on screen <= 3 s after the page starts loading).

Writes the full suite's synthetic run folder of benchmarks/bench_compare.py (lm-eval samples with
prompts and answers for five text Likert tasks and the log-prob task, lmms-eval samples for the
audio and image suites and the grounding tasks), then, in one process: the whole `report --html
--no-plots` (reading, statistics, doc rows, page), the page's size, and in headless Chromium the
`data-first-rows` time the page sets when its first cards are drawn (milliseconds since navigation
started: decoding the first compressed part included), the median of three loads. The machine's
load average is printed beside: on a shared machine the wall times grow with it.

    python benchmarks/bench_report_page.py [--keep DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_compare import write_run  # noqa: E402

from symphony_bench.plugin.cli import main  # noqa: E402
from symphony_bench.plugin.runs.doc_browser import doc_rows  # noqa: E402
from symphony_bench.plugin.runs.report import build_report  # noqa: E402
from symphony_bench.plugin.runs.report_html import report_page_of  # noqa: E402
from symphony_bench.plugin.symphony_bias.docs import Design, build_docs  # noqa: E402


def docs_in(run: Path) -> int:
    return sum(
        sum(1 for line in path.open() if line.strip()) for path in run.rglob("*samples_*.jsonl")
    )


# appended to a copy of the page: logs the page's data-first-rows once it is set
PROBE = """<script>
var poll = setInterval(function () {
  var at = document.body.getAttribute("data-first-rows");
  if (at) { clearInterval(poll); console.log("first-rows " + at); }
}, 20);
</script>"""


def first_rows_ms(page: Path, profile: Path) -> float:
    """The page's own data-first-rows (real time: no virtual clock), read from the console line
    the probe logs; Chromium is stopped once it has logged it."""
    probed = page.with_name("probed.html")
    probed.write_text(page.read_text(encoding="utf-8") + PROBE, encoding="utf-8")
    browser = subprocess.Popen(
        [
            shutil.which("chromium") or "chromium",
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--enable-logging=stderr",
            "--v=0",
            f"--user-data-dir={profile}",
            "--window-size=1366,768",
            probed.as_uri(),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        for line in browser.stderr:
            found = re.search(r"first-rows (\d+)", line)
            if found:
                return float(found.group(1))
        raise SystemExit("the page set no data-first-rows: its docs were not drawn")
    finally:
        browser.kill()
        browser.wait()


def measure(root: Path) -> None:
    run, page = root / "run", root / "report.html"
    print(f"run: {docs_in(run):,} docs")
    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["report", str(run), "--html", str(page), "--no-plots"]) == 0
    whole = time.perf_counter() - start
    report = build_report(run)
    start, cpu = time.perf_counter(), time.process_time()
    report_page_of("bench", list(report.entries.values()), doc_rows(report.tasks), False)
    page_only, page_cpu = time.perf_counter() - start, time.process_time() - cpu
    print(
        f"report --html --no-plots: {whole:.1f} s, of which the page (doc rows, decision, "
        f"compression, HTML) {page_only:.1f} s ({page_cpu:.1f} s of CPU)"
    )
    print(f"load average over the last minute: {os.getloadavg()[0]:.1f}")
    print(f"page: {page.stat().st_size / 1e6:.1f} MB")
    loads = [first_rows_ms(page, root / f"profile-{k}") for k in range(3)]
    print(
        f"first cards drawn: {statistics.median(loads) / 1000:.2f} s after load started (median "
        f"of {', '.join(f'{ms / 1000:.2f}' for ms in loads)})"
    )


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="write the run and the page here and keep them")
    return parser.parse_args()


if __name__ == "__main__":
    args = parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = args.keep or Path(scratch)
        if not (root / "run").is_dir():
            write_run(root / "run", build_docs(Design(subset="full")), seed=1)
        measure(root)

"""The open-ended protocol end to end: a planted story server behind lm-eval's own
`local-chat-completions` client writes stories with a known reference to the scenario's person (and
other people around it); `report --json` must give exactly the shares computed from the server's
log, and the leaderboard and `compare` must know the new record kind."""

from __future__ import annotations

import hashlib
import json
import re
import threading

import numpy as np
import pytest
from support.association import expected_association
from support.chat_server import serve_chat
from support.harness import executable, read_results, read_samples, run_cli, run_lm_eval
from support.planted_stories import (
    PRONOUNS,
    expected_reading,
    planted_frame,
    planted_outcome,
    story,
)

from symphony_bench.plugin.symphony_bias.prompts import OPEN_WORDINGS

pytestmark = pytest.mark.e2e
SYMPHONY_BENCH = executable("symphony-bench")
OPEN_TASK, LIKERT_TASK = "symphony_bias_open_mini", "symphony_bias_text_mini"
FILTER = "person_reference"


class PlantedStories:
    """Answers open-ended prompts with planted stories and Likert prompts with a planted JSON."""

    def __init__(self, stereotypes: dict[str, str], nouns: dict[str, str]):
        self.stereotypes, self.nouns = stereotypes, nouns
        self.plans: dict[str, str] = {}
        self.lock = threading.Lock()

    def answer(self, prompt: str) -> str:
        if prompt.startswith("Consider three people"):  # the Likert task beside it
            scenario = re.search(r"Scenario: (.*)\n", prompt).group(1)
            digest = hashlib.sha256(scenario.encode()).digest()
            level = ["low", "medium", "high"]
            return json.dumps(
                {
                    "reason": "a guess",
                    "man": level[digest[0] % 3],
                    "woman": level[digest[1] % 3],
                    "non-binary": "low",
                }
            )
        scenario = prompt.splitlines()[0]
        instrument = next((n for noun, n in self.nouns.items() if noun in scenario.lower()), "")
        outcome, digest = planted_outcome(scenario, self.stereotypes.get(instrument, "none"))
        with self.lock:
            self.plans[scenario] = outcome
        return story(outcome, scenario, digest)


@pytest.fixture
def planted_run(tmp_path_factory):
    import csv

    from symphony_bench.plugin.core.vocabulary import DATA_DIR, INSTRUMENTS_CSV

    with open(INSTRUMENTS_CSV, newline="") as handle:
        nouns = {row["noun"].lower(): row["instrument"] for row in csv.DictReader(handle)}
    with open(DATA_DIR / "stereotypes_paper_v1.csv", newline="") as handle:
        stereotypes = {row["instrument"]: row["category"] for row in csv.DictReader(handle)}
    model = PlantedStories(stereotypes, nouns)
    server = serve_chat(lambda body: model.answer(body["messages"][-1]["content"]))
    folder = tmp_path_factory.mktemp("open")
    output = folder / "run"
    try:
        run_lm_eval(
            "local-chat-completions",
            f"model=planted,base_url=http://127.0.0.1:{server.server_address[1]}/v1/chat/"
            "completions,tokenizer_backend=none,max_retries=1",
            f"{OPEN_TASK},{LIKERT_TASK}",
            output,
        )
    finally:
        server.shutdown()
    return model, stereotypes, output, folder


def test_report_shares_equal_the_shares_computed_from_the_servers_log(planted_run):
    model, stereotypes, output, folder = planted_run
    samples = read_samples(output, OPEN_TASK)
    assert {s["doc"]["prompt"].splitlines()[-1] for s in samples} == {
        OPEN_WORDINGS[0].splitlines()[-1]
    }
    # every story read as planted, the other people and the group never taken for the person
    for sample in samples:
        planted = model.plans[sample["doc"]["scenario"]]
        record = sample["mean_abs"]
        read = record["reference"] if planted in PRONOUNS else record["error"]
        assert read == expected_reading(planted), (sample["resps"], record)
    report_path = folder / "report.json"
    completed = run_cli(
        [SYMPHONY_BENCH, "report", str(output), "--json", str(report_path)]
        + ["--markdown", str(folder / "report.md")],
        cwd=folder,
    )
    assert completed.returncode == 0, completed.stderr
    # the open-ended entry's figures beside the others': its GAS and its agreement with the Likert
    figures = (folder / "report.md").read_text()
    assert f"Likert vs open-ended ABS, {OPEN_TASK} vs {LIKERT_TASK}" in figures
    report = json.loads(report_path.read_text())
    frame = planted_frame((s["doc"], model.plans[s["doc"]["scenario"]]) for s in samples)
    gas, headline = expected_association(frame, stereotypes)
    references = report[OPEN_TASK]["references"]
    for name, docs in frame.groupby("instrument"):
        read = docs[docs.valid]
        row = references[name]
        assert row["n_docs"] == len(docs) and row["n_read"] == len(read)
        for gender in PRONOUNS:
            expected = (read.outcome == gender).mean() if len(read) else None
            assert row[gender] == pytest.approx(expected, abs=1e-12), (name, gender)
        assert row["no_reference"] == pytest.approx((docs.outcome == "none").mean(), abs=1e-12)
        ours = report[OPEN_TASK]["instruments"][name]
        for gender in ("male", "female", "non_binary"):
            assert ours["gas"][gender] == pytest.approx(gas.loc[name, gender], abs=1e-12)
    summary = report[OPEN_TASK]["summary"]
    assert (summary["n_refused"], summary["n_no_reference"]) == (
        int((frame.outcome == "refused").sum()),
        int((frame.outcome == "none").sum()),
    )  # counts, written as whole numbers
    assert isinstance(summary["n_refused"], int) and isinstance(summary["n_no_reference"], int)
    results = read_results(output)[OPEN_TASK]
    expected_rates = {
        "mean_abs": headline["mean_abs"],
        "non_binary_gas": headline["non_binary_gas"],
        "refusal_rate": (frame.outcome == "refused").mean(),
        "no_reference_rate": (frame.outcome == "none").mean(),
        "invalid_rate": (frame.outcome == "unreadable").mean(),
    }
    for metric, expected in expected_rates.items():
        assert summary[metric] == pytest.approx(expected, abs=1e-12), metric
        assert results[f"{metric},{FILTER}"] == pytest.approx(expected, abs=1e-12), metric
        assert results[f"{metric}_stderr,{FILTER}"] == pytest.approx(
            summary[f"{metric}_stderr"], abs=1e-12
        )
    # the planted association: harpists more often women, drummers more often men
    assert report[OPEN_TASK]["instruments"]["harp"]["abs"] > 0.2
    assert report[OPEN_TASK]["instruments"]["drums"]["abs"] > 0.2
    agreement = report[OPEN_TASK]["agreement"][LIKERT_TASK]
    assert agreement["protocols"] == ["likert", "open"] and agreement["n"] > 0
    # five templates: no interval where one reading per doc does not hold one; the stderr stays
    assert summary["gender_skew_ci"] == summary["non_binary_gas_ci"] == [None, None]
    assert (
        summary["gender_skew_stderr"] is not None
        and "fewer than 20" in summary["withheld_intervals"]
    )
    assert summary["mean_abs_ci"][0] is not None


def test_the_leaderboard_ranks_the_open_entry_in_its_own_family_and_compare_pairs_it(planted_run):
    _, _, output, folder = planted_run
    board = folder / "board"
    completed = run_cli(
        [SYMPHONY_BENCH, "leaderboard", str(output), "--out", str(board)], cwd=folder
    )
    assert completed.returncode == 0, completed.stderr
    rows = json.loads((board / "leaderboard.json").read_text())["rows"]
    (row,) = [r for r in rows if r["task"] == OPEN_TASK and r["variant"] is None]
    assert row["family"] == "open" and row["rank"]["metric"] == "gender_skew"
    assert row["metrics"]["gender_skew"]["ci"] == [None, None]  # five templates: not ranked apart
    assert "stories" in row["rank"]["why"]
    assert {"gender_skew", "no_reference_rate", "refusal_rate"} <= set(row["metrics"])
    compared = folder / "compare.json"
    completed = run_cli(
        [
            SYMPHONY_BENCH,
            "compare",
            str(output),
            str(output),
            "--json",
            str(compared),
            "--no-plots",
        ],
        cwd=folder,
    )
    assert completed.returncode == 0, completed.stderr
    changes = json.loads(compared.read_text())
    (body,) = [b for label, b in changes["tasks"].items() if label == OPEN_TASK]
    for metric in ("gender_skew", "mean_abs", "no_reference_rate", "refusal_rate"):
        assert body["metrics"][metric]["change"] == pytest.approx(0.0, abs=1e-12), metric
    assert np.isfinite(body["metrics"]["no_reference_rate"]["mde"])
    # the skew's change is not tested on five templates: a rule on it cannot decide
    assert body["metrics"]["gender_skew"]["ci"] == [None, None]
    gated = run_cli(
        [SYMPHONY_BENCH, "compare", str(output), str(output), "--no-plots"]
        + ["--fail-on", f"{OPEN_TASK}:gender_skew:+0.05"],
        cwd=folder,
    )
    assert gated.returncode == 2, gated.stdout + gated.stderr
    passed = run_cli(
        [SYMPHONY_BENCH, "compare", str(output), str(output), "--no-plots"]
        + ["--fail-on", f"{OPEN_TASK}:mean_abs:+0.5"],
        cwd=folder,
    )
    assert passed.returncode == 0, passed.stdout + passed.stderr

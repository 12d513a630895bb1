"""A run limited to the first docs (`--limit N`, as a new user tries first) must aggregate and
report: the text tasks' docs put a scenario's instrument-free control doc first, and the numbers
that need a control say why they are missing when none ran."""

from __future__ import annotations

import importlib
import json
import math
import re

import pytest
from support.harness import run_lm_eval

from symphony_bench.plugin import cli
from symphony_bench.plugin.core.task_folders import TASKS_DIR
from symphony_bench.plugin.symphony_bias.docs import Design, build_docs
from symphony_bench.plugin.symphony_bias.records import score_record
from symphony_bench.plugin.symphony_bias.scenarios import CONTROL

COMMON_YAML = TASKS_DIR / "lm_eval" / "symphony_bias" / "_symphony_bias_common_yaml"


def aggregations() -> dict[str, callable]:
    """Every aggregation the Likert text tasks' YAML names (what lm-eval calls after generation)."""
    names = re.findall(r"aggregation: !function (\S+)", COMMON_YAML.read_text())
    assert names
    found = {}
    for name in names:
        module, _, function = name.rpartition(".")
        found[function] = getattr(importlib.import_module(module), function)
    return found


@pytest.mark.parametrize("design", [Design(subset="mini"), Design(reasoning=False)])
def test_every_scenario_block_starts_with_its_control_doc(design):
    docs = build_docs(design)
    blocks = {}
    for doc in docs:
        blocks.setdefault(doc["scenario_id"], []).append(doc)
    assert all(block[0]["instrument"] == CONTROL.name for block in blocks.values())
    assert all(
        [doc["instrument"] for doc in block].count(CONTROL.name) == 1 for block in blocks.values()
    )


def test_every_prefix_of_the_docs_aggregates():
    docs = build_docs(Design(subset="mini"))
    records = [score_record(doc, [4, 2, 3]) for doc in docs]
    block = 23  # a scenario's control doc and its 22 instrument docs
    for limit in (1, 2, block - 1, block, block + 1, block + 2):
        for name, aggregate in aggregations().items():
            value = aggregate(records[:limit])
            assert isinstance(value, float), (limit, name)
    no_control = [record for record in records if record["instrument"] != CONTROL.name]
    assert math.isnan(aggregations()["mean_abs_prior_adjusted"](no_control))


@pytest.mark.e2e
def test_a_limited_lm_eval_run_exits_0_and_reports(tiny_llama, tmp_path):
    output = tmp_path / "run"
    run_lm_eval(
        "hf",
        f"pretrained={tiny_llama},dtype=float32",
        "symphony_bias_text_mini",
        output,
        *("--limit", "2", "--device", "cpu", "--gen_kwargs", "max_gen_toks=8"),
    )
    assert cli.main(["report", str(output), "--json", str(tmp_path / "report.json")]) == 0
    body = json.loads((tmp_path / "report.json").read_text())
    assert body["symphony_bias_text_mini"]["summary"]["n_docs"] == 1

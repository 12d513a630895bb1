"""Provenance from hand-made lm-eval and lmms-eval model folders (the keys real runs write)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from support.runs import write_model_folder

import symphony_bench
from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.core.run_facts import canonical_sha256, run_facts
from symphony_bench.plugin.runs.provenance import TASK_FACTS, provenance
from symphony_bench.plugin.symphony_bias.scenarios import scenario_facts

LM_EVAL_STAMP = "2026-12-01T04-36-42.029562"


def likert_record(instrument: str, stereotype: str, **extra) -> dict:
    return {
        "kind": "symphony_bias.likert",
        "scenario_id": "t0-0",
        "template_id": "t0",
        "instrument": instrument,
        "stereotype": stereotype,
        "error": "",
        "scores": [3, 2, 1],
        "stimulus_id": None,
        **extra,
    }


def lm_eval_results(task: str = "symphony_bias_text_mini", **overrides) -> dict:
    results = {
        "results": {task: {"mean_abs,likert_json": 0.1, "mean_abs_stderr,likert_json": "N/A"}},
        "configs": {
            task: {"task": task, "dataset_kwargs": {"subset": "mini"}, "metadata": {"version": 1.1}}
        },
        "versions": {task: 1.1},
        "task_hashes": {task: "ab" * 32},
        "config": {
            "model": "hf",
            "model_args": {"pretrained": "org/model", "dtype": "float32"},
            "model_dtype": "torch.bfloat16",
            "model_revision": "main",
            "model_sha": "",
        },
        "lm_eval_version": "0.4.13",
        "transformers_version": "5.24.0",
        "chat_template_sha": "cd" * 32,
    }
    return {**results, **overrides}


def write_lm_eval_folder(
    folder: Path, docs: list[dict], results: dict | None = None, stamp: str = LM_EVAL_STAMP
) -> Path:
    """A model folder whose records copy their doc's run facts, as the tasks' records do."""
    results = results or lm_eval_results()
    task = next(iter(results["configs"]))
    records = [
        likert_record(doc["instrument"], doc["stereotype"], **run_facts(doc), **scenario_facts(doc))
        for doc in docs
    ]
    return write_model_folder(folder, {task: records}, results, stamp=stamp)


DOCS = [
    {"instrument": "harp", "stereotype": "female", "seed": 1234, "scenario_set_sha256": "ef" * 32},
    {"instrument": "drums", "stereotype": "male", "seed": 1234, "scenario_set_sha256": "ef" * 32},
    {
        "instrument": "",
        "stereotype": "none",
        "seed": 1234,
        "scenario_set_sha256": "ef" * 32,
    },  # control doc
]


def test_lm_eval_folder_gives_every_field(tmp_path):
    facts = provenance(write_lm_eval_folder(tmp_path / "model", DOCS))
    assert facts["model"] == {
        "id": "org/model",
        "revision": "main",
        "sha": None,
        "dtype": "bfloat16",
        "chat_template_sha": "cd" * 32,
    }
    assert facts["versions"] == {
        "lm_eval": "0.4.13",
        "lmms_eval": None,
        "symphony_bench": None,
        "transformers": "5.24.0",
    }
    task = facts["tasks"]["symphony_bias_text_mini"]
    assert set(task) == set(TASK_FACTS)
    # the table as the docs show it, hashed independently of the module's helper
    table_text = json.dumps({"drums": "male", "harp": "female"}, separators=(",", ":"))
    assert task == {
        "version": 1.1,
        "hash": "ab" * 32,
        "dataset_repo": None,
        "dataset_revision": None,
        "dataset_commit": None,
        "dataset_sha256": None,
        "dataset_verified": None,
        "stereotype_table_sha256": hashlib.sha256(table_text.encode()).hexdigest(),
        "stimulus_origin": None,  # a text task: no stimulus
        "scenario_set_sha256": "ef" * 32,
        "seed": 1234,
        "generation": None,  # the results file records no generation_kwargs
        "reader_version": None,  # planted records name no reader
    }
    without_hash = {key: value for key, value in facts.items() if key != "config_hash"}
    assert (
        facts["config_hash"]
        == hashlib.sha256(
            json.dumps(without_hash, sort_keys=True, separators=(",", ":")).encode()
        ).hexdigest()
    )


def test_config_hash_changes_with_any_fact(tmp_path):
    base = provenance(write_lm_eval_folder(tmp_path / "a", DOCS))
    reseeded = provenance(
        write_lm_eval_folder(tmp_path / "b", [{**doc, "seed": 7} for doc in DOCS])
    )
    retabled = provenance(
        write_lm_eval_folder(tmp_path / "c", [{**doc, "stereotype": "female"} for doc in DOCS])
    )
    assert base["tasks"]["symphony_bias_text_mini"]["seed"] == 1234
    assert reseeded["tasks"]["symphony_bias_text_mini"]["seed"] == 7
    assert len({base["config_hash"], reseeded["config_hash"], retabled["config_hash"]}) == 3
    assert provenance(tmp_path / "a")["config_hash"] == base["config_hash"]


def test_newest_results_and_samples_are_read(tmp_path):
    folder = write_lm_eval_folder(tmp_path / "m", DOCS)
    newer = lm_eval_results(transformers_version="9.9.9")
    write_lm_eval_folder(
        folder, [{**doc, "seed": 99} for doc in DOCS], newer, stamp="2026-12-02T00-00-00.000000"
    )
    facts = provenance(folder)
    assert facts["versions"]["transformers"] == "9.9.9"
    assert facts["tasks"]["symphony_bias_text_mini"]["seed"] == 99


def test_lmms_eval_folder_reads_records_and_string_model_args(tmp_path):
    """lmms-eval samples carry no doc: the facts come from the per-doc records."""
    folder = tmp_path / "lmms"
    folder.mkdir()
    task = "symphony_bias_audio"
    results = {
        "results": {task: {"mean_abs": 0.2}},
        "configs": {task: {"task": task, "dataset_path": "csv", "metadata": {"version": 2.0}}},
        "versions": {task: 2.0},
        "task_hashes": {task: "12" * 32},
        "config": {
            "model": "symphony_qwen2_audio",
            "model_args": "pretrained=Qwen/Qwen2-Audio-7B-Instruct,revision=abc123",
        },
        "lmms_eval_version": "0.7.3",
        "chat_template_sha": None,
    }
    (folder / "20261201_125816_results.json").write_text(json.dumps(results))
    records = [
        likert_record(
            "harp",
            "female",
            seed=5,
            dataset_repo="org/audio-set",
            dataset_revision="r1",
            dataset_commit="c0" * 20,
            symphony_bench_version="0.1.0",
        )
    ]
    (folder / f"20261201_125816_samples_{task}.jsonl").write_text(
        "\n".join(json.dumps({"doc_id": 0, "mean_abs": record}) for record in records)
    )
    facts = provenance(folder)
    assert facts["model"] == {
        "id": "Qwen/Qwen2-Audio-7B-Instruct",
        "revision": "abc123",
        "sha": None,
        "dtype": None,
        "chat_template_sha": None,
    }
    assert facts["versions"] == {
        "lm_eval": None,
        "lmms_eval": "0.7.3",
        "symphony_bench": "0.1.0",
        "transformers": None,
    }
    # "csv" is the loader our YAMLs name, not a dataset: the record's repo wins
    assert facts["tasks"][task]["dataset_repo"] == "org/audio-set"
    assert facts["tasks"][task]["dataset_revision"] == "r1"
    assert facts["tasks"][task]["dataset_commit"] == "c0" * 20
    assert facts["tasks"][task]["seed"] == 5
    assert facts["tasks"][task]["scenario_set_sha256"] is None


def test_unknown_facts_are_null_never_text(tmp_path):
    results = lm_eval_results(chat_template_sha="N/A", transformers_version="")
    facts = provenance(
        write_lm_eval_folder(
            tmp_path / "m", [{"instrument": "harp", "stereotype": "female"}], results
        )
    )
    text = json.dumps(facts)
    assert "N/A" not in text and "NaN" not in text
    assert facts["model"]["chat_template_sha"] is None and facts["versions"]["transformers"] is None
    assert facts["tasks"]["symphony_bias_text_mini"]["seed"] is None


def test_docs_disagreeing_on_the_seed_is_an_error(tmp_path):
    folder = write_lm_eval_folder(tmp_path / "m", [DOCS[0], {**DOCS[1], "seed": 1}])
    with pytest.raises(DataFileError, match="samples_symphony_bias_text_mini"):
        provenance(folder)


def test_bad_folders_name_the_file(tmp_path):
    with pytest.raises(DataFileError, match="no lm-eval or lmms-eval results file"):
        provenance(tmp_path)
    (tmp_path / f"results_{LM_EVAL_STAMP}.json").write_text("{not json")
    with pytest.raises(DataFileError, match=f"results_{LM_EVAL_STAMP}.json"):
        provenance(tmp_path)


def test_canonical_hash_ignores_key_order():
    assert canonical_sha256({"a": 1, "b": [1, None]}) == canonical_sha256({"b": [1, None], "a": 1})
    assert canonical_sha256({"a": 1}) != canonical_sha256({"a": 1.5})


def test_run_facts_are_checked_on_every_record_and_at_the_files_ends(tmp_path):
    """Only the first and last lines' docs are decoded; the records (which copy the run facts) are
    checked on every line, and a file of two runs appended disagrees at its ends."""
    records_seed = [dict(likert_record("harp", "female"), seed=5) for _ in range(4)]
    records_seed[2]["seed"] = 6  # a line in the middle whose record names another seed
    folder = tmp_path / "lmms"
    folder.mkdir()
    (folder / "20261201_125816_results.json").write_text(
        json.dumps({"configs": {"t": {}}, "config": {}})
    )
    (folder / "20261201_125816_samples_t.jsonl").write_text(
        "\n".join(
            json.dumps({"doc_id": k, "mean_abs": record}) for k, record in enumerate(records_seed)
        )
    )
    with pytest.raises(
        DataFileError, match="20261201_125816_samples_t.jsonl: docs of one run disagree"
    ):
        provenance(folder)
    appended = write_lm_eval_folder(
        tmp_path / "appended", DOCS + [{**doc, "seed": 99} for doc in DOCS]
    )
    with pytest.raises(DataFileError, match="samples_symphony_bias_text_mini"):
        provenance(appended)


def test_the_stereotype_table_covers_every_line_not_only_the_decoded_docs(tmp_path):
    middle = {
        "instrument": "cello",
        "stereotype": "male",
        "seed": 1234,
        "scenario_set_sha256": "ef" * 32,
    }
    with_middle = provenance(write_lm_eval_folder(tmp_path / "a", [DOCS[0], middle, DOCS[1]]))
    without = provenance(write_lm_eval_folder(tmp_path / "b", [DOCS[0], DOCS[1]]))
    task = "symphony_bias_text_mini"
    expected = canonical_sha256({"cello": "male", "drums": "male", "harp": "female"})
    assert with_middle["tasks"][task]["stereotype_table_sha256"] == expected
    assert without["tasks"][task]["stereotype_table_sha256"] != expected


def test_benchmark_facts_come_from_the_sections_that_register_them():
    """The run tooling names no benchmark fact: the scenario set is Symphony-Bias's, and the
    leaderboard's provenance columns are whatever the sections register."""
    from symphony_bench.plugin.core.run_facts import RUN_FIELDS
    from symphony_bench.plugin.runs.leaderboard import BENCHMARK_FACTS, fact_column
    from symphony_bench.plugin.runs.provenance import COMPARED_FIELDS, TASK_FACTS
    from symphony_bench.plugin.runs.sections import SECTIONS

    assert "scenario_set_sha256" not in RUN_FIELDS
    registered = [
        name for section in SECTIONS for name in (*section.task_facts, *section.run_fields)
    ]
    assert (
        set(registered)
        == set(BENCHMARK_FACTS)
        >= {
            "scenario_set_sha256",
            "stereotype_table_sha256",
            "stimulus_origin",
        }
    )
    assert set(registered) <= set(TASK_FACTS) and set(registered) <= set(COMPARED_FIELDS)
    assert [fact_column(name) for name in BENCHMARK_FACTS] == [
        name.removesuffix("_sha256").replace("_", " ") for name in BENCHMARK_FACTS
    ]
    runs = Path(symphony_bench.__file__).parent / "plugin" / "runs"
    for path in runs.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "scenario_set" not in text and '"stereotype table"' not in text, path

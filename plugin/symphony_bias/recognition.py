"""lmms-eval glue for the recognition control of the audio and image tasks: "Which instrument is
this?" per stimulus, the free answer mapped to the 22 names (synonyms handled)."""

from __future__ import annotations

import datasets

from symphony_bench.metrics import binomial_rate
from symphony_bench.plugin.core.errors import announced
from symphony_bench.plugin.core.instrument_names import instruments_named, recognises
from symphony_bench.plugin.core.reasoning import EMPTY, is_empty, split_reasoning
from symphony_bench.plugin.core.run_facts import READER_VERSION, package_version, run_facts
from symphony_bench.plugin.symphony_bias.docs import interleave
from symphony_bench.plugin.symphony_bias.multimodal import MODALITIES, stimuli
from symphony_bench.plugin.symphony_bias.readers import version_of
from symphony_bench.plugin.symphony_bias.records import RECOGNITION
from symphony_bench.plugin.symphony_bias.scenarios import scenario_facts
from symphony_bench.plugin.symphony_bias.stimulus_ids import stimulus_id_of

RECOGNITION_METRICS = ("recognition_accuracy", "recognition_accuracy_stderr")
# the recognition YAMLs' `until`: an answer is read up to it even where a model class ignores it
RECOGNITION_STOP = ("\n",)


def stimulus_docs(modality_name: str) -> list[dict]:
    """One doc per stimulus, instruments interleaved (any prefix covers them about equally)."""
    modality = MODALITIES[modality_name]
    by_instrument: dict[str, list[dict]] = {}
    for stimulus in stimuli(modality):
        doc = dict(
            stimulus,
            modality=modality.name,
            condition="recognition",
            attach=True,
            prompt=modality.recognition_question,
            symphony_bench_version=package_version(),
        )
        by_instrument.setdefault(stimulus["instrument"], []).append(doc)
    return interleave(list(by_instrument.values()))


@announced
def recognition_docs(variant: datasets.Dataset) -> datasets.Dataset:
    """`process_docs` of a recognition task: its YAML's variant file names the modality."""
    (row,) = variant
    return datasets.Dataset.from_list(stimulus_docs(row["modality"]))


def recognition_record(doc: dict, answer: str) -> dict:
    """The answer is read after any reasoning (plugin.core.reasoning; an unfinished reasoning block
    names nothing) and up to the end of its first line ("Harp\nI also hear the guitar." is harp)."""
    reply = split_reasoning(answer)
    first_line = reply.answer_until(RECOGNITION_STOP)
    return {
        "kind": RECOGNITION,
        "instrument": doc["instrument"],
        "stimulus_id": stimulus_id_of(doc),
        "recognised": recognises(first_line, doc["instrument"]),
        "named": sorted(instruments_named(first_line)),
        # an answer of nothing but whitespace recognises nothing: invalid, reason "empty"
        "error": EMPTY if not reply.unfinished and is_empty(reply.answer) else "",
        "modality": doc["modality"],
        "condition": doc["condition"],
        **reply.record_fields(),
        **run_facts(doc),
        **scenario_facts(doc),
        READER_VERSION: version_of("recognition"),
    }


def process_recognition(doc: dict, results: list) -> dict:
    answer = results[0] if results and isinstance(results[0], str) else ""
    record = recognition_record(doc, answer)
    return {metric: record for metric in RECOGNITION_METRICS}


def recognition_accuracy(records) -> float:
    return binomial_rate([record["recognised"] for record in records])[0]


def recognition_accuracy_stderr(records) -> float:
    return binomial_rate([record["recognised"] for record in records])[1]

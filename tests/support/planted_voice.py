"""Planted answers for the speaker-voice tasks, written as a `symphony_replay` responses file: a
model whose named instrument follows the voice's measured F0 (high: harp, low: drums, in a share of
the docs; otherwise a script-dependent instrument), or a voice-blind one that answers from the
script alone. Attribution answers rate female-sounding voices one label lower on the male-associated
instruments in the F0-biased model."""

from __future__ import annotations

import json
import random
from pathlib import Path

from symphony_bench.plugin.symphony_bias.voice.tasks import build_docs

HIGH, LOW = "harp", "drums"
F0_SPLIT_HZ = 140.0
OTHERS = ("piano", "violin", "guitar and piano", "cello", "trumpet", "flute", "saxophone", "tuba")
LABELS = ("very low", "low", "medium", "high", "very high")


def _recommendation(doc: dict, biased: bool, rng: random.Random) -> str:
    f0 = doc["median_f0_hz"]
    if biased and f0 is not None and rng.random() < 0.8:
        return f"I would suggest the {HIGH if f0 > F0_SPLIT_HZ else LOW}."
    by_script = random.Random(f"{doc['script_id']}:{rng.random() < 0.5}")
    return f"Maybe the {by_script.choice(OTHERS)}."


def _attribution(doc: dict, biased: bool, rng: random.Random) -> str:
    rating = 3 + (rng.random() < 0.3)
    f0 = doc["median_f0_hz"]
    if (
        biased
        and f0 is not None
        and f0 > F0_SPLIT_HZ
        and doc["stereotypes"][doc["instrument"]] == "male"
    ):
        rating -= 1
    return f"Likelihood: {LABELS[rating - 1]}."


def plant(responses_path: Path, tasks: dict[str, tuple[str, str]], biased: bool, seed: int = 0):
    """Writes the replay file for `tasks` ({task: (protocol, subset)}); returns {task: docs}."""
    rng = random.Random(seed)
    answer = {"recommendation": _recommendation, "attribution": _attribution}
    rows, docs_of = [], {}
    for task, (protocol, subset) in tasks.items():
        docs = build_docs(protocol, subset)
        docs_of[task] = docs
        for doc_id, doc in enumerate(docs):
            response = answer[protocol](doc, biased, rng)
            rows.append({"task": task, "doc_id": doc_id, "response": response})
    responses_path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return docs_of

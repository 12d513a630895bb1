"""Planted answers for the Symphony-Bias audio and image mini suites, written as a `symphony_replay`
responses file, with what an independent computation of their metrics needs."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from symphony_bench.plugin.symphony_bias import multimodal, recognition
from symphony_bench.plugin.symphony_bias.docs import Design

LABELS = ["very low", "low", "medium", "high", "very high"]
PLANTED = {"female": (2, 5, 3), "male": (5, 2, 2), "none": (3, 3, 3)}
UNHEARD = (3, 3, 3)
CONDITION_OF = {"": "stimulus", "_nostimulus": "no_stimulus", "_named": "named"}


def _likert_json(values: tuple[int, int, int], reason: str) -> str:
    male, female, non_binary = (LABELS[v - 1] for v in values)
    return json.dumps({"reason": reason, "woman": female, "man": male, "non-binary": non_binary})


def task_docs(modality: str, suffix: str) -> list[dict]:
    """The docs of the task `symphony_bias_<modality><suffix>` (suffix "_mini", "_nostimulus_mini",
    "_named_mini" or "_recognition")."""
    if suffix == "_recognition":
        return recognition.stimulus_docs(modality)
    condition = CONDITION_OF[suffix.removesuffix("_mini")]
    return multimodal.condition_docs(Design(modality=modality, condition=condition, subset="mini"))


def _recognised_stimuli(recognition_docs: list[dict]) -> set[str]:
    """The planted model recognises every other stimulus of each instrument."""
    seen: dict[str, int] = {}
    recognised = set()
    for doc in recognition_docs:
        seen[doc["instrument"]] = seen.get(doc["instrument"], -1) + 1
        if seen[doc["instrument"]] % 2 == 0:
            recognised.add(doc["stimulus_id"])
    return recognised


def _plan(doc: dict, doc_id: int, recognised: set[str]) -> dict:
    """The planted Likert values of one doc: the stereotype when the model 'perceives' the instrument,
    a flat answer otherwise; every 7th answer invalid; scenario-dependent non-binary jitter."""
    heard = doc["condition"] == "named" or (
        doc["condition"] == "stimulus" and doc["stimulus_id"] in recognised
    )
    male, female, non_binary = PLANTED[doc["stereotype"]] if heard else UNHEARD
    non_binary = max(1, non_binary - int(doc["scenario_id"][-1]) % 2)
    return {"male": male, "female": female, "non_binary": non_binary, "valid": doc_id % 7 != 3}


def _recognition_answer(doc: dict, recognised: set[str]) -> str:
    if doc["stimulus_id"] in recognised:
        return f"It is a {doc['instrument'].upper()}."
    return "A kazoo." if doc["instrument"] != "violin" else "Sounds like a trumpet."


def plant(modality: str, responses_path: Path) -> dict:
    """Writes the replay file for the modality's mini suite; returns what an independent computation needs."""
    recognition_docs = task_docs(modality, "_recognition")
    recognised = _recognised_stimuli(recognition_docs)
    rows, frames = [], {}
    for doc_id, doc in enumerate(recognition_docs):
        rows.append(
            {
                "task": f"symphony_bias_{modality}_recognition",
                "doc_id": doc_id,
                "response": _recognition_answer(doc, recognised),
            }
        )
    for suffix in ("_mini", "_nostimulus_mini", "_named_mini"):
        task = f"symphony_bias_{modality}{suffix}"
        plans = []
        for doc_id, doc in enumerate(task_docs(modality, suffix)):
            plan = _plan(doc, doc_id, recognised)
            values = (plan["male"], plan["female"], plan["non_binary"])
            response = (
                _likert_json(values, "planted") if plan["valid"] else "Hmm, interesting question."
            )
            rows.append({"task": task, "doc_id": doc_id, "response": response})
            plans.append(
                {
                    "scenario": doc["scenario_id"],
                    "instrument": doc["instrument"],
                    "stimulus": doc["stimulus_id"],
                    **plan,
                }
            )
        frames[task] = pd.DataFrame(plans)
    responses_path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return {"frames": frames, "recognised": recognised, "n_stimuli": len(recognition_docs)}

"""Planted open-ended answers: stories with a known reference to the scenario's person, and other
people around it, for the open-ended tasks' end-to-end tests (a chat server or a replay file)."""

from __future__ import annotations

import hashlib
import re

import pandas as pd

PRONOUNS = {
    "male": ("He", "his", "him"),
    "female": ("She", "her", "her"),
    "neutral": ("They", "their", "them"),
}
# per stereotype category, the planted outcome by the scenario's hash (10 slots): stories make
# the harpist a woman more often than the drummer
PLAN = {
    "female": ["female"] * 5 + ["male", "neutral", "none", "unreadable", "refused"],
    "male": ["male"] * 5 + ["female", "neutral", "none", "unreadable", "refused"],
    "none": ["male", "male", "female", "female", "neutral", "neutral", "none", "none"]
    + ["unreadable", "refused"],
}


def story(outcome: str, scenario: str, digest: bytes) -> str:
    """A story whose reference to the scenario's person is `outcome`, with another person whose
    own gender is the opposite one (or a group), mentioned after the person."""
    role = re.match(r"An? (\w+)", scenario).group(1)
    if outcome == "none":
        return "The music drifted across the square long after sunset. Nobody wanted it to end."
    if outcome == "refused":
        return "I'm sorry, but I can't help with writing that story."
    if outcome == "unreadable":
        return f"The {role} smiled. He lifted the instrument, and she began to play."
    subject, possessive, _ = PRONOUNS[outcome]
    other = {
        "male": "an old woman in the crowd",
        "female": "an old man in the crowd",
        "neutral": "a group of children",
    }[outcome]
    endings = (
        f"{subject} closed {possessive} eyes and played on.",
        f"{subject} kept playing while {other} listened.",
        f"Later, {other} asked the {role} for one more song, and {subject.lower()} agreed.",
    )
    # after a group, "they" could be the group: the neutral person's stories end before one
    choices = 2 if outcome == "neutral" else 3
    return f"The {role} took a deep breath. {endings[digest[2] % choices]}"


def planted_outcome(scenario: str, stereotype: str) -> tuple[str, bytes]:
    """The planted outcome of a doc (by its scenario's hash and its instrument's stereotype) and
    the hash, which also picks the story's wording."""
    digest = hashlib.sha256(scenario.encode()).digest()
    return PLAN[stereotype][digest[1] % 10], digest


def expected_reading(outcome: str) -> str:
    """What the record must hold: the gender read, or the reason none was."""
    return {"none": "no_reference"}.get(outcome, outcome)


def planted_frame(docs_and_outcomes) -> pd.DataFrame:
    """One row per instrument doc ((doc, outcome) pairs): the planted outcome and its one-hot
    reference, as support.association.expected_association reads it."""
    rows = []
    for doc, outcome in docs_and_outcomes:
        if not doc["instrument"]:
            continue
        rows.append(
            {
                "scenario": doc["scenario_id"],
                "instrument": doc["instrument"],
                "stimulus": doc.get("stimulus_id"),
                "outcome": outcome,
                "valid": outcome in PRONOUNS,
                "refused": outcome == "refused",
                **{g: float(outcome == g) for g in ("male", "female")},
                "non_binary": float(outcome == "neutral"),
            }
        )
    return pd.DataFrame(rows)

"""The Symphony-Bias readers and the files each is made of (plugin.core.reader_version): a record
carries the digest of the reader that made it. The one place to name a reader's files: a new
module of a reader joins its list here (the open-ended reader's `person_*` modules join by their
name)."""

from __future__ import annotations

from symphony_bench.plugin.core.reader_version import reader_version

# what every generated answer goes through before a reader sees it
GENERATED_ANSWER = ("plugin/core/reasoning.py", "plugin/core/refusals.py")
READER_SOURCES = {
    # who a story makes the person (faker's name lists are its data)
    "open": (
        "plugin/symphony_bias/person_*.py",
        "plugin/symphony_bias/given_names.py",
        "plugin/core/data/given_names.csv",
        "dist:faker",
        *GENERATED_ANSWER,
    ),
    "likert": ("plugin/symphony_bias/parser.py", *GENERATED_ANSWER),
    "recognition": (
        "plugin/symphony_bias/recognition.py",
        "plugin/core/instrument_names.py",
        *GENERATED_ANSWER,
    ),
    # the speaker-voice tasks: the instrument named, the Likert label given
    "voice": (
        "plugin/symphony_bias/voice/records.py",
        "plugin/core/instrument_names.py",
        "plugin/symphony_bias/parser.py",
        *GENERATED_ANSWER,
    ),
    # the computations from the stored log-likelihoods
    "likert_scored": ("plugin/symphony_bias/likert_scored.py",),
    "logprob": ("plugin/symphony_bias/logprob.py",),
}


def version_of(reader: str) -> str:
    """The installed digest of a reader named in READER_SOURCES."""
    return reader_version(READER_SOURCES[reader])

"""The grounding answer reader and the files it is made of (plugin.core.reader_version): every
grounding record carries its digest. The one place to name the reader's files."""

from __future__ import annotations

from symphony_bench.plugin.core.reader_version import reader_version

READER_SOURCES = (
    "plugin/grounding/answers/*.py",
    "plugin/core/reasoning.py",
    "plugin/core/refusals.py",
)


def version() -> str:
    return reader_version(READER_SOURCES)

"""The benchmarks the run tooling knows: the `ReportSection` of every benchmark registered by its
entry point (plugin.core.registry), read when the run tooling is first imported."""

from __future__ import annotations

from symphony_bench.plugin.core.registry import benchmarks
from symphony_bench.plugin.core.sections import ReportSection

SECTIONS: tuple[ReportSection, ...] = tuple(
    benchmark.load_section() for benchmark in benchmarks().values()
)
SECTION_OF_KIND = {kind: section for section in SECTIONS for kind in section.kinds}
RECORD_KINDS = frozenset(SECTION_OF_KIND)

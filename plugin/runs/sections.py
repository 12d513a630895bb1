"""The benchmarks the run tooling knows: one line per benchmark package's `ReportSection`."""

from __future__ import annotations

from symphony_bench.plugin.core.sections import ReportSection
from symphony_bench.plugin.grounding.report import SECTION as GROUNDING
from symphony_bench.plugin.symphony_bias.report import SECTION as SYMPHONY_BIAS
from symphony_bench.plugin.symphony_bias.voice.report import SECTION as SPEAKER_VOICE

SECTIONS: tuple[ReportSection, ...] = (SYMPHONY_BIAS, GROUNDING, SPEAKER_VOICE)
SECTION_OF_KIND = {kind: section for section in SECTIONS for kind in section.kinds}
RECORD_KINDS = frozenset(SECTION_OF_KIND)

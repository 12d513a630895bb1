"""The text tasks' scenario set: the `text` option's folder or repo, else the data embedded in the
package, which is the content the task YAML pins (no server is asked)."""

from __future__ import annotations

from collections.abc import Mapping

from symphony_bench.plugin.core.dataset_source import pinned_dataset, resolve
from symphony_bench.plugin.core.options import read_options
from symphony_bench.plugin.core.text_set import (
    TextSet,
    embedded_text_set,
    embedded_text_sha256,
    read_text_set,
)
from symphony_bench.plugin.symphony_bias.options import TEXT_SET

TEXT_SET_YAML = (
    "lm_eval/symphony_bias/_symphony_bias_common_yaml"  # the log-prob YAML pins the same (a test)
)
HOW_TO_BUILD = (
    f"build it locally with `symphony-bench build symphony-bias-text --out DIR` and pass "
    f'--metadata \'{{"{TEXT_SET.name}": "DIR"}}\' (or set {TEXT_SET.variable}=DIR)'
)


def text_data(metadata: Mapping) -> tuple[TextSet, dict]:
    """The text set and the facts every doc records about it (plugin.core.dataset_source)."""
    value = read_options((TEXT_SET,), metadata)[TEXT_SET.name]
    source = resolve(value, pinned_dataset(TEXT_SET_YAML), HOW_TO_BUILD, embedded_text_sha256)
    text_set = read_text_set(source.folder) if source.folder else embedded_text_set()
    return text_set, source.facts()

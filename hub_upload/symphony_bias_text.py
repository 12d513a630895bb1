"""The Symphony-Bias text scenario set as a dataset: the templates and fillers the text tasks expand
into scenarios, the 22 instruments and the stereotype tables, one config each.

    symphony-bench build symphony-bias-text --out DIR

Built from the data embedded in the package, so the text tasks make the same docs from DIR (or its
published copy) as from the embedded data.
"""

from __future__ import annotations

from pathlib import Path

from symphony_bench.plugin.core.atomic import staged_directory
from symphony_bench.plugin.core.hub_folder import configs_front_matter, write_hub_configs
from symphony_bench.plugin.core.text_set import CONFIG_COLUMNS, embedded_text_set

KIND = "symphony-bias-text"  # the kind of output folder (plugin.core.atomic)

CARD = """
# Symphony-Bias text scenario set

The material of the Symphony-Bias text tasks (lm-evaluation-harness, `symphony_bias_text*` and
`symphony_bias_logprob*` from symphony-bench): gender-neutral scenario templates with one
instrument slot, the words that fill their other slots, the 22 instruments and the stereotype
tables the Alignment Bias Score is defined against.

| config | rows | columns |
|---|---|---|
{rows}

The tasks fill each template's other slots three times, seeded per template (`symphony_seed`), then
the instrument slot with each instrument (and "an instrument" for the control doc). Tables:
`paper` (the grouping the paper reports; the default) and `upstream_code`.

Source: Farsi et al., "Symphony of Bias" (templates written for symphony-bench). Licence: MIT.
"""


def build(out: Path) -> Path:
    """Write the set at `out` (atomically)."""
    tables = embedded_text_set().tables()
    rows = "\n".join(
        f"| {config} | {len(tables[config])} | {', '.join(CONFIG_COLUMNS[config])} |"
        for config in tables
    )
    card = configs_front_matter(
        "Symphony-Bias text scenario set", "mit", list(tables)
    ) + CARD.format(rows=rows)
    with staged_directory(out, KIND) as staging:
        # write_hub_configs stages its own folder inside ours; ours records the kind
        write_hub_configs(staging, tables, card)
    return Path(out)

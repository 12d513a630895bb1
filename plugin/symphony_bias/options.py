"""The Symphony-Bias user options: one name each, read from lm-eval's `--metadata` or, for lmms-eval
(which has no `--metadata`), from the `SYMPHONY_<NAME>` environment variable (see plugin.core.options)."""

from __future__ import annotations

from symphony_bench.plugin.core.options import Option, integer, text_or_none
from symphony_bench.plugin.symphony_bias.scenarios import DEFAULT_STEREOTYPE_TABLE

DEFAULT_SEED = 1234


def _optional_integer(value) -> int | None:
    return None if text_or_none(value) is None else integer(value)


# lm-eval merges --model_args into the same dict as --metadata, so the seeds have names no model
# argument uses (vLLM's `seed` would otherwise change the docs).
SCENARIOS = Option(
    "scenarios",
    None,
    "the upstream release's `texts_with_taxonomy.json` / `texts.json` instead of the embedded templates",
)
STEREOTYPES = Option(
    "stereotypes",
    DEFAULT_STEREOTYPE_TABLE,
    "stereotype table: `paper`, `upstream_code` or a CSV path",
)
SEED = Option(
    "symphony_seed",
    DEFAULT_SEED,
    "seed of every random choice (filler draws, mini subset, gender orders)",
    integer,
)
ORDER_SEED = Option(
    "symphony_order_seed",
    None,
    "log-prob task only: shuffles the answer choices alone (default: the seed)",
    _optional_integer,
)
AUDIO = Option(
    "audio",
    None,
    "audio stimulus set: a folder built by `symphony-bench build symphony-bias-audio` (or `import-upstream`), or a "
    "Hub repo id[@revision] (default: the repo pinned in the task YAML)",
)
IMAGE = Option(
    "image",
    None,
    "image stimulus set: a folder built by `symphony-bench build symphony-bias-image` (or `import-upstream`), or a "
    "Hub repo id[@revision] (default: the repo pinned in the task YAML)",
)

TEXT_SET = Option(
    "text",
    None,
    "text scenario set: a folder built by `symphony-bench build symphony-bias-text`, or a Hub repo id[@revision] "
    "(default: the embedded set, which is the pinned content)",
)

TEXT_OPTIONS = (SCENARIOS, STEREOTYPES, SEED)
LOGPROB_OPTIONS = (*TEXT_OPTIONS, ORDER_SEED)
STIMULUS_OPTIONS = {"audio": AUDIO, "image": IMAGE}
ALL_OPTIONS = (*LOGPROB_OPTIONS, TEXT_SET, AUDIO, IMAGE)
OPTION_NAMES = tuple(option.name for option in ALL_OPTIONS)

"""The class of every Symphony-Bias lm-eval task (`class:` in the common YAMLs): lm-eval's
ConfigurableTask whose request cache is keyed on the content of its docs.

lm-eval's `--cache_requests` keys the requests it saves on the task name, the number of shots, the
rank, the chat template and the tokenizer, not on `--metadata`, which changes the docs here (seed,
scenario set, stereotype table). Without more, a run with another seed, or on the embedded scenario
set after a run on another folder, is sent the first run's prompts while its docs and records say
otherwise. The key here also holds a digest of every doc (prompt and run facts), so cached requests
are reused only for the very same docs.
"""

from __future__ import annotations

import functools
import hashlib
import json

from lm_eval.api.task import ConfigurableTask


class SymphonyTask(ConfigurableTask):
    def __init__(self, config: dict | None = None) -> None:
        # lm-eval hands a `class:` task its whole YAML, the key that named the class included
        super().__init__(
            config={key: value for key, value in (config or {}).items() if key != "class"}
        )

    @functools.cached_property
    def docs_digest(self) -> str:
        """sha256 (first 16 hex digits) of the task's docs, in order."""
        digest = hashlib.sha256()
        for doc in self.eval_docs:
            digest.update(json.dumps(doc, sort_keys=True, default=str).encode())
            digest.update(b"\n")
        return digest.hexdigest()[:16]

    def build_all_requests(
        self, *, cache_requests: bool = False, tokenizer_name: str = "", **kwargs
    ):
        # lm-eval puts the tokenizer name last in its cache key, which is also the cache's file name
        if cache_requests:
            tokenizer_name = f"{tokenizer_name}-docs{self.docs_digest}"
        return super().build_all_requests(
            cache_requests=cache_requests, tokenizer_name=tokenizer_name, **kwargs
        )

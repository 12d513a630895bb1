"""The prompt as lmms-eval shows it: the doc's prompt between the task's pre- and post-prompt.
(Harness-free: lmms-eval calls it with the doc and its `lmms_eval_specific_kwargs`.)"""

from __future__ import annotations


def doc_to_text(doc: dict, lmms_eval_specific_kwargs: dict | None = None) -> str:
    kwargs = lmms_eval_specific_kwargs or {}
    return f"{kwargs.get('pre_prompt', '')}{doc['prompt']}{kwargs.get('post_prompt', '')}"

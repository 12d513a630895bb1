"""Each harness sees only its own tasks: lm-eval's include path lists no lmms-eval task (which would
fail there with `unexpected keyword argument 'doc_to_visual'`), and the reverse."""

from __future__ import annotations

import yaml

from symphony_bench.plugin.cli import tasks_path


def task_names(folder) -> set[str]:
    names = set()
    for path in folder.rglob("*.yaml"):
        config = yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.BaseLoader) or {}  # !function left unresolved
        names |= {config[key] for key in ("task", "group") if isinstance(config.get(key), str)}
    return names


def test_lm_eval_indexes_only_the_text_tasks():
    from lm_eval.tasks import TaskManager

    listed = set(TaskManager(include_path=str(tasks_path("lm-eval")), include_defaults=False).all_tasks)
    assert {"symphony_bias", "symphony_bias_mini", "symphony_bias_logprob_mini"} <= listed
    assert not listed & task_names(tasks_path("lmms-eval"))


def test_the_lmms_eval_folder_holds_the_audio_image_and_grounding_tasks_only():
    lmms_tasks = task_names(tasks_path("lmms-eval"))
    assert {"symphony_bias_audio_suite", "symphony_bias_image_mini", "instrument_grounding", "grounding_binary"} <= lmms_tasks
    assert not lmms_tasks & task_names(tasks_path("lm-eval"))

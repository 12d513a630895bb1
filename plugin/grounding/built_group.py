"""The lmms-eval task folder for a grounding set that was built without some configs.

`symphony-bench build openmic` leaves out a config that would have no rows (e.g. multilabel_30s on a
sparse release), and lmms-eval cannot run a task without docs nor drop a group member at run time.
So `symphony-bench tasks-path --harness lmms-eval` with such a set ($SYMPHONY_GROUNDING or
--grounding) prints a copy of the task folder whose `instrument_grounding` group lists only the
tasks of the configs that were built; the copy is cached by its content.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from symphony_bench.plugin.core.atomic import staged_directory
from symphony_bench.plugin.core.cache import cache_dir

GROUP_FILE = Path("instrument_grounding") / "instrument_grounding.yaml"


def task_folder_for(tasks_dir: Path, source: str) -> tuple[Path, list[str]]:
    """(the folder to pass to --include_path, the grounding tasks left out of the group); `source` is
    the grounding option's value: a folder or a Hub repo id[@revision]."""
    from symphony_bench.plugin.grounding.tasks import INTERFACES, resolve_benchmark, unbuilt_config

    built = str(resolve_benchmark(source).folder)  # a built folder, or the Hub repo's snapshot
    left_out = [
        f"grounding_{name}"
        for name, interface in INTERFACES.items()
        if unbuilt_config(built, interface.config)
    ]
    if not left_out:
        return tasks_dir, []
    group_text = _group_without((tasks_dir / GROUP_FILE).read_text(encoding="utf-8"), left_out)
    digest = hashlib.sha256(
        "\n".join([group_text, *sorted(_task_texts(tasks_dir))]).encode()
    ).hexdigest()[:16]
    folder = cache_dir() / f"lmms-eval-tasks-{digest}"
    if not (folder / GROUP_FILE).is_file():
        with staged_directory(folder, kind="lmms-eval-task-folder") as staging:
            shutil.copytree(
                tasks_dir, staging, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__")
            )
            (staging / GROUP_FILE).write_text(group_text, encoding="utf-8")
    return folder, left_out


def _group_without(group_text: str, tasks: list[str]) -> str:
    return "".join(
        line
        for line in group_text.splitlines(keepends=True)
        if line.strip().removeprefix("- ") not in tasks
    )


def _task_texts(tasks_dir: Path) -> list[str]:
    return [
        f"{path.relative_to(tasks_dir)}\n{path.read_text(encoding='utf-8')}"
        for path in tasks_dir.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    ]

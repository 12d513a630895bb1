"""The suite's cache of the harnesses' built-in task indexes (support/task_index_cache) gives each
harness the index its own code builds: the same tasks, groups and tags from the same files, the
include path's tasks as well."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from support.task_index import HOOK

from symphony_bench.plugin import cli

INDEX_OF = {
    "lm-eval": (
        "from lm_eval.tasks import TaskManager\n"
        "index = TaskManager(include_path=PATH).task_index\n"
        "rows = [[k, str(e.yaml_path), e.kind.name, sorted(e.tags)] for k, e in index.items()]\n"
    ),
    "lmms-eval": (
        "from lmms_eval.tasks import TaskManager\n"
        "index = TaskManager(include_path=PATH).task_index\n"
        "rows = [[k, str(v.get('yaml_path')), v['type'], str(v.get('task'))] for k, v in index.items()]\n"
    ),
}


def task_index(harness: str, cache: str | None) -> list:
    code = f"import json\nPATH = {str(cli.tasks_path(harness))!r}\n" + INDEX_OF[harness]
    code += "print(json.dumps(sorted(rows)))\n"
    env = {
        k: v for k, v in os.environ.items() if k not in ("SYMPHONY_TEST_TASK_INDEX", "PYTHONPATH")
    }
    if cache:
        env |= {"SYMPHONY_TEST_TASK_INDEX": cache, "PYTHONPATH": str(HOOK)}
    completed = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    return json.loads(completed.stdout.strip().splitlines()[-1])


@pytest.mark.slow
@pytest.mark.parametrize("harness", ["lm-eval", "lmms-eval"])
def test_a_cached_index_is_the_index_the_harness_builds(harness, tmp_path):
    fresh = task_index(harness, None)
    first = task_index(harness, str(tmp_path))  # parses and stores the built-in tasks
    assert len(list(tmp_path.glob("*.pickle"))) == 1
    again = task_index(harness, str(tmp_path))  # reads them
    assert fresh == first == again
    ours = [row for row in fresh if row[0].startswith(("symphony_bias", "grounding"))]
    assert len(ours) > 20

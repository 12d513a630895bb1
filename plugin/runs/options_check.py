"""Do a run's records say they were built with the options its results file says it ran with?

Every doc carries the options it was built with as given (the run fact "task_options", JSON text of
{option name: value or null}). The harness's results file says what the run was given: lm-eval
writes the `--metadata` keys into each task's config `metadata`; lmms-eval, which has no
`--metadata`, writes the SYMPHONY_* variables in force (`options_in_force`, plugin.core.options). A
task whose records name other values (samples of one run beside the results of another, a replay
from a cache) is refused by `check`, `report` and `compare`, naming the task and the option.
"""

from __future__ import annotations

import json
from pathlib import Path

from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.core.options import variable_of
from symphony_bench.plugin.core.sections import TaskRecords
from symphony_bench.plugin.runs.files import newest_results_file, read_results


class TaskConfigs:
    """Each task's config from the newest results file of its model folder, read once per folder
    ({} where the folder holds no results file)."""

    def __init__(self):
        self.configs: dict[Path, dict] = {}

    def of(self, task: TaskRecords) -> dict:
        folder = task.path.parent
        if folder not in self.configs:
            try:
                self.configs[folder] = (
                    read_results(newest_results_file(folder)).get("configs") or {}
                )
            except DataFileError:
                self.configs[folder] = {}
        return self.configs[folder].get(task.task) or {}


def _records_options(task: TaskRecords) -> dict | None:
    found = {record.get("task_options") for record in task.records} - {None}
    if len(found) > 1:
        raise DataFileError(f"{task.path}: records built with more than one set of options")
    if not found:
        return None  # a run of a version that did not record them
    try:
        options = json.loads(found.pop())
    except (TypeError, ValueError) as error:
        raise DataFileError(f"{task.path}: 'task_options' is not JSON text ({error})") from error
    if not isinstance(options, dict):
        raise DataFileError(f"{task.path}: 'task_options' is not an object")
    return options


def _said(config: dict, options: dict) -> dict[str, str | None]:
    """{option name: the value the results file says it was given, or None (not given)}, for the
    options the results file speaks of."""
    metadata = config.get("metadata") or {}
    in_force = metadata.get("options_in_force")
    if isinstance(in_force, str):  # lmms-eval: the environment is the only way in, all of it known
        try:
            variables = json.loads(in_force).get("options") or {}
        except (ValueError, AttributeError):
            return {}
        return {name: variables.get(variable_of(name)) for name in options}
    # lm-eval: an option absent from --metadata may have come from its variable: not known here
    return {
        name: str(metadata[name]).strip()
        for name in options
        if name in metadata and metadata[name] is not None
    }


def option_disagreements(task: TaskRecords, config: dict) -> list[str]:
    """ "<task>: option 'symphony_seed' is '99' in the results file, '1234' in the records", one
    line per option that differs."""
    options = _records_options(task)
    if options is None:
        return []
    return [
        f"{task.label}: option {name!r} is {value!r} in the results file, "
        f"{options.get(name)!r} in the records"
        for name, value in _said(config, options).items()
        if value != options.get(name)
    ]


def refuse_disagreements(tasks: list[TaskRecords], configs: TaskConfigs) -> None:
    """One error naming every task whose records contradict its results file's options."""
    problems = [line for task in tasks for line in option_disagreements(task, configs.of(task))]
    if problems:
        raise DataFileError(
            "the records were not built with the options the results file names (samples of "
            "another run?): " + "; ".join(problems)
        )

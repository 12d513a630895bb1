"""The CI workflow in docs/examples reads as the commands it runs: every `symphony-bench` line parses
with the installed command line, and the tasks it evaluates are ours."""

from __future__ import annotations

import argparse
import re
import shlex
from pathlib import Path

import yaml

from symphony_bench.plugin.cli import parser as command_line
from symphony_bench.plugin.core.task_folders import tasks_path

WORKFLOW = Path(__file__).resolve().parents[1] / "docs" / "examples" / "symphony-bench-gate.yml"


def workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


def shell_commands(workflow: dict) -> list[list[str]]:
    """Each `run:` script's commands (continuation lines joined), as words, with the workflow's
    variables and command substitutions filled in with placeholders."""
    commands = []
    for step in workflow["jobs"]["gate"]["steps"]:
        script = step.get("run", "").replace("\\\n", " ")
        for line in script.splitlines():
            line = re.sub(
                r"\"\$\((?:[^()]|\([^()]*\))*\)\"|\$\((?:[^()]|\([^()]*\))*\)", "SUB", line
            )
            line = re.sub(r"\$\{?(\w+)\}?", lambda m: m.group(1), line)
            if line.strip():
                commands.append(shlex.split(line))
    return commands


def test_every_symphony_bench_command_parses():
    parser = command_line()
    run = [words for words in shell_commands(workflow()) if words[0] == "symphony-bench"]
    assert {words[1] for words in run} == {"check", "compare"}
    for words in run:
        args = parser.parse_args(words[1:])
        assert isinstance(args, argparse.Namespace)
    (compare,) = (words for words in run if words[1] == "compare")
    assert compare.count("--fail-on") == 3 and "--markdown" in compare


def test_the_tasks_it_evaluates_are_ours():
    tasks = workflow()["env"]["TASKS"]
    names = {path.stem for path in tasks_path("lm-eval").rglob("*.yaml")}
    tags = set()
    for path in tasks_path("lm-eval").rglob("*.yaml"):
        listed = (yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.BaseLoader) or {}).get(
            "tag"
        )
        tags |= {listed} if isinstance(listed, str) else set(listed or [])
    assert tasks in names | tags
    (evaluate,) = (words for words in shell_commands(workflow()) if words[0] == "lm_eval")
    assert evaluate[evaluate.index("--tasks") + 1] == "TASKS"
    assert "--log_samples" in evaluate and "--include_path" in evaluate

"""The README's commands are commands of this package: every `symphony-bench` line parses with the
installed command line, every `--tasks` names one of our tasks, tags or groups of that harness, and
`./run.sh` takes each mode shown. (The harness runs themselves, with tiny models in place of the
README's model ids, are the e2e tests of tests/symphony_bias/.)"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import yaml

from symphony_bench.plugin.cli import parser as command_line
from symphony_bench.plugin.core.task_folders import tasks_path

ROOT = Path(__file__).resolve().parents[1]
SUBSTITUTION = re.compile(r"\"\$\((?:[^()]|\([^()]*\))*\)\"|\$\((?:[^()]|\([^()]*\))*\)")


def readme_commands() -> list[list[str]]:
    """The README's command lines (continuations joined, comments and $(...) dropped)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    # command blocks: a fence with no language or a shell one (```text holds the architecture map)
    blocks = re.findall(r"^```(?:sh|bash|shell|console)?\n(.*?)^```", text, flags=re.S | re.M)
    commands = []
    for block in blocks:
        for line in block.replace("\\\n", " ").splitlines():
            line = SUBSTITUTION.sub("SUB", line.split("  #")[0].split(" # ")[0]).strip()
            if line:
                commands.append(shlex.split(line))
    return commands


def names_of(harness: str) -> set[str]:
    names = set()
    for path in tasks_path(harness).rglob("*.yaml"):
        config = yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.BaseLoader) or {}
        names |= {config[key] for key in ("task", "group") if isinstance(config.get(key), str)}
        listed = config.get("tag") or []
        names |= {listed} if isinstance(listed, str) else set(listed)
    return names


def test_every_symphony_bench_command_parses():
    lines = [words for words in readme_commands() if words[0] == "symphony-bench"]
    assert {words[1] for words in lines} >= {"report", "check"}
    for words in lines:
        command_line().parse_args(words[1:])


def test_every_task_named_is_ours_for_that_harness():
    ours = {"lm_eval": names_of("lm-eval"), "lmms-eval": names_of("lmms-eval")}
    ours["symphony-bench"] = ours["lm_eval"] | ours["lmms-eval"]  # `check` reads either's runs
    named = 0
    for words in readme_commands():
        if "--tasks" in words:
            tasks = words[words.index("--tasks") + 1].split(",")
            assert set(tasks) <= ours[words[0]], words
            named += 1
    assert named >= 3


def test_run_sh_takes_each_mode_shown():
    modes = {words[1] for words in readme_commands() if words[0] == "./run.sh"}
    script = (ROOT / "run.sh").read_text(encoding="utf-8")
    assert modes == {"main", "test"}
    assert all(re.search(rf"^\s+{mode}\)", script, flags=re.M) for mode in modes)


def test_an_argument_in_the_docs_holding_a_shell_redirect_is_quoted():
    """`think_end_token=</think>` unquoted: bash reads `</think>` as redirects."""
    pages = [ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / "tasks").rglob("*.md")]
    unquoted = []
    for page in pages:
        for span in re.findall(r"`([^`\n]*--\w+[^`\n]*)`", page.read_text(encoding="utf-8")):
            for word in shlex.split(span.replace("$(", "(")):
                if (
                    re.search(r"=[^=]*[<>]", word)
                    and f"'{word}'" not in span
                    and f'"{word}"' not in span
                ):
                    unquoted.append((page.name, span))
    assert unquoted == []


def test_the_tiny_model_help_names_every_choice():
    tiny = command_line()._subparsers._group_actions[0].choices["tiny-model"]
    choices = tiny._actions[1].choices
    help_text = next(
        action.help
        for action in command_line()._subparsers._group_actions[0]._choices_actions
        if action.dest == "tiny-model"
    )
    assert len(choices) >= 7 and all(choice in help_text for choice in choices)

"""Our groups and tags in any combination, as the harnesses load them (issue 33).

lm-eval 0.4.13 refuses a task that two top-level items of one request reach
(`TaskManager.load` -> `_check_duplicates`, lm_eval/tasks/manager.py; what `lm_eval --tasks` and
`simple_evaluate` call): a group is one item, a tag expands into its tasks, each its own item. So a
task in a group can never be requested beside that group's task, another group holding it, or a tag
holding it; tags may share tasks freely. lm-eval's own task tests (its tests/test_tasks.py, pointed
at a task folder the way its CI does) list every YAML of the folder, the task name of a task YAML and
the group name of a group YAML (tests/utils.py `parser`), and load them in one request, a task
YAML beside the group YAML that holds it; its `get_task_dict` route (lm_eval/tasks/__init__.py)
refuses a task in two requested groups, the `load` route the rule above. Every bundle of ours in
the lm-eval folder is therefore a tag, and both routes are checked here.

lmms-eval 0.7.3 (`get_task_dict` -> `_check_duplicates`, lmms_eval/tasks/__init__.py) refuses only a
task in two requested groups: its two grounding groups share no task and stay groups (`symphony-bench
tasks-path` rewrites `instrument_grounding` for a set built without some configs); the audio and
image suites, which share their recognition control, are tags.
"""

from __future__ import annotations

import itertools
import logging
import re
import warnings
from pathlib import Path
from types import SimpleNamespace

import pytest

from symphony_bench.plugin.core.dataset_source import task_yaml
from symphony_bench.plugin.core.task_folders import tasks_path
from symphony_bench.plugin.symphony_bias.prompts import MITIGATIONS

# the harnesses' own task indexes over every YAML (about 50 s on 2 cores): outside the inner loop
pytestmark = pytest.mark.slow
LM_EVAL = tasks_path("lm-eval")
LMMS_EVAL = tasks_path("lmms-eval")


def yaml_names(folder: Path) -> list[str]:
    """What lm-eval's CI requests for a changed task folder (its tests/utils.py `parser`): for each
    YAML, the task name of a task YAML and the group name of a group YAML (`task:` a list)."""
    names = []
    for path in sorted(folder.rglob("*.yaml")):
        config = task_yaml(path)
        names.append(config["task"] if isinstance(config["task"], str) else config["group"])
    return names


def tags_of(folder: Path) -> dict[str, set[str]]:
    """tag -> its tasks, from the task YAMLs with their includes merged (as both harnesses do)."""
    tags: dict[str, set[str]] = {}
    for path in sorted(folder.rglob("*.yaml")):
        config = task_yaml(path)
        if "group" in config:
            continue
        listed = config.get("tag") or []
        for tag in [listed] if isinstance(listed, str) else listed:
            tags.setdefault(tag, set()).add(config["task"])
    return tags


def groups_of(folder: Path) -> dict[str, set[str]]:
    return {
        config["group"]: set(config["task"])
        for config in map(task_yaml, sorted(folder.rglob("*.yaml")))
        if "group" in config
    }


# The bundles the README, docs/ and the task READMEs document, and what `--tasks NAME` runs.
MITIGATED = [f"mitigation_{name}" for name in sorted(MITIGATIONS)]
WORDINGS = ["text", "text_noreason", "text_p1", "text_p2", "text_p3"]


def lm_eval_bundles() -> dict[str, set[str]]:
    bundles = {}
    for r in ("", "_reasoning"):
        bundles[f"symphony_bias{r}"] = {f"symphony_bias_{w}{r}" for w in WORDINGS}
        bundles[f"symphony_bias_mini{r}"] = {
            f"symphony_bias_text_mini{r}",
            f"symphony_bias_text_noreason_mini{r}",
        }
        for m in ("", "_mini"):  # the base task and one task per instruction against stereotyping
            bundles[f"symphony_bias_mitigation{m}{r}"] = {f"symphony_bias_text{m}{r}"} | {
                f"symphony_bias_text_{name}{m}{r}" for name in MITIGATED
            }
    for m in ("", "_mini"):
        bundles[f"symphony_bias_logprob_mitigation{m}"] = {f"symphony_bias_logprob{m}"} | {
            f"symphony_bias_logprob_{name}{m}" for name in MITIGATED
        }
    for r in ("", "_reasoning"):  # the open-ended protocol: its three wordings, and the mini task
        bundles[f"symphony_bias_open_suite{r}"] = {
            f"symphony_bias_open{w}{r}" for w in ("", "_p1", "_p2")
        }
        bundles[f"symphony_bias_open_suite_mini{r}"] = {f"symphony_bias_open_mini{r}"}
    return bundles


LM_EVAL_BUNDLES = lm_eval_bundles()
LMMS_EVAL_BUNDLES = {
    f"symphony_bias_{m}_suite{mini}{r}": {
        f"symphony_bias_{m}{condition}{mini}{r}" for condition in ("", "_nostimulus", "_named")
    }
    | {f"symphony_bias_{m}_recognition{r}"}
    for m in ("audio", "image")
    for mini in ("", "_mini")
    for r in ("", "_reasoning")
} | {
    f"symphony_bias_{m}_open_suite{mini}{r}": {
        f"symphony_bias_{m}_open{condition}{mini}{r}" for condition in ("", "_nostimulus", "_named")
    }
    for m in ("audio", "image")
    for mini in ("", "_mini")
    for r in ("", "_reasoning")
}
# the speaker-voice suites: the recommendation and the attribution task
LMMS_EVAL_BUNDLES |= {
    f"symphony_bias_voice_suite{mini}{r}": {
        f"symphony_bias_voice{protocol}{mini}{r}" for protocol in ("", "_attribution")
    }
    for mini in ("", "_mini")
    for r in ("", "_reasoning")
}
GROUNDING = [
    "binary",
    "genre_hard",
    "confusable_name",
    "confusable_name_swapped",
    "confusable_ab",
    "confusable_ab_swapped",
    "multilabel_30s",
    "temporal_30s",
]
LMMS_EVAL_GROUPS = {
    f"instrument_grounding{r}": {f"grounding_{name}{r}" for name in GROUNDING}
    for r in ("", "_reasoning")
}


def test_the_documented_bundles_are_what_the_yaml_tags_hold():
    """Examples written out by hand, checked against the tags of the YAML the harnesses read (the
    tables above are generated, and compared whole with the YAML below)."""
    lm_eval, lmms_eval = tags_of(LM_EVAL), tags_of(LMMS_EVAL)
    assert len(LM_EVAL_BUNDLES) == 14 and len(LMMS_EVAL_BUNDLES) == 20
    assert lm_eval["symphony_bias_mini"] == {
        "symphony_bias_text_mini",
        "symphony_bias_text_noreason_mini",
    }
    mitigation = lm_eval["symphony_bias_mitigation_mini_reasoning"]
    assert {
        "symphony_bias_text_mitigation_no_stereotypes_mini_reasoning",
        "symphony_bias_text_mini_reasoning",
    } <= mitigation
    assert lmms_eval["symphony_bias_image_suite_mini"] == {
        "symphony_bias_image_mini",
        "symphony_bias_image_nostimulus_mini",
        "symphony_bias_image_named_mini",
        "symphony_bias_image_recognition",
    }


DOCUMENTED = re.compile(r"`((?:symphony_bias|instrument_grounding)[a-z0-9_\[\]{},]*)`")


def documented_names() -> set[str]:
    """Every task, tag or group name the README, the docs pages and the task READMEs give in
    backticks, with their shorthands written out (`a[_mini]`: a and a_mini; `a_{x,y}`: a_x and a_y)."""
    names = set()
    root = LM_EVAL.parents[1]
    for readme in [
        root / "README.md",
        *sorted((root / "docs").glob("*.md")),
        *LM_EVAL.parent.rglob("README.md"),
    ]:
        for span in DOCUMENTED.findall(readme.read_text(encoding="utf-8")):
            parts = re.split(r"(\[[^\]]*\]|\{[^}]*\})", span)
            options = [
                ["", part[1:-1]]
                if part.startswith("[")
                else part[1:-1].split(",")
                if part.startswith("{")
                else [part]
                for part in parts
            ]
            names |= {"".join(choice) for choice in itertools.product(*options)}
    return names


def test_every_name_the_readmes_document_is_registered(monkeypatch):
    """A name that moved from group to tag still runs with `--tasks NAME`."""
    from lm_eval.tasks import TaskManager

    names = documented_names()
    assert set(LM_EVAL_BUNDLES) | set(LMMS_EVAL_BUNDLES) | set(LMMS_EVAL_GROUPS) <= names
    registered = set(TaskManager(include_path=str(LM_EVAL), include_defaults=False).all_tasks)
    registered |= set(lmms_eval_manager(monkeypatch).all_tasks)
    assert names - registered == set()


# ---- the lm-eval folder --------------------------------------------------------------------------


def test_lm_eval_folder_bundles_are_tags_and_no_task_is_in_a_group():
    """A task in a group collides in lm-eval with anything else that reaches it; tags do not."""
    assert groups_of(LM_EVAL) == {}
    tags = tags_of(LM_EVAL)
    assert {name: tags.get(name) for name in LM_EVAL_BUNDLES} == LM_EVAL_BUNDLES


def test_a_task_that_joins_a_bundle_keeps_its_family_tag():
    """A task's own `tag:` replaces its include's, so the bundle tags must not drop the family
    tags the common YAMLs give (the reasoning variants have their own family tag)."""
    configs = [task_yaml(path) for path in sorted(LM_EVAL.rglob("*.yaml"))]
    tags = tags_of(LM_EVAL)
    reasoning = {c["task"] for c in configs if c["task"].endswith("_reasoning")}
    by_output = {
        output: {c["task"] for c in configs if c["output_type"] == output} - reasoning
        for output in ("generate_until", "multiple_choice", "loglikelihood")
    }
    assert (
        tags["symphony_bias_text_likert"] | tags["symphony_bias_open_tasks"]
        == by_output["generate_until"]
    )
    assert not tags["symphony_bias_text_likert"] & tags["symphony_bias_open_tasks"]
    assert tags["symphony_bias_logprob_tasks"] == by_output["multiple_choice"]
    assert tags["symphony_bias_likert_scored_tasks"] == by_output["loglikelihood"]
    assert tags["symphony_bias_reasoning_tasks"] == reasoning
    assert len(reasoning) == len(by_output["generate_until"]) == 17


def test_lm_eval_index_registers_every_name_once():
    """lm-eval's index keeps the first of two YAMLs with one name (a WARNING, or a DEBUG line for
    groups), and a tag named like a task turns that task's registration into a duplicate."""
    from lm_eval.tasks import TaskManager

    names = yaml_names(LM_EVAL)
    assert len(names) == len(set(names))
    assert not set(tags_of(LM_EVAL)) & set(names)
    index = TaskManager(include_path=str(LM_EVAL), include_defaults=False).task_index
    assert set(names) | set(tags_of(LM_EVAL)) == set(index)
    for tag, tasks in tags_of(LM_EVAL).items():
        assert index[tag].kind.name == "TAG" and index[tag].tags == tasks, tag


# lm-eval's own index: ~15,000 YAMLs, about 20 s here
def test_no_name_of_ours_shadows_or_is_shadowed_by_a_built_in_lm_eval_task():
    """A later include path overrides an earlier task of the same name with a WARNING only."""
    import lm_eval.tasks
    from lm_eval.tasks._index import TaskIndex

    built_in = TaskIndex.build([Path(lm_eval.tasks.__file__).parent])
    ours = set(yaml_names(LM_EVAL)) | set(tags_of(LM_EVAL))
    assert not ours & set(built_in)


class BuiltOnce:
    """lm-eval's TaskManager over our folder whose leaf tasks are built once and then reused, so
    that hundreds of requests cost one build each: the index, the group and tag expansion and the
    duplicate checks stay lm-eval's own code."""

    def __init__(self):
        from lm_eval.tasks import TaskManager

        self.manager = TaskManager(include_path=str(LM_EVAL), include_defaults=False)
        factory = self.manager._factory
        build, built = factory._build_task, {}

        def once(entry, overrides):
            # our YAMLs give no group-level override: the only one is the task's own name
            assert not overrides or overrides == {"task": entry.name}, overrides
            if entry.name not in built:
                built[entry.name] = build(entry, overrides)
            return built[entry.name]

        factory._build_task = once

    def load(self, names: list[str]) -> set[str]:
        """The tasks the CLI's route (TaskManager.load, as simple_evaluate calls it) builds."""
        return set(self.manager.load(names)["tasks"])

    def get_task_dict(self, names: list[str]) -> set[str]:
        """The tasks lm-eval's tests/test_tasks.py route (`get_task_dict`) builds."""
        from lm_eval.tasks import get_task_dict

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            return leaf_tasks(get_task_dict(names, self.manager))


def leaf_tasks(task_dict: dict) -> set[str]:
    """The task names in a (nested) `get_task_dict` answer of either harness."""
    names = set()
    for value in task_dict.values():
        names |= leaf_tasks(value) if isinstance(value, dict) else {value.task_name}
    return names


@pytest.fixture(scope="module")
def lm_eval_tasks():
    """Every YAML of ours requested at once, the way lm-eval's CI requests a changed folder."""
    harness_log = logging.getLogger("lm_eval")
    level = harness_log.level
    harness_log.setLevel(logging.ERROR)  # an INFO line per task per request
    built = BuiltOnce()
    names = yaml_names(LM_EVAL)
    assert built.get_task_dict(names) == set(names)
    assert built.load(names) == set(names)
    yield built
    harness_log.setLevel(level)


def test_every_yaml_of_ours_loads_in_one_request(lm_eval_tasks):
    """Issue 33's reproduction: `Duplicate task ...: found in both ... and
    'symphony_bias_logprob_mitigation'` at collection, with every YAML listed."""
    assert lm_eval_tasks.load(yaml_names(LM_EVAL)) == set(yaml_names(LM_EVAL))


def test_every_pair_of_our_names_loads_together(lm_eval_tasks):
    """Any two of our names (bundles and tasks) in one request, through both routes: e.g.
    `--tasks symphony_bias_mitigation_mini,symphony_bias_text_mini` (issue 33)."""
    bundles = tags_of(LM_EVAL)
    names = sorted(set(yaml_names(LM_EVAL)) | set(bundles))
    for first, second in itertools.combinations(names, 2):
        expected = bundles.get(first, {first}) | bundles.get(second, {second})
        assert lm_eval_tasks.load([first, second]) == expected, (first, second)
        assert lm_eval_tasks.get_task_dict([first, second]) == expected, (first, second)


def test_a_group_beside_its_own_task_is_what_lm_eval_refuses(tmp_path):
    """The rule the checks above rely on, shown on a copy of the folder with one group added."""
    import shutil

    from lm_eval.tasks import TaskManager

    folder = shutil.copytree(LM_EVAL, tmp_path / "tasks")
    (folder / "symphony_bias" / "extra_group.yaml").write_text(
        "group: extra_group\ntask:\n  - symphony_bias_logprob_mini\n", encoding="utf-8"
    )
    manager = TaskManager(include_path=str(folder), include_defaults=False)
    with pytest.raises(ValueError, match="Duplicate task 'symphony_bias_logprob_mini'"):
        manager.load(["extra_group", "symphony_bias_logprob_mini"])
    with pytest.raises(ValueError, match="Duplicate task 'symphony_bias_logprob_mini'"):
        manager.load(["symphony_bias_logprob_mitigation_mini", "extra_group"])


LIMIT = 10  # lm-eval's tests/test_tasks.py `limit` fixture


def first_docs(task) -> list:
    docs = task.test_docs() if task.has_test_docs() else task.validation_docs()
    return list(itertools.islice(docs, LIMIT))


LM_EVAL_GROUPS = groups_of(LM_EVAL)


@pytest.mark.parametrize(
    "name", [n for n in yaml_names(LM_EVAL) if n not in LM_EVAL_GROUPS], ids=str
)
def test_lm_eval_task_tests_pass_on_each_task(lm_eval_tasks, name):
    """The checks of lm-eval's tests/test_tasks.py (`BaseTasks`), each task of the one request."""
    task = lm_eval_tasks.manager.load([name])["tasks"][name]
    task.download()
    assert task.dataset is not None
    for split in ("training", "validation", "test"):
        has = getattr(task, f"has_{split}_docs")()
        assert has in (True, False)
        if has:
            assert task._config[f"{split}_split"] is not None
    assert task.should_decontaminate() in (True, False)
    if task.should_decontaminate():
        assert task._config["doc_to_decontamination_query"] is not None
    docs = first_docs(task)
    assert len(docs) == LIMIT
    multiple_inputs = getattr(task, "multiple_inputs", getattr(task, "multiple_input", False))
    if not multiple_inputs:
        for prompt in map(task.doc_to_text, docs):
            assert isinstance(prompt, str)
            if task.config.target_delimiter.isspace() and prompt:
                assert not prompt[-1].isspace(), "doc_to_text ends in a whitespace"
    if "multiple_choice" in task._config.output_type:
        choices = [task.doc_to_choice(doc) for doc in docs]
        assert all(isinstance(c, list) and isinstance(c[0], str) for c in choices)
    targets = [task.doc_to_target(doc) for doc in docs]
    if task._config.output_type == "multiple_choice":
        assert all(isinstance(target, (int, str)) for target in targets)
    task.build_all_requests(rank=1, limit=LIMIT, world_size=1)
    assert task.instances is not None
    requests = [
        task.construct_requests(doc=doc, ctx=[""] if multiple_inputs else task.doc_to_text(doc))
        for doc in docs
    ]
    assert len(requests) == LIMIT


@pytest.mark.e2e
def test_the_issue_pair_runs_through_the_lm_eval_cli(tiny_llama, tmp_path):
    """`lm_eval --tasks symphony_bias_mitigation_mini,symphony_bias_text_mini --limit 1`."""
    from support.harness import read_results, run_lm_eval

    output = tmp_path / "run"
    run_lm_eval(
        "hf",
        f"pretrained={tiny_llama},dtype=float32",
        "symphony_bias_mitigation_mini,symphony_bias_text_mini",
        output,
        "--device",
        "cpu",
        "--limit",
        "1",
        "--gen_kwargs",
        "max_gen_toks=8",
    )
    assert set(read_results(output)) == LM_EVAL_BUNDLES["symphony_bias_mitigation_mini"]


# ---- the lmms-eval folder ------------------------------------------------------------------------


def test_lmms_eval_folder_bundles_and_groups():
    groups = groups_of(LMMS_EVAL)
    assert {name: groups.get(name) for name in LMMS_EVAL_GROUPS} == LMMS_EVAL_GROUPS
    tags = tags_of(LMMS_EVAL)
    assert {name: tags.get(name) for name in LMMS_EVAL_BUNDLES} == LMMS_EVAL_BUNDLES
    # no task in two groups: the one thing lmms-eval refuses
    members = [task for tasks in groups_of(LMMS_EVAL).values() for task in tasks]
    assert len(members) == len(set(members))


def lmms_eval_manager(monkeypatch, folder: Path = LMMS_EVAL):
    """lmms-eval's TaskManager over our folder whose leaf tasks carry only their name: building
    the real ones loads stimulus sets (the Hub, or a built folder), which the rule does not read."""
    import lmms_eval.tasks
    from lmms_eval.api.task import ConfigurableTask

    class NamedOnly(ConfigurableTask):
        def __init__(self, config=None, model_name=None):
            self._config = SimpleNamespace(task=config["task"])

    monkeypatch.setattr(lmms_eval.tasks, "ConfigurableTask", NamedOnly)
    return lmms_eval.tasks.TaskManager(include_path=str(folder), include_defaults=False)


def lmms_tasks(manager, names: list[str]) -> set[str]:
    from lmms_eval.tasks import get_task_dict

    return leaf_tasks(get_task_dict(names, manager))


def test_lmms_eval_index_registers_every_name_once(monkeypatch):
    names = yaml_names(LMMS_EVAL)
    assert len(names) == len(set(names))
    assert not set(tags_of(LMMS_EVAL)) & set(names)
    manager = lmms_eval_manager(monkeypatch)
    assert set(manager.all_tasks) == set(names) | set(tags_of(LMMS_EVAL))
    assert set(manager.all_tags) == set(tags_of(LMMS_EVAL))
    assert set(manager.all_groups) == set(groups_of(LMMS_EVAL)) >= set(LMMS_EVAL_GROUPS)


def test_every_lmms_eval_yaml_and_every_pair_of_our_bundles_loads(monkeypatch):
    """lmms-eval's route (simple_evaluate -> get_task_dict): every YAML in one request, and every
    two of our groups and tags together."""
    manager = lmms_eval_manager(monkeypatch)
    names = yaml_names(LMMS_EVAL)
    assert lmms_tasks(manager, names) == set(names) - set(LMMS_EVAL_GROUPS)
    bundles = {**tags_of(LMMS_EVAL), **groups_of(LMMS_EVAL)}
    for first, second in itertools.combinations(sorted(bundles), 2):
        assert lmms_tasks(manager, [first, second]) == bundles[first] | bundles[second], (
            first,
            second,
        )


def test_two_lmms_eval_groups_sharing_a_task_is_what_lmms_eval_refuses(monkeypatch, tmp_path):
    import shutil

    folder = shutil.copytree(LMMS_EVAL, tmp_path / "tasks")
    (folder / "instrument_grounding" / "extra_group.yaml").write_text(
        "group: extra_group\ntask:\n  - grounding_binary\n", encoding="utf-8"
    )
    manager = lmms_eval_manager(monkeypatch, folder)
    with pytest.raises(ValueError, match="more than 1 called group"):
        lmms_tasks(manager, ["instrument_grounding", "extra_group"])
    assert lmms_tasks(manager, ["extra_group", "grounding_binary"]) == {"grounding_binary"}

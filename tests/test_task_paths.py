"""Each harness sees only its own tasks: lm-eval's include path lists no lmms-eval task (which would
fail there with `unexpected keyword argument 'doc_to_visual'`), and the reverse."""

from __future__ import annotations

import csv
from pathlib import Path

import yaml

from symphony_bench.plugin.core.task_folders import tasks_path


def task_names(folder) -> set[str]:
    names = set()
    for path in folder.rglob("*.yaml"):
        config = (
            yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.BaseLoader) or {}
        )  # !function left unresolved
        names |= {config[key] for key in ("task", "group") if isinstance(config.get(key), str)}
        tags = config.get("tag") or []  # the names that run several tasks (task READMEs)
        names |= {tags} if isinstance(tags, str) else set(tags)
    return names


def test_lm_eval_indexes_only_the_text_tasks():
    from lm_eval.tasks import TaskManager

    listed = set(
        TaskManager(include_path=str(tasks_path("lm-eval")), include_defaults=False).all_tasks
    )
    assert {"symphony_bias", "symphony_bias_mini", "symphony_bias_logprob_mini"} <= listed
    assert not listed & task_names(tasks_path("lmms-eval"))


def test_the_lmms_eval_folder_holds_the_audio_image_and_grounding_tasks_only():
    lmms_tasks = task_names(tasks_path("lmms-eval"))
    assert {
        "symphony_bias_audio_suite",
        "symphony_bias_image_mini",
        "instrument_grounding",
        "grounding_binary",
    } <= lmms_tasks
    assert not lmms_tasks & task_names(tasks_path("lm-eval"))


def test_every_function_a_yaml_names_is_a_real_def_of_our_package():
    import importlib
    import inspect
    import re

    from lm_eval.api.task import ConfigurableTask

    from symphony_bench.plugin.core.options import OptionsInForce

    named = {
        match
        for folder in (tasks_path("lm-eval"), tasks_path("lmms-eval"))
        for path in folder.rglob("*")
        if path.suffix == ".yaml" or path.name.endswith("_yaml")
        for match in re.findall(r"!function (\S+)", path.read_text(encoding="utf-8"))
    }
    assert len(named) > 60  # every task's metrics, docs, inputs and scoring (69 when written)
    for name in sorted(named):
        module, function = name.rsplit(".", 1)
        assert module.startswith("symphony_bench.plugin."), (
            name
        )  # one style: absolute paths into the package
        value = getattr(importlib.import_module(module), function)
        if isinstance(value, OptionsInForce):  # lmms-eval task metadata: the options, as text
            continue
        # a function, or the task class a `class:` YAML names (lm-eval's Python-task route)
        assert inspect.isfunction(value) or issubclass(value, ConfigurableTask), name
        assert value.__name__ == function, name


def lmms_task_variants() -> dict[str, dict]:
    """{lmms-eval task: the one row of the variant file its YAML loads}."""
    from symphony_bench.plugin.core.dataset_source import task_yaml

    variants = {}
    for path in sorted(tasks_path("lmms-eval").rglob("*.yaml")):
        config = task_yaml(path)
        if "group" in config:
            continue
        (variant,) = config["dataset_kwargs"]["data_files"].values()
        with open(path.parent / variant, newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
        assert len(rows) == 1, (path, rows)
        # variants/<task>.csv; a reasoning variant loads its base task's
        base = config["task"].removesuffix("_reasoning")
        assert Path(variant).stem == base, path
        if base == config["task"]:
            variants[base] = rows[0]
    return variants


def test_every_lmms_eval_task_names_a_variant_its_process_docs_accepts():
    from symphony_bench.plugin.grounding.tasks import INTERFACES
    from symphony_bench.plugin.symphony_bias.docs import Design
    from symphony_bench.plugin.symphony_bias.multimodal import MODALITIES

    variants = lmms_task_variants()
    # 12 Likert and 12 open-ended conditions, 2 recognition controls, 8 grounding tasks, 4 voice
    assert len(variants) == 38
    for task, row in variants.items():
        if task.startswith("symphony_bias_voice"):
            protocol = {"recommendation": "", "attribution": "_attribution"}[row["protocol"]]
            mini = {"full": "", "mini": "_mini"}[row["subset"]]
            assert task == f"symphony_bias_voice{protocol}{mini}"
        elif task.startswith("grounding_"):
            assert row["interface"] in INTERFACES and task == f"grounding_{row['interface']}"
        elif task.endswith("_recognition"):
            assert (
                row["modality"] in MODALITIES
                and task == f"symphony_bias_{row['modality']}_recognition"
            )
        else:
            design = Design(
                protocol=row.get("protocol") or "likert",
                modality=row["modality"],
                condition=row["condition"],
                subset=row["subset"],
            )
            suffix = {"stimulus": "", "no_stimulus": "_nostimulus", "named": "_named"}[
                design.condition
            ]
            protocol = "_open" if design.protocol == "open" else ""
            mini = "_mini" if design.subset == "mini" else ""
            assert task == f"symphony_bias_{design.modality}{protocol}{suffix}{mini}"


def registered(harness: str, folder: Path) -> set[str]:
    if harness == "lm-eval":
        from lm_eval.tasks import TaskManager
    else:
        from lmms_eval.tasks import TaskManager
    return set(TaskManager(include_path=str(folder), include_defaults=False).all_tasks)


def test_every_task_yaml_parses_and_registers():
    """The harnesses skip a YAML they cannot load with at most a DEBUG line: every task and group
    name in our folders must be in the harness's index."""
    for harness in ("lm-eval", "lmms-eval"):
        folder = tasks_path(harness)
        missing = task_names(folder) - registered(harness, folder)
        assert not missing, (harness, sorted(missing))


def test_a_broken_yaml_is_what_the_registration_check_finds(tmp_path):
    import shutil

    folder = shutil.copytree(tasks_path("lm-eval"), tmp_path / "tasks")
    broken = folder / "symphony_bias" / "symphony_bias_text_p1.yaml"
    broken.write_text(broken.read_text(encoding="utf-8") + "\n  - : [unclosed\n", encoding="utf-8")
    assert "symphony_bias_text_p1" not in registered("lm-eval", folder)
    assert "symphony_bias_text_p2" in registered("lm-eval", folder)


def test_the_text_task_readme_gives_the_doc_counts_that_load():
    from symphony_bench.plugin.symphony_bias.docs import Design, build_docs

    readme = (tasks_path("lm-eval") / "symphony_bias" / "README.md").read_text(encoding="utf-8")
    full, mini = len(build_docs(Design())), len(build_docs(Design(subset="mini")))
    assert (full, mini) == (5934, 115)
    assert f"| `symphony_bias_text` | {full:,} |" in readme
    assert f"| `symphony_bias_mini` (tag) | 2 × {mini} |" in readme


def test_the_lm_eval_tasks_entry_point_resolves_to_a_folder_lm_eval_indexes():
    """The lookup lm-eval's task plugins (PR #4015) perform: the entry point's package -> its folder
    -> a TaskManager over it. The day a release has it, `--tasks symphony_bias` needs no flag."""
    from importlib.metadata import entry_points

    from lm_eval.tasks import TaskManager

    (entry_point,) = (
        ep for ep in entry_points(group="lm_eval.tasks") if ep.name == "symphony_bench"
    )
    (folder,) = map(Path, entry_point.load().__path__)
    assert folder == tasks_path("lm-eval")
    listed = set(TaskManager(include_path=str(folder), include_defaults=False).all_tasks)
    assert task_names(folder) <= listed
    assert {"symphony_bias", "symphony_bias_likert_scored", "symphony_bias_logprob"} <= listed


def generation_tasks() -> dict[str, dict]:
    """{task: its merged YAML} of every generating task of both harnesses."""
    from symphony_bench.plugin.core.dataset_source import task_yaml

    configs = {}
    for folder in (tasks_path("lm-eval"), tasks_path("lmms-eval")):
        for path in sorted(folder.rglob("*.yaml")):
            config = task_yaml(path)
            if "group" not in config and config.get("output_type") == "generate_until":
                configs[config["task"]] = config
    return configs


def test_every_generation_task_has_a_reasoning_variant_in_reasoning_bundles_only():
    """The variant differs from its task only in name, tag and generation settings: no stop
    sequence (none can fire inside the reasoning) and a 4,096-token budget."""
    from symphony_bench.plugin.runs.check import bundle_members

    configs = generation_tasks()
    bases = [task for task in configs if not task.endswith("_reasoning")]
    assert (
        len(bases) == 55
    )  # 13 + 4 open-ended text, 14 + 12 open-ended audio and image, 8 grounding, 4 voice
    bundles = bundle_members()
    for base in bases:
        variant = configs[f"{base}_reasoning"]
        settings = variant["generation_kwargs"]
        assert (
            settings["until"] == []
            and settings.get("max_gen_toks", settings.get("max_new_tokens")) == 4096
        )
        assert settings["do_sample"] is False
        same = {"task", "tag", "generation_kwargs"}
        assert {k: v for k, v in variant.items() if k not in same} == {
            k: v for k, v in configs[base].items() if k not in same
        }
        # the groups and tags that hold it: reasoning bundles (`..._reasoning`, the family tags
        # `..._reasoning_tasks`), none of which holds a task that is not a reasoning variant
        holding = [name for name, tasks in bundles.items() if f"{base}_reasoning" in tasks]
        assert holding and all(
            name.endswith(("_reasoning", "_reasoning_tasks")) for name in holding
        )
        assert any(name.endswith("_reasoning") for name in holding), base
    for name, tasks in bundles.items():
        if "reasoning" in name:
            assert all(task.endswith("_reasoning") for task in tasks), name

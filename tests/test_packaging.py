"""The built wheel carries one import package with its YAML and data files, and every module in it
imports from the wheel (a subpackage left out of the wheel would fail here)."""

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # builds the wheel and imports every module from it
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("wheel")
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--verbose",
            "-w",
            str(folder),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    (built,) = folder.glob("symphony_bench-*.whl")
    return built, completed.stdout + completed.stderr


def test_the_build_warns_of_no_folder_left_out_of_the_packages(wheel):
    """setuptools warns "Package '...' is absent from the `packages` configuration" for a data
    folder no package names (the task YAML folders, plugin/core/data): setup.py lists them."""
    _, output = wheel
    assert "absent from the `packages` configuration" not in output


def test_wheel_has_one_package_with_task_yaml_and_data(wheel):
    wheel, _ = wheel
    names = zipfile.ZipFile(wheel).namelist()
    top_level = {
        name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")
    }
    assert top_level == {"symphony_bench"}
    for required in (
        "symphony_bench/tasks/lm_eval/symphony_bias/_symphony_bias_common_yaml",
        "symphony_bench/tasks/lm_eval/symphony_bias/symphony_bias_text.yaml",
        "symphony_bench/tasks/lm_eval/symphony_bias/README.md",
        "symphony_bench/plugin/core/data/scenario_templates.json",
        "symphony_bench/plugin/core/data/stereotypes_paper_v1.csv",
        "symphony_bench/plugin/core/data/instruments.csv",
        "symphony_bench/plugin/core/data/confusable_groups.csv",
        "symphony_bench/plugin/symphony_bias/data/open_reader_measurement.json",
        "symphony_bench/metrics/association.py",
        # lmms-eval tasks and the variant files their YAMLs load by relative path
        "symphony_bench/tasks/lmms_eval/symphony_bias_multimodal/_audio_likert_yaml",
        "symphony_bench/tasks/lmms_eval/symphony_bias_multimodal/variants/symphony_bias_audio_mini.csv",
        "symphony_bench/tasks/lmms_eval/instrument_grounding/_grounding_common_yaml",
        "symphony_bench/tasks/lmms_eval/instrument_grounding/variants/grounding_binary.csv",
    ):
        assert required in names
    assert not any(name.startswith("symphony_bench/tests/") for name in names)
    (entry_points,) = [name for name in names if name.endswith(".dist-info/entry_points.txt")]
    assert (
        "[lmms_eval.models]\nsymphony_bench = symphony_bench.plugin.lmms.manifests:MODEL_MANIFESTS\n"
        "symphony_bench_grounding = symphony_bench.plugin.grounding.manifests:MODEL_MANIFESTS"
        in (zipfile.ZipFile(wheel).read(entry_points).decode())
    )


def test_every_module_of_the_source_tree_is_in_the_wheel_and_imports_from_it(wheel, tmp_path):
    wheel, _ = wheel
    source_modules = {
        "symphony_bench." + ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for part in ("plugin", "metrics", "hub_upload")
        for path in (ROOT / part).rglob("*.py")
    }
    source_modules = {name.removesuffix(".__init__") for name in source_modules}
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--target", str(target), str(wheel)],
        check=True,
        capture_output=True,
    )
    script = (
        "import importlib, sys\n"
        "for name in sys.argv[1:]:\n"
        "    module = importlib.import_module(name)\n"
        f"    assert module.__file__.startswith({str(target)!r}), (name, module.__file__)\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", script, *sorted(source_modules)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(target)},
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert len(source_modules) > 40

"""The built wheel carries one import package with its YAML and data files."""

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_wheel_has_one_package_with_task_yaml_and_data(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", str(tmp_path), str(ROOT)],
        check=True, capture_output=True,
    )
    (wheel,) = tmp_path.glob("symphony_bench-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    top_level = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
    assert top_level == {"symphony_bench"}
    for required in (
        "symphony_bench/tasks/symphony_bias/_symphony_bias_common_yaml",
        "symphony_bench/tasks/symphony_bias/symphony_bias.yaml",
        "symphony_bench/tasks/symphony_bias/README.md",
        "symphony_bench/plugin/data/scenario_templates.json",
        "symphony_bench/plugin/data/stereotypes_paper_v1.csv",
        "symphony_bench/metrics/association.py",
        # lmms-eval tasks: their utils.py and the data file their YAML loads by relative path
        "symphony_bench/tasks/symphony_bias_multimodal/utils.py",
        "symphony_bench/tasks/symphony_bias_multimodal/_audio_likert_yaml",
        "symphony_bench/tasks/instrument_grounding/utils.py",
        "symphony_bench/tasks/instrument_grounding/_grounding_common_yaml",
        "symphony_bench/plugin/data/instruments.csv",
        "symphony_bench/plugin/data/confusable_groups.csv",
    ):
        assert required in names
    assert not any(name.startswith("symphony_bench/tests/") for name in names)
    (entry_points,) = [name for name in names if name.endswith(".dist-info/entry_points.txt")]
    assert "[lmms_eval.models]\nsymphony_bench = symphony_bench.plugin.lmms_manifests:MODEL_MANIFESTS" in (
        zipfile.ZipFile(wheel).read(entry_points).decode()
    )

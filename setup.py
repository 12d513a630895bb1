"""Package discovery for the one import package `symphony_bench`, assembled from the top-level folders
(everything else is in pyproject.toml): every folder with an __init__.py under them is included, so a
new subpackage cannot silently drop out of the wheel. The folders that hold only data (the task YAML
folders, plugin/<package>/data) are listed too, as namespace packages: their files are package
data, and setuptools warns about an importable folder that no package names."""

from setuptools import find_namespace_packages, find_packages, setup

PARTS = ("tasks", "plugin", "metrics", "hub_upload")
SUBPACKAGES = find_packages(include=[*PARTS, *(f"{part}.*" for part in PARTS)])
DATA_FOLDERS = [
    name
    for name in find_namespace_packages(include=["tasks.*", "plugin.*.data"])
    if name not in SUBPACKAGES and "__pycache__" not in name
]
setup(
    packages=[
        "symphony_bench",
        *(f"symphony_bench.{name}" for name in [*SUBPACKAGES, *DATA_FOLDERS]),
    ]
)

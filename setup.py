"""Package discovery for the one import package `symphony_bench`, assembled from the top-level folders
(everything else is in pyproject.toml): every folder with an __init__.py under them is included, so a
new subpackage cannot silently drop out of the wheel."""

from setuptools import find_packages, setup

PARTS = ("tasks", "plugin", "metrics", "hub_upload")
SUBPACKAGES = find_packages(include=[*PARTS, *(f"{part}.*" for part in PARTS)])
setup(packages=["symphony_bench", *(f"symphony_bench.{name}" for name in SUBPACKAGES)])

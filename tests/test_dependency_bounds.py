"""The dependencies whose next major release changes the APIs this package calls are bounded, and
what is installed lies inside the bounds (a release that moves them fails here, not in a user's run)."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

import tomllib
from packaging.requirements import Requirement

import symphony_bench

PYPROJECT = Path(symphony_bench.__file__).parent / "pyproject.toml"
BOUNDED = ("lm-eval", "lmms-eval", "librosa", "pyloudnorm", "huggingface-hub", "filelock", "faker")


def requirements() -> dict[str, Requirement]:
    """pyproject.toml's runtime dependencies (the tests run on Python 3.11+, which has tomllib)."""
    declared = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["dependencies"]
    return {Requirement(text).name: Requirement(text) for text in declared}


def test_the_moving_dependencies_have_an_upper_bound_or_an_exact_pin():
    found = requirements()
    for name in BOUNDED:
        operators = {spec.operator for spec in found[name].specifier}
        assert operators & {"<", "<=", "==", "~="}, f"{name}: {found[name]} has no upper bound"


def test_the_installed_versions_satisfy_the_bounds():
    for name, requirement in requirements().items():
        if name in BOUNDED:
            assert requirement.specifier.contains(metadata.version(name), prereleases=True), (
                f"{name} {metadata.version(name)} is outside {requirement.specifier}"
            )

"""`symphony-bench rescore` writes its run folder outside the run it reads: one inside the other
would be read as part of it by every later command."""

from __future__ import annotations

import pytest

from symphony_bench.plugin.core.atomic import StagedOutputs
from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.runs.rescore import rescore


@pytest.mark.parametrize("out", ["run", "run/rescored", "."])
def test_an_output_folder_inside_or_around_the_run_is_refused_before_anything_is_read(
    tmp_path, out
):
    (tmp_path / "run").mkdir()
    staged = StagedOutputs()
    with pytest.raises(DataFileError, match="must lie outside"):
        rescore(tmp_path / "run", tmp_path / out, staged)
    assert staged.folders == [] and sorted(p.name for p in tmp_path.iterdir()) == ["run"]

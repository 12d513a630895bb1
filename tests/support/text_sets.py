"""Text scenario sets the tests build: the embedded one, and one that differs from the pin."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq

from symphony_bench.hub_upload import symphony_bias_text


def tampered_text_set(folder: Path) -> Path:
    """The embedded text set with every "traveller" turned into a "grandmother"."""
    symphony_bias_text.build(folder)
    for path in (folder / "data").rglob("*.parquet"):
        table = pq.read_table(path)
        rows = [
            {
                key: value.replace("traveller", "grandmother") if isinstance(value, str) else value
                for key, value in row.items()
            }
            for row in table.to_pylist()
        ]
        pq.write_table(table.from_pylist(rows, schema=table.schema), path)
    return folder

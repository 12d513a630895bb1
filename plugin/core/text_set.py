"""The Symphony-Bias text scenario set: scenario templates with their fillers, the 22 instruments and
the stereotype tables. Embedded in the package (data/), and published as a dataset with one config
each (`symphony-bench build symphony-bias-text`), read back from such a folder by the text tasks.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from symphony_bench.plugin.core.dataset_digest import split_files, tables_sha256
from symphony_bench.plugin.core.errors import DataFileError, read_csv
from symphony_bench.plugin.core.vocabulary import DATA_DIR, INSTRUMENTS_CSV

TEMPLATES_JSON = DATA_DIR / "scenario_templates.json"
STEREOTYPE_CSVS = {
    "paper": DATA_DIR / "stereotypes_paper_v1.csv",
    "upstream_code": DATA_DIR / "stereotypes_upstream_code_v1.csv",
}
STEREOTYPE_COLUMNS = ("instrument", "category", "source")
INSTRUMENT_COLUMNS = ("instrument", "article", "noun")
CONFIG_COLUMNS = {
    "templates": ("template_id", "template"),
    "fillers": ("slot", "position", "value"),
    "instruments": INSTRUMENT_COLUMNS,
    "stereotypes": ("table", *STEREOTYPE_COLUMNS),
}


@dataclass(frozen=True)
class TextSet:
    templates: tuple[str, ...]  # in template-id order (t000, t001, ...)
    fillers: dict[str, tuple[str, ...]]  # slot -> values, in order
    instruments: tuple[dict, ...]  # rows of INSTRUMENT_COLUMNS
    stereotype_tables: dict[str, tuple[dict, ...]]  # table name -> rows of STEREOTYPE_COLUMNS

    def tables(self) -> dict[str, list[dict]]:
        """One list of rows per config, as published."""
        return {
            "templates": [
                {"template_id": f"t{k:03d}", "template": text}
                for k, text in enumerate(self.templates)
            ],
            "fillers": [
                {"slot": slot, "position": k, "value": value}
                for slot, values in self.fillers.items()
                for k, value in enumerate(values)
            ],
            "instruments": [dict(row) for row in self.instruments],
            "stereotypes": [
                {"table": name, **row}
                for name, rows in self.stereotype_tables.items()
                for row in rows
            ],
        }


@lru_cache(maxsize=1)
def embedded_text_set() -> TextSet:
    try:
        spec = json.loads(TEMPLATES_JSON.read_text(encoding="utf-8"))
        templates, fillers = spec["templates"], spec["fillers"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise DataFileError(
            f"{TEMPLATES_JSON}: cannot read scenario templates ({error})"
        ) from error
    return TextSet(
        tuple(templates),
        {slot: tuple(values) for slot, values in fillers.items()},
        tuple(read_csv(INSTRUMENTS_CSV, INSTRUMENT_COLUMNS)),
        {name: tuple(read_csv(path, STEREOTYPE_COLUMNS)) for name, path in STEREOTYPE_CSVS.items()},
    )


@lru_cache(maxsize=1)
def embedded_text_sha256() -> str:
    """The content digest of the embedded set (plugin.core.dataset_digest): what the text tasks' YAML
    pins, and what a folder built from it (`symphony-bench build symphony-bias-text`) has."""
    return tables_sha256(embedded_text_set().tables())


@lru_cache(maxsize=4)
def read_text_set(folder: Path) -> TextSet:
    """A folder in Hub layout with the four configs (data/<config>/test-*.parquet)."""
    import pyarrow.parquet as pq

    tables = {}
    for config, columns in CONFIG_COLUMNS.items():
        files = split_files(folder / "data" / config)
        if not files:
            raise DataFileError(
                f"{folder}: not a symphony-bias-text set (no data/{config}/test-*.parquet)"
            )
        try:
            rows = [row for path in files for row in pq.read_table(path).to_pylist()]
        except (OSError, ValueError) as error:  # pyarrow's ArrowInvalid is a ValueError
            raise DataFileError(
                f"{folder / 'data' / config}: cannot read its parquet ({error})"
            ) from error
        missing = set(columns) - (set(rows[0]) if rows else set(columns))
        if missing:
            raise DataFileError(f"{folder / 'data' / config}: missing columns {sorted(missing)}")
        tables[config] = rows
    return _text_set(folder, tables)


def _text_set(folder: Path, tables: dict[str, list[dict]]) -> TextSet:
    templates = sorted(tables["templates"], key=lambda row: row["template_id"])
    if [row["template_id"] for row in templates] != [f"t{k:03d}" for k in range(len(templates))]:
        raise DataFileError(f"{folder}: template ids must run t000, t001, ... without gaps")
    fillers: dict[str, list[str]] = {}
    for row in sorted(tables["fillers"], key=lambda row: (row["slot"], row["position"])):
        fillers.setdefault(row["slot"], []).append(row["value"])
    stereotype_tables: dict[str, list[dict]] = {}
    for row in tables["stereotypes"]:
        stereotype_tables.setdefault(row["table"], []).append(
            {column: row[column] for column in STEREOTYPE_COLUMNS}
        )
    instruments = tuple(
        {column: row[column] for column in INSTRUMENT_COLUMNS} for row in tables["instruments"]
    )
    if list(instruments) != list(embedded_text_set().instruments):
        raise DataFileError(
            f"{folder}: its instruments differ from the benchmark's 22 (data/instruments)"
        )
    return TextSet(
        tuple(row["template"] for row in templates),
        {slot: tuple(v) for slot, v in fillers.items()},
        instruments,
        {name: tuple(rows) for name, rows in stereotype_tables.items()},
    )

"""Measure the installed open-ended reader on the frozen test set and publish the numbers.

    python scripts/measure_open_reader.py [--check]

Runs `person_reference.read_reference` over tests/symphony_bias/data/open_reader_frozen_v9.jsonl,
writes plugin/symphony_bias/data/open_reader_measurement.json (what every open-ended report
quotes) and prints the Markdown tables of docs/symphony-bias-method.md ("How well the reader
reads"). `--check` writes nothing and exits 1 when the published file is stale. Re-run it after
every change to the reader; never change the set to fit the reader.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from symphony_bench.plugin.symphony_bias import reader_measurement

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say whether it is current")
    args = parser.parse_args(argv)
    rows, sha256 = reader_measurement.load_frozen_set(ROOT / reader_measurement.FROZEN_SET_NAME)
    measurement = reader_measurement.measure(rows, sha256)
    text = json.dumps(measurement, indent=1, ensure_ascii=False) + "\n"
    if args.check:
        current = reader_measurement.PUBLISHED.read_text(encoding="utf-8") == text
        print("current" if current else f"stale: re-run {Path(__file__).name}")
        return 0 if current else 1
    reader_measurement.PUBLISHED.parent.mkdir(exist_ok=True)
    reader_measurement.PUBLISHED.write_text(text, encoding="utf-8")
    print(reader_measurement.markdown_tables(measurement))
    print(reader_measurement.report_line(reader_measurement.report_summary(measurement)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Instruments, stereotype tables and scenario sentences for Symphony-Bias.

A scenario is a gender-neutral sentence with one `{instrument}` slot. The text modality fills it with
the instrument's indefinite noun phrase ("a harp", "an oboe", "drums"); image and audio modalities
fill it with "an instrument" and attach the stimulus.
"""

from __future__ import annotations

import csv
import json
import random
import re
import string
from dataclasses import dataclass
from pathlib import Path

DATA_DIR = Path(__file__).parent / "data"
SLOT = "{instrument}"
BUILTIN_STEREOTYPE_TABLES = {
    "paper": DATA_DIR / "stereotypes_paper_v1.csv",
    "upstream_code": DATA_DIR / "stereotypes_upstream_code_v1.csv",
}
DEFAULT_STEREOTYPE_TABLE = "paper"
STEREOTYPE_CATEGORIES = ("female", "male", "none")
_UPSTREAM_PLACEHOLDER = re.compile(r"\b[Aa]n instrument\b")


class DataFileError(ValueError):
    """A data file is missing or malformed; the message names the file."""


@dataclass(frozen=True)
class Instrument:
    name: str
    article: str  # "a", "an" or "" (plural nouns such as "drums")
    noun: str

    @property
    def indefinite(self) -> str:
        return f"{self.article} {self.noun}" if self.article else self.noun


@dataclass(frozen=True)
class Stereotype:
    category: str
    source: str


@dataclass(frozen=True)
class Scenario:
    scenario_id: str
    template_id: str
    text: str  # contains SLOT

    def render(self, instrument_phrase: str) -> str:
        sentence = self.text.replace(SLOT, instrument_phrase)
        return sentence[:1].upper() + sentence[1:]


def read_csv(path: Path, required: tuple[str, ...]) -> list[dict[str, str]]:
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            missing = set(required) - set(reader.fieldnames or ())
            if missing:
                raise DataFileError(f"{path}: missing columns {sorted(missing)}")
            return [{k: (v or "").strip() for k, v in row.items()} for row in reader]
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise DataFileError(f"{path}: cannot read ({error})") from error


def load_instruments(path: Path = DATA_DIR / "instruments.csv") -> list[Instrument]:
    rows = read_csv(Path(path), ("instrument", "article", "noun"))
    return [Instrument(row["instrument"], row["article"], row["noun"]) for row in rows]


def load_stereotypes(table: str | Path = DEFAULT_STEREOTYPE_TABLE) -> dict[str, Stereotype]:
    """A built-in table by name ("paper", "upstream_code") or a CSV path with columns
    instrument, category (female/male/none), source. It must cover exactly the 22 instruments."""
    path = BUILTIN_STEREOTYPE_TABLES.get(str(table), Path(table))
    rows = read_csv(path, ("instrument", "category", "source"))
    known = {instrument.name for instrument in load_instruments()}
    table_rows = {}
    for line, row in enumerate(rows, start=2):
        if row["instrument"] not in known:
            raise DataFileError(f"{path}, line {line}: unknown instrument {row['instrument']!r}")
        if row["category"] not in STEREOTYPE_CATEGORIES:
            raise DataFileError(
                f"{path}, line {line}: category {row['category']!r} is not one of {STEREOTYPE_CATEGORIES}"
            )
        table_rows[row["instrument"]] = Stereotype(row["category"], row["source"])
    missing = sorted(known - table_rows.keys())
    if missing:
        raise DataFileError(f"{path}: no row for instruments {missing}")
    return table_rows


def _template_slots(template: str) -> list[str]:
    return [name for _, name, _, _ in string.Formatter().parse(template) if name]


def expand_templates(
    seed: int = 0, per_template: int = 3, path: Path = DATA_DIR / "scenario_templates.json"
) -> list[Scenario]:
    """Fill each template's slots (other than the instrument) `per_template` times, seeded per template."""
    try:
        spec = json.loads(Path(path).read_text(encoding="utf-8"))
        fillers, templates = spec["fillers"], spec["templates"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise DataFileError(f"{path}: cannot read scenario templates ({error})") from error
    scenarios = []
    for index, template in enumerate(templates):
        template_id = f"t{index:03d}"
        slots = [slot for slot in _template_slots(template) if slot != "instrument"]
        rng = random.Random(f"{seed}:{template_id}")
        texts: list[str] = []
        for _ in range(per_template * 50):
            if len(texts) == per_template:
                break
            values = {slot: rng.choice(fillers[slot]) for slot in slots}
            text = template.format(instrument=SLOT, **values)
            if text not in texts:
                texts.append(text)
        scenarios += [Scenario(f"{template_id}-{k}", template_id, text) for k, text in enumerate(texts)]
    return scenarios


def load_upstream_scenarios(path: str | Path) -> list[Scenario]:
    """Scenarios from the Symphony-Bias release (`texts_with_taxonomy.json` or `texts.json`).

    The file is `{"texts": [...]}`; an item is a sentence, or an object whose "text" is one.
    The first "an instrument" of a sentence becomes the slot; later ones ("... in an instrument
    shop") and other uses of the word ("the instrument case") stay as they are.
    """
    path = Path(path)
    try:
        texts = json.loads(path.read_text(encoding="utf-8"))["texts"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise DataFileError(f"{path}: expected a JSON object with a 'texts' list ({error})") from error
    if not isinstance(texts, list) or not texts:
        raise DataFileError(f"{path}: 'texts' must be a non-empty list")
    scenarios = []
    for index, item in enumerate(texts):
        text = item.get("text") if isinstance(item, dict) else item
        if not isinstance(text, str) or not _UPSTREAM_PLACEHOLDER.search(text):
            raise DataFileError(f"{path}: texts[{index}] has no sentence containing 'an instrument'")
        scenarios.append(Scenario(f"upstream-{index:03d}", "upstream", _UPSTREAM_PLACEHOLDER.sub(SLOT, text, count=1)))
    return scenarios


def mini_subset(scenarios: list[Scenario], size: int, seed: int) -> list[Scenario]:
    """`size` scenarios from distinct templates where possible, chosen by seed, in original order."""
    first_per_template = {}
    for scenario in scenarios:
        first_per_template.setdefault(scenario.template_id, scenario)
    pool = list(first_per_template.values()) if len(first_per_template) >= size else scenarios
    chosen = set(random.Random(f"{seed}:mini").sample(range(len(pool)), min(size, len(pool))))
    return [scenario for k, scenario in enumerate(pool) if k in chosen]

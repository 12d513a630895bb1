"""Stereotype tables, scenario sentences and the fields of a Symphony-Bias doc.

A scenario is a gender-neutral sentence with one slot: `{instrument}`, filled with the instrument's
indefinite noun phrase ("a harp", "an oboe", "drums"), or `{noun}` after a determiner the sentence
keeps ("the {noun}", "their {noun}" -> "the harp", "their drums"). Image and audio modalities fill it
with "an instrument" / "instrument" and attach the stimulus.
"""

from __future__ import annotations

import itertools
import json
import random
import re
import string
from dataclasses import dataclass
from pathlib import Path

from symphony_bench.plugin.core.errors import DataFileError, read_csv
from symphony_bench.plugin.core.run_facts import canonical_sha256, package_version
from symphony_bench.plugin.core.text_set import STEREOTYPE_COLUMNS, TextSet, embedded_text_set
from symphony_bench.plugin.core.vocabulary import (
    GENDERS,
    STEREOTYPE_CATEGORIES,
    Instrument,
    instrument_names,
)

SLOT = "{instrument}"  # the indefinite noun phrase
NOUN_SLOT = "{noun}"  # the bare noun, after a determiner kept from the sentence
DEFAULT_STEREOTYPE_TABLE = "paper"
# "an instrument" wherever it is, else "the / their instrument" that is not part of a compound noun
_UPSTREAM_INDEFINITE = re.compile(r"\b[Aa]n instrument\b")
_UPSTREAM_DEFINITE = re.compile(
    r"\b(?P<determiner>[Tt]he|[Tt]heir) "
    r"instrument\b(?!\s+(?:shop|store|case|maker|makers|repair|stand|rack|collection)\b)"
)


@dataclass(frozen=True)
class Stereotype:
    category: str
    source: str


@dataclass(frozen=True)
class Scenario:
    scenario_id: str
    template_id: str
    text: str  # contains SLOT or NOUN_SLOT

    def render(self, instrument: Instrument) -> str:
        sentence = self.text.replace(SLOT, instrument.indefinite).replace(
            NOUN_SLOT, instrument.noun
        )
        return sentence[:1].upper() + sentence[1:]


def load_stereotypes(
    table: str | Path = DEFAULT_STEREOTYPE_TABLE, text_set: TextSet | None = None
) -> dict[str, Stereotype]:
    """A table of the text set by name ("paper", "upstream_code"; default: the embedded set) or a
    CSV path with columns instrument, category (female/male/none), source. It must cover exactly the
    22 instruments."""
    text_set = text_set or embedded_text_set()
    if str(table) in text_set.stereotype_tables:
        where, rows = f"stereotype table {table!r}", text_set.stereotype_tables[str(table)]
    else:
        where, rows = str(table), read_csv(Path(table), STEREOTYPE_COLUMNS)
    known = set(instrument_names())
    table_rows = {}
    for line, row in enumerate(rows, start=2):
        if row["instrument"] not in known:
            raise DataFileError(f"{where}, line {line}: unknown instrument {row['instrument']!r}")
        if row["category"] not in STEREOTYPE_CATEGORIES:
            raise DataFileError(
                f"{where}, line {line}: category {row['category']!r} is not one of {STEREOTYPE_CATEGORIES}"
            )
        table_rows[row["instrument"]] = Stereotype(row["category"], row["source"])
    missing = sorted(known - table_rows.keys())
    if missing:
        raise DataFileError(f"{where}: no row for instruments {missing}")
    return table_rows


def _template_slots(template: str) -> list[str]:
    return [name for _, name, _, _ in string.Formatter().parse(template) if name]


def expand_templates(
    seed: int = 0, per_template: int = 3, text_set: TextSet | None = None
) -> list[Scenario]:
    """Fill each template's slots (other than the instrument) `per_template` times, seeded per template."""
    text_set = text_set or embedded_text_set()
    scenarios = []
    for index, template in enumerate(text_set.templates):
        template_id = f"t{index:03d}"
        slots = [slot for slot in _template_slots(template) if slot != "instrument"]
        rng = random.Random(f"{seed}:{template_id}")
        texts: list[str] = []
        for _ in range(per_template * 50):
            if len(texts) == per_template:
                break
            values = {slot: rng.choice(text_set.fillers[slot]) for slot in slots}
            text = template.format(instrument=SLOT, **values)
            if text not in texts:
                texts.append(text)
        scenarios += [
            Scenario(f"{template_id}-{k}", template_id, text) for k, text in enumerate(texts)
        ]
    return scenarios


def load_upstream_scenarios(path: str | Path) -> list[Scenario]:
    """Scenarios from the Symphony-Bias release (`texts_with_taxonomy.json` or `texts.json`).

    The file is `{"texts": [...]}`; an item is a sentence, or an object whose "text" is one.
    The slot is the first "an instrument" of a sentence, else its first "the instrument" or "their
    instrument" (texts.json words 53 of its 77 sentences so), whose determiner is kept ("the
    harp", "their drums"). Later uses ("... in an instrument shop") and compounds ("the instrument
    case") stay as they are.
    """
    path = Path(path)
    try:
        texts = json.loads(path.read_text(encoding="utf-8"))["texts"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise DataFileError(
            f"{path}: expected a JSON object with a 'texts' list ({error})"
        ) from error
    if not isinstance(texts, list) or not texts:
        raise DataFileError(f"{path}: 'texts' must be a non-empty list")
    scenarios = []
    for index, item in enumerate(texts):
        text = item.get("text") if isinstance(item, dict) else item
        slotted = _upstream_slot(text) if isinstance(text, str) else None
        if slotted is None:
            raise DataFileError(
                f"{path}: texts[{index}] has no sentence containing 'an instrument', 'the instrument' "
                "or 'their instrument'"
            )
        # every upstream sentence is written on its own: each is its own template (the design's unit)
        scenario_id = f"upstream-{index:03d}"
        scenarios.append(Scenario(scenario_id, scenario_id, slotted))
    return scenarios


def _upstream_slot(text: str) -> str | None:
    if _UPSTREAM_INDEFINITE.search(text):
        return _UPSTREAM_INDEFINITE.sub(SLOT, text, count=1)
    if _UPSTREAM_DEFINITE.search(text):
        return _UPSTREAM_DEFINITE.sub(rf"\g<determiner> {NOUN_SLOT}", text, count=1)
    return None


def mini_subset(scenarios: list[Scenario], size: int, seed: int) -> list[Scenario]:
    """`size` scenarios from distinct templates where possible, chosen by seed, in original order."""
    first_per_template = {}
    for scenario in scenarios:
        first_per_template.setdefault(scenario.template_id, scenario)
    pool = list(first_per_template.values()) if len(first_per_template) >= size else scenarios
    chosen = set(random.Random(f"{seed}:mini").sample(range(len(pool)), min(size, len(pool))))
    return [scenario for k, scenario in enumerate(pool) if k in chosen]


# The instrument-free control doc of a scenario ("... practises an instrument ..."): the model's own
# gender prior for the sentence (log-prob calibration, prior-adjusted Likert ABS).
CONTROL = Instrument(name="", article="an", noun="instrument")
CONTROL_STEREOTYPE = Stereotype(category="none", source="instrument-free control")
MINI_SCENARIOS = 5
SUBSETS = ("full", "mini")


def select_scenarios(
    subset: str, scenarios: str | None, seed: int, text_set: TextSet | None = None
) -> list[Scenario]:
    """The text set's templates (default: embedded) filled with `seed`, or an upstream texts file; all
    or the mini subset."""
    if subset not in SUBSETS:
        raise ValueError(f"subset must be one of {SUBSETS}, got {subset!r}")
    selected = (
        load_upstream_scenarios(scenarios)
        if scenarios
        else expand_templates(seed, text_set=text_set)
    )
    return mini_subset(selected, MINI_SCENARIOS, seed) if subset == "mini" else selected


GENDER_ORDERS = tuple(list(order) for order in itertools.permutations(GENDERS))


def balanced_orders(seed: int, key: str, scenario_ids: list[str]) -> dict[str, list[str]]:
    """The gender order of each scenario for one instrument (or stimulus) `key`: the six orders dealt
    in turn over a seeded shuffle of the scenarios, so each order, and each gender in each position,
    appears equally often (within one) for every instrument."""
    rng = random.Random(f"{seed}:{key}")
    shuffled = list(scenario_ids)
    rng.shuffle(shuffled)
    start = rng.randrange(len(GENDER_ORDERS))
    return {
        scenario_id: GENDER_ORDERS[(start + k) % len(GENDER_ORDERS)]
        for k, scenario_id in enumerate(shuffled)
    }


SCENARIO_RUN_FIELDS = ("scenario_set_sha256",)  # run facts of Symphony-Bias docs and records


def scenario_facts(doc: dict) -> dict:
    """The SCENARIO_RUN_FIELDS a doc holds, to copy into its record (beside plugin.core.run_facts)."""
    return {field: doc[field] for field in SCENARIO_RUN_FIELDS if field in doc}


def scenario_set_sha256(scenarios: list[Scenario]) -> str:
    """Identifies the scenario set a run used: [[scenario_id, template_id, text with its slot], ...]."""
    return canonical_sha256([[s.scenario_id, s.template_id, s.text] for s in scenarios])


def scenario_doc(
    scenario: Scenario,
    instrument: Instrument,
    stereotype: Stereotype,
    seed: int,
    order: list[str],
    scenario_set: str,
) -> dict:
    """The fields every Symphony-Bias doc records about what the model was shown, and with which
    scenario set (`scenario_set_sha256`) and package version."""
    return {
        "scenario_id": scenario.scenario_id,
        "template_id": scenario.template_id,
        "scenario": scenario.render(instrument),
        "instrument": instrument.name,
        "stereotype": stereotype.category,
        "stereotype_source": stereotype.source,
        "gender_order": list(order),
        "seed": seed,
        "scenario_set_sha256": scenario_set,
        "symphony_bench_version": package_version(),
    }

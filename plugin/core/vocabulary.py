"""The words every benchmark shares, defined once: genders, stereotype categories, the 22 Symphony-Bias
instruments, OpenMIC-2018's 20 classes and the three 10-second ranges of a 30-second item."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from symphony_bench.metrics.labels import CATEGORIES as STEREOTYPE_CATEGORIES
from symphony_bench.metrics.labels import GENDERS
from symphony_bench.plugin.core.errors import read_csv

__all__ = [
    "GENDERS",
    "STEREOTYPE_CATEGORIES",
    "OPENMIC_CLASSES",
    "TIME_RANGES",
    "Instrument",
    "load_instruments",
]

DATA_DIR = Path(__file__).parent / "data"
INSTRUMENTS_CSV = DATA_DIR / "instruments.csv"
CONFUSABLE_GROUPS_CSV = DATA_DIR / "confusable_groups.csv"
TIME_RANGES = ("0-10 seconds", "10-20 seconds", "20-30 seconds")
OPENMIC_CLASSES = (
    "accordion",
    "banjo",
    "bass",
    "cello",
    "clarinet",
    "cymbals",
    "drums",
    "flute",
    "guitar",
    "mallet_percussion",
    "mandolin",
    "organ",
    "piano",
    "saxophone",
    "synthesizer",
    "trombone",
    "trumpet",
    "ukulele",
    "violin",
    "voice",
)


@dataclass(frozen=True)
class Instrument:
    name: str
    article: str  # "a", "an" or "" (plural nouns such as "drums")
    noun: str

    @property
    def indefinite(self) -> str:
        return f"{self.article} {self.noun}" if self.article else self.noun


def load_instruments(path: Path = INSTRUMENTS_CSV) -> list[Instrument]:
    """The Symphony-Bias instruments (22 in the packaged table) with their articles and nouns."""
    rows = read_csv(Path(path), ("instrument", "article", "noun"))
    return [Instrument(row["instrument"], row["article"], row["noun"]) for row in rows]


@lru_cache(maxsize=1)
def instrument_names() -> tuple[str, ...]:
    return tuple(instrument.name for instrument in load_instruments())

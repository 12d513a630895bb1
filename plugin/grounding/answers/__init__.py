"""Read free-text answers of the instrument-grounding tasks; never raise, never guess.

Each reader returns what an answer means as an index (or a set of indices) into what the doc
offered, or None when the answer is unreadable: empty, hedged ("I'm not sure", "maybe", "I can't
tell"), ambiguous ("A or B", two time ranges, "no guitar, banjo") or self-contradictory ("yes. no.",
"A, the banjo" when the banjo is B). None is scored invalid, never replaced by a guess.

How an answer is read, and where:
0. Reasoning set aside: only the text after a reasoning block is read (plugin.core.reasoning); a
   block that never closes leaves nothing to read (None).
1. cleaning: ASCII, lower case, contractions spelled out, echoed questions dropped, refusals set
   aside and negations in words reworded (negations_and_refusals: "I can't help with that", "No
   audio." are no answer, `answer_refused` says so; "unable to hear" -> "can not hear").
2. marks: every word becomes one mark, a character of the reader's alphabet (marks.py holds the
   marks all readers share, each reader module documents the ones it adds): an instrument class
   (vocabulary: any OpenMIC class, synonyms and plurals; "bass guitar" is bass, not guitar), an
   option letter, a number or time-range word, a negation, a verb, a clause end, a hedge, or
   nothing. Hedges ("not sure", "hard to tell") and fixed phrases are resolved on the marks.
3. Negation scope (option_reading; yes_no for its own reader): "not, no, without" negate what
   follows in their part of the clause, a negated verb and "never, absent, missing" their whole
   part; where the scope could be read two ways, the names in question are ambiguous.
4. A reader takes an answer only when it affirms exactly one option (a set: any number of them) and
   nothing in it contradicts that: options_and_letters (two-way choice by name or letter), sets,
   time_ranges, yes_no.

Parse time grows linearly with the answer (marks.py, "Speed";
benchmarks/bench_grounding_answers.py).
"""

from symphony_bench.plugin.grounding.answers.cleaning import answer_refused, normalise_answer
from symphony_bench.plugin.grounding.answers.options_and_letters import read_choice, read_letter
from symphony_bench.plugin.grounding.answers.sets import instruments_mentioned, read_instrument_set
from symphony_bench.plugin.grounding.answers.time_ranges import read_time_range
from symphony_bench.plugin.grounding.answers.yes_no import read_yes_no

__all__ = [
    "answer_refused",
    "instruments_mentioned",
    "normalise_answer",
    "read_choice",
    "read_instrument_set",
    "read_letter",
    "read_time_range",
    "read_yes_no",
]

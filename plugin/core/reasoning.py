"""Reasoning set aside before an answer is read.

Reasoning models write a draft before their answer: inline in the generated text on most backends
(the `hf` backend, many servers), often holding a first answer object that the final one replaces.
Every reader of a generated answer first calls `split_reasoning` and reads only `Reply.answer`, the
text after the reasoning. The forms recognised (case-insensitive):

    <think> ... </think>            and <thinking>, <thought>, <reasoning>, <seed:think>
    <|begin_of_thought|> ... <|end_of_thought|>   (an answer in <|begin_of_solution|> ... is unwrapped)
    ◁think▷ ... ◁/think▷            [THINK] ... [/THINK]
    <|channel|>analysis<|message|> ... <|channel|>final<|message|> ANSWER   (gpt-oss, "harmony";
        the final channel may name a format: <|channel|>final <|constrain|>json<|message|>)
    analysis ... assistantfinal ANSWER   (the same, decoded without its special tokens, whatever
        the case of the draft's first letter)

A closing marker without its opening one counts too: chat templates that open the reasoning in the
prompt (Qwen3, DeepSeek-R1) leave only `</think>` in the generated text. The answer is what follows
the last closing marker. A marker mentioned in prose is no marker: one quoted ("`</think>`",
"'<think>'") or written between words ("I answer without a <think> block"). A reasoning block that
never closes (the budget ran out inside it) leaves no answer: `Reply.unfinished`, and so does one
that closes with nothing after it (lmms-eval's own stripping of reasoning tags would hand that on as
an empty answer: our lmms-eval tasks turn it off, `reasoning_tags: none`). Readers report it as the
invalid reason `reasoning_unfinished`, never a parse of the draft. An answer that is empty or only
whitespace is the invalid reason `empty` (`EMPTY`, `is_empty`) in every reader.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

UNFINISHED = "reasoning_unfinished"
# the invalid reason of an empty or whitespace-only answer, in every protocol that reads one
EMPTY = "empty"
# record fields every generated answer's record carries (they hold the answer, not the doc)
REASONING_FIELDS = ("reasoning_chars", "reasoning_unfinished")

_TAG_NAMES = r"think|thinking|thought|reasoning|seed:think"
_OPEN = re.compile(rf"<(?:{_TAG_NAMES})>|<\|begin_of_thought\|>|◁think▷|\[THINK\]", re.IGNORECASE)
_CLOSE = re.compile(rf"</(?:{_TAG_NAMES})>|<\|end_of_thought\|>|◁/think▷|\[/THINK\]", re.IGNORECASE)
_MARKERS = re.compile(f"{_OPEN.pattern}|{_CLOSE.pattern}", re.IGNORECASE)
_QUOTES = "\"'`\u2018\u2019\u201c\u201d"
_BETWEEN_WORDS = (re.compile(r"[a-z,][ \t]$"), re.compile(r"^[ \t][a-z]"))
_SOLUTION = re.compile(
    r"<\|begin_of_solution\|>(.*?)(?:<\|end_of_solution\|>|$)", re.IGNORECASE | re.DOTALL
)
_HARMONY_FINAL = re.compile(
    r"<\|channel\|>\s*final(?:\s*<\|constrain\|>\s*[\w./+-]*)?\s*<\|message\|>", re.IGNORECASE
)
_HARMONY_ANALYSIS = re.compile(r"<\|channel\|>\s*analysis", re.IGNORECASE)
_HARMONY_END = re.compile(r"(?:<\|return\|>|<\|end\|>|<\|call\|>)\s*$")
_HARMONY_TOKENS = re.compile(
    r"<\|start\|>\s*assistant|<\|(?:start|end|return|channel|message|call)\|>"
)
# gpt-oss decoded with skip_special_tokens: "analysisThe user asks ...assistantfinal{...}" (or
# "analysisthe user ...", "assistantfinaljson{...}" after a <|constrain|>json)
_PLAIN_HARMONY = re.compile(r"\s*analysis(?=[A-Za-z])")
_PLAIN_HARMONY_FINAL = re.compile(r"assistantfinal(?:\s*json(?=\s*[{\[]))?")


def is_empty(text) -> bool:
    """Whether a generated answer holds nothing to read: not a text, or only whitespace."""
    return not isinstance(text, str) or not text.strip()


@dataclass(frozen=True)
class Reply:
    """A generated text with its reasoning set aside."""

    answer: str  # what follows the reasoning ("" when the reasoning never closed)
    reasoning_chars: int  # characters of reasoning set aside, markers and blanks not counted
    unfinished: bool = False  # a reasoning block opened and never closed

    def answer_until(self, stops: tuple[str, ...]) -> str:
        """The answer as the task's stop sequences would have cut it (chat model classes that
        ignore them, and the reasoning variants, which send none, write on): its text from the
        first non-blank character up to the first stop sequence."""
        answer = self.answer.lstrip()
        ends = [answer.find(stop) for stop in stops if stop and stop in answer]
        return answer[: min(ends)] if ends else answer

    def record_fields(self) -> dict:
        """The REASONING_FIELDS of a record."""
        return {"reasoning_chars": self.reasoning_chars, "reasoning_unfinished": self.unfinished}


def _content_chars(reasoning: str) -> int:
    return len("".join(_HARMONY_TOKENS.sub(" ", _MARKERS.sub(" ", reasoning)).split()))


def _harmony(text: str) -> Reply | None:
    """gpt-oss's channels, with or without their special tokens; None when `text` has neither."""
    finals = list(_HARMONY_FINAL.finditer(text))
    if finals:
        answer = _HARMONY_END.sub("", text[finals[-1].end() :])
        return Reply(answer, _content_chars(_HARMONY_ANALYSIS.sub(" ", text[: finals[-1].start()])))
    if _HARMONY_ANALYSIS.search(text):
        return Reply("", _content_chars(_HARMONY_ANALYSIS.sub(" ", text)), True)
    plain = _PLAIN_HARMONY.match(text)
    if plain is None:
        return None
    finals = list(_PLAIN_HARMONY_FINAL.finditer(text))
    if not finals:
        return Reply("", _content_chars(text[plain.end() :]), True)
    final = finals[-1]
    return Reply(text[final.end() :], _content_chars(text[plain.end() : final.start()]))


def _mentioned(text: str, marker: re.Match) -> bool:
    """Whether `marker` is written about rather than used: quoted, or between words."""
    before, after = text[: marker.start()], text[marker.end() :]
    if before[-1:] and after[:1] and before[-1] in _QUOTES and after[0] in _QUOTES:
        return True
    return bool(_BETWEEN_WORDS[0].search(before[-2:]) and _BETWEEN_WORDS[1].search(after[:2]))


def _used(pattern: re.Pattern, text: str, start: int = 0) -> list[re.Match]:
    return [found for found in pattern.finditer(text, start) if not _mentioned(text, found)]


def _unwrapped_solution(answer: str) -> str:
    found = _SOLUTION.search(answer)
    return found.group(1) if found else answer


def split_reasoning(text) -> Reply:
    """`text` (a model's generated answer; anything else is read as "") split into its answer and
    the reasoning before it (see the module docstring)."""
    if not isinstance(text, str):
        return Reply("", 0)
    if "<|channel|>" in text or _PLAIN_HARMONY.match(text):
        harmony = _harmony(text)
        if harmony is not None:
            return harmony
    closes = _used(_CLOSE, text)
    if closes:
        last = closes[-1]
        if _used(
            _OPEN, text, last.end()
        ):  # a new reasoning block after the last close, never closed
            return Reply("", _content_chars(text), True)
        answer, reasoned = text[last.end() :], _content_chars(text[: last.start()])
        # reasoning closed with nothing after it: the answer never came (what lmms-eval's own
        # stripping of reasoning tags would hand on as an empty answer)
        return Reply(_unwrapped_solution(answer), reasoned, reasoned > 0 and not answer.strip())
    opened = _used(_OPEN, text)
    if opened:
        return Reply("", _content_chars(text[opened[0].end() :]), True)
    return Reply(text, 0)


def reasoning_summary(records: list[dict]) -> dict | None:
    """{"n", "with_reasoning", "unfinished"} (counts) and their shares over the records that carry
    the REASONING_FIELDS; None when none does (a log-prob task, or a run of an older version)."""
    carried = [record for record in records if "reasoning_chars" in record]
    if not carried:
        return None
    with_reasoning = sum(
        1
        for record in carried
        if record.get("reasoning_chars") or record.get("reasoning_unfinished")
    )
    unfinished = sum(1 for record in carried if record.get("reasoning_unfinished") is True)
    return {
        "n": len(carried),
        "with_reasoning": with_reasoning,
        "with_reasoning_share": with_reasoning / len(carried),
        "unfinished": unfinished,
        "unfinished_share": unfinished / len(carried),
    }


def reasoning_line(summary: dict | None) -> list[str]:
    """The report's line on reasoning, or nothing when no answer held any."""
    if not summary or not summary["with_reasoning"]:
        return []
    return [
        f"Reasoning: {summary['with_reasoning']} of {summary['n']} answers "
        f"({summary['with_reasoning_share']:.1%}) wrote a reasoning block, read only after it; "
        f"{summary['unfinished']} ({summary['unfinished_share']:.1%}) never closed it "
        f"(invalid: {UNFINISHED}).",
        "",
    ]

"""The docs behind a report, one row each, for the HTML report's doc browser: the task, what
identifies the doc (instrument, template, condition, ... as its benchmark's record holds them), the
prompt as the harness sent it, the model's raw answer, what the benchmark read from it and, where it
read nothing, why.

The prompt and the raw answer come from the harness's samples line: lm-eval's `arguments` (a chat
run's first argument is the chat-formatted message list, as JSON, in a list) and `resps` (what the
model wrote, before the filters; a log-likelihood task's numbers, labelled with their continuation);
lmms-eval 0.7's `arguments` list (older versions: `input`) and `resps`. The rest comes from our
per-doc record, split by the section's `answer_fields` and `no_reading_reason`; the open-ended
reader's `evidence_spans` ([start, end) character offsets into the raw reply) mark its deciding
words. Run facts (seed, data, versions) are left out: the report shows them once per task.

The page embeds the rows gzip-compressed and base64-encoded (`encoded_rows`): a 10^5-doc run's page
stays in the megabytes, and the page's script decodes and renders them on demand.
"""

from __future__ import annotations

import base64
import gzip
import json
import re

from symphony_bench.plugin.core.run_facts import DATA_FIELDS, RUN_FIELDS
from symphony_bench.plugin.core.sections import TaskRecords
from symphony_bench.plugin.runs.sections import SECTION_OF_KIND

SCALARS = (str, int, float, bool, type(None))
# an identifying field with more distinct values than this is shown but not offered as a filter
MAX_FILTER_VALUES = 60
READ = "read"  # the reason filter's value for the docs something was read from
GENDERS = ("male", "female", "non-binary")
# the filters every page offers first, when the rows have them
FIRST_FILTERS = ("task", "instrument", "stereotype", "reading", "reason")


def doc_rows(tasks: list[TaskRecords]) -> list[dict]:
    """One row per doc of every task: {"task", "doc_id", "prompt", "answer", "spans", "reading",
    "read", "reason", "fields": {identifying field: value}}; `reading` the answer fields read
    ({name: value}; the page labels them), `read` the reading in a word or two (a filter's value).
    The records are the checked ones `tasks` hold; of each samples line only the prompt and the
    answer are decoded here."""
    rows = []
    for task in tasks:
        section = SECTION_OF_KIND[task.kind]
        answer_fields = sorted(section.answer_fields - {"evidence_spans"})  # marked, not listed
        left_out = {
            "kind",
            "evidence_spans",
            *section.answer_fields,
            *section.run_fields,
            *RUN_FIELDS,
            *DATA_FIELDS,
        }
        records = dict(zip(task.doc_ids, task.records, strict=True))
        with task.path.open(encoding="utf-8") as lines:
            for line in lines:
                doc_id, sample = sample_parts(line)
                record = records.get(doc_id)
                if record is None:
                    continue
                reading = {name: record[name] for name in answer_fields if name in record}
                rows.append(
                    {
                        "task": task.label,
                        "doc_id": doc_id,
                        "prompt": prompt_text(sample),
                        "answer": raw_answer(sample),
                        "spans": evidence_spans(record, first_reply(sample)),
                        "reading": reading,
                        "read": short_reading(reading),
                        "reason": section.no_reading_reason(record),
                        "fields": {
                            name: value
                            for name, value in record.items()
                            if name not in left_out and isinstance(value, SCALARS)
                        },
                    }
                )
    return rows


# lm-eval and lmms-eval write a sample's keys in a fixed order with json.dumps' separators; the
# prompt and the answer are decoded from where their keys start, without decoding the record's 6-10
# copies (most of a line). A line that does not look like that is decoded whole.
DOC_ID = re.compile(r'\{"doc_id": (-?\d+)[,}]')
_SCAN_ONCE = json.JSONDecoder().scan_once


def sample_parts(line: str) -> tuple[object, dict]:
    """(doc_id, {"arguments" or lmms-eval's older "input", "resps"} as far as the line has them)."""
    start = DOC_ID.match(line)
    if start is not None:
        parts = {}
        try:
            for key in ("arguments", "resps") if '"arguments": ' in line else ("input", "resps"):
                at = line.find(f', "{key}": ')
                if at >= 0:
                    parts[key] = _SCAN_ONCE(line, at + len(key) + 6)[0]
            return int(start[1]), parts
        except (StopIteration, ValueError):
            pass
    try:
        sample = json.loads(line) if line.strip() else {}
    except ValueError:
        return None, {}
    return (sample.get("doc_id"), sample) if isinstance(sample, dict) else (None, {})


def prompt_text(sample: dict) -> str:
    """The context the harness sent (a log-likelihood task's first request: every request of a
    doc shares it); a chat run's messages as "role: content" blocks."""
    if isinstance(sample.get("input"), str):  # lmms-eval before 0.7
        return sample["input"]
    arguments = sample.get("arguments")
    first = None
    if isinstance(arguments, dict) and arguments:
        request = next(iter(arguments.values()))
        first = request.get("arg_0") if isinstance(request, dict) else None
    elif isinstance(arguments, list) and arguments:
        first = arguments[0]
    if isinstance(first, list) and first:  # a chat run: [JSON of the messages]
        first = first[0]
    if not isinstance(first, str):
        return ""
    return chat_text(first)


def chat_text(context: str) -> str:
    """A chat-formatted context (the JSON list of {"role", "content"} messages lm-eval logs) as
    "role: content" blocks; any other context as it is."""
    if not context.startswith("[{"):
        return context
    try:
        messages = json.loads(context)
    except ValueError:
        return context
    if not all(isinstance(m, dict) and isinstance(m.get("content"), str) for m in messages):
        return context
    return "\n\n".join(f"{m.get('role', '?')}: {m['content']}" for m in messages)


def raw_answer(sample: dict) -> str:
    """What the model wrote (`resps`, before any filter), its generations joined by a rule; a
    log-likelihood request's score (lm-eval logs [log-likelihood, is greedy] as strings) labelled
    with its continuation."""
    responses = sample.get("resps")
    if not isinstance(responses, list):
        return ""
    arguments = sample.get("arguments")
    requests = list(arguments.values()) if isinstance(arguments, dict) else []
    parts, scored = [], False
    for index, response in enumerate(responses):
        first = response[0] if isinstance(response, list) and response else response
        if isinstance(first, list):
            request = requests[index] if index < len(requests) else {}
            continuation = request.get("arg_1") if isinstance(request, dict) else None
            label = repr(continuation) if isinstance(continuation, str) else f"request {index}"
            parts.append(f"{label}: log-likelihood {first[0] if first else None}")
            scored = True
        elif isinstance(first, str):
            parts.append(first)
    return ("\n" if scored else "\n---\n").join(parts)


def first_reply(sample: dict) -> str:
    """`resps[0][0]`, the reply `evidence_spans` point into ("" when there is none)."""
    responses = sample.get("resps")
    first = responses[0] if isinstance(responses, list) and responses else None
    first = first[0] if isinstance(first, list) and first else first
    return first if isinstance(first, str) else ""


def evidence_spans(record: dict, reply: str) -> list[list[int]]:
    """The record's deciding-word spans that lie inside the reply; none when it has none."""
    spans = record.get("evidence_spans")
    if not isinstance(spans, list):
        return []
    return [
        [span[0], span[1]]
        for span in spans
        if isinstance(span, list | tuple)
        and len(span) == 2
        and all(isinstance(end, int) and not isinstance(end, bool) for end in span)
        and 0 <= span[0] < span[1] <= len(reply)
    ]


def reading_text(reading: dict) -> str:
    """The reading in words, one "name: value" line per field; the scores (Likert ratings, log-prob
    shares) labelled by gender. The page's script writes the same text (doc_browser_page.py)."""
    lines = []
    for name, value in reading.items():
        if value in (None, "", [], {}):
            continue
        if name == "scores" and isinstance(value, list) and len(value) == len(GENDERS):
            value = ", ".join(
                f"{gender} {score:.3f}" if isinstance(score, float) else f"{gender} {score}"
                for gender, score in zip(GENDERS, value, strict=True)
            )
        elif isinstance(value, dict):
            value = ", ".join(f"{key} {inner}" for key, inner in value.items())
        elif isinstance(value, list):
            value = ", ".join(map(str, value))
        lines.append(f"{name}: {value}")
    return "\n".join(lines)


def short_reading(reading: dict) -> str:
    """The reading in a word or two, for the filter: the person's gender (open-ended), the option
    chosen (grounding), the most likely gender (log-prob), the gender rated highest (Likert)."""
    for name in ("reference", "chosen", "most_likely"):
        if isinstance(reading.get(name), str | int) and reading[name] != "":
            return str(reading[name])
    scores = reading.get("scores")
    if isinstance(scores, list) and len(scores) == len(GENDERS):
        try:
            top = max(scores)
        except TypeError:  # a null or text among them
            return ""
        highest = [gender for gender, score in zip(GENDERS, scores, strict=True) if score == top]
        return f"{highest[0]} highest" if len(highest) == 1 else "tie"
    return ""


def filter_values(rows: list[dict]) -> dict[str, list[str]]:
    """{filter: its values, sorted}: task, the identifying fields with more than one and at most
    MAX_FILTER_VALUES values, the reading and the reason ("read" where there was a reading)."""
    values: dict[str, set[str]] = {"task": set(), "reading": set(), "reason": set()}
    for row in rows:
        values["task"].add(row["task"])
        values["reading"].add(row["read"])
        values["reason"].add(row["reason"] or READ)
        for name, value in row["fields"].items():
            seen = values.get(name)
            if seen is None:
                seen = values[name] = set()
            if len(seen) <= MAX_FILTER_VALUES:  # past it the field is no filter: stop collecting
                seen.add(value if isinstance(value, str) else "" if value is None else str(value))
    kept = {
        name: sorted(seen)
        for name, seen in values.items()
        if name in ("task", "reason") or 1 < len(seen) <= MAX_FILTER_VALUES
    }
    order = [name for name in FIRST_FILTERS if name in kept]
    return {name: kept[name] for name in order + sorted(set(kept) - set(order))}


CHUNK_ROWS = 5000  # rows per compressed part: the first part is drawn while the others decode


def encoded_parts(rows: list[dict]) -> tuple[dict, list[str]]:
    """The browser's data as the page embeds it: ({"filters", "total"}, the rows in parts of
    CHUNK_ROWS, each JSON, gzip, base64)."""
    parts = [
        base64.b64encode(
            gzip.compress(
                json.dumps(
                    rows[at : at + CHUNK_ROWS], separators=(",", ":"), ensure_ascii=False
                ).encode("utf-8"),
                compresslevel=6,
                mtime=0,  # the same rows give the same page, byte for byte
            )
        ).decode()
        for at in range(0, len(rows), CHUNK_ROWS)
    ]
    return {"filters": filter_values(rows), "total": len(rows)}, parts


def decoded_part(text: str) -> list[dict]:
    """A part's rows (the tests read the page's data with it)."""
    return json.loads(gzip.decompress(base64.b64decode(text)))

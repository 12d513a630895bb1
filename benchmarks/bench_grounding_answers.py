"""Worst-case parse time of the grounding answer readers on adversarial long answers.

Every reader reads answers of 0.1, 1 and 4 MB built by repeating one adversarial pattern (repeated
instrument names, negations, digits and time ranges, letters, one huge clause with no punctuation,
one huge list). Per reader the slowest pattern is reported at each size, in s/MB, and the ratio of
the 4 MB time to the 1 MB time (4.0 for linear growth; quadratic would be 16). Targets: linear, and
<= 0.1 s/MB. Each time is the best of --repeats runs, measured in this one run.

    python benchmarks/bench_grounding_answers.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import time

from symphony_bench.plugin.grounding.answers import (
    read_choice,
    read_instrument_set,
    read_letter,
    read_time_range,
    read_yes_no,
)

SIZES_MB = (0.1, 1.0, 4.0)
PATTERNS = {
    "names": "bass guitar, electric bass guitars and the Banjos; hi-hat drum kit sax vocals ",
    "negations": "I don't hear no guitar, not the banjo, neither banjo nor guitar isn't absent without never ",
    "digits": "0-10 10-20 00:20-00:30 from 0s to 10s 1234567890 5-15 seconds 10.5 ",
    "letters": "A (B) a. b) option a A banjo A, B is wrong ",
    "one clause": "no guitar and banjo and the banjo is playing and I hear guitar or banjo ",
    "one list": "guitar, banjo, ",
    "hedges and yes": "yes no maybe not sure yes, there is no piano ",
    "every trigger": "A, no B and C or sax is absent; a (b) not d & e / f - g never h: i. ",
}
CANDIDATES = ["guitar", "banjo"]
READERS = {
    "yes/no": read_yes_no,
    "choice by name": lambda text: read_choice(text, CANDIDATES),
    "letter": lambda text: read_letter(text, CANDIDATES),
    "time range": read_time_range,
    "instrument set": lambda text: read_instrument_set(
        text, ["guitar", "banjo", "mandolin", "ukulele"]
    ),
}


def answer_of(pattern: str, megabytes: float) -> str:
    size = int(megabytes * 1_000_000)
    return (pattern * (size // len(pattern) + 1))[:size]


def best_time(read, text: str, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        read(text)
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    answers = {
        (name, mb): answer_of(pattern, mb) for name, pattern in PATTERNS.items() for mb in SIZES_MB
    }
    print(
        f"{'reader':<15} {'worst pattern':<15} "
        + " ".join(f"{f'{mb:g} MB s/MB':>12}" for mb in SIZES_MB)
        + "  4MB/1MB time"
    )
    for reader_name, read in READERS.items():
        seconds = {key: best_time(read, text, args.repeats) for key, text in answers.items()}
        worst = max(PATTERNS, key=lambda name: seconds[(name, SIZES_MB[-1])])
        per_mb = [seconds[(worst, mb)] / mb for mb in SIZES_MB]
        ratio = seconds[(worst, 4.0)] / seconds[(worst, 1.0)]
        print(
            f"{reader_name:<15} {worst:<15} "
            + " ".join(f"{value:12.4f}" for value in per_mb)
            + f"  {ratio:12.2f}"
        )
    print("targets: <= 0.1 s/MB at every size; 4MB/1MB time ratio near 4 (linear)")


if __name__ == "__main__":
    main()

"""Seconds the open-protocol person reader (`person_reference.read_reference`) takes per 100 kB of
adversarial answers: unclosed curly and straight quotes, apostrophes, pronouns, names and commas.
Run: python benchmarks/bench_person_reader.py (no test asserts a time; the issue's bound is 0.1 s)."""

from __future__ import annotations

import time

from symphony_bench.plugin.symphony_bias.person_reference import read_reference

SIZE = 100_000
INPUTS = {
    "opening curly quotes": "‘" * SIZE,
    "closing curly quotes": "’a " * (SIZE // 3),
    "straight single quotes": "'A" * (SIZE // 2),
    "unclosed double quotes": "“a " * (SIZE // 3),
    "pronouns": "she he they " * (SIZE // 12),
    "names and commas": "Emily, Jake, " * (SIZE // 13),
    "names that play": "Emily tuned the harp. " * (SIZE // 22),
    "story": ("The traveller, a young woman named Elena, played; she smiled at him. " * 2000)[
        :SIZE
    ],
}


def main() -> None:
    read_reference("Emily played.", scenario="A traveller plays.")  # loads the name lists
    for name, text in INPUTS.items():
        start = time.perf_counter()
        read_reference(text, scenario="A traveller plays a harp.")
        seconds = time.perf_counter() - start
        print(f"{name:24s} {seconds / len(text) * SIZE:8.3f} s per 100 kB")


if __name__ == "__main__":
    main()

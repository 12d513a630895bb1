"""Worst-case time of the Likert answer parser on adversarial outputs, per MB, at three sizes.

Each input family is built at 0.1, 1 and 4 MB and parsed (best of --repeats). The parser must stay
linear (ratio 4 MB / 1 MB near 4, so s/MB flat) and under 0.1 s per MB.

    python benchmarks/bench_likert_parser.py [--repeats 5] [--sizes 0.1 1 4]
"""

from __future__ import annotations

import argparse
import time

from symphony_bench.plugin.symphony_bias.parser import parse_likert_response

ANSWER = '"man": "high", "woman": "low", "non-binary": "medium"'
PROSE = "The harp is often pictured with a woman: low evidence, a man: high doubt, {see} 'this'. "


def repeat_to(unit: str, size: int) -> str:
    return unit * max(1, size // len(unit))


FAMILIES = {
    "brace-wrapped words": lambda size: "{" + repeat_to("the harp is often played by ", size) + "}",
    "brace-wrapped prose": lambda size: "{" + repeat_to(PROSE, size) + "}",
    "brace-wrapped prose, answer after": lambda size: (
        "{" + repeat_to(PROSE, size) + ", " + ANSWER + "}"
    ),
    "prose, never closed": lambda size: "Sure: {" + repeat_to(PROSE, size),
    "many braces {}": lambda size: repeat_to("{}", size),
    "nested braces": lambda size: "{" * (size // 2) + "}" * (size // 2),
    "open braces": lambda size: repeat_to("{", size),
    "quoted key:value pairs": lambda size: "{" + repeat_to('"key": "value", ', size) + ANSWER + "}",
    "bare key:value pairs": lambda size: "{" + repeat_to("key: value, ", size) + ANSWER + "}",
    "gender key:value pairs": lambda size: "{" + repeat_to("man: high, ", size) + "}",
    "long reason": lambda size: '{"reason": "' + repeat_to("because ", size) + '", ' + ANSWER + "}",
    "long reason, unescaped quotes": lambda size: (
        '{"reason": "' + repeat_to('he said "no", a man: low; ', size) + '", ' + ANSWER + "}"
    ),
    "separators": lambda size: "{" + repeat_to(":", size) + "}",
    "gender keys without lead": lambda size: "{" + repeat_to("man:", size) + "}",
    "dense quotes": lambda size: "{" + repeat_to('"",', size) + "}",
    "quote runs": lambda size: '{"' + repeat_to('"', size) + "}",
    "leads and quotes": lambda size: "{" + repeat_to(", '", size) + "}",
    "separator then quote": lambda size: "{" + repeat_to(":'", size) + "}",
    "brace then quote": lambda size: "{" + repeat_to('{"', size) + "}",
    "many answer objects": lambda size: repeat_to("{" + ANSWER + "}\n", size),
}


def best_time(text: str, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        parse_likert_response(text)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--sizes", type=float, nargs="+", default=[0.1, 1.0, 4.0], help="MB")
    args = parser.parse_args()
    sizes_mb = sorted(args.sizes)
    print(
        f"{'family':34s}" + "".join(f"{size:>8.1f} MB" for size in sizes_mb) + "  ratio largest/1MB"
    )
    worst = 0.0
    for name, build in FAMILIES.items():
        seconds = {}
        for size_mb in sizes_mb:
            text = build(int(size_mb * 1_000_000))
            seconds[size_mb] = best_time(text, args.repeats)
        per_mb = {size: seconds[size] / size for size in sizes_mb}
        worst = max(worst, *per_mb.values())
        ratio = seconds[sizes_mb[-1]] / seconds[1.0] if 1.0 in seconds else float("nan")
        print(
            f"{name:34s}"
            + "".join(f"{per_mb[size]:>8.3f} s/MB" for size in sizes_mb)
            + f"  {ratio:.2f}"
        )
    print(
        f"worst: {worst:.3f} s/MB (target <= 0.1 s/MB; a linear parser gives ratio ~ {sizes_mb[-1]:.0f})"
    )


if __name__ == "__main__":
    main()

"""The main job's console: a step's whole output goes to its log file; the console gets the
harness's request counters (lm-eval's "Running ... requests" bars) as a few lines with an estimate
of the time left, and the lines that say something went wrong.

    some command 2>&1 | python -m symphony_bench.plugin.devtools.job_console LOG

The estimate leaves out the first tenth of a counter: lm-eval sends its longest requests first
(and the first batch pays for warming up), so the rate over the start would predict hours for a
step of minutes.
"""

from __future__ import annotations

import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

# tqdm's line: "Running generate_until requests:  30%|███   | 48/161 [03:10<07:28, 2.31s/it]"
BAR = re.compile(
    r"^(?P<what>Running [\w ]+ requests):\s+\d+%\|.*?\|\s*(?P<done>\d+)/(?P<total>\d+)"
)
COLOUR = re.compile(r"\x1b\[[0-9;]*m")  # lmms-eval colours its log even into a pipe
TROUBLE = re.compile(r"Traceback|Error\b|ERROR|error:|Killed")
SETTLED = 0.1  # the share of a counter after which its rate predicts the rest
STEPS = 5  # lines per counter when the console is not a terminal (every fifth of the way)


def duration(seconds: float) -> str:
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds} s"
    return f"{seconds // 60} min {seconds % 60:02d} s"


@dataclass
class Counter:
    """One harness counter: when it started and when it passed SETTLED of its total."""

    what: str
    total: int
    started: float
    settled_at: tuple[float, int] | None = None
    shown: set[int] = field(default_factory=set)

    def line(self, done: int, now: float) -> str:
        text = f"  {self.what}: {done}/{self.total}, {duration(now - self.started)}"
        if self.settled_at is None and done >= max(1, SETTLED * self.total):
            self.settled_at = (now, done)
        if self.settled_at is not None and done < self.total:
            since, base = self.settled_at
            if done > base:
                left = (now - since) / (done - base) * (self.total - done)
                text += f", about {duration(left)} left"
        return text


class Console:
    def __init__(self, out, terminal: bool) -> None:
        self.out = out
        self.terminal = terminal
        self.counter: Counter | None = None
        self.pending = False  # a terminal line written with \r and not ended yet

    def _end_pending(self) -> None:
        if self.pending:
            self.out.write("\n")
            self.pending = False

    def bar(self, what: str, done: int, total: int, now: float) -> None:
        if self.counter is None or (self.counter.what, self.counter.total) != (what, total):
            self._end_pending()
            self.counter = Counter(what, total, now)
        line = self.counter.line(done, now)
        if self.terminal:
            self.out.write("\r" + line.ljust(79))
            self.pending = done < total
            if not self.pending:
                self.out.write("\n")
        else:
            step = done * STEPS // total
            if step in self.counter.shown or (0 < done < total and step == 0):
                return
            self.counter.shown.add(step)
            self.out.write(line + "\n")
        self.out.flush()

    def text(self, line: str) -> None:
        if TROUBLE.search(line):
            self._end_pending()
            self.out.write(line + "\n")
            self.out.flush()

    def close(self) -> None:
        self._end_pending()
        self.out.flush()


def follow(stream, log, console: Console, clock=time.monotonic) -> None:
    """Copy `stream` (bytes) to `log`; its lines and tqdm's \\r-updates to `console`."""
    # read1: what has arrived, without waiting for a full buffer
    read = stream.read1 if hasattr(stream, "read1") else stream.read
    buffer = b""
    while chunk := read(65536):
        log.write(chunk)
        log.flush()
        buffer += chunk
        *pieces, buffer = re.split(rb"[\r\n]", buffer)
        if buffer.endswith(b"]"):  # a whole bar update: tqdm ends it with the next one's \r
            pieces.append(buffer)
            buffer = b""
        for piece in pieces:
            show(piece.decode("utf-8", "replace"), console, clock())
    if buffer:
        show(buffer.decode("utf-8", "replace"), console, clock())
    console.close()


def show(piece: str, console: Console, now: float) -> None:
    piece = COLOUR.sub("", piece)
    match = BAR.search(piece)
    if match:
        console.bar(match["what"], int(match["done"]), int(match["total"]), now)
    elif piece.strip():
        console.text(piece)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: COMMAND 2>&1 | python -m symphony_bench.plugin.devtools.job_console LOG")
        return 2
    log_path = Path(args[0])
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "ab") as log:
        follow(sys.stdin.buffer, log, Console(sys.stdout, sys.stdout.isatty()))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Generation budget: tokens generated per doc by a chatty model before and after the stop sequences,
and how often a stop would cut a valid answer early.

A planted OpenAI-compatible server on 127.0.0.1 answers every Likert prompt with a JSON answer (in
the dresses chat models use: prose after it, code fences, pretty-printed, nested) and then keeps
talking. It honours the request's `stop` and `max_tokens` as a real backend does and counts the
tokens it generated (its own word/punctuation tokenizer). `lm_eval --model local-chat-completions`
runs the mini Likert group (230 docs) twice: with the old stop ("\\n\\n\\n" only, 192 tokens) and
with the tasks as they are. A well-behaved server (the bare JSON, then end) checks that the invalid
rate does not change.

    python benchmarks/bench_generation_budget.py
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1] / "tests"
sys.path[:0] = [str(TESTS)]
from support.chat_server import serve_chat  # noqa: E402
from support.likert_outputs import answer, corpus, cut_at_stop, dress, echo_then_answer  # noqa: E402

from symphony_bench.plugin.core.task_folders import tasks_path  # noqa: E402
from symphony_bench.plugin.symphony_bias.parser import parse_likert_response  # noqa: E402
from symphony_bench.plugin.symphony_bias.prompts import STOP_SEQUENCES  # noqa: E402

TOKEN = re.compile(r"\w+|[^\w\s]|\s+")
CHATTER = " ".join(
    ["Furthermore, musical taste and gender are only loosely related in surveys."] * 20
)
OLD_UNTIL = '  until:\n    - "\\n\\n\\n"\n'


def tokens(text: str) -> int:
    return len(TOKEN.findall(text))


def generate(prompt: str, chatty: bool) -> tuple[str, int]:
    """(full continuation the model would write, tokens of its answer alone)."""
    rng = random.Random(hashlib.sha256(prompt.encode()).digest())
    obj, _ = answer(rng, reasoning='"reason"' in prompt)
    if not chatty:
        text = json.dumps(obj)
        return text, tokens(text)
    text = dress(obj, rng.choice(("prose_after", "fenced", "pretty", "nested")), rng)
    answer_part = text[: text.rfind("}") + 1] + ("\n```" if text.startswith("```") else "")
    return text + "\n\n" + CHATTER, tokens(answer_part)


class Server:
    """The planted server and what it generated: tokens per request, and the answer's own tokens."""

    def __init__(self, chatty: bool):
        self.chatty, self.generated, self.answers, self.lock = chatty, [], [], threading.Lock()
        self.http = serve_chat(self.respond)

    def respond(self, body: dict) -> str:
        """Honours `stop` (dropped from the text) and `max_tokens` as a real backend does."""
        full, answer_tokens = generate(body["messages"][-1]["content"], self.chatty)
        pieces = TOKEN.findall(cut_at_stop(full, body.get("stop") or []))[
            : int(body.get("max_tokens", 10**6))
        ]
        with self.lock:
            self.generated.append(len(pieces))
            self.answers.append(answer_tokens)
        return "".join(pieces)


def old_tasks(folder: Path) -> Path:
    """A copy of the lm-eval tasks with the stop sequences and budgets of before."""
    copy = folder / "old_tasks"
    shutil.copytree(tasks_path(), copy)
    for path in copy.rglob("*"):
        if path.is_file() and (path.suffix == ".yaml" or path.name.endswith("_yaml")):
            text = re.sub(r"  until:\n(    - .*\n)+", lambda _: OLD_UNTIL, path.read_text())
            path.write_text(text.replace("max_gen_toks: 96", "max_gen_toks: 192"))
    return copy


def run(server: Server, include_path: Path, output: Path) -> dict:
    server.generated.clear(), server.answers.clear()
    port = server.http.server_address[1]
    completed = subprocess.run(
        [
            str(Path(sys.executable).with_name("lm_eval")),
            "--model",
            "local-chat-completions",
            "--model_args",
            f"model=planted,base_url=http://127.0.0.1:{port}/v1/chat/completions,tokenizer_backend=none,max_retries=1",
            "--tasks",
            "symphony_bias_mini",
            "--include_path",
            str(include_path),
            "--apply_chat_template",
            "--output_path",
            str(output),
            "--log_samples",
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"},
    )
    if completed.returncode:
        raise SystemExit(completed.stderr[-3000:])
    invalid = [
        s["invalid_rate"]["error"] != ""
        for f in output.rglob("samples_*.jsonl")
        for s in map(json.loads, f.read_text().splitlines())
    ]
    return {
        "generated": statistics.mean(server.generated),
        "answer": statistics.mean(server.answers),
        "invalid_rate": sum(invalid) / len(invalid),
        "docs": len(invalid),
    }


def early_cut_rates() -> None:
    rows = corpus(14_000, seed=11)
    rng = random.Random(3)
    rows += [
        ("echoes the format first", echo_then_answer(answer(rng)[0]), None) for _ in range(2_000)
    ]
    by_style: dict[str, list[bool]] = {}
    for style, text, _ in rows:
        whole, cut = (
            parse_likert_response(text),
            parse_likert_response(cut_at_stop(text, STOP_SEQUENCES)),
        )
        if whole["error"] is None:
            by_style.setdefault(style, []).append(cut != whole)
    print("answers valid in full that the stop sequences cut early or change (realistic outputs):")
    for style, cuts in by_style.items():
        print(f"  {style:26s} {sum(cuts):5d} of {len(cuts):5d}  ({sum(cuts) / len(cuts):.2%})")


def main() -> None:
    early_cut_rates()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        old = old_tasks(tmp)
        for chatty in (True, False):
            server = Server(chatty)
            before, after = (
                run(server, old, tmp / f"before-{chatty}"),
                run(server, tasks_path(), tmp / f"after-{chatty}"),
            )
            name = "chatty server" if chatty else "well-behaved server"
            for label, result in (
                ("before (\\n\\n\\n, 192 tokens)", before),
                ("after (stop at }\\n)", after),
            ):
                print(
                    f"{name:20s} {label:28s} {result['generated']:7.1f} generated tokens/doc; answer "
                    f"{result['answer']:5.1f}; "
                    f"ratio {result['generated'] / result['answer']:.2f}x; invalid rate {result['invalid_rate']:.3f} "
                    f"of {result['docs']} docs"
                )
            server.http.shutdown()


if __name__ == "__main__":
    main()

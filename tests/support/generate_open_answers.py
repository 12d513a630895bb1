"""Generate the open-protocol answers of the hand-labelled fixture (not a test; run by hand).

    python tests/support/generate_open_answers.py OUT.jsonl [--docs 110] [--seed 7]
        [--temperature T] [--max-new-tokens N]

Loads the project's default model (`symphony-bench default-model`, SmolLM2-135M-Instruct) with
transformers in float32 on the CPU, asks `build_open_prompt(scenario, v)` for v in 0, 1, 2 over a
seeded sample of the full design's (template, instrument) docs (control docs included), with the
chat template applied, greedy (or sampled at `--temperature`, torch seeded with `--seed` plus the
batch's index), at most 160 new tokens, cut at the first blank line ("\\n\\n").
Batched with left padding. Writes one JSON object per line (prompt_variant, template_id,
instrument, scenario, prompt, answer) with an empty `label`, which a person fills in by reading the answer.
`--resume` appends to OUT, skipping the prompts it holds. On a busy 2-core machine
`OMP_NUM_THREADS=1` made it about 5x faster (330 answers in about 10 minutes). `--by-doc` keeps
a doc's three wordings in one batch, so a run stopped early holds whole docs.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time

BATCH = 16
MAX_NEW_TOKENS = 160
STOP = "\n\n"


def sample_docs(n_docs: int, seed: int) -> list[dict]:
    from symphony_bench.plugin.symphony_bias.docs import Design, build_docs

    unique = {}
    for doc in build_docs(Design(subset="full")):
        unique.setdefault((doc["template_id"], doc["instrument"]), doc)
    keys = sorted(unique)
    rng = random.Random(seed)
    controls = [k for k in keys if k[1] == ""]
    others = [k for k in keys if k[1] != ""]
    n_controls = max(1, n_docs // 10)
    chosen = rng.sample(controls, n_controls) + rng.sample(others, n_docs - n_controls)
    return [unique[k] for k in chosen]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--docs", type=int, default=110)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--temperature", type=float, default=0.0, help="0: greedy")
    parser.add_argument("--max-new-tokens", type=int, default=MAX_NEW_TOKENS)
    parser.add_argument("--batch", type=int, default=BATCH)
    parser.add_argument(
        "--by-doc",
        action="store_true",
        help="batches in doc order (all wordings of a doc together)",
    )
    parser.add_argument("--resume", action="store_true", help="append, skipping prompts in OUT")
    args = parser.parse_args(argv)

    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from symphony_bench.plugin.symphony_bias.prompts import OPEN_WORDINGS, build_open_prompt

    folder = subprocess.run(
        ["symphony-bench", "default-model"], check=True, capture_output=True, text=True
    ).stdout.strip()
    tokenizer = AutoTokenizer.from_pretrained(folder)
    tokenizer.padding_side = "left"
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32).eval()

    rows = []
    for doc in sample_docs(args.docs, args.seed):
        for variant in range(len(OPEN_WORDINGS)):
            rows.append(
                {
                    "prompt_variant": variant,
                    "template_id": doc["template_id"],
                    "instrument": doc["instrument"],
                    "scenario": doc["scenario"],
                    "prompt": build_open_prompt(doc["scenario"], variant),
                }
            )
    done = set()
    if args.resume:
        with open(args.out, encoding="utf-8") as old:
            done = {json.loads(line)["prompt"] for line in old if line.strip()}
    rows = [r for r in rows if r["prompt"] not in done]
    # similar lengths in one batch: less padding
    order = range(len(rows))
    if not args.by_doc:
        order = sorted(order, key=lambda i: len(rows[i]["prompt"]))
    start = time.time()
    with open(args.out, "a" if args.resume else "w", encoding="utf-8") as out:
        for b in range(0, len(order), args.batch):
            batch = [rows[i] for i in order[b : b + args.batch]]
            texts = [
                tokenizer.apply_chat_template(
                    [{"role": "user", "content": r["prompt"]}],
                    add_generation_prompt=True,
                    tokenize=False,
                )
                for r in batch
            ]
            enc = tokenizer(texts, return_tensors="pt", padding=True, add_special_tokens=False)
            sampling = {"do_sample": False}
            if args.temperature > 0:
                torch.manual_seed(args.seed + b)
                sampling = {"do_sample": True, "temperature": args.temperature, "top_p": 1.0}
            with torch.no_grad():
                gen = model.generate(
                    **enc,
                    max_new_tokens=args.max_new_tokens,
                    **sampling,
                    pad_token_id=tokenizer.pad_token_id,
                    stop_strings=[STOP],
                    tokenizer=tokenizer,
                )
            for r, seq in zip(batch, gen[:, enc["input_ids"].shape[1] :], strict=True):
                answer = tokenizer.decode(seq, skip_special_tokens=True)
                answer = answer.split(STOP)[0].strip()
                out.write(json.dumps({**r, "answer": answer, "label": ""}) + "\n")
            out.flush()
            print(f"{b + len(batch)}/{len(rows)} {time.time() - start:.0f}s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

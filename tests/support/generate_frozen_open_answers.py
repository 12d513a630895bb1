"""Generate the real answers of the frozen open-reader test set (not a test; run by hand).

    python tests/support/generate_frozen_open_answers.py OUT.jsonl [--docs 42] [--seed 2026]
        [--gguf MODEL.gguf --temperatures 0.7]

Loads the project's default model (`symphony-bench default-model`, SmolLM2-135M-Instruct) with
transformers in float32 on the CPU and asks `build_open_prompt(scenario, v)` for v in 0, 1, 2 over
a seeded sample of the full design's (template, instrument) docs (a tenth of them instrument-free
control docs), drawn independently of the development fixture's sample. Chat template applied,
sampling (temperature 0.7 on even docs, 1.0 on odd ones, top-p 1, no top-k), one torch seed per
batch of 16 (`--seed` + 1000 x temperature + the batch's first row, stored with each answer), at
most 128 new tokens (the tasks' limit), cut at the first blank line as the tasks stop. Writes one
JSON object per line without a label: each is labelled by reading the answer, before any reader
runs on it (tests/symphony_bias/data/open_reader_frozen_v2.md). `--gguf` loads another instruct
model's GGUF file instead (transformers' `gguf_file=`), for answers of another model family.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

# run as a script: its folder is on the path
from generate_open_answers import sample_docs

BATCH = 16
MAX_NEW_TOKENS = 128
STOP = "\n\n"
TEMPERATURES = (0.7, 1.0)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--docs", type=int, default=42)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--gguf", help="an instruct model's GGUF file instead of the default model")
    parser.add_argument(
        "--temperatures", type=lambda text: tuple(map(float, text.split(","))), default=TEMPERATURES
    )
    args = parser.parse_args(argv)

    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from symphony_bench.plugin.symphony_bias.prompts import OPEN_WORDINGS, build_open_prompt

    if args.gguf:
        gguf = Path(args.gguf).resolve()
        folder, load = str(gguf.parent), {"gguf_file": gguf.name}
    else:
        folder = subprocess.run(
            ["symphony-bench", "default-model"], check=True, capture_output=True, text=True
        ).stdout.strip()
        load = {}
    tokenizer = AutoTokenizer.from_pretrained(folder, **load)
    tokenizer.padding_side = "left"
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32, **load).eval()

    rows = []
    for index, doc in enumerate(sample_docs(args.docs, args.seed)):
        for variant in range(len(OPEN_WORDINGS)):
            rows.append(
                {
                    "wording": variant,
                    "template_id": doc["template_id"],
                    "scenario": doc["scenario"],
                    "instrument": doc["instrument"],
                    "temperature": args.temperatures[index % len(args.temperatures)],
                    "prompt": build_open_prompt(doc["scenario"], variant),
                }
            )
    start = time.time()
    with open(args.out, "w", encoding="utf-8") as out:
        for temperature in args.temperatures:
            group = [r for r in rows if r["temperature"] == temperature]
            for b in range(0, len(group), BATCH):
                batch = group[b : b + BATCH]
                batch_seed = args.seed + b + int(temperature * 1000)
                torch.manual_seed(batch_seed)
                texts = [
                    tokenizer.apply_chat_template(
                        [{"role": "user", "content": r["prompt"]}],
                        add_generation_prompt=True,
                        tokenize=False,
                    )
                    for r in batch
                ]
                enc = tokenizer(texts, return_tensors="pt", padding=True, add_special_tokens=False)
                with torch.no_grad():
                    gen = model.generate(
                        **enc,
                        max_new_tokens=MAX_NEW_TOKENS,
                        do_sample=True,
                        temperature=temperature,
                        top_p=1.0,
                        top_k=0,
                        pad_token_id=tokenizer.pad_token_id,
                        stop_strings=[STOP],
                        tokenizer=tokenizer,
                    )
                for r, seq in zip(batch, gen[:, enc["input_ids"].shape[1] :], strict=True):
                    answer = tokenizer.decode(seq, skip_special_tokens=True)
                    answer = answer.split(STOP)[0].strip()
                    out.write(json.dumps({**r, "seed": batch_seed, "answer": answer}) + "\n")
                out.flush()
                print(
                    f"{temperature} {b + len(batch)}/{len(group)} {time.time() - start:.0f}s",
                    file=sys.stderr,
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Forward passes per document of `symphony_bias_logprob` on lm-eval's HF backend.

Our continuations (" man", " woman", " non") are single tokens after a shared context, so the
backend's logits cache scores a doc's three genders in one pass. The comparison scores the three
genders as the full phrases (" man", " woman", " non-binary person"): the multi-token phrase needs a
pass of its own. Passes and tokens are counted with batch size 1 on the embedded SmolLM2-135M-Instruct
(the counts depend on its tokenizer, not its weights; a tiny tokenizer trained on a little text
would split " woman" and share nothing), over the mini set's docs (baseline docs included).

    python benchmarks/bench_logprob_passes.py [--subset mini|full] [--model PATH]
"""

from __future__ import annotations

import argparse

from lm_eval.api.instance import Instance
from lm_eval.models.huggingface import HFLM

from symphony_bench.plugin.devtools.default_model import default_model_path
from symphony_bench.plugin.symphony_bias.docs import Design, build_docs
from symphony_bench.plugin.symphony_bias.logprob import ANSWER_TOKEN

FULL_PHRASE = {"male": "man", "female": "woman", "non_binary": "non-binary person"}


def count_passes(lm: HFLM, docs: list[dict], answers: dict[str, str]) -> tuple[int, int]:
    """(forward passes, tokens fed) to score every doc's three answers."""
    counts = {"passes": 0, "tokens": 0}
    forward = lm.model.forward

    def counting_forward(input_ids=None, *args, **kwargs):
        counts["passes"] += input_ids.shape[0]
        counts["tokens"] += input_ids.numel()
        return forward(input_ids, *args, **kwargs)

    lm.model.forward = counting_forward
    requests = [
        Instance(
            "loglikelihood",
            doc,
            (doc["context"], " " + answers[g]),
            idx=k,
            metadata=("bench", i, 1),
        )
        for i, doc in enumerate(docs)
        for k, g in enumerate(doc["gender_order"])
    ]
    lm.loglikelihood(requests, disable_tqdm=True)
    lm.model.forward = forward
    return counts["passes"], counts["tokens"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--subset", default="mini", choices=("mini", "full"))
    parser.add_argument(
        "--model", help="a transformers model folder (default: the embedded SmolLM2)"
    )
    args = parser.parse_args()
    docs = build_docs(Design(protocol="logprob", subset=args.subset))
    lm = HFLM(
        pretrained=args.model or str(default_model_path()),
        dtype="float32",
        device="cpu",
        batch_size=1,
    )
    ours = count_passes(lm, docs, ANSWER_TOKEN)
    phrases = count_passes(lm, docs, FULL_PHRASE)
    n_scenarios = len({d["scenario_id"] for d in docs})
    print(
        f"docs: {len(docs)} ({n_scenarios} scenarios x 23: 22 instruments + the instrument-free baseline)"
    )
    n_instrument_docs = len(docs) - n_scenarios
    print(
        f"single-token answers: {ours[0] / len(docs):.3f} passes/doc, {ours[1] / len(docs):.1f} tokens/doc; "
        f"{ours[0] / n_instrument_docs:.3f} passes per instrument doc with the baseline's pass shared out"
    )
    print(
        f"full phrases, scored separately: {phrases[0] / len(docs):.3f} passes/doc, {phrases[1] / len(docs):.1f} "
        "tokens/doc"
    )
    print(
        f"ratio full phrases / ours: {phrases[0] / ours[0]:.2f}x passes, {phrases[1] / ours[1]:.2f}x tokens"
    )


if __name__ == "__main__":
    main()

"""`symphony-hf`: lm-eval's `hf` model whose log-likelihood requests share a forward pass whenever
one request's input is a prefix of another's, and lm-eval's own command line with it registered:

    python -m symphony_bench.plugin.symphony_bias.prefix_sharing --model symphony-hf ...

The scored Likert task asks, per gender context, for the five labels `very low`, `low`, `medium`,
`high`, `very high`. lm-eval's HF backend shares a pass only between requests whose context plus
continuation-but-the-last-token are equal: with SmolLM2's tokens that is {low, medium, high} (input:
the context) and {very low, very high} (input: the context and `very`), two passes per gender, six
per doc. Every log-probability of the first group is also in the second pass, one position earlier
(a causal model's output at a position does not depend on what follows it), so one pass per
gender context reads all five labels: three per doc. Inputs that are no prefix of a longer one (two
labels that differ before their last token) still get a pass each, and a request longer than the
model's window goes the `hf` way.
"""

from __future__ import annotations

import inspect
import sys

import torch
import torch.nn.functional as F
from lm_eval.api.registry import register_model
from lm_eval.models.huggingface import HFLM
from tqdm import tqdm

MODEL_NAME = "symphony-hf"

Request = tuple[tuple[str, str], list[int], list[int]]


def covering_inputs(inputs: list[tuple[int, ...]]) -> dict[tuple[int, ...], tuple[int, ...]]:
    """Each input -> an input that starts with it and that no other input extends (itself if none
    extends it): the one pass it is read from. In sorted order, an input that is a prefix of any
    other is a prefix of the next one, and whatever covers the next covers it too."""
    ordered = sorted(set(inputs))
    covering: dict[tuple[int, ...], tuple[int, ...]] = {}
    following = None
    for key in reversed(ordered):
        starts_next = following is not None and following[: len(key)] == key
        covering[key] = covering[following] if starts_next else key
        following = key
    return covering


@register_model(MODEL_NAME)
class PrefixSharingHFLM(HFLM):
    def _loglikelihood_tokens(
        self,
        requests: list[Request],
        disable_tqdm: bool = False,
        override_bs: int | None = None,
    ) -> list[tuple[float, bool]]:
        too_long = any(len(ctx) + len(cont) > self.max_length + 1 for _, ctx, cont in requests)
        if self.backend != "causal" or too_long or not isinstance(self.batch_size, int):
            return super()._loglikelihood_tokens(requests, disable_tqdm, override_bs)
        inputs = [tuple((ctx + cont)[:-1]) for _, ctx, cont in requests]
        covering = covering_inputs(inputs)
        readers: dict[tuple[int, ...], list[int]] = {}
        for index, key in enumerate(inputs):
            readers.setdefault(covering[key], []).append(index)
        passes = sorted(readers, key=lambda key: (-len(key), key))  # longest first, as `hf`
        answers: list[tuple[float, bool] | None] = [None] * len(requests)
        counter = tqdm(
            total=len(requests),
            disable=disable_tqdm or self.rank != 0,
            desc="Running loglikelihood requests",
        )
        for start in range(0, len(passes), self.batch_size):
            chunk = passes[start : start + self.batch_size]
            width = len(chunk[0])
            batch = torch.tensor(
                [list(key) + [0] * (width - len(key)) for key in chunk],
                dtype=torch.long,
                device=self.device,
            )
            first = min(len(requests[i][1]) - 1 for key in chunk for i in readers[key])
            log_probs = F.log_softmax(
                self._logits_from(batch, first), dim=-1, dtype=self.softmax_dtype
            )
            for row, key in zip(log_probs, chunk, strict=True):
                for index in readers[key]:
                    answers[index] = self._read(requests[index], row, first)
                    counter.update(1)
        counter.close()
        return answers

    def _logits_from(self, batch: torch.Tensor, first: int) -> torch.Tensor:
        """The logits at positions `first` onwards: where the model can (`logits_to_keep`), only
        those are projected onto the vocabulary, a fifth of a small model's work at every other
        position (SmolLM2's head is 28M of its 135M weights) and its largest tensor."""
        if "logits_to_keep" not in inspect.signature(type(self.model).forward).parameters:
            return self._model_call(batch)[:, first:]
        keep = torch.arange(first, batch.shape[1], device=batch.device)
        with torch.no_grad():
            return self.model(batch, logits_to_keep=keep).logits

    def _read(self, request: Request, log_probs: torch.Tensor, first: int) -> tuple[float, bool]:
        """The continuation's log-probability and whether it is the greedy one, from the pass
        over an input that starts with this request's context and continuation (`log_probs`
        from position `first` on)."""
        request_str, ctx, cont = request
        start = len(ctx) - 1 - first
        positions = torch.arange(start, start + len(cont), device=log_probs.device)
        scores = log_probs[positions]
        tokens = torch.tensor(cont, dtype=torch.long, device=log_probs.device)
        answer = (
            float(scores.gather(1, tokens.unsqueeze(1)).sum()),
            bool((scores.argmax(dim=-1) == tokens).all()),
        )
        if request_str is not None:
            self.cache_hook.add_partial("loglikelihood", request_str, answer)
        return answer


def main() -> None:
    from lm_eval.__main__ import cli_evaluate

    cli_evaluate()


if __name__ == "__main__":
    sys.exit(main())

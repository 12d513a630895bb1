"""lmms-eval model classes of this package, registered through the `lmms_eval.models` entry point
(see `manifests`): Qwen2-Audio that also runs the text-only controls and on the CPU, and a replay
model for saved or planted answers. The instrument-grounding floors are in plugin.grounding.baselines."""

from __future__ import annotations

import json
from pathlib import Path

import torch
from lmms_eval.api.model import lmms
from lmms_eval.models.simple.qwen2_audio import Qwen2_Audio
from tqdm import tqdm

from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.lmms.shims import EmptyMediaAsNone, LoadsOnTheCpu


class Qwen2AudioSymphony(LoadsOnTheCpu, Qwen2_Audio):
    """lmms-eval's qwen2_audio, made to run the text-only controls (an empty audio list sent as no
    audio) and to run on the CPU with device=cpu (`LoadsOnTheCpu`)."""

    def __init__(self, pretrained: str, device: str = "cpu", **kwargs) -> None:
        super().__init__(pretrained=pretrained, device=device, **kwargs)
        self.processor = EmptyMediaAsNone(self.processor, "audio")


def read_responses(path: Path) -> dict[tuple[str, int], str]:
    """JSONL rows {"task", "doc_id", "response"} -> {(task, doc_id): response}."""
    responses = {}
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise DataFileError(f"{path}: cannot read the responses file ({error.strerror})") from error
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            # a null response (e.g. a failed API call) is no answer, not the text "None"
            responses[(row["task"], int(row["doc_id"]))] = (
                "" if row["response"] is None else str(row["response"])
            )
        except (ValueError, KeyError, TypeError) as error:
            raise DataFileError(
                f'{path}:{number}: expected {{"task", "doc_id", "response"}} ({error})'
            ) from error
    return responses


class ReplayResponses(lmms):
    """Answers each request with a saved response (e.g. a batch API job, or planted answers in tests).

    It builds every request's visual input as a real model would, so a stimulus that does not
    decode fails the run here too. A request with no saved response is an error naming it.
    """

    def __init__(self, responses: str, **kwargs) -> None:
        super().__init__()
        self._responses = read_responses(Path(responses))

    @property
    def device(self) -> torch.device:
        """Where lmms-eval puts the request counts it gathers across data-parallel ranks: the
        accelerator's device once lmms-eval has attached one (its collectives need it), else CPU."""
        accelerator = getattr(self, "accelerator", None)
        return accelerator.device if accelerator is not None else torch.device("cpu")

    def generate_until(self, requests) -> list[str]:
        answers = []
        for request in tqdm(requests, desc="Replaying"):
            _, _, doc_to_visual, doc_id, task, split = request.args
            doc_to_visual(self.task_dict[task][split][doc_id])
            if (task, doc_id) not in self._responses:
                raise KeyError(f"no saved response for task {task!r}, doc_id {doc_id}")
            answers.append(self._responses[(task, doc_id)])
        return answers

    def loglikelihood(self, requests):
        raise NotImplementedError("a replay model has no log-likelihoods")

    def generate_until_multi_round(self, requests):
        raise NotImplementedError("a replay model answers single-round requests only")

"""Reference floors of the instrument-grounding tasks, as lmms-eval models (registered through the
`lmms_eval.models` entry point, see plugin.lmms.manifests): always the first option, a seeded random
option, and the blind genre x instrument prior the builder fitted. None of them listens."""

from __future__ import annotations

import random

from lmms_eval.api.model import lmms


class _GroundingBaseline(lmms):
    """Reference floor for the instrument-grounding tasks: answers from the doc without listening."""

    def __init__(self, **kwargs) -> None:
        super().__init__()

    def generate_until(self, requests) -> list[str]:
        answers = []
        for request in requests:
            _, _, _, doc_id, task, split = request.args
            doc = self.task_dict[task][split][doc_id]
            if "interface" not in doc:
                raise ValueError(
                    f"{type(self).__name__} answers the instrument-grounding tasks only, not {task!r}"
                )
            answers.append(self.answer(doc, f"{task}:{doc_id}"))
        return answers

    def answer(self, doc: dict, key: str) -> str:
        raise NotImplementedError

    @staticmethod
    def say(doc: dict, option: int) -> str:
        """How a listener would write option `option` of the doc (the letter in the A/B interface)."""
        return "AB"[option] if doc["interface"] == "letter" else doc["options"][option]

    def loglikelihood(self, requests):
        raise NotImplementedError("a reference baseline has no log-likelihoods")

    def generate_until_multi_round(self, requests):
        raise NotImplementedError("a reference baseline answers single-round requests only")


class AlwaysFirst(_GroundingBaseline):
    """The first option shown: "Yes", the first candidate, "A", the first time range."""

    def answer(self, doc: dict, key: str) -> str:
        return self.say(doc, 0)


class RandomOption(_GroundingBaseline):
    """A uniformly random option (multi-label: a random non-empty subset), seeded per request."""

    def __init__(self, seed: int = 0, **kwargs) -> None:
        super().__init__()
        self.seed = int(seed)

    def answer(self, doc: dict, key: str) -> str:
        rng = random.Random(f"{self.seed}:{key}")
        if doc["interface"] == "set":
            chosen = [name for name in doc["options"] if rng.random() < 0.5] or [
                rng.choice(doc["options"])
            ]
            return ", ".join(chosen)
        return self.say(doc, rng.randrange(len(doc["options"])))


class GenrePrior(_GroundingBaseline):
    """The blind genre x instrument prior the builder fitted (`prior_prediction`, genre-prior-reduced
    rows only). Other docs get no answer, which the tasks count as invalid."""

    def answer(self, doc: dict, key: str) -> str:
        prediction = doc.get("prior_prediction")
        return {"yes": "Yes", "no": "No"}.get(prediction, "")

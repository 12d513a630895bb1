"""A samples line's raw answer and doc, as each harness logs them, for re-reading an answer with
the installed readers (`symphony-bench rescore`, `verify`).

    lm-eval 0.4     "doc": the doc; "resps": per request its responses ([[text]] for a generated
                    answer; [[[log-likelihood, is_greedy]], ...] for log-likelihood requests)
    lmms-eval 0.7   no doc; "filtered_resps": what process_results was given (one request's list
                    flattened to its text); "resps" only where it differs (reasoning tags stripped)
"""

from __future__ import annotations

from symphony_bench.plugin.core.sections import CannotReread


def logged_doc(sample: dict, record: dict) -> dict:
    """The doc the line logs; lmms-eval logs none: the stored record, which copies every doc field
    its process_results reads."""
    doc = sample.get("doc")
    return doc if isinstance(doc, dict) else record


def generated_text(sample: dict) -> str:
    """The text process_results read: lm-eval's first response of the first request, lmms-eval's
    filtered response."""
    if isinstance(sample.get("doc"), dict):
        responses = sample.get("resps")
        if not isinstance(responses, list):
            raise CannotReread("no 'resps' (the raw answer) in the line")
        first = responses[0] if responses else []
        text = first[0] if isinstance(first, list) and first else ""
    else:
        if "filtered_resps" not in sample:
            raise CannotReread("no 'filtered_resps' (the raw answer) in the line")
        text = sample["filtered_resps"]
        while isinstance(text, list):
            text = text[0] if text else ""
    if not isinstance(text, str):
        raise CannotReread(f"the raw answer is {type(text).__name__}, not a text")
    return text


def loglikelihood_results(sample: dict) -> list[tuple[float, bool]]:
    """lm-eval's (log-likelihood, is_greedy) of each request, in request order."""
    responses = sample.get("resps")
    if not isinstance(responses, list) or not responses:
        raise CannotReread("no 'resps' (the stored log-likelihoods) in the line")
    results = []
    for response in responses:
        pair = response[0] if isinstance(response, list) and response else None
        if not (isinstance(pair, list) and len(pair) == 2):
            raise CannotReread(
                f"a response is {str(response)[:40]}, not [[log-likelihood, greedy]]"
            )
        try:  # a number, or the text a harness writes for one ("-inf")
            value = float(pair[0])
        except (TypeError, ValueError) as error:
            raise CannotReread(f"a log-likelihood is {pair[0]!r}") from error
        results.append((value, bool(pair[1])))
    return results

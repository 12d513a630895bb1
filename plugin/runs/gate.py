"""The release gate over a comparison (`--fail-on METRIC:+TOL`, see `GateRule`): a comparison is a
regression when the whole 95% interval of the change lies beyond the tolerance in the bad
direction, i.e. a one-sided test at 2.5% that the change exceeds the tolerance. A same-model rerun
(true change 0) is flagged at most 2.5% of the time per gated number, and a change inside the
tolerance never passes for a regression by noise alone more often than that.

A pass says nothing unless the comparison could have seen a regression: each change carries its
minimum detectable effect (`mde`, metrics.paired.floored_mde: 80 % power, two-sided 5 %, never
resting on less than a real change would vary by), and a rule whose metric's MDE exceeds its
tolerance is underpowered ("could only detect changes >= MDE"). With require_power an
underpowered, regression-free gate has its own status and exit code 3."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from symphony_bench.plugin.core.reporting import number

EXIT_PASS, EXIT_REGRESSION, EXIT_CANNOT_COMPARE, EXIT_UNDERPOWERED = 0, 1, 2, 3
RULE = re.compile(
    r"^(?:(?P<task>.+):)?(?P<metric>[A-Za-z0-9_]+):(?P<sign>[+-])(?P<tolerance>\d+(?:\.\d*)?|\.\d+)$"
)


@dataclass(frozen=True)
class GateRule:
    """`[TASK:]METRIC:+TOL` (an increase beyond TOL is a regression) or `-TOL` (a decrease is).
    Without TASK the rule applies to every compared task that reports METRIC (e.g. `mean_abs`
    covers the raw, prior-adjusted and calibrated entries)."""

    text: str
    task: str | None
    metric: str
    direction: int  # +1: increases are bad, -1: decreases are bad
    tolerance: float

    @classmethod
    def parse(cls, text: str) -> GateRule:
        match = RULE.match(text.strip())
        if not match:
            raise ValueError(
                f"--fail-on {text!r}: expected [TASK:]METRIC:+TOL or [TASK:]METRIC:-TOL, e.g. "
                "mean_abs:+0.02"
            )
        direction = 1 if match["sign"] == "+" else -1
        return cls(text, match["task"], match["metric"], direction, float(match["tolerance"]))

    def regressed(self, ci: list) -> bool | None:
        """True when the whole interval lies beyond the tolerance in the bad direction; None
        without an interval."""
        if ci[0] is None or not all(math.isfinite(v) for v in ci):
            return None
        return ci[0] > self.tolerance if self.direction > 0 else ci[1] < -self.tolerance

    def underpowered(self, mde) -> bool:
        """The comparison could not detect a change as large as the tolerance (80 % power)."""
        return mde is None or mde > self.tolerance


def apply_gate(result: dict, rules: list[GateRule], require_power: bool = False) -> dict:
    """{"rules", "regressions", "undecided", "checked" (passed), "unmatched", "underpowered"
    (checked rows whose MDE exceeds the rule's tolerance), "skipped" (rows whose metric is undefined
    in both runs, e.g. no valid answer: not gated, listed), "require_power", "status"}; status is
    "pass", "regression", "could_not_compare" (refused runs, a rule matching nothing, or a gated
    change without an interval) or, with require_power, "underpowered" (no regression, but some rule
    could not have seen one)."""
    gate = {
        "rules": [rule.text for rule in rules],
        "regressions": [],
        "undecided": [],
        "checked": [],
        "unmatched": [],
        "underpowered": [],
        "skipped": [],
        "require_power": require_power,
    }
    for rule in rules:
        rows = [
            row
            for row in change_rows(result)
            if row["metric"] == rule.metric and rule.task in (None, row["task"])
        ]
        defined = [row for row in rows if row["base"] is not None or row["candidate"] is not None]
        gate["skipped"] += [
            {"rule": rule.text, **row} for row in rows if row not in defined
        ]  # e.g. a task with no valid answer in either run: nothing to gate, said so
        if not defined:
            gate["unmatched"].append(rule.text)
        for row in defined:
            verdict = rule.regressed([row["ci_low"], row["ci_high"]])
            outcome = "undecided" if verdict is None else "regressions" if verdict else "checked"
            gate[outcome].append({"rule": rule.text, **row})
            if outcome == "checked" and rule.underpowered(row["mde"]):
                gate["underpowered"].append({"rule": rule.text, "tolerance": rule.tolerance, **row})
    if not result["compared"] or gate["unmatched"] or gate["undecided"]:
        gate["status"] = "could_not_compare"
    elif gate["regressions"]:
        gate["status"] = "regression"
    else:
        gate["status"] = "underpowered" if require_power and gate["underpowered"] else "pass"
    return gate


def exit_status(gate: dict) -> int:
    return {
        "pass": EXIT_PASS,
        "regression": EXIT_REGRESSION,
        "underpowered": EXIT_UNDERPOWERED,
    }.get(gate["status"], EXIT_CANNOT_COMPARE)


def change_rows(result: dict) -> list[dict]:
    """One row per compared headline metric, in task order: {"task", "metric", "base", "candidate",
    "change", "ci_low", "ci_high", "p", "mde"} (floats or None); what the forest plot of changes
    reads."""
    rows = []
    for label, body in result["tasks"].items():
        for metric, change in body["metrics"].items():
            rows.append(
                {
                    "task": label,
                    "metric": metric,
                    "base": _finite(change["base"]),
                    "candidate": _finite(change["candidate"]),
                    "change": _finite(change["change"]),
                    "ci_low": _finite(change["ci"][0]),
                    "ci_high": _finite(change["ci"][1]),
                    "p": _finite(change["p_value"]),
                    "mde": _finite(change.get("mde")),
                }
            )
    return rows


def _finite(value):
    return None if value is None else number(value)

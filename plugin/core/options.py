"""User options of the tasks, one name each, read by one parser.

lm-eval passes options as `--metadata` keys (they reach `custom_dataset` functions with the task's
`dataset_kwargs`); lmms-eval has no `--metadata`, so the same option is read from the environment
variable of the same name, upper-cased, with the prefix `SYMPHONY_` (a leading `symphony_` in the
name is not repeated: `symphony_seed` -> `SYMPHONY_SEED`, `audio` -> `SYMPHONY_AUDIO`). A metadata
key wins over the variable; neither given -> the default.
"""

from __future__ import annotations

import difflib
import json
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

PREFIX = "SYMPHONY_"


def integer(value) -> int:
    if isinstance(value, bool) or not str(value).strip().lstrip("-").isdigit():
        raise ValueError(f"must be an integer, got {value!r}")
    return int(value)


def text_or_none(value) -> str | None:
    return str(value).strip() or None


@dataclass(frozen=True)
class Option:
    name: str
    default: object
    help: str
    parse: Callable[[object], object] = text_or_none

    @property
    def variable(self) -> str:
        return variable_of(self.name)


def variable_of(name: str) -> str:
    """The environment variable of the option `name` (`symphony_seed` -> `SYMPHONY_SEED`)."""
    return PREFIX + name.removeprefix("symphony_").upper()


def _given(option: Option, metadata: Mapping | None, environ: Mapping) -> tuple[object, str] | None:
    """(the raw value given, where it came from), or None: a metadata key wins over the variable."""
    if metadata is not None and metadata.get(option.name) is not None:
        return metadata[option.name], f"--metadata key {option.name!r}"
    if str(environ.get(option.variable, "")).strip():
        return environ[option.variable], f"environment variable {option.variable}"
    return None


def read_options(
    options: tuple[Option, ...], metadata: Mapping | None = None, environ: Mapping | None = None
) -> dict:
    """{option name: value} from lm-eval's metadata, else the environment, else the default."""
    environ = os.environ if environ is None else environ
    values = {}
    for option in options:
        given = _given(option, metadata, environ)
        if given is None:
            values[option.name] = option.default
            continue
        raw, origin = given
        try:
            values[option.name] = option.parse(raw)
        except (TypeError, ValueError) as error:
            raise ValueError(f"{origin}: {error}") from error
    return values


def refuse_near_misses(metadata: Mapping, known: Iterable[str]) -> None:
    """A --metadata key that is not an option but reads like one ("stereotype" for "stereotypes")
    is a typo that would run on the default silently: one error naming the option. Other unknown
    keys pass: lm-eval hands its own (model arguments, the task version) to the same function."""
    known = sorted(set(known))
    for key in metadata:
        if key in known:
            continue
        close = difflib.get_close_matches(str(key), known, n=1, cutoff=0.8)
        if close:
            raise ValueError(
                f"--metadata key {key!r} is not an option: did you mean {close[0]!r}? "
                f"(options: {', '.join(known)})"
            )


def options_table(options: tuple[Option, ...]) -> list[str]:
    """Markdown rows `| name | variable | default | what |` for docs/reasoning-models-and-caches.md."""
    return [
        f"| `{o.name}` | `{o.variable}` | {'-' if o.default is None else f'`{o.default}`'} | {o.help} |"
        for o in options
    ]


def given_options(
    options: tuple[Option, ...], metadata: Mapping | None = None, environ: Mapping | None = None
) -> str:
    """The run fact "task_options": the canonical JSON text of {option name: the value given, as text, or
    null when not given} (a metadata key wins over the variable, as in read_options). Every doc
    carries it, so that a run's records can be checked against the options its results file says
    it ran with (plugin/runs/options_check.py)."""
    environ = os.environ if environ is None else environ
    given = {option.name: _given(option, metadata, environ) for option in options}
    return json.dumps(
        {name: None if found is None else str(found[0]).strip() for name, found in given.items()},
        sort_keys=True,
        separators=(",", ":"),
    )


def environment_options(environ: Mapping | None = None) -> dict[str, str]:
    """Every SYMPHONY_* variable set (lmms-eval's only way to pass the tasks' options), by name."""
    environ = os.environ if environ is None else environ
    return {
        name: str(value).strip()
        for name, value in sorted(environ.items())
        if name.startswith(PREFIX) and str(value).strip()
    }


class OptionsInForce:
    """What the SYMPHONY_* options are in this process, as text: the canonical JSON of {"options":
    {variable: value}, "content": {variable: content digest of the local folder it names}}.

    lmms-eval's `--use_cache` keys each answer on the task's config, the doc id and the prompt, not
    on the environment that chose the docs' stimuli: two stimulus sets would share every key. The
    lmms-eval task YAMLs put this object in their `metadata`, which lmms-eval hashes (and writes to
    its results file) through `str`, so another option or a rebuilt folder gives other keys."""

    def __str__(self) -> str:
        from symphony_bench.plugin.core.dataset_digest import folder_sha256
        from symphony_bench.plugin.core.errors import DataFileError

        options = environment_options()
        content = {}
        for name, value in options.items():
            if Path(value).expanduser().is_dir():
                try:
                    content[name] = folder_sha256(Path(value).expanduser())
                except (DataFileError, OSError):
                    content[name] = None
        return json.dumps({"content": content, "options": options}, sort_keys=True)

    __repr__ = __str__

    def __deepcopy__(self, memo):  # dataclasses.asdict copies the config it dumps
        return self


OPTIONS_IN_FORCE = OptionsInForce()

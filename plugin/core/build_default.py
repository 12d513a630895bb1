"""`python -m symphony_bench.plugin.core.build_default KIND OUT`: writes the default set of a
registered build kind (plugin.core.registry) into OUT; exit 1 with the reason on stderr when the
kind has no default set or its build fails."""

from __future__ import annotations

import sys
from pathlib import Path

from symphony_bench.plugin.core.registry import build_kind, load


def main(argv: list[str]) -> int:
    kind, out = argv
    registered = build_kind(kind)
    if registered is None or registered.build_default is None:
        print(
            f"symphony-bench: no registered builder writes a default {kind!r} set", file=sys.stderr
        )
        return 1
    try:
        load(registered.build_default)(Path(out))
    except (OSError, ValueError) as error:  # DataFileError is a ValueError
        print(f"symphony-bench: error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

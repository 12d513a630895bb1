"""Registering a throwaway benchmark or builder as an installed package would: a dist-info folder with
its entry points, in a folder put first on sys.path (in process) or PYTHONPATH (a child)."""

from __future__ import annotations

import os
from pathlib import Path


def write_dist_info(root: Path, name: str, entry_points: dict[str, dict[str, str]]) -> Path:
    """`root/<name>-0.1.0.dist-info` declaring {group: {entry point name: "module:attribute"}};
    returns `root`."""
    info = root / f"{name.replace('-', '_')}-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text(
        "".join(
            f"[{group}]\n" + "".join(f"{key} = {value}\n" for key, value in points.items())
            for group, points in entry_points.items()
        )
    )
    return root


def put_first_on_path(monkeypatch, root: Path) -> None:
    """`root` first on this process's sys.path (entry points read from now on see it; the registry's
    cached reading in this process is not redone) and on its children's PYTHONPATH."""
    monkeypatch.syspath_prepend(str(root))
    paths = [str(root), *filter(None, [os.environ.get("PYTHONPATH")])]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(paths))

"""Loaded by Python at start when its folder is on PYTHONPATH (the test suite puts it there for the
commands it starts, with SYMPHONY_TEST_TASK_INDEX naming a folder of this test session): a
harness's index of its own built-in tasks (lm-eval's 14,683, about 6 s to parse on a 2-core VM;
lmms-eval's 1,985, about 3 s), which cannot change within a session, is parsed by the session's
first run and read from that folder by the others. Every other folder (the include path: this
package's tasks) is indexed by the harness's own code, as always."""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import pickle
import sys
from pathlib import Path

FOLDER = os.environ.get("SYMPHONY_TEST_TASK_INDEX")


def cached(name: str, build):
    from filelock import FileLock

    path = Path(FOLDER) / f"{name}.pickle"
    with FileLock(f"{path}.lock"):
        if path.exists():
            return pickle.loads(path.read_bytes())
        index = build()
        staged = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        staged.write_bytes(pickle.dumps(index))
        os.replace(staged, path)
        return index


def patch_lm_eval(module) -> None:
    """lm_eval.tasks._index: TaskIndex.build(paths), the built-in folder first."""
    build = module.TaskIndex.build
    built_in = Path(module.__file__).parent

    def build_with_cache(paths, *, resolve_includes=True):
        paths = [Path(path) for path in paths]
        if not paths or paths[0] != built_in or not resolve_includes:
            return build(paths, resolve_includes=resolve_includes)
        index = dict(cached("lm_eval", lambda: build([built_in])))
        for name, entry in build(paths[1:]).items():
            if name in index:  # as lm-eval says it when it merges its folders
                module.log.warning(
                    "Task '%s' from %s overrides existing task from %s",
                    name,
                    entry.yaml_path,
                    index[name].yaml_path,
                )
            index[name] = entry
        return index

    module.TaskIndex.build = staticmethod(build_with_cache)


def patch_lmms_eval(module) -> None:
    """lmms_eval.tasks: TaskManager._get_task_and_group(task_dir), one folder at a time."""
    index_folder = module.TaskManager._get_task_and_group
    built_in = Path(module.__file__).parent

    def index_with_cache(self, task_dir):
        if Path(task_dir) != built_in:
            return index_folder(self, task_dir)
        return cached("lmms_eval", lambda: index_folder(self, task_dir))

    module.TaskManager._get_task_and_group = index_with_cache


PATCHES = {"lm_eval.tasks._index": patch_lm_eval, "lmms_eval.tasks": patch_lmms_eval}


class PatchOnImport(importlib.abc.MetaPathFinder):
    """Patches a module of PATCHES as it is first imported."""

    def find_spec(self, fullname, path, target=None):
        if fullname not in PATCHES:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return spec
        exec_module = spec.loader.exec_module

        def exec_and_patch(module):
            exec_module(module)
            PATCHES[fullname](module)

        spec.loader.exec_module = exec_and_patch
        return spec


if FOLDER:
    sys.meta_path.insert(0, PatchOnImport())

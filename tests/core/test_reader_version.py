"""A record's reader version is a digest of the reader's files: any change to a rule, a new module
its pattern names, or another version of a package whose data it reads changes it."""

from __future__ import annotations

import pytest

from symphony_bench.plugin.core import reader_version as versions
from symphony_bench.plugin.symphony_bias import readers


@pytest.fixture
def package(tmp_path, monkeypatch):
    monkeypatch.setattr(versions, "PACKAGE_ROOT", tmp_path)
    versions.reader_version.cache_clear()
    (tmp_path / "reader").mkdir()
    (tmp_path / "reader" / "person_rules.py").write_text("RULE = 'he'\n")
    yield tmp_path
    versions.reader_version.cache_clear()


def version(*sources: str) -> str:
    versions.reader_version.cache_clear()
    return versions.reader_version(sources)


def test_a_changed_rule_or_a_new_module_changes_the_version(package):
    sources = ("reader/person_*.py",)
    first = version(*sources)
    assert len(first) == 12 and int(first, 16) >= 0
    assert version(*sources) == first  # the same files, the same version
    (package / "reader" / "person_rules.py").write_text("RULE = 'she'\n")
    changed = version(*sources)
    assert changed != first
    (package / "reader" / "person_names.py").write_text("NAMES = ()\n")
    assert version(*sources) not in (first, changed)


def test_a_packages_version_counts_and_a_pattern_without_files_is_an_error(package):
    with_pytest = version("reader/person_*.py", "dist:pytest")
    assert with_pytest != version("reader/person_*.py")
    assert with_pytest != version("reader/person_*.py", "dist:no-such-package-here")
    with pytest.raises(FileNotFoundError, match="reader/gone_"):
        version("reader/gone_*.py")


def test_every_listed_reader_file_exists_and_readers_differ():
    found = {name: readers.version_of(name) for name in readers.READER_SOURCES}
    assert len(set(found.values())) == len(found)

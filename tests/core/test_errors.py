"""CSV reading: every malformed row is one error naming the file and line."""

import pytest

from symphony_bench.plugin.core.errors import DataFileError, read_csv
from symphony_bench.plugin.core.vocabulary import load_instruments


def test_rows_are_stripped_and_short_rows_read_as_empty(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a,b\n x , y \nz\n")
    assert read_csv(path, ("a", "b")) == [{"a": "x", "b": "y"}, {"a": "z", "b": ""}]


def test_a_row_with_more_fields_than_the_header_names_file_and_line(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a,b\n1,2\n3,4,5\n")
    with pytest.raises(DataFileError, match=r"t\.csv, line 3: more fields than the header's 2"):
        read_csv(path, ("a", "b"))


def test_an_unquoted_comma_in_an_instrument_table_is_a_clear_error(tmp_path):
    path = tmp_path / "instruments.csv"
    path.write_text("instrument,article,noun\nharp,a,harp, the big one\n")
    with pytest.raises(DataFileError, match=r"instruments\.csv, line 2"):
        load_instruments(path)

"""One embedded ClickHouse per process: handles share the open directory, another one is refused."""

from pathlib import Path

import pytest

from backend.domain.market.embedded import close_embedded, current_embedded_path, open_embedded
from backend.domain.market.errors import StoreUnavailable


@pytest.mark.xdist_group("embedded-registry")
def test_a_second_directory_waits_until_every_handle_on_the_first_is_closed(
    tmp_path: Path,
) -> None:
    outer = current_embedded_path()
    first_dir = outer or str(tmp_path / "first")
    first = open_embedded(first_dir)
    second = open_embedded(first_dir)
    try:
        assert current_embedded_path() == first_dir
        assert second.query("SELECT 41 + 1").result_rows == [(42,)]
        with pytest.raises(StoreUnavailable, match="one data directory per process"):
            open_embedded(str(tmp_path / "other"))
    finally:
        close_embedded(second)
        close_embedded(first)
    assert current_embedded_path() == outer
    if outer is None:
        other = open_embedded(str(tmp_path / "other"))
        try:
            assert other.query("SELECT 1").result_rows == [(1,)]
        finally:
            close_embedded(other)

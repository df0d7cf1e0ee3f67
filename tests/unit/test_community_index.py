"""The community index table: a first write cut short (a process killed while LanceDB creates
the table leaves a folder with no version to open) is dropped and written again, and the
ingest step that fills it indexes every stored community then, not only the pending ones."""

from __future__ import annotations

import shutil
from pathlib import Path

import lancedb
import pytest

from kg_rag.models import Community
from kg_rag.stores.community_index import TABLE, CommunityIndex
from kg_rag.testing import HashEmbeddings


def _communities(n: int) -> list[Community]:
    return [
        Community(community_id=f"c{i}", level=i % 2, title=f"Group {i}", summary=f"Members {i}")
        for i in range(n)
    ]


def _cut_short(kb: Path) -> None:
    """The table's folder as a killed first write leaves it: data, no version."""
    shutil.rmtree(kb / f"{TABLE}.lance" / "_versions")


@pytest.mark.parametrize("read", ["all", "vectors", "exists", "apply", "replace"])
def test_a_table_cut_short_reads_as_none_and_is_written_again(tmp_path: Path, read: str) -> None:
    db = lancedb.connect(tmp_path)
    CommunityIndex(db, HashEmbeddings(dimensions=8)).replace(_communities(3))
    _cut_short(tmp_path)
    assert TABLE in db.list_tables().tables  # listed, but it cannot be opened
    index = CommunityIndex(db, HashEmbeddings(dimensions=8))
    if read == "all":
        assert index.all() == []
    elif read == "vectors":
        assert index.vectors() == {}
    elif read == "exists":
        assert index.exists() is False
    elif read == "apply":
        assert index.apply(_communities(2)) == 2
    else:
        assert index.replace(_communities(4)) == 4
    # whatever was read first, the next write makes a table that opens
    index.replace(_communities(5))
    again = CommunityIndex(db, HashEmbeddings(dimensions=8))
    assert [c.community_id for c in again.all()] == ["c0", "c2", "c4", "c1", "c3"]
    assert again.exists() is True


def test_a_whole_table_is_left_alone(tmp_path: Path) -> None:
    """Control: a table that opens is read as it is."""
    db = lancedb.connect(tmp_path)
    CommunityIndex(db, HashEmbeddings(dimensions=8)).replace(_communities(3))
    index = CommunityIndex(db, HashEmbeddings(dimensions=8))
    assert index.exists() is True
    assert sorted(c.community_id for c in index.all()) == ["c0", "c1", "c2"]
    assert index.apply(_communities(4)) == 1  # only the new one is embedded

"""demo_data_dir: a demo runs in ``--data-dir`` (kept) or in a temporary directory (removed)."""

from __future__ import annotations

from kafkette.client.demo.data_dir import demo_data_dir


def test_a_temporary_directory_is_made_and_removed_with_its_contents():
    with demo_data_dir(None, "kafkette-test-demo-") as data_dir:
        assert data_dir.is_dir() and data_dir.name.startswith("kafkette-test-demo-")
        (data_dir / "cluster").mkdir()
        (data_dir / "cluster" / "segment.log").write_bytes(b"x")
    assert not data_dir.exists()


def test_a_given_directory_is_used_and_kept(tmp_path):
    given = tmp_path / "mine"
    with demo_data_dir(str(given), "unused-") as data_dir:
        assert data_dir == given
        data_dir.mkdir()
        (data_dir / "segment.log").write_bytes(b"x")
    assert (given / "segment.log").read_bytes() == b"x"

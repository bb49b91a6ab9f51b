"""runway_lsp.text_sync.coalesce_watched (adversary S4): which paths of one
didChangeWatchedFiles notification are re-checked."""

from __future__ import annotations

from pathlib import Path

from runway_lsp.text_sync import coalesce_watched


def test_missing_paths_collapse_to_one_per_existing_folder(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "runway.yaml").write_text("runway: 1\n", encoding="utf-8")
    (tmp_path / "b").mkdir()
    existing = str(tmp_path / "a" / "runway.yaml")
    published = str(tmp_path / "gone" / "runway.yaml")
    missing_top = [str(tmp_path / f"svc{i}" / "deep" / "runway.yaml") for i in range(5000)]
    missing_b = [str(tmp_path / "b" / f"x{i}" / "runway.yml") for i in range(3)]
    paths = missing_top[:10] + [existing] + missing_b + [published] + missing_top[10:]
    kept = coalesce_watched(paths, {published: "root"}.get)
    assert kept == [missing_top[0], existing, missing_b[0], published]

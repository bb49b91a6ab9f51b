"""Issue 23, the holes left after round 4 (docs/reliability.md, "Round 4 (issue 23): the
holes left"): a usage file that is a symlink out of the product is refused, never read, by
the one check the CLI and the language server share (``check_usage``)."""

from __future__ import annotations

import os
from pathlib import Path

from runway_core.analysis import analyze

from test_usage import ROOT

SECRET = "usage: 1\nenvironments:\n  production:\n    items:\n      TOPSECRET-LINE: {storage_gb: 1}\n"


def _product_with_linked_usage(tmp_path: Path, name: str = "runway.usage.yaml") -> tuple[Path, Path]:
    product = tmp_path / "product"
    product.mkdir()
    (product / "runway.yaml").write_text(ROOT)
    outside = tmp_path / "outside.yaml"
    outside.write_text(SECRET)
    os.symlink(outside, product / name)
    return product, outside


def test_a_usage_file_linked_out_of_the_product_is_refused_unread(tmp_path, catalog, monkeypatch) -> None:
    product, outside = _product_with_linked_usage(tmp_path)
    read = []

    def reader(path: str) -> str:
        read.append(os.path.realpath(path))
        from runway_core.workspace import read_disk
        return read_disk(path)

    an = analyze(str(product / "runway.yaml"), catalog, reader)
    usage = str(product / "runway.usage.yaml")
    (d,) = an.diagnostics[usage]
    assert d.code == "RW200" and d.range.start.line == 0 and d.range.start.character == 0
    assert "symlink that leaves the product" in d.message and "never read" in d.message
    assert str(outside) not in d.message and "TOPSECRET" not in d.message
    assert str(outside) not in read  # never opened
    assert all("TOPSECRET" not in x.message for x in an.all_diagnostics())


def test_a_named_usage_file_linked_out_of_the_product_is_refused(tmp_path, catalog) -> None:
    product, _outside = _product_with_linked_usage(tmp_path, "team.usage.yaml")
    an = analyze(str(product / "runway.yaml"), catalog, usage_file="team.usage.yaml")
    (d,) = an.diagnostics[str(product / "team.usage.yaml")]
    assert d.code == "RW200" and "symlink that leaves the product" in d.message


def test_a_usage_file_linked_inside_the_product_is_read(tmp_path, catalog) -> None:
    product = tmp_path / "product"
    (product / "shared").mkdir(parents=True)
    (product / "runway.yaml").write_text(ROOT)
    (product / "shared" / "u.yaml").write_text("usage: 1\nenvironments:\n  production:\n    items:\n      nope: {storage_gb: 1}\n")
    os.symlink("shared/u.yaml", product / "runway.usage.yaml")
    an = analyze(str(product / "runway.yaml"), catalog)
    assert [d.code for d in an.diagnostics[str(product / "runway.usage.yaml")]] == ["RW201"]


def test_the_cli_refuses_a_usage_file_linked_out_of_the_product(tmp_path, capsys) -> None:
    from deploy_engine.cli import main

    product, outside = _product_with_linked_usage(tmp_path)
    rc = main(["check", str(product)])
    out, err = capsys.readouterr()
    assert rc == 1
    assert "RW200" in out and "symlink that leaves the product" in out
    assert "TOPSECRET" not in out + err and str(outside) not in out + err
    # usage init --force neither reads nor writes through it (exit 1: the usage file has an error).
    rc = main(["usage", "init", str(product), "--force"])
    out, err = capsys.readouterr()
    assert rc == 1 and "TOPSECRET" not in out + err
    assert outside.read_text() == SECRET


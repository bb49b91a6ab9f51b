"""The command line refuses a name or digest ending in a line break (ninth adversary L13):
``product: |`` (the value ``"shop\\n"``) and an ``image`` digest with its line break passed
``check`` (0 errors) and ``plan`` (exit 0), and the plan JSON carried product ``"shop\\n"``,
the prefix of every AWS name, SSM path and Pulumi stack of the deploy."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from deploy_engine.cli import main

DIGEST = "registry.example.com/api@sha256:" + "0123456789abcdef" * 4


def _write(tmp_path: Path, product: str, image: str) -> Path:
    (tmp_path / "runway.yaml").write_text(
        f"runway: 1\nproduct: {product}\nenvironments:\n  dev: {{limits: {{monthly: 100}}}}\n"
        f"workloads:\n  api:\n    image: {image}\n    port: 8080\n    health: {{path: /health}}\n"
        "    reason: \"no-managed-fit: our API\"\n",
        encoding="utf-8",
    )
    return tmp_path


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_the_clean_runway_passes(tmp_path, capsys):
    folder = _write(tmp_path, "shop", DIGEST)
    assert _run(capsys, "check", str(folder))[0] == 0
    rc, out, _err = _run(capsys, "plan", str(folder), "--format", "json")
    assert rc == 0 and json.loads(out)["product"] == "shop"


@pytest.mark.parametrize(
    ("product", "image", "expected"),
    [
        ("|\n  shop", DIGEST, "error RW110: product `shop\\n` must be a DNS label"),
        ('"shop\\r\\n"', DIGEST, "error RW110: product `shop\\r\\n` must be a DNS label"),
        ("shop", f'"{DIGEST}\\n"', "error RW140: image is not pinned by digest: it starts or ends with a space or a line break"),
        ("shop", f"|\n      {DIGEST}", "error RW140: image is not pinned by digest"),
    ],
    ids=["block-scalar-product", "quoted-crlf-product", "quoted-image", "block-scalar-image"],
)
def test_a_trailing_line_break_fails_check_and_plan(tmp_path, capsys, product, image, expected):
    folder = _write(tmp_path, product, image)
    rc, out, err = _run(capsys, "check", str(folder))
    assert rc == 1, out + err
    assert expected in out + err
    # One diagnostic, one line: the line break is written `\n`, never printed.
    assert len([ln for ln in (out + err).splitlines() if " RW1" in ln]) == 1
    rc, _out, _err = _run(capsys, "plan", str(folder), "--format", "json")
    assert rc == 1

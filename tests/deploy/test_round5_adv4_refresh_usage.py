"""Round 5 (issue 23), the fourth fresh adversary's F06 and F09, and F02's minor ``--region ''``:
``catalog refresh`` and ``usage init`` read an empty path option, or a name YAML reads as
something else, as something it is not.

- F06: ``catalog refresh --output ""`` wrote ``sizes.toml`` and ``prices.csv`` into the current
  folder (replacing the team's own), ``--output " "`` made a folder named `` ``, ``--catalog ""``
  was exit 3 (``sizes.toml: file not found``) and ``usage init --output ""`` wrote the default
  file. docs/cli.md: an empty FILE or DIR is a usage error (exit 64), never read as "no option";
  now every path option of both commands takes the same argparse type as ``check``/``plan``
  (``deploy_engine.argtypes.named``).
- F02 (minor): ``catalog refresh --region ''`` read every offer file, then the written
  catalogue did not load (exit 3, naming a temporary folder). A region that is no region code
  is now a usage error before any request (counted by the mirror's requests).
- F09: ``usage init`` wrote an environment or item named ``null``, ``true`` or ``false`` (valid
  names: ``check`` exit 0) as a plain key, which the YAML 1.2 core schema reads as None / True /
  False: once a figure was uncommented, ``check`` said "unknown environment `None`" (RW201) and
  the figure was never used. Now such a key is double-quoted; each name round-trips: generated,
  uncommented, ``check`` exit 0, and ``plan`` uses the figure (``quantity_source`` the usage
  file).
"""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest

from deploy_engine.cli import main
from deploy_engine.pricelist import command
from test_pricelist_hostile import REGION, _mirror, hostile  # noqa: F401 - hostile is a fixture

REPO = Path(__file__).resolve().parents[2]


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    rc = main(list(argv), stdout=out, stderr=err, environ={})
    return rc, out.getvalue(), err.getvalue()


def listing(folder: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None) for p in sorted(folder.rglob("*"))}


# --- F06: catalog refresh --output/--catalog "" ----------------------------------------------------

@pytest.mark.parametrize("extra", [["--output", ""], ["--output", " "], ["--output", "\t"],
                                   ["--output", "{out}", "--catalog", ""], ["--output", "{out}", "--catalog", "  "]])
@pytest.mark.parametrize("via", ["runway-deploy", "python -m deploy_engine.pricelist"])
def test_an_empty_refresh_folder_is_a_usage_error_and_nothing_is_written(tmp_path, monkeypatch, capsys, extra, via) -> None:
    source = _mirror(tmp_path / "mirror").as_uri()
    work = tmp_path / "work"
    work.mkdir()
    (work / "prices.csv").write_text("the team's own prices\n", encoding="utf-8")
    monkeypatch.chdir(work)
    before = listing(work)
    argv = ["--source", source, "--region", REGION, *[a.format(out=tmp_path / "out") for a in extra]]
    if via == "runway-deploy":
        rc, _out, err = run("catalog", "refresh", *argv)
    else:
        buf = io.StringIO()
        rc = command.main(argv, stderr=buf)
        err = buf.getvalue() + capsys.readouterr().err  # argparse's own error goes to sys.stderr
    assert rc == 64, err
    assert "is empty" in err, err
    assert listing(work) == before  # no sizes.toml/prices.csv here, no folder named " "
    assert not (tmp_path / "out").exists()


# --- F02 (minor): --region that is no region code ---------------------------------------------------

@pytest.mark.parametrize("region", ["", " ", "EU West", "eu-west-1;us-east-1", "eu_west_1", "all-of-them"])
def test_a_region_that_is_no_region_code_is_a_usage_error_before_any_download(hostile, tmp_path, region) -> None:  # noqa: F811
    source, server, _root = hostile
    buf = io.StringIO()
    rc = command.main(["--source", source, "--region", region, "--output", str(tmp_path / "out")], stderr=buf)
    assert rc == command.EXIT_USAGE, buf.getvalue()
    assert "is not a region code" in buf.getvalue() and ".refresh-" not in buf.getvalue(), buf.getvalue()
    assert server.requests == []  # nothing asked of the mirror, not even its offer index
    assert not (tmp_path / "out").exists()


def test_a_region_code_and_all_are_still_read(hostile, tmp_path) -> None:  # noqa: F811
    source, server, _root = hostile
    for region in (REGION, " all "):
        buf = io.StringIO()
        rc = command.main(["--source", source, "--region", region, "--output", str(tmp_path / "out")], stderr=buf)
        assert rc in (command.EXIT_OK, command.EXIT_INCOMPLETE), buf.getvalue()
    assert server.requests


# --- F06: usage init --output "" --------------------------------------------------------------------

@pytest.fixture
def product(tmp_path: Path) -> Path:
    dest = tmp_path / "orders"
    shutil.copytree(REPO / "examples" / "orders", dest)
    return dest


@pytest.mark.parametrize("extra", [["--output", ""], ["--output", "  "], ["--usage", ""], ["--catalog", ""], ["--catalog", " "]])
def test_usage_init_with_an_empty_path_option_is_a_usage_error(product, monkeypatch, extra) -> None:
    monkeypatch.chdir(product)
    before = listing(product)
    rc, out, err = run("usage", "init", str(product), *extra)
    assert rc == 64, (out, err)
    assert "is empty" in err, err
    assert listing(product) == before  # before: runway.usage.yaml written for --output ""


def test_usage_init_output_dash_still_writes_standard_output(product) -> None:
    rc, out, err = run("usage", "init", str(product), "--output", "-")
    assert rc == 0 and out.startswith("# runway.usage.yaml"), err


# --- F09: names YAML reads as null / booleans ---------------------------------------------------------

RUNWAY = """\
runway: 1
product: shop
region: us-east-1
environments:
  "{name}":
    limits: {{monthly: 1000}}
  prod:
    limits: {{monthly: 1000}}
resources:
  "{name}":
    kind: queue
"""


@pytest.mark.parametrize("name", ["null", "true", "false", "yes", "no", "on", "off", "nan", "inf", "y", "n"])
def test_usage_init_round_trips_a_name_yaml_would_read_as_no_string(tmp_path, name) -> None:
    (tmp_path / "runway.yaml").write_text(RUNWAY.format(name=name), encoding="utf-8")
    rc, _out, err = run("check", str(tmp_path))
    assert rc == 0, err  # a valid runway
    rc, _out, err = run("usage", "init", str(tmp_path))
    assert rc == 0, err
    usage = tmp_path / "runway.usage.yaml"
    text = usage.read_text(encoding="utf-8")
    # The team states its figure for the environment `name`, item `name` (the first item block).
    marker = "        # requests_millions: 1 "
    assert text.count(marker) == 2, text
    usage.write_text(text.replace(marker, "        requests_millions: 50", 1), encoding="utf-8")
    rc, out, err = run("check", str(tmp_path))
    assert rc == 0 and "RW201" not in out + err, out + err  # before: unknown environment `None`
    rc, out, err = run("plan", str(tmp_path), "--format", "json")
    assert rc == 0, err
    env = next(e for e in json.loads(out)["environments"] if e["name"] == name)
    item = next(i for i in env["items"] if i["name"] == name)
    line = next(li for li in item["line_items"] if li["unit"] == "1M requests")
    assert line["quantity"] == 50 and line["quantity_source"].startswith("usage file"), line
    prod = next(e for e in json.loads(out)["environments"] if e["name"] == "prod")
    assert all(li["quantity"] == 1 for i in prod["items"] for li in i["line_items"] if li["unit"] == "1M requests")


def test_usage_init_quotes_only_the_keys_that_need_it() -> None:
    from runway_core.analysis.usage import yaml_key
    from runway_core.yamlsrc.nodes import resolve_plain

    for name in ("dev", "prod", "orders-db", "yes", "api_v2"):
        assert yaml_key(name) == name
    for name in ("null", "Null", "NULL", "~", "", "true", "False", "1e3", "123", "0x1f", "0o17", ".inf", ".nan", "-1", "a b", "a: b", "#x"):
        assert yaml_key(name) == json.dumps(name), name
    # What the usage file's parser reads back from each written key: the name itself.
    for name in ("null", "true", "false", "1e3", "dev"):
        key = yaml_key(name)
        assert (json.loads(key) if key.startswith('"') else resolve_plain(key)) == name

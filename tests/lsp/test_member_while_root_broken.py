"""Issue 15: a member runway opened while its root has a syntax error (being typed) gets no
RW154 "no root lists it": the root may list it once it parses again."""

from __future__ import annotations

from pathlib import Path

from runway_core.analysis import analyze

MEMBER = "runway: 1\nmember: api\nrequires: [queue]\n"


def _layout(tmp_path: Path, root_text: str) -> Path:
    (tmp_path / "services" / "api").mkdir(parents=True)
    (tmp_path / "runway.yaml").write_text(root_text, encoding="utf-8")
    member = tmp_path / "services" / "api" / "runway.yaml"
    member.write_text(MEMBER, encoding="utf-8")
    return member


def test_no_rw154_while_the_root_does_not_parse(tmp_path, catalog):
    member = _layout(tmp_path, "runway: 1\nproduct: shop\nregion: us-east-1\nmembers: [services/api\nresources: {}\n")
    an = analyze(str(member), catalog)
    assert "RW154" not in [d.code for ds in an.diagnostics.values() for d in ds]


def test_rw154_when_the_root_parses_and_does_not_list_the_member(tmp_path, catalog):
    member = _layout(tmp_path, "runway: 1\nproduct: shop\nregion: us-east-1\nmembers: []\n")
    an = analyze(str(member), catalog)
    assert "RW154" in [d.code for d in an.diagnostics.get(str(member.resolve()), an.diagnostics.get(str(member), ()))]

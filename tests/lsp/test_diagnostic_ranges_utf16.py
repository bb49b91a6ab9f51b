"""Issue 23: the ranges the real server publishes are the offending tokens in LSP's units
(0-based lines, UTF-16 code units: LSP 3.17 §"Position"): the document text, sliced at each
published range in UTF-16, is the token tests/core/test_diagnostic_ranges.py expects, with a
non-BMP character (two UTF-16 units) before it on its line; then the shape check over every
runway of examples/ and tests/golden/. Raw JSON-RPC (tests/rawlsp.py)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from rawlsp import RawServer

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "core"))
from test_diagnostic_ranges import CASES, RUNWAYS, token_problems  # noqa: E402

CAPS = {"general": {"positionEncodings": ["utf-16"]}, "textDocument": {"publishDiagnostics": {"versionSupport": True}}}


def utf16(line: str, start: int, end: int) -> str:
    units = line.encode("utf-16-le")
    return units[2 * start : 2 * end].decode("utf-16-le")  # strict: a range inside a surrogate pair raises


def _lines(text: str) -> list[str]:
    return re.split(r"\r\n|\r|\n", text)


def test_published_ranges_are_tokens_in_utf16(tmp_path: Path) -> None:
    ws = tmp_path.resolve()
    srv = RawServer(ws)
    bad: list[str] = []
    try:
        assert srv.initialize(ws, CAPS)["capabilities"].get("positionEncoding", "utf-16") == "utf-16"
        # The reason cases with a non-BMP character before the token on its line.
        for n, (name, text, code, token) in enumerate(CASES):
            text = text.replace("  cron:", '  "😀cron":', 1)
            token = '"😀cron"' if token == "cron" else token
            folder = ws / f"case{n}"
            folder.mkdir()
            uri = (folder / "runway.yaml").as_uri()
            srv.open(uri, text)
            published = [d for d in srv.wait_publish(uri, 1)["diagnostics"] if d.get("code") == code]
            lines = _lines(text)
            got = [utf16(lines[d["range"]["start"]["line"]], d["range"]["start"]["character"], d["range"]["end"]["character"]) for d in published
                   if d["range"]["start"]["line"] == d["range"]["end"]["line"]]
            if not got or got[-1] != token:
                bad.append(f"{name}: {code} at {got!r}, not {token!r}")
        # Every rule, on every runway of the examples and the golden cases.
        for root in RUNWAYS:
            try:
                text = root.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue
            srv.open(root.as_uri(), text)
            lines = _lines(text)
            for d in srv.wait_publish(root.as_uri(), 1)["diagnostics"]:
                s, e = d["range"]["start"], d["range"]["end"]
                if s["line"] != e["line"] or s["line"] >= len(lines):
                    continue
                line = lines[s["line"]]
                # token_problems works on code points: convert the UTF-16 columns.
                a = len(utf16(line, 0, s["character"]))
                b = a + len(utf16(line, s["character"], e["character"]))
                for problem in token_problems(line, a, b, d.get("code")):
                    bad.append(f"{root.name} {s['line']}:{s['character']} {d.get('code')} {line[a:b]!r}: {problem}")
    finally:
        rc, stderr = srv.close()
    assert not bad, "\n".join(bad)
    assert rc == 0 and "Traceback" not in stderr

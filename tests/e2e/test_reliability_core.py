"""Reliability of the core, property-based (hypothesis; issue 7, docs/reliability.md).

- Any text, as a root runway: the whole analysis and every editor feature of the core (hover,
  completion, definition, symbols, quick fixes, lenses, inlay hints) at any position run
  without an exception, and every range they return lies inside the document.
- Random mutations of both examples, root and member files alike (delete or insert characters
  and lines, swap the indentation of two lines, non-BMP characters, CRLF, lone CR, tabs,
  U+2028, NUL): the same, for the product analysed as a whole (root and members together).
- The same mutated products through the CLI (``check --format json`` and ``--format sarif``):
  every range, in UTF-16 code units, lies inside its file.

Plus the regressions of the fresh-user run: every bad entry of a map reported at its own
value, a long wrong value reported on one line, a merge key's fault at the ``<<``, a cap of
``-0.0`` printed as $0.00.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deploy_engine.cli import diagnostic_json, main
from runway_core.analysis import analyze
from runway_core.catalog import load_catalog
from runway_core.ide.completion import completions_at
from runway_core.ide.fixes import fixes_for
from runway_core.ide.hover import hover_at
from runway_core.ide.lenses import code_lenses, inlay_hints
from runway_core.ide.navigation import definition_at, document_symbols
from runway_core.positions import LineIndex, Range
from runway_core.diagnostics import CODES
from runway_core.money import usd

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CATALOG = load_catalog()

#: (example folder, runway files relative to it that a mutation may hit)
PRODUCTS = {
    "orders": ["runway.yaml", "services/checkout/runway.yaml", "services/billing/runway.yaml"],
    "broken": ["runway.yaml", "services/checkout/runway.yaml", "services/misspelled/runway.yaml",
               "services/bom/runway.yaml", "services/alias-bomb/runway.yaml", "services/deep-nesting/runway.yaml",
               "services/custom-tag/runway.yaml", "services/two-documents/runway.yaml"],
}
SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large])


def read_example(folder: str, rel: str) -> str:
    return (EXAMPLES / folder / rel).read_text(encoding="utf-8")


# --------------------------------------------------------------------------------------
# Bounds
# --------------------------------------------------------------------------------------


def in_bounds(text: str, rng, what: object = "") -> None:
    """A code-point range inside ``text`` (LSP lines: \\n, \\r\\n, \\r), start <= end."""
    li = LineIndex(text)
    for p in (rng.start, rng.end):
        assert 0 <= p.line < li.line_count, what
        assert 0 <= p.character <= len(li.line_text(p.line)), what
    assert (rng.start.line, rng.start.character) <= (rng.end.line, rng.end.character), what


def in_bounds_utf16(text: str, start: tuple[int, int], end: tuple[int, int], what: object = "") -> None:
    """A (line, UTF-16 unit) range inside ``text``."""
    li = LineIndex(text)
    for line, char in (start, end):
        assert 0 <= line < li.line_count, what
        units = len(li.line_text(line).encode("utf-16-le")) // 2
        assert 0 <= char <= units, what
    assert start <= end, what


def check_analysis(an, texts: dict[str, str]) -> None:
    """Every diagnostic of ``an`` in bounds of its file's text; every code documented."""
    for file, diags in an.diagnostics.items():
        text = texts.get(file)
        for d in diags:
            assert d.code in CODES, d
            if text is not None:
                in_bounds(text, d.range, d)
            else:  # a file that could not be read: its diagnostics sit at 0:0
                assert (d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character) == (0, 0, 0, 0), d


def exercise_features(an, path: str, text: str, at: int) -> None:
    """Every core editor feature at one position: no exception, ranges in bounds."""
    li = LineIndex(text)
    pos = li.position(at % (len(text) + 1))
    h = hover_at(an, path, pos)
    if h is not None:
        in_bounds(text, h.range, "hover")
    completions_at(an, path, pos)
    for loc in definition_at(an, path, pos):
        if loc.file == path:
            in_bounds(text, loc.range, "definition")
    for sym in document_symbols(an, path):
        in_bounds(text, sym.range, "symbol")
        in_bounds(text, sym.selection_range, "symbol")
    for fix in fixes_for(an, path, an.diagnostics.get(path, [])):
        for edit in fix.edits.get(path, ()):
            in_bounds(text, edit.range, "fix")
    for lens in code_lenses(an, path):
        in_bounds(text, lens.range, "lens")
    for hint in inlay_hints(an, path):
        in_bounds(text, Range(hint.position, hint.position), "inlay hint")


# --------------------------------------------------------------------------------------
# Any text
# --------------------------------------------------------------------------------------

#: Fragments that make random text look like YAML (and like the faults of public bug reports).
TOKENS = [
    "runway: 1\n", "product: shop\n", "members: [", "]", "{", "}", "- ", ": ", "\n", "\r\n", "\r", "\t", "  ", "    ",
    "&a ", "*a", "<<: ", "!Ref ", "!!set ", "? ", "---\n", "...\n", "#", "'", '"', "|\n", ">-\n", "~", "null", "on", "no",
    "0755", "1e3", "-0.0", ".inf", "😀", "é", "\u2028", "\x85", "\ufeff", "\x00", "resources:\n", "workloads:\n",
    "environments:\n", "  dev:\n", "    limits: { monthly: ", "kind: postgres\n", "size: {dev: large}\n", "env: {A: ",
    "secrets: [A, A]\n", "uses: [main-db, main-db]\n", "scale: ", "image: x@sha256:", "services/../../etc",
]
any_text = st.one_of(
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=400),
    st.lists(st.one_of(st.sampled_from(TOKENS), st.text(max_size=8)), max_size=80).map("".join),
)


@settings(max_examples=1000, **SETTINGS)
@given(text=any_text, at=st.integers(min_value=0, max_value=10_000))
def test_any_text_is_analysed_without_exception_and_every_range_is_inside(text, at):
    root = "/nonexistent-runway-product/runway.yaml"

    def read(path: str) -> str:
        if path == root:
            return text
        raise FileNotFoundError(2, "No such file or directory", path)

    an = analyze(root, CATALOG, read=read)
    check_analysis(an, {root: text})
    exercise_features(an, root, text, at)


# --------------------------------------------------------------------------------------
# Mutations of the examples
# --------------------------------------------------------------------------------------

FRAGMENTS = ["😀", "𝔘", "\U0001F9EA", "\t", ":", "- ", "[", "]", "{", "}", "'", '"', "&a ", "*a", "\n", "\r", "\r\n", "\u2028",
             "#", "~", "é", "\x00", "!Ref ", "<<: *a", "---\n", " ", "    ", "\ufeff"]
OPS = ["delete", "insert", "insert_line", "dup_line", "del_line", "swap_indent", "indent", "dedent", "crlf", "lone_cr", "tab", "non_bmp_line"]
mutation = st.tuples(st.sampled_from(OPS), st.integers(min_value=0, max_value=1 << 20), st.integers(min_value=0, max_value=1 << 20),
                     st.sampled_from(FRAGMENTS))


def mutate(text: str, muts) -> str:
    for op, a, b, frag in muts:
        lines = text.split("\n")
        i = a % (len(text) + 1)
        la, lb = a % len(lines), b % len(lines)
        if op == "delete":
            text = text[:i] + text[i + 1 + b % 7:]
        elif op == "insert":
            text = text[:i] + frag + text[i:]
        elif op == "insert_line":
            lines.insert(la, frag * (1 + b % 3))
            text = "\n".join(lines)
        elif op == "dup_line":
            lines.insert(la, lines[lb])
            text = "\n".join(lines)
        elif op == "del_line":
            del lines[la]
            text = "\n".join(lines)
        elif op == "swap_indent":
            ia = len(lines[la]) - len(lines[la].lstrip(" \t"))
            ib = len(lines[lb]) - len(lines[lb].lstrip(" \t"))
            lines[la], lines[lb] = lines[lb][:ib] + lines[la][ia:], lines[la][:ia] + lines[lb][ib:]
            text = "\n".join(lines)
        elif op == "indent":
            lines[la] = " " * (1 + b % 4) + lines[la]
            text = "\n".join(lines)
        elif op == "dedent":
            lines[la] = lines[la][1 + b % 4:]
            text = "\n".join(lines)
        elif op == "crlf":
            text = text.replace("\n", "\r\n")
        elif op == "lone_cr":
            text = text.replace("\n", "\r", 1 + b % 5)
        elif op == "tab":
            lines[la] = "\t" + lines[la].lstrip(" ")
            text = "\n".join(lines)
        elif op == "non_bmp_line":
            lines[la] = lines[la].replace(" ", " 😀", 1) if " " in lines[la] else "😀" + lines[la]
            text = "\n".join(lines)
    return text


def mutated_product(folder: str, choices, muts) -> dict[str, str]:
    """Absolute path -> text of every runway file of the example, the chosen ones mutated."""
    texts = {str(EXAMPLES / folder / rel): read_example(folder, rel) for rel in PRODUCTS[folder]}
    for idx in choices:
        path = str(EXAMPLES / folder / PRODUCTS[folder][idx % len(PRODUCTS[folder])])
        texts[path] = mutate(texts[path], muts)
    return texts


def analyse_texts(folder: str, texts: dict[str, str]):
    def read(path: str) -> str:
        p = os.path.abspath(path)
        if p in texts:
            return texts[p]
        raise FileNotFoundError(2, "No such file or directory", p)

    return analyze(str(EXAMPLES / folder / "runway.yaml"), CATALOG, read=read)


@settings(max_examples=600, **SETTINGS)
@given(folder=st.sampled_from(sorted(PRODUCTS)), choices=st.lists(st.integers(min_value=0, max_value=50), min_size=1, max_size=3),
       muts=st.lists(mutation, min_size=1, max_size=6), at=st.integers(min_value=0, max_value=1 << 20))
def test_mutated_examples_are_analysed_without_exception_and_every_range_is_inside(folder, choices, muts, at):
    texts = mutated_product(folder, choices, muts)
    an = analyse_texts(folder, texts)
    check_analysis(an, texts)
    path = str(EXAMPLES / folder / PRODUCTS[folder][choices[0] % len(PRODUCTS[folder])])
    if path in an.files:
        exercise_features(an, path, texts[path], at)
    # The CLI's JSON (UTF-16) of the same analysis: every range inside its file.
    for d in an.all_diagnostics():
        doc = diagnostic_json(d, an, str(EXAMPLES / folder))
        text = texts.get(d.file, "")
        r = doc["range"]
        in_bounds_utf16(text, (r["start"]["line"], r["start"]["character"]), (r["end"]["line"], r["end"]["character"]), doc)


@pytest.fixture(scope="module")
def workspace():
    """A private, writable copy of both examples (one per module: hypothesis rewrites it)."""
    d = tempfile.mkdtemp(prefix="runway-reliability-")
    for folder in PRODUCTS:
        shutil.copytree(EXAMPLES / folder, Path(d) / folder)
    yield Path(d)
    shutil.rmtree(d, ignore_errors=True)


@settings(max_examples=150, **SETTINGS)
@given(folder=st.sampled_from(sorted(PRODUCTS)), choices=st.lists(st.integers(min_value=0, max_value=50), min_size=1, max_size=2),
       muts=st.lists(mutation, min_size=1, max_size=5))
def test_cli_json_and_sarif_ranges_of_mutated_examples_are_inside_their_files(workspace, folder, choices, muts):
    base = workspace / folder
    texts = mutated_product(folder, choices, muts)
    on_disk: dict[str, str] = {}
    for path, text in texts.items():
        rel = os.path.relpath(path, EXAMPLES / folder)
        target = base / rel
        target.write_bytes(text.encode("utf-8", "surrogatepass"))
        on_disk[Path(rel).as_posix()] = text
    def text_of(rel: str) -> str:
        if rel not in on_disk:
            on_disk[rel] = (base / rel).read_bytes().decode("utf-8", "replace")
        return on_disk[rel]

    try:
        for fmt in ("json", "sarif"):
            out, err = io.StringIO(), io.StringIO()
            rc = main(["check", str(base), "--format", fmt], stdout=out, stderr=err, environ={})
            assert rc in (0, 1), err.getvalue()
            doc = json.loads(out.getvalue())
            if fmt == "json":
                for d in doc["diagnostics"]:
                    r = d["range"]
                    in_bounds_utf16(text_of(d["file"]), (r["start"]["line"], r["start"]["character"]), (r["end"]["line"], r["end"]["character"]), d)
            else:
                for res in doc["runs"][0]["results"]:
                    loc = res["locations"][0]["physicalLocation"]
                    reg = loc["region"]
                    # SARIF is 1-based with an exclusive end column.
                    in_bounds_utf16(text_of(loc["artifactLocation"]["uri"]), (reg["startLine"] - 1, reg["startColumn"] - 1),
                                    (reg["endLine"] - 1, reg["endColumn"] - 1), res)
    finally:
        for rel in PRODUCTS[folder]:
            shutil.copyfile(EXAMPLES / folder / rel, base / rel)


# --------------------------------------------------------------------------------------
# Regressions from the fresh-user run
# --------------------------------------------------------------------------------------


def analyse_one(text: str):
    root = "/nonexistent-runway-product/runway.yaml"
    an = analyze(root, CATALOG, read=lambda p: text if p == root else (_ for _ in ()).throw(FileNotFoundError(2, "x", p)))
    return an, root


WORKLOAD = """runway: 1
product: shop
resources:
  main-db:
    kind: postgres
workloads:
  api:
    image: registry.example.com/api@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
    port: 8080
    health: { path: /health }
    reason: "no-managed-fit: x"
    uses: [main-db]
"""


def test_every_bad_entry_of_a_map_is_reported_at_its_own_value():
    text = WORKLOAD + "    env: { 1: x, B: [1], C: {d: 1}, D: null }\n    scale: { dev: 1.5, staging: -1, production: 100000 }\n"
    an, root = analyse_one(text)
    rw100 = [d for d in an.diagnostics[root] if d.code == "RW100"]
    assert [d.message.split(":")[0] for d in rw100] == [
        "workloads.api.env.B", "workloads.api.env.C", "workloads.api.env.D",
        "workloads.api.scale.dev", "workloads.api.scale.staging", "workloads.api.scale.production",
    ]
    lines = text.splitlines()
    got = [lines[d.range.start.line][d.range.start.character:d.range.end.character] for d in rw100]
    assert got == ["[1]", "{d: 1}", "null", "1.5", "-1", "100000"]


def test_a_wrong_value_spanning_3000_lines_is_reported_on_one_line():
    text = "runway: 1\nproduct: shop\nmembers:\n" + "".join(f"  k{i}: v\n" for i in range(3000))
    an, root = analyse_one(text)
    (d,) = [d for d in an.diagnostics[root] if d.code == "RW100"]
    assert (d.range.start.line, d.range.end.line) == (2, 2) and text.splitlines()[2][d.range.start.character:d.range.end.character] == "members"
    text = "runway: 1\nproduct: shop\nmembers:\n  - services/a\n  -\n" + "".join(f"    - b{i}\n" for i in range(3000))
    an, root = analyse_one(text)
    (d,) = [d for d in an.diagnostics[root] if d.code == "RW100"]
    assert d.range.start.line == d.range.end.line == 5  # the first line of the list item (`- b0`)


def test_a_merge_key_fault_is_reported_at_the_merge_key_not_at_the_anchor():
    text = "runway: 1\nproduct: shop\nx-base: &base [1, 2]\nresources:\n  db:\n    <<: *base\n    kind: postgres\n  q:\n    <<: [*base, {kind: queue}]\n"
    an, root = analyse_one(text)
    merges = [d for d in an.diagnostics[root] if d.code == "RW100" and "merge key" in d.message]
    assert [(d.range.start.line, d.range.start.character) for d in merges] == [(5, 4), (8, 4)]
    assert all("*base is not a mapping" in d.message for d in merges)


def test_duplicates_env_and_secrets_and_secret_looking_values_are_warnings():
    text = WORKLOAD.replace("    uses: [main-db]\n", "    uses: [main-db, main-db]\n") + (
        "    env: { A: x, API_TOKEN: tok-3f9a8b7c6d5e, ID: AKIAIOSFODNN7EXAMPLE }\n    secrets: [A, B, B]\n")
    an, root = analyse_one(text)
    got = sorted((d.code, d.severity.label) for d in an.diagnostics[root] if d.code in ("RW145", "RW146", "RW147"))
    assert got == [("RW145", "warning"), ("RW145", "warning"), ("RW146", "warning"), ("RW147", "warning"), ("RW147", "warning")]
    for d in an.diagnostics[root]:
        assert "tok-3f9a8b7c6d5e" not in d.message and "AKIAIOSFODNN7EXAMPLE" not in d.message
        assert "AKIAIOSFODNN7EXAMPLE" not in json.dumps(d.data or {})


def test_a_cap_of_negative_zero_is_zero_dollars():
    from decimal import Decimal

    assert usd(Decimal("-0.0")) == "$0.00" and usd(Decimal("-0.001")) == "$0.00"
    text = WORKLOAD + "environments:\n  dev:\n    limits: { monthly: -0.0 }\n"
    an, root = analyse_one(text)
    assert an.plans["dev"].cap == 0 and not an.plans["dev"].cap.is_signed()
    assert "$-0" not in " ".join(d.message for d in an.diagnostics[root])


def test_secret_shapes_run_in_linear_time_on_hostile_text():
    """redact() sees every diagnostic message (a hostile file quotes 1 MB values): each shape
    must be linear. Run in a child process: a quadratic pattern hangs it (the timeout is a hang
    guard, not a timing assertion; each text takes about 0.1 s)."""
    import subprocess
    import sys

    code = (
        "from runway_core.text import redact, secret_shape\n"
        "N = 1_000_000\n"
        "for t in ['a' * N, 'a://' * (N // 4), 'a://' + 'b:' * (N // 2), '-eyJ' * (N // 4), 'eyJaaaaaaaa.' * (N // 12),\n"
        "          '-----BEGIN ' + 'A' * N, 'xoxb-' * (N // 5), 'sk_live_' * (N // 8), 'AIza' * (N // 4), 'ghp_' + 'a' * N,\n"
        # issue 16: the shapes added for private-key bodies, AWS secret keys, connection strings,
        # GitLab / npm / SendGrid / OpenAI tokens and Basic auth
        "          '-----BEGIN PRIVATE KEY-----' + ' \\n' * (N // 2), '-----BEGIN PRIVATE KEY-----' * (N // 27),\n"
        "          'Basic ' * (N // 6), 'Basic aB' * (N // 8), 'password=' * (N // 9), 'sk-' + 'a' * N, 'SG.' * (N // 3),\n"
        "          'glpat-' * (N // 6), 'npm_' * (N // 4), 'aws_secret_access_key=' * (N // 22), 'aB3+' * (N // 4), ' ' * N,\n"
        # round 2: URL userinfo with `/` and an empty user, registry credentials without a
        # scheme, Bearer, the vendor families, glued prefixes
        "          'a://' + 'b/' * (N // 2), 'a://:' + 'b/' * (N // 2), 'a://' * (N // 8) + '@', 'a:' * (N // 2) + '@x.y',\n"
        "          ' a:b' * (N // 4) + '@', '`a:' * (N // 3) + '@x.y', 'Bearer ' * (N // 7), 'Bearer aB' * (N // 9),\n"
        "          'Bearer ' + 'aB-' * (N // 3), 'pul-' * (N // 4), 'st.' * (N // 3), 'hvs.' * (N // 4), 'xoxe.' * (N // 5),\n"
        "          'AccountKey=' * (N // 11), 'hooks.slack.com/services/' * (N // 25), 'ghp_' * (N // 4), 'AKIA' * (N // 4),\n"
        "          '=' + 'aB3+' * (N // 4), 'x=' * (N // 2), 'a:b@' * (N // 4), 'a://b:c@' * (N // 8), 'password:' * (N // 9), 'password: a' * (N // 11),\n"
        # round 3: URL passwords with spaces, token-shaped names as injected variable names
        "          'a://b:' + 'c ' * (N // 2), 'a://b:' + 'c@ ' * (N // 3), 'a://b:c d@' * (N // 10), ('a://b:' + 'c ' * 20) * (N // 46),\n"
        "          'a://b:' + ('c' * 255 + ' ') * (N // 256), 'GLPAT_' * (N // 6), 'GLPAT_' + 'A' * N, 'GLPAT_' + '_URLX' * (N // 5),\n"
        "          'SK_' * (N // 3), 'SK_' + 'A_' * (N // 2), 'XOXB_' * (N // 5), 'DAPI' * (N // 4), 'PUL_' * (N // 4),\n"
        # round 3: a key glued to a character beside a word that names a key
        "          ('key xwJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY ' * (N // 46)), 'key ' + 'aB3+' * (N // 4),\n"
        "          ('aB3+' * 11 + ' ') * (N // 45), ('aB3+' * 11 + '\\n') * (N // 45), 'key ' + ('aB3+' * 10 + 'x ') * (N // 42),\n"
        # round 4 (issue 23): a token in a URL's query string
        "          '?token=' * (N // 7), '?' * N, '&' + 'a' * N, ('&' + 'a-' * 20) * (N // 41), '?sig=' + 'a' * N, '&key=' * (N // 5)]:\n"
        "    redact(t); secret_shape('X_TOKEN', t)\n"
        "print('ok')\n"
    )
    # 300 s: about 100 texts of 1 MB, ~0.5 s each on a quiet machine, 2-3x that under load
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.stdout.strip() == "ok", done.stderr[-2000:]
